/*
 * progress.c: the progress line (progress.h).
 */
#include "progress.h"

#include <time.h>
#include <unistd.h>

double md_progress_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

void md_progress_init(md_progress *p, int mode, FILE *out, double interval, long first,
                      long last, double now)
{
    p->on = mode > 0 || (mode < 0 && isatty(fileno(out)));
    p->interval = interval > 0 ? interval : 5.0;
    p->first = first;
    p->last = last;
    p->t0 = now;
    p->t_next = now + p->interval;
    p->lines = 0;
    p->out = out;
}

static void format_seconds(double s, char *buf, size_t size)
{
    if (s < 100)
        snprintf(buf, size, "%.1f s", s);
    else if (s < 6000)
        snprintf(buf, size, "%.1f min", s / 60);
    else
        snprintf(buf, size, "%.1f h", s / 3600);
}

void md_progress_format(const md_progress *p, long step, double now, char *buf, size_t size)
{
    long total = p->last - p->first, done = step - p->first;
    double el = now - p->t0;
    double rate = el > 0 ? (double)done / el : 0;
    double pct = total > 0 ? 100.0 * (double)done / (double)total : 100.0;
    char eta[32];
    if (rate > 0)
        format_seconds((double)(p->last - step) / rate, eta, sizeof eta);
    else
        snprintf(eta, sizeof eta, "unknown");
    snprintf(buf, size, "shmemu-md: step %ld/%ld (%.1f%%), %.4g steps/s, ETA %s", step,
             p->last, pct, rate, eta);
}

bool md_progress_update(md_progress *p, long step, double now)
{
    if (!p->on || now < p->t_next || step >= p->last)
        return false;
    char line[160];
    md_progress_format(p, step, now, line, sizeof line);
    fprintf(p->out, "%s\n", line);
    fflush(p->out);
    p->t_next = now + p->interval;
    p->lines++;
    return true;
}
