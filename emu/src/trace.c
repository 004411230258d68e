/*
 * trace.c: block timing records and their Chrome trace-event JSON (opens in Perfetto).
 *
 * With timing on (emu_set_timing, SHMEMU_EMU_TRACE), each block notes when its pthread
 * started and ended the block and which SM slot it held. When a kernel has finished, its
 * stream thread pushes the kernel's records onto the PE's list (a lock-free push: no lock
 * that would order two streams for the checkers). The host reads the list after a
 * synchronize, which orders it after the push.
 *
 * The JSON has one process per PE ("PE p"), and per kernel launch one track per SM slot it
 * used ("stream s: kernel K #n, SM m"), so that a track never holds overlapping slices, plus
 * one track per stream with a slice per kernel (first block start to last block end). The
 * file is written to PATH.tmp.<pid> and renamed, so a reader never sees half a trace.
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

void emu_set_timing(bool on)
{
    emu_pe *pe = emu_pe_get("emu_set_timing");
    pe->timing = on;
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

size_t emu_block_records(emu_block_record *out, size_t max)
{
    emu_pe *pe = emu_pe_get("emu_block_records");
    size_t n = 0;
    emu_block_record *all = collect(pe, &n);
    for (size_t i = 0; i < n && i < max; i++)
        out[i] = all[i];
    free(all);
    return n;
}

static double us(uint64_t ns, uint64_t origin) { return (double)(ns - origin) * 1e-3; }

int emu_trace_write(const char *path)
{
    emu_pe *pe = emu_pe_get("emu_trace_write");
    size_t n = 0;
    emu_block_record *r = collect(pe, &n);
    char tmp[700];
    snprintf(tmp, sizeof tmp, "%s.tmp.%ld.%d", path, (long)getpid(), pe->pe);
    FILE *f = fopen(tmp, "w");
    if (f == NULL) {
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
        long tid = 1000000L + (long)b->launch * 4096L + b->sm;
        bool first_of_track = true;
        for (size_t j = 0; j < i; j++)
            if (r[j].launch == b->launch && r[j].sm == b->sm)
                first_of_track = false;
        if (first_of_track)
            fprintf(f, ",\n{\"name\":\"thread_name\",\"ph\":\"M\",\"pid\":%d,\"tid\":%ld,"
                       "\"args\":{\"name\":\"stream %d: kernel %s #%u, SM %d\"}}",
                    p, tid, b->stream, b->kernel, b->launch, b->sm);
        fprintf(f, ",\n{\"name\":\"%s block (%u,%u,%u)\",\"cat\":\"block\",\"ph\":\"X\","
                   "\"pid\":%d,\"tid\":%ld,\"ts\":%.3f,\"dur\":%.3f,\"args\":{\"block\":[%u,%u,"
                   "%u],\"sm\":%d,\"stream\":%d,\"priority\":%d,\"launch\":%u,\"admitted\":%llu}}",
                b->kernel, b->block.x, b->block.y, b->block.z, p, tid, us(b->start_ns, origin),
                us(b->end_ns, b->start_ns), b->block.x, b->block.y, b->block.z, b->sm,
                b->stream, b->priority, b->launch, (unsigned long long)b->admitted);
    }
    /* one slice per kernel on its stream's track */
    for (size_t i = 0; i < n; i++) {
        bool first = true;
        uint64_t start = r[i].start_ns, end = r[i].end_ns;
        for (size_t j = 0; j < n; j++) {
            if (r[j].launch != r[i].launch)
                continue;
            if (j < i)
                first = false;
            if (r[j].start_ns < start)
                start = r[j].start_ns;
            if (r[j].end_ns > end)
                end = r[j].end_ns;
        }
        if (!first)
            continue;
        fprintf(f, ",\n{\"name\":\"thread_name\",\"ph\":\"M\",\"pid\":%d,\"tid\":%d,"
                   "\"args\":{\"name\":\"stream %d (priority %d)\"}}",
                p, 1 + r[i].stream, r[i].stream, r[i].priority);
        fprintf(f, ",\n{\"name\":\"%s #%u\",\"cat\":\"kernel\",\"ph\":\"X\",\"pid\":%d,"
                   "\"tid\":%d,\"ts\":%.3f,\"dur\":%.3f}",
                r[i].kernel, r[i].launch, p, 1 + r[i].stream, us(start, origin),
                us(end, start));
    }
    fprintf(f, "\n]}\n");
    free(r);
    if (fclose(f) != 0 || rename(tmp, path) != 0) {
        unlink(tmp);
        return -1;
    }
    return 0;
}
