/*
 * trace.c: block timing records and their Chrome trace-event JSON (opens in Perfetto).
 *
 * With timing on (emu_set_timing, SHMEMU_EMU_TRACE), each block notes when its pthread
 * started and ended the block and which SM slot it held. When a kernel has finished, its
 * stream thread pushes the kernel's records onto the PE's list (a lock-free push: no lock
 * that would order two streams for the checkers). The host reads the list after a
 * synchronize, which orders it after the push.
 *
 * The JSON has one process per PE ("PE p"), one track per stream and SM slot ("stream s,
 * SM m") holding the blocks of every launch that stream ran there (a stream runs its kernels
 * in order and a slot holds one block at a time, so a track never holds overlapping slices),
 * and one track per stream ("stream s (priority p)") with a slice per kernel (first block
 * start to last block end). The track count is bounded by streams x SM slots, not by the
 * number of launches. The file is written to PATH.tmp.<pid>.<pe> and renamed, so a reader
 * never sees half a trace.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "internal.h"

void emu_records_add(emu_pe *pe, emu_launch_rec *L)
{
    emu_record_chunk *c =
        malloc(sizeof *c + (size_t)L->n_blocks * sizeof(emu_block_record));
    if (c == NULL) {
        fprintf(stderr, "shmemu: out of memory for block records\n");
        exit(2);
    }
    c->n = (size_t)L->n_blocks;
    for (int i = 0; i < L->n_blocks; i++) {
        const emu_block *b = &L->blocks[i];
        c->records[i] = (emu_block_record){L->kernel->name, L->id, L->stream->id,
                                           L->stream->priority, b->idx, b->sm, b->admitted,
                                           b->start_ns, b->end_ns};
    }
    emu_record_chunk *head = atomic_load_explicit(&pe->records, memory_order_relaxed);
    do {
        c->next = head;
    } while (!atomic_compare_exchange_weak_explicit(&pe->records, &head, c,
                                                    memory_order_relaxed,
                                                    memory_order_relaxed));
}

static int by_admission(const void *a, const void *b)
{
    const emu_block_record *x = a, *y = b;
    return x->admitted < y->admitted ? -1 : x->admitted > y->admitted;
}

/* All of this PE's records, sorted by admission; *n is their count. */
static emu_block_record *collect(emu_pe *pe, size_t *n)
{
    size_t total = 0;
    for (emu_record_chunk *c = atomic_load(&pe->records); c != NULL; c = c->next)
        total += c->n;
    emu_block_record *all = malloc((total ? total : 1) * sizeof *all);
    if (all == NULL) {
        fprintf(stderr, "shmemu: out of memory reading block records\n");
        exit(2);
    }
    size_t k = 0;
    for (emu_record_chunk *c = atomic_load(&pe->records); c != NULL; c = c->next)
        for (size_t i = 0; i < c->n; i++)
            all[k++] = c->records[i];
    qsort(all, total, sizeof *all, by_admission);
    *n = total;
    return all;
}

size_t emu_records_copy(emu_pe *pe, emu_block_record *out, size_t max)
{
    size_t n = 0;
    emu_block_record *all = collect(pe, &n);
    for (size_t i = 0; i < n && i < max; i++)
        out[i] = all[i];
    free(all);
    return n;
}

static double us(uint64_t ns, uint64_t origin) { return (double)(ns - origin) * 1e-3; }

/* Track ids: 1 + s for stream s's kernel track, EMU_TRACK_SM_BASE + s * EMU_MAX_SMS + m for
 * the blocks stream s ran on SM slot m. */
#define EMU_TRACK_SM_BASE 1000000L

static long sm_track(const emu_block_record *b)
{
    return EMU_TRACK_SM_BASE + (long)b->stream * EMU_MAX_SMS + b->sm;
}

/* Adds id to the set (a small array: tracks number streams x SMs, not launches); returns
 * true when it was new. Exits on out of memory. */
static bool track_new(long **ids, size_t *n, size_t *cap, long id)
{
    for (size_t i = 0; i < *n; i++)
        if ((*ids)[i] == id)
            return false;
    if (*n == *cap) {
        size_t c = *cap ? *cap * 2 : 64;
        long *grown = realloc(*ids, c * sizeof *grown);
        if (grown == NULL) {
            fprintf(stderr, "shmemu: out of memory writing the trace\n");
            exit(2);
        }
        *ids = grown;
        *cap = c;
    }
    (*ids)[(*n)++] = id;
    return true;
}

/* One launch's extent: its first block's start to its last block's end. */
typedef struct launch_span {
    uint64_t start, end;
    const emu_block_record *first;
} launch_span;

