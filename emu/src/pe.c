/*
 * pe.c: the top of emu/src's layers (docs/design.md "Layering"): emu.h's options and records
 * of a PE's device, thin entry points into the files that own them: the residency limit and
 * the count of blocks waiting for an SM (sm_pool.c), timing, the block records and their
 * trace (trace.c). Each finds the calling PE's device through stream.c, which makes it on
 * the PE's first CUDA call, with its default stream, as every other host call does; the
 * device itself (its settings, who owns it, its end) is current.c's.
 */
#include "internal.h"

void emu_set_sm_limit(int sms)
{
    emu_pe *pe = emu_stream_device("emu_set_sm_limit");
    if (sms < 0 || sms > EMU_MAX_SMS) {
        emu_complain("emu_set_sm_limit", "%d SMs requested; use 0 (no limit) to %d", sms,
                     EMU_MAX_SMS);
        return;
    }
    emu_sm_set_limit(pe, sms);
}

int emu_blocks_waiting_for_sm(void)
{
    return emu_sm_waiting(emu_stream_device("emu_blocks_waiting_for_sm"));
}

void emu_wait_blocks_waiting_for_sm(int n)
{
    emu_sm_wait_waiting(emu_stream_device("emu_wait_blocks_waiting_for_sm"), n);
}

void emu_set_timing(bool on)
{
    emu_pe *pe = emu_stream_device("emu_set_timing");
    pe->timing = on;
}

size_t emu_block_records(emu_block_record *out, size_t max)
{
    return emu_records_copy(emu_stream_device("emu_block_records"), out, max);
}

int emu_trace_write(const char *path)
{
    return emu_trace_save(emu_stream_device("emu_trace_write"), path);
}
