/*
 * weak.h: the deterministic scheduler's weak-memory mode (SHMEMU_MEMORY=weak; docs/sched.md,
 * "Weak memory").
 *
 * Model: every entity (a PE's host thread, an emulated block, a stream thread) has a store
 * buffer. Its plain stores to the symmetric heap (the program's stores, and every runtime
 * write that is not a synchronizing one) go there, not to memory that other entities see: the
 * entity itself reads them (store forwarding), nobody else does until they are *published*.
 * Publication happens
 *   - at each of the entity's releases (every happens-before edge the runtime declares for
 *     the race checkers, pgas_hb_before: a release store or RMW at gpu or sys scope, a fence
 *     followed by a relaxed store, a signal update, a barrier, a stream operation, an event),
 *     and when it creates a thread or exits: all of its buffer, before the release's write;
 *   - at any scheduling decision, entry by entry, each with probability 1/SHMEMU_WEAK_DRAIN
 *     (default 4), drawn from the schedule's seed: late and out of order.
 * Synchronizing writes (atomics, dialect stores, signal updates, put delivery: everything the
 * runtime reports through pgas_wake) go to memory at once, in the scheduler's total order.
 *
 * How: only one entity runs at a time, so memory can hold "what the running entity sees".
 * At each hand-off the scheduler (pgas_weak_switch) takes the stores of the entity that ran out
 * of memory (the heap is write-protected at the start of a turn; the first store to a page
 * faults, the page is copied, and the difference at the end of the turn is the turn's stores),
 * puts back the values everyone sees, publishes some buffered entries, and puts the next
 * entity's own buffered values into memory. A store of the value a location already held is
 * not seen (no difference): it changes nothing any entity could read.
 *
 * Everything here runs on the thread that holds the turn (or hands it over), so the state
 * needs no locks; it is never touched outside deterministic mode.
 */
#ifndef PGAS_WEAK_H
#define PGAS_WEAK_H

#include "internal.h"

struct pgas_sched;

/* Turns the mode on for the job of s when SHMEMU_MEMORY=weak (exits 2 with a message when the
 * job cannot have it: another backend, valgrind). Called by pgas_sched_create. */
void pgas_weak_create(struct pgas_sched *s);
/* Prints the report of stores seen late (if any), removes the protection and frees. */
void pgas_weak_destroy(struct pgas_sched *s);

/* The hand-off from slot `from` (-1: none) to slot `to`, on the thread handing it over. */
void pgas_weak_switch(struct pgas_sched *s, int from, int to);

/* The calling entity releases: its buffered stores are published now, to its own PE's
 * entities at gpu scope (gpu_scope), else to every entity, with what its PE published at gpu
 * scope before (a system-scope release is cumulative). */
void pgas_weak_release(pgas_thread *t, bool gpu_scope);
/* True when the calling entity may have stores to publish (its buffer, or pages it stored to
 * in this turn). */
bool pgas_weak_has_stores(pgas_thread *t);
/* The calling entity acquires (or joined a thread): what its PE published at gpu scope so
 * far happens before its later system-scope releases, which publish it to every PE. */
void pgas_weak_acquire(pgas_thread *t);
/* The calling entity blocks in a wait on the word at addr, whose condition it found false:
 * its stale view of that word, if any, is dropped (a waiter is woken only by writes, and the
 * write it waits for may be the one it did not see yet). True when there was one: the wait
 * must be evaluated again. */
bool pgas_weak_wait_word(pgas_thread *t, const volatile void *addr);
/* A synchronizing write by the calling entity to [addr, addr + bytes) went to memory: it is
 * not a buffered store. `signal`: a write others wait for (a sync point), which the report of
 * late stores can name. */
void pgas_weak_strong_write(pgas_thread *t, const volatile void *addr, size_t bytes,
                            bool signal);
/* The calling entity's synchronizing load (a dialect load, a satisfied wait) read addr: noted
 * for the report when the word's writer still buffers stores it made before writing it. */
void pgas_weak_observe(pgas_thread *t, const volatile void *addr);

#endif