int emu_trace_save(emu_pe *pe, const char *path)
{
    size_t n = 0;
    emu_block_record *r = collect(pe, &n);
    unsigned max_launch = 0;
    for (size_t i = 0; i < n; i++)
        if (r[i].launch > max_launch)
            max_launch = r[i].launch;
    launch_span *spans = calloc((size_t)max_launch + 1, sizeof *spans);
    long *tracks = NULL;
    size_t n_tracks = 0, cap_tracks = 0;
    char tmp[700];
    snprintf(tmp, sizeof tmp, "%s.tmp.%ld.%d", path, (long)getpid(), pe->pe);
    FILE *f = spans != NULL ? fopen(tmp, "w") : NULL;
    if (f == NULL) {
        free(spans);
        free(r);
        return -1;
    }
    /* Timestamps are CLOCK_MONOTONIC microseconds, the same clock on every PE, so the
     * files of several PEs line up when loaded together. */
    const uint64_t origin = 0;
    int p = pe->pe;
    fprintf(f, "{\"displayTimeUnit\":\"ns\",\"traceEvents\":[\n");
    fprintf(f, "{\"name\":\"process_name\",\"ph\":\"M\",\"pid\":%d,\"args\":{\"name\":\"PE %d\"}}",
            p, p);
    for (size_t i = 0; i < n; i++) {
        const emu_block_record *b = &r[i];
        launch_span *L = &spans[b->launch];
        if (L->first == NULL || b->start_ns < L->start)
            L->start = b->start_ns;
        if (L->first == NULL || b->end_ns > L->end)
            L->end = b->end_ns;
        if (L->first == NULL)
            L->first = b;
        /* A stream runs its kernels one after another and an SM slot holds one block at a
         * time, so the slices of a (stream, SM) track never overlap. */
        long tid = sm_track(b);
        if (track_new(&tracks, &n_tracks, &cap_tracks, tid))
            fprintf(f, ",\n{\"name\":\"thread_name\",\"ph\":\"M\",\"pid\":%d,\"tid\":%ld,"
                       "\"args\":{\"name\":\"stream %d, SM %d\"}}",
                    p, tid, b->stream, b->sm);
        fprintf(f, ",\n{\"name\":\"%s block (%u,%u,%u)\",\"cat\":\"block\",\"ph\":\"X\","
                   "\"pid\":%d,\"tid\":%ld,\"ts\":%.3f,\"dur\":%.3f,\"args\":{\"kernel\":\"%s\","
                   "\"block\":[%u,%u,%u],\"sm\":%d,\"stream\":%d,\"priority\":%d,\"launch\":%u,"
                   "\"admitted\":%llu}}",
                b->kernel, b->block.x, b->block.y, b->block.z, p, tid, us(b->start_ns, origin),
                us(b->end_ns, b->start_ns), b->kernel, b->block.x, b->block.y, b->block.z,
                b->sm, b->stream, b->priority, b->launch, (unsigned long long)b->admitted);
    }
    /* one slice per kernel on its stream's track */
    for (unsigned k = 1; k <= max_launch; k++) {
        const launch_span *L = &spans[k];
        if (L->first == NULL)
            continue;
        long tid = 1 + L->first->stream;
        if (track_new(&tracks, &n_tracks, &cap_tracks, tid))
            fprintf(f, ",\n{\"name\":\"thread_name\",\"ph\":\"M\",\"pid\":%d,\"tid\":%ld,"
                       "\"args\":{\"name\":\"stream %d (priority %d)\"}}",
                    p, tid, L->first->stream, L->first->priority);
        fprintf(f, ",\n{\"name\":\"%s #%u\",\"cat\":\"kernel\",\"ph\":\"X\",\"pid\":%d,"
                   "\"tid\":%ld,\"ts\":%.3f,\"dur\":%.3f}",
                L->first->kernel, k, p, tid, us(L->start, origin), us(L->end, L->start));
    }
    fprintf(f, "\n]}\n");
    free(tracks);
    free(spans);
    free(r);
    if (fclose(f) != 0 || rename(tmp, path) != 0) {
        unlink(tmp);
        return -1;
    }
    return 0;
}

void emu_trace_end(emu_pe *pe)
{
    if (pe->trace_path[0] != '\0') {
        char path[600];
        const char *pct = strstr(pe->trace_path, "%d");
        if (pct != NULL)
            snprintf(path, sizeof path, "%.*s%d%s", (int)(pct - pe->trace_path), pe->trace_path,
                     pe->pe, pct + 2);
        else
            snprintf(path, sizeof path, "%s.%d", pe->trace_path, pe->pe);
        if (emu_trace_save(pe, path) != 0)
            fprintf(stderr, "shmemu: PE %d: could not write the trace %s\n", pe->pe, path);
    }
    emu_record_chunk *c = atomic_load(&pe->records);
    while (c != NULL) {
        emu_record_chunk *next = c->next;
        free(c);
        c = next;
    }
}
