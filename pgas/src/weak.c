/*
 * weak.c: the weak-memory mode of the deterministic scheduler (weak.h; docs/sched.md, "Weak
 * memory"): per-entity store buffers over the symmetric heap, captured by page protection and
 * published late, out of order, at the schedule seed's choice, and always at a release.
 *
 * Memory between turns holds what every entity sees (the published values). A turn:
 *   begin (pgas_weak_switch, to):   the entity's buffered values go into memory (each entry
 *                                   remembers the word under it); the heap is read-only;
 *   a store to a read-only page:    the fault handler copies the page (its twin) and makes it
 *                                   writable;
 *   end (pgas_weak_switch, from):   every twinned page is compared with its twin and the
 *                                   differing bytes join the entity's buffer; the words under
 *                                   the buffer are put back;
 *   then:                           every buffered entry of every entity is published with
 *                                   probability 1/drain (its bytes written to memory).
 * A release in the middle of a turn compares the twins too, then drops the whole buffer: what
 * memory holds is published as it stands. A synchronizing write (pgas_weak_strong_write) is
 * copied into the page's twin, so no comparison takes it for a buffered store.
 *
 * The heap is made read-only once, at the first turn; after that only the pages a turn
 * wrote (twinned) and the pages the mode itself wrote (mem_store opens them) are made
 * read-only again at each hand-off, so that a hand-off costs in proportion to the pages
 * touched, not to the heap.
 *
 * Reads of old values (SHMEMU_WEAK_READS, on by default): a turn that begins with a stale
 * view makes the pages under that view unreadable (hide_stale_view); the first access of the
 * turn to each faults, the page is readable again, and a load that began on an old byte is
 * recorded (note_stale_read) for the report, with the load's and the newer store's lines.
 *
 * Entries are 8-byte words with a byte mask, so that two entities' stores to neighbouring
 * bytes of one word stay separate. The order of everything (pages by first fault, words by
 * address within a page, buffers by slot) depends only on the schedule, and the random draws
 * come from their own generator seeded by the schedule's seed: a weak run replays exactly.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <ucontext.h>
#include <unistd.h>

#include "backend.h"
#include "backend_threads.h"
#include "sched.h"
#include "weak.h"
#include "shmemu/env.h"
#include "shmemu/internal/checkers.h"

#define MAX_TWINS 8192   /* pages one turn can store to before its stores turn strong */
#define FLAG_NOTES 1024  /* the last signal writes, direct-mapped by word */
#define REPORT_MAX 4     /* late-store observations described in full */
#define HIDDEN_MAX 256   /* pages of a stale view made unreadable at a turn's start */
#define DEFAULT_DRAIN 4
#define UNSET UINT64_MAX

typedef struct entry {
    uintptr_t word;  /* 8-aligned */
    uint64_t value;  /* the entity's bytes (under mask) */
    uint64_t saved;  /* while applied: the word memory held before */
    uint64_t seq;    /* capture order (the last change) */
    uintptr_t pc;    /* the first store of its turn to its page */
    int origin;      /* the entity slot that stored it */
    uint8_t mask;
} entry;

/* An entry whose mask is 0 is dead: forget_bytes empties entries in place (compacting a
 * large buffer after every synchronizing write cost more than the rest of the mode) and the
 * buffer is compacted once half of it is dead. Every loop over a buffer skips dead entries,
 * find never returns one, and a store to the word appends a new entry, so the live entries
 * keep the order eager compaction would give them. */
typedef struct buffer {
    entry *e;
    uint32_t n, cap;
    uint32_t live; /* entries with a mask */
    uint32_t *index; /* open addressing: position + 1, 0 empty */
    uint32_t index_cap;
} buffer;

typedef struct dirty_page {
    uintptr_t page;
    char *twin;
    uintptr_t pc;
} dirty_page;

typedef struct flag_note {
    uintptr_t word;
    int slot;       /* who wrote it */
    uint64_t seq;   /* the writer's buffered stores up to this were made before it */
    uint64_t decision;
    uint64_t observed; /* the writer's observed mark when it wrote */
    const char *call;
} flag_note;

typedef struct late_report {
    char text[2048];
} late_report;

/* An old value read, recorded in the fault handler: plain data only (no formatting there);
 * the entities are named now, since their slots may hold other threads at the end. */
typedef struct stale_read {
    uintptr_t addr;      /* the byte the load began at */
    uint64_t seen, fresh; /* the word as the reader saw it, and as published */
    uint8_t mask;        /* the bytes of the word it still saw old */
    uintptr_t pc;        /* the load */
    uintptr_t store_pc;  /* the newer value's store (the first of its turn to the page) */
    uint64_t decision;
    char reader[160], writer[160];
    const char *call;    /* the runtime call the reader was in, if any */
} stale_read;

typedef struct pgas_weak {
    pgas_sched *s;
    char *lo;
    size_t len;
    size_t page;
    unsigned drain;
    bool stale_views; /* SHMEMU_WEAK_STALE (default on) */
    bool kernel_end_gpu; /* SHMEMU_WEAK_KERNEL_END=gpu: a stream's releases are gpu scope */
    uint64_t rng;
    uint64_t seq;
    /* per slot: the capture order when it last acquired (or started): what its PE published
     * at gpu scope up to there happens before its later releases (UNSET: not started) */
    uint64_t *observed;
    /* per entity slot: its store buffer; per PE: what its blocks published at gpu scope
     * (domain_of); per entity slot: its stale view (stale_of), the old bytes of stores that
     * became everyone's after its last acquire, which it may go on reading */
    buffer *bufs;
    int n_slots, n_pes, n_bufs;
    int *busy;    /* slots whose buffer is not empty, in the order they became so */
    int n_busy;
    dirty_page dirty[MAX_TWINS];
    int n_dirty;
    char *twins;
    /* The heap is read-only (armed, from the first turn on) except the pages stored to in
     * this turn (dirty, twinned) and the pages the mode opened for its own writes (open),
     * which it makes read-only again before the program runs on (close_open). */
    bool armed;
    bool rearm; /* a page past the twin limit was opened in the fault handler */
    uintptr_t *open;
    int n_open, cap_open;
    uint64_t overflow_pages;
    flag_note notes[FLAG_NOTES];
    uint64_t published_late, published_at_release, captured;
    uint64_t n_late;
    late_report reports[REPORT_MAX];
    /* Reads of old values: at the start of a turn whose entity has a stale view, the pages
     * of that view are made unreadable (hidden); the first access of the turn to each is a
     * fault that says whether the load began on an old byte, and opens the page. */
    bool watch_reads;    /* SHMEMU_WEAK_READS (default on) */
    uintptr_t hidden[HIDDEN_MAX];
    int n_hidden, hidden_slot;
    uint64_t n_stale_reads;
    stale_read stale_reads[REPORT_MAX];
    struct sigaction old_segv;
} pgas_weak;

/* The one weak job of the process (the fault handler's way to it). */
static pgas_weak *_Atomic active;

static uint64_t bytes_of(uint8_t mask)
{
    uint64_t m = 0;
    for (int i = 0; i < 8; i++)
        if (mask & (1u << i))
            m |= (uint64_t)0xff << (8 * i);
    return m;
}

static uint8_t mask_of(uint64_t differ)
{
    uint8_t m = 0;
    for (int i = 0; i < 8; i++)
        if ((differ >> (8 * i)) & 0xff)
            m |= (uint8_t)(1u << i);
    return m;
}

static void *xrealloc(void *p, size_t n, size_t size)
{
    void *q = realloc(p, n * size);
    if (q == NULL) {
        fprintf(stderr, "shmemu: SHMEMU_MEMORY=weak: out of memory for the store buffers\n");
        exit(2);
    }
    return q;
}

static uint64_t word_load(uintptr_t w) { return *(volatile uint64_t *)w; }
static void word_store(uintptr_t w, uint64_t v) { *(volatile uint64_t *)w = v; }

/* ---- one entity's buffer ---------------------------------------------------------------- */

static uint32_t slot_hash(uintptr_t word, uint32_t cap)
{
    return (uint32_t)(((uint64_t)word >> 3) * 0x9e3779b97f4a7c15ull >> 40) & (cap - 1);
}

static void reindex(buffer *b)
{
    uint32_t want = 64;
    while (want < 2 * b->n + 2)
        want *= 2;
    if (want != b->index_cap) {
        b->index = xrealloc(b->index, want, sizeof *b->index);
        b->index_cap = want;
    }
    memset(b->index, 0, b->index_cap * sizeof *b->index);
    for (uint32_t i = 0; i < b->n; i++) {
        uint32_t h = slot_hash(b->e[i].word, b->index_cap);
        while (b->index[h] != 0)
            h = (h + 1) & (b->index_cap - 1);
        b->index[h] = i + 1;
    }
}

static entry *find(buffer *b, uintptr_t word)
{
    if (b->n == 0)
        return NULL;
    uint32_t h = slot_hash(word, b->index_cap);
    while (b->index[h] != 0) {
        entry *e = &b->e[b->index[h] - 1];
        if (e->word == word && e->mask != 0)
            return e;
        h = (h + 1) & (b->index_cap - 1);
    }
    return NULL;
}

static void mark_busy(pgas_weak *w, int slot)
{
    for (int i = 0; i < w->n_busy; i++)
        if (w->busy[i] == slot)
            return;
    w->busy[w->n_busy++] = slot;
}

/* The entity stored `value` under mask at word; `before` is what the word held before (the
 * twin's bytes: the published value where the entity had no entry). */
static void add_store(pgas_weak *w, int slot, uintptr_t word, uint64_t value, uint64_t before,
                      uint8_t mask, uintptr_t pc, int origin)
{
    buffer *b = &w->bufs[slot];
    uint64_t m = bytes_of(mask);
    entry *e = find(b, word);
    w->captured++;
    if (e != NULL) {
        uint64_t fresh = m & ~bytes_of(e->mask);
        e->saved = (e->saved & ~fresh) | (before & fresh);
        e->value = (e->value & ~m) | (value & m);
        e->mask |= mask;
        e->seq = ++w->seq;
        e->origin = origin;
        return;
    }
    if (b->n == b->cap) {
        b->cap = b->cap ? 2 * b->cap : 256;
        b->e = xrealloc(b->e, b->cap, sizeof *b->e);
    }
    b->e[b->n++] = (entry){.word = word, .value = value, .saved = before, .seq = ++w->seq,
                           .pc = pc, .origin = origin, .mask = mask};
    b->live++;
    if (2 * b->n + 2 > b->index_cap) {
        reindex(b);
    } else {
        uint32_t h = slot_hash(word, b->index_cap);
        while (b->index[h] != 0)
            h = (h + 1) & (b->index_cap - 1);
        b->index[h] = b->n;
    }
    mark_busy(w, slot);
}

/* Compares the turn's twinned pages with memory: the differences are the running entity's
 * stores since the twins were taken (then the twins are brought up to date). */
static void collect(pgas_weak *w, int slot)
{
    for (int p = 0; p < w->n_dirty; p++) {
        dirty_page *d = &w->dirty[p];
        uint64_t *cur = (uint64_t *)d->page, *old = (uint64_t *)d->twin;
        size_t words = w->page / 8;
        for (size_t i = 0; i < words; i += 8) {
            if (memcmp(cur + i, old + i, 64) == 0)
                continue;
            for (size_t k = i; k < i + 8; k++) {
                uint64_t c = cur[k];
                if (c == old[k])
                    continue;
                add_store(w, slot, d->page + 8 * k, c, old[k], mask_of(c ^ old[k]), d->pc,
                          slot);
                old[k] = c;
            }
        }
    }
}

static void protect_or_die(void *addr, size_t len, int prot)
{
    if (mprotect(addr, len, prot) != 0) {
        fprintf(stderr, "shmemu: SHMEMU_MEMORY=weak: mprotect of the symmetric heap failed: "
                        "%s\n", strerror(errno));
        exit(2);
    }
}

static const dirty_page *dirty_of(const pgas_weak *w, uintptr_t page)
{
    for (int p = w->n_dirty; p-- > 0;)
        if (w->dirty[p].page == page)
            return &w->dirty[p];
    return NULL;
}

/* The mode's own store of v at word: the page is opened if it is read-only, and where the
 * page is twinned this turn the twin takes the word too (it is no store of the program). */
static void mem_store(pgas_weak *w, uintptr_t word, uint64_t v)
{
    if (w->armed) {
        uintptr_t page = word & ~(uintptr_t)(w->page - 1);
        const dirty_page *d = dirty_of(w, page);
        if (d != NULL) {
            *(uint64_t *)(d->twin + (word - page)) = v;
        } else {
            bool open = false;
            for (int i = w->n_open; i-- > 0 && !open;)
                open = w->open[i] == page;
            if (!open) {
                if (w->n_open == w->cap_open) {
                    w->cap_open = w->cap_open ? 2 * w->cap_open : 64;
                    w->open = xrealloc(w->open, (size_t)w->cap_open, sizeof *w->open);
                }
                w->open[w->n_open++] = page;
                protect_or_die((void *)page, w->page, PROT_READ | PROT_WRITE);
            }
        }
    }
    word_store(word, v);
}

static int cmp_page(const void *a, const void *b)
{
    uintptr_t x = *(const uintptr_t *)a, y = *(const uintptr_t *)b;
    return x < y ? -1 : x > y;
}

/* The listed pages get prot, a run of neighbours in one call (the list sorted first). */
static void protect_listed(pgas_weak *w, uintptr_t *pages, int n, int prot)
{
    if (n == 0)
        return; /* pages may be NULL then */
    qsort(pages, (size_t)n, sizeof *pages, cmp_page);
    for (int i = 0; i < n;) {
        int j = i + 1;
        while (j < n && pages[j] == pages[j - 1] + w->page)
            j++;
        protect_or_die((void *)pages[i], (size_t)(j - i) * w->page, prot);
        i = j;
    }
}

/* The pages the mode opened are read-only again (runs of neighbours in one call). */
static void close_open(pgas_weak *w)
{
    if (w->rearm && w->n_dirty == 0) {
        protect_or_die(w->lo, w->len, PROT_READ);
        w->rearm = false;
        w->n_open = 0;
        return;
    }
    protect_listed(w, w->open, w->n_open, PROT_READ);
    w->n_open = 0;
}

/* The turn's twinned pages stop being twinned: they join the open pages (still writable),
 * to be made read-only with them. */
static void drop_twins(pgas_weak *w)
{
    for (int p = 0; p < w->n_dirty; p++) {
        if (w->n_open == w->cap_open) {
            w->cap_open = w->cap_open ? 2 * w->cap_open : 64;
            w->open = xrealloc(w->open, (size_t)w->cap_open, sizeof *w->open);
        }
        w->open[w->n_open++] = w->dirty[p].page;
    }
    w->n_dirty = 0;
}

/* The hidden pages are readable again (the turn ends, or its entity drops its stale view). */
static void unhide_all(pgas_weak *w)
{
    protect_listed(w, w->hidden, w->n_hidden, PROT_READ);
    w->n_hidden = 0;
}

static void remove_busy(pgas_weak *w, int slot)
{
    for (int i = 0; i < w->n_busy; i++)
        if (w->busy[i] == slot) {
            memmove(&w->busy[i], &w->busy[i + 1], (size_t)(w->n_busy - i - 1) * sizeof *w->busy);
            w->n_busy--;
            return;
        }
}

static uint64_t next_draw(pgas_weak *w) { return pgas_rng_next(&w->rng); }

/* ---- the hand-off ----------------------------------------------------------------------- */

/* The buffer of what the blocks of slot's PE published at gpu scope: visible to the PE's
 * entities, not yet to other PEs (a peer's memory is written at system scope). */
static int pe_of(const pgas_weak *w, int slot)
{
    const pgas_thread *th =
        atomic_load_explicit(&w->s->ents[slot].thread, memory_order_relaxed);
    return th != NULL ? th->pe : 0;
}

static int domain_of(const pgas_weak *w, int slot) { return w->n_slots + pe_of(w, slot); }

static int stale_of(const pgas_weak *w, int slot) { return w->n_slots + w->n_pes + slot; }
static bool index_is_stale(const pgas_weak *w, int index)
{
    return index >= w->n_slots + w->n_pes;
}

/* A word became everyone's without a runtime write: the waits on it are worth another look
 * (as pgas_sched_note_write makes them), and the epoch moves for predicate waits. */
static void mark_waiters(pgas_weak *w, uintptr_t word)
{
    pgas_sched *s = w->s;
    int hwm = atomic_load_explicit(&s->hwm, memory_order_relaxed);
    for (int i = 0; i < hwm; i++) {
        pgas_sched_entity *e = &s->ents[i];
        if (!atomic_load_explicit(&e->has_cond, memory_order_relaxed))
            continue;
        uintptr_t c = atomic_load_explicit(&e->cond_addr, memory_order_relaxed);
        if (c + 8 > word && c < word + 8)
            atomic_store_explicit(&e->dirty, 1, memory_order_relaxed);
    }
    atomic_fetch_add_explicit(&s->epoch, 1, memory_order_relaxed);
}

/* The bytes of the word at `word` that lie in [lo, hi), as a byte mask. */
static uint8_t mask_of_range(uintptr_t word, uintptr_t lo, uintptr_t hi)
{
    uint8_t m = 0;
    for (int k = 0; k < 8; k++)
        if (word + (uintptr_t)k >= lo && word + (uintptr_t)k < hi)
            m |= (uint8_t)(1u << k);
    return m;
}

static void forget_bytes(pgas_weak *w, int index, uintptr_t lo, uintptr_t hi);

/* The bytes (mask) of word, which held `old`, became everyone's (stored by origin at pc):
 * each other live entity that might not have seen them (not their origin; for a PE's
 * gpu-scope stores, not that PE's entities, which saw them already) keeps the old bytes in
 * its stale view with probability 1/2, until it acquires. A stale entry names the last such
 * store (origin, pc), for the report of a read of it. */
static void leave_stale_copies(pgas_weak *w, uintptr_t word, uint8_t mask, uint64_t old,
                               int origin, uintptr_t pc, int skip_pe)
{
    int hwm = w->stale_views ? atomic_load_explicit(&w->s->hwm, memory_order_relaxed) : 0;
    for (int r = 0; r < hwm; r++) {
        int st = atomic_load_explicit(&w->s->ents[r].state, memory_order_relaxed);
        if (r == origin || st == ENT_FREE || st == ENT_NEW || w->observed[r] == UNSET ||
            (skip_pe >= 0 && pe_of(w, r) == skip_pe))
            continue;
        if (next_draw(w) & 1)
            continue;
        int index = stale_of(w, r);
        entry *e = find(&w->bufs[index], word);
        if (e == NULL) {
            add_store(w, index, word, old, 0, mask, pc, origin); /* pc: the newer store's */
        } else {
            /* it still sees an older value of the bytes it kept: those stay */
            uint64_t fresh = bytes_of(mask & (uint8_t)~e->mask);
            e->value = (e->value & ~fresh) | (old & fresh);
            e->mask |= mask;
            e->origin = origin;
            e->pc = pc;
        }
    }
    if (origin >= 0 && origin < w->n_slots) { /* its own store is newer than its stale view */
        /* exactly the bytes it stored: where its stale view lies on memory now, memory holds
         * those bytes, and the word's other bytes must still come back at the turn's end */
        for (int k = 0; k < 8; k++)
            if (mask & (1u << k))
                forget_bytes(w, stale_of(w, origin), word + (uintptr_t)k, word + (uintptr_t)k + 1);
    }
}

/* Drops the stale view of slot (it acquired), while its turn runs: the words under it get
 * back the published bytes, or, where its own or its PE's entries lie on top (stored during
 * this turn), those entries remember the published bytes as the ones under them. */
static void drop_stale_view(pgas_weak *w, int slot)
{
    int index = stale_of(w, slot);
    buffer *st = &w->bufs[index];
    if (st->n == 0)
        return;
    unhide_all(w); /* the mode's own loads of the old words are no reads of the program */
    if (w->armed) { /* the twins hold memory: what follows is no store of its own */
        collect(w, slot);
        drop_twins(w); /* later stores fault again (and name their own line) */
    }
    buffer *own = &w->bufs[slot], *dom = &w->bufs[domain_of(w, slot)];
    for (uint32_t i = 0; i < st->n; i++) {
        const entry *e = &st->e[i];
        if (e->mask == 0)
            continue;
        uint64_t m = bytes_of(e->mask);
        entry *o = find(own, e->word), *d = find(dom, e->word);
        uint64_t mo = o != NULL ? bytes_of(o->mask) & m : 0;
        uint64_t md = d != NULL ? bytes_of(d->mask) & m & ~mo : 0;
        uint64_t mm = m & ~mo & ~md;
        if (o != NULL)
            o->saved = (o->saved & ~mo) | (e->saved & mo);
        if (d != NULL)
            d->saved = (d->saved & ~md) | (e->saved & md);
        if (mm != 0)
            mem_store(w, e->word, (word_load(e->word) & ~mm) | (e->saved & mm));
    }
    st->n = st->live = 0;
    reindex(st);
    remove_busy(w, index);
    close_open(w);
}

/* Memory takes the buffer's values (each entry remembers the word under it). */
static void put_on(pgas_weak *w, buffer *b)
{
    for (uint32_t i = 0; i < b->n; i++) {
        if (b->e[i].mask == 0)
            continue;
        uint64_t m = bytes_of(b->e[i].mask);
        uint64_t cur = word_load(b->e[i].word);
        b->e[i].saved = cur;
        mem_store(w, b->e[i].word, (cur & ~m) | (b->e[i].value & m));
    }
}

/* Memory gets back the words under the buffer. */
static void take_off(pgas_weak *w, const buffer *b)
{
    for (uint32_t i = b->n; i-- > 0;) {
        if (b->e[i].mask == 0)
            continue;
        uint64_t m = bytes_of(b->e[i].mask);
        mem_store(w, b->e[i].word, (word_load(b->e[i].word) & ~m) | (b->e[i].saved & m));
    }
}

static void clear(pgas_weak *w, int index)
{
    w->bufs[index].n = w->bufs[index].live = 0;
    reindex(&w->bufs[index]);
    remove_busy(w, index);
}

/* A gpu-scope release of slot: its entries join its PE's buffer (both are on memory now). */
static void merge_into_domain(pgas_weak *w, int slot)
{
    buffer *from = &w->bufs[slot];
    int d = domain_of(w, slot);
    buffer *to = &w->bufs[d];
    for (uint32_t i = 0; i < from->n; i++) {
        const entry *e = &from->e[i];
        if (e->mask == 0)
            continue;
        entry *o = find(to, e->word);
        if (o == NULL) {
            add_store(w, d, e->word, e->value, e->saved, e->mask, e->pc, e->origin);
            continue;
        }
        uint64_t m = bytes_of(e->mask), fresh = m & ~bytes_of(o->mask);
        o->saved = (o->saved & ~fresh) | (e->saved & fresh);
        o->value = (o->value & ~m) | (e->value & m);
        o->mask |= e->mask;
        o->seq = e->seq;
        o->origin = e->origin;
    }
    clear(w, slot);
}

/* The turn of slot begins with its stale view on memory: the pages it lies on are made
 * unreadable, so that the first load of the turn from each says (on_fault) whether it read
 * an old byte. At most HIDDEN_MAX pages, in the view's order. */
static void hide_stale_view(pgas_weak *w, int slot)
{
    const buffer *st = &w->bufs[stale_of(w, slot)];
    if (!w->watch_reads || st->live == 0)
        return;
    for (uint32_t i = 0; i < st->n && w->n_hidden < HIDDEN_MAX; i++) {
        if (st->e[i].mask == 0)
            continue;
        uintptr_t page = st->e[i].word & ~(uintptr_t)(w->page - 1);
        bool listed = false;
        for (int k = w->n_hidden; k-- > 0 && !listed;) /* neighbours first: views are runs */
            listed = w->hidden[k] == page;
        if (!listed)
            w->hidden[w->n_hidden++] = page;
    }
    protect_listed(w, w->hidden, w->n_hidden, PROT_NONE);
    w->hidden_slot = slot;
}

void pgas_weak_switch(pgas_sched *s, int from, int to)
{
    pgas_weak *w = s->weak;
    if (w == NULL)
        return;
    unhide_all(w); /* before the mode reads the words under the view */
    if (w->armed && from >= 0) {
        /* the turn of `from` ends: its stores into its buffer, memory back to the published
         * (its own buffer off first, then its PE's, then its stale view: the reverse of the
         * order they went on) */
        collect(w, from);
        drop_twins(w);
        take_off(w, &w->bufs[from]);
        take_off(w, &w->bufs[domain_of(w, from)]);
        take_off(w, &w->bufs[stale_of(w, from)]);
        if (atomic_load_explicit(&s->ents[from].state, memory_order_relaxed) == ENT_FREE) {
            w->observed[from] = UNSET; /* it exited: the slot's next thread starts anew */
            clear(w, stale_of(w, from));
        }
    } else {
        drop_twins(w);
    }
    /* late and out of order: each buffered entry is published with probability 1/drain. An
     * entity's entry is newer than its PE's entry for the same bytes (it was stored after the
     * gpu-scope release that made that one, or the two race): publishing it drops the older
     * bytes, which must never land on top of it. */
    for (int k = 0; k < w->n_busy; k++) {
        int index = w->busy[k];
        if (index_is_stale(w, index))
            continue; /* stale views are dropped at their turns, not published */
        buffer *b = &w->bufs[index];
        buffer *dom = index < w->n_slots ? &w->bufs[domain_of(w, index)] : NULL;
        int skip_pe = index < w->n_slots ? -1 : index - w->n_slots;
        uint32_t kept = 0;
        for (uint32_t i = 0; i < b->n; i++) {
            entry e = b->e[i];
            if (e.mask != 0 && next_draw(w) % w->drain == 0) {
                uint64_t m = bytes_of(e.mask);
                uint64_t old = word_load(e.word);
                mem_store(w, e.word, (old & ~m) | (e.value & m));
                leave_stale_copies(w, e.word, e.mask, old, e.origin, e.pc, skip_pe);
                mark_waiters(w, e.word);
                w->published_late++;
                entry *older = dom != NULL ? find(dom, e.word) : NULL;
                if (older != NULL && older->seq < e.seq)
                    older->mask &= (uint8_t)~e.mask;
            } else if (e.mask != 0) {
                b->e[kept++] = e;
            }
        }
        if (kept != b->n) {
            b->n = b->live = kept;
            reindex(b);
        }
    }
    for (int k = 0; k < w->n_busy; k++) { /* the PEs' entries emptied above */
        buffer *b = &w->bufs[w->busy[k]];
        if (index_is_stale(w, w->busy[k]))
            continue; /* their dead entries wait for forget_bytes's compaction */
        uint32_t kept = 0;
        for (uint32_t i = 0; i < b->n; i++)
            if (b->e[i].mask != 0)
                b->e[kept++] = b->e[i];
        if (kept != b->n) {
            b->n = b->live = kept;
            reindex(b);
        }
    }
    for (int k = 0; k < w->n_busy;)
        if (w->bufs[w->busy[k]].live == 0)
            remove_busy(w, w->busy[k]);
        else
            k++;
    if (to < 0) {
        close_open(w);
        return;
    }
    if (w->observed[to] == UNSET) /* a new thread: what its creator saw is ordered before */
        w->observed[to] = w->seq;
    /* the turn of `to` begins: it sees its stale view (but each old word may have been
     * evicted meanwhile, and none lies under its own or its PE's newer entries), then its
     * PE's gpu-scope published stores, then its own */
    int si = stale_of(w, to);
    buffer *st = &w->bufs[si], *own = &w->bufs[to], *dom = &w->bufs[domain_of(w, to)];
    if (st->n > 0) {
        uint32_t kept = 0;
        for (uint32_t i = 0; i < st->n; i++) {
            const entry *e = &st->e[i];
            if (e->mask == 0 || next_draw(w) % w->drain == 0 || find(own, e->word) != NULL ||
                find(dom, e->word) != NULL)
                continue;
            st->e[kept++] = *e;
        }
        if (kept != st->n) {
            st->n = st->live = kept;
            reindex(st);
            if (kept == 0)
                remove_busy(w, si);
        }
    }
    put_on(w, st);
    put_on(w, dom);
    put_on(w, own);
    if (!w->armed) { /* the first turn: the whole heap read-only, once */
        protect_or_die(w->lo, w->len, PROT_READ);
        w->armed = true;
        w->n_open = 0;
    } else {
        close_open(w);
    }
    hide_stale_view(w, to);
}

static int holder_slot(const pgas_thread *t)
{
    pgas_sched *s = t->world->sched;
    if (s == NULL || s->weak == NULL || t->ent == NULL)
        return -1;
    int slot = (int)(t->ent - s->ents);
    return slot == atomic_load_explicit(&s->current, memory_order_relaxed) ? slot : -1;
}

void pgas_weak_release(pgas_thread *t, bool gpu_scope)
{
    int slot = holder_slot(t);
    if (slot < 0)
        return;
    pgas_weak *w = t->world->sched->weak;
    if (!w->armed)
        return;
    /* the letter of PTX: a kernel's completion (its stream's release) orders its stores for
     * the PE's own later work and host, not for other GPUs; another PE sees them after a
     * system-scope release of a thread that observed them (a host barrier, a signal) */
    if (w->kernel_end_gpu && strncmp(t->label, "stream ", 7) == 0)
        gpu_scope = true;
    collect(w, slot);
    w->published_at_release += w->bufs[slot].live;
    if (gpu_scope) {
        merge_into_domain(w, slot);
    } else {
        /* memory holds its values and its PE's: they are everyone's now, its own and those
         * of its PE's that it had observed (a system-scope release is cumulative); the
         * others may go on seeing the bytes under them */
        buffer *own = &w->bufs[slot];
        for (uint32_t i = 0; i < own->n; i++) {
            const entry *e = &own->e[i];
            if (e->mask == 0)
                continue;
            leave_stale_copies(w, e->word, e->mask, e->saved, slot, e->pc, -1);
            mark_waiters(w, e->word);
        }
        clear(w, slot);
        int d = domain_of(w, slot);
        buffer *dom = &w->bufs[d];
        uint32_t kept = 0;
        for (uint32_t i = 0; i < dom->n; i++)
            if (dom->e[i].mask == 0) {
                continue;
            } else if (dom->e[i].seq > w->observed[slot] && dom->e[i].origin != slot) {
                dom->e[kept++] = dom->e[i];
            } else {
                leave_stale_copies(w, dom->e[i].word, dom->e[i].mask, dom->e[i].saved,
                                   dom->e[i].origin, dom->e[i].pc, pe_of(w, slot));
                mark_waiters(w, dom->e[i].word);
            }
        if (kept != dom->n) {
            dom->n = dom->live = kept;
            reindex(dom);
            if (kept == 0)
                remove_busy(w, d);
        }
    }
    /* fresh twins for the stores after the release: its pages read-only again */
    drop_twins(w);
    close_open(w);
}

bool pgas_weak_wait_word(pgas_thread *t, const volatile void *addr)
{
    int slot = holder_slot(t);
    if (slot < 0)
        return false;
    pgas_weak *w = t->world->sched->weak;
    uintptr_t word = (uintptr_t)addr & ~(uintptr_t)7;
    buffer *st = &w->bufs[stale_of(w, slot)];
    const entry *e = find(st, word);
    if (e == NULL)
        return false;
    /* applied now: the word gets back the published bytes */
    unhide_all(w);
    if (w->armed) {
        collect(w, slot);
        drop_twins(w);
    }
    uint64_t m = bytes_of(e->mask);
    mem_store(w, word, (word_load(word) & ~m) | (e->saved & m));
    forget_bytes(w, stale_of(w, slot), word, word + 8);
    close_open(w);
    return true;
}

bool pgas_weak_has_stores(pgas_thread *t)
{
    int slot = holder_slot(t);
    if (slot < 0)
        return false;
    const pgas_weak *w = t->world->sched->weak;
    return w->n_dirty > 0 || w->bufs[slot].live > 0;
}

void pgas_weak_acquire(pgas_thread *t)
{
    int slot = holder_slot(t);
    if (slot < 0)
        return;
    pgas_weak *w = t->world->sched->weak;
    w->observed[slot] = w->seq;
    drop_stale_view(w, slot);
}

static flag_note *note_of(pgas_weak *w, uintptr_t word)
{
    return &w->notes[((uint64_t)word >> 3) * 0x9e3779b97f4a7c15ull >> 54 & (FLAG_NOTES - 1)];
}

void pgas_weak_strong_write(pgas_thread *t, const volatile void *addr, size_t bytes,
                            bool signal)
{
    int slot = holder_slot(t);
    if (slot < 0)
        return;
    pgas_weak *w = t->world->sched->weak;
    uintptr_t lo = (uintptr_t)addr, hi = lo + (bytes ? bytes : 1);
    if (hi <= (uintptr_t)w->lo || lo >= (uintptr_t)w->lo + w->len)
        return;
    /* a put's data (more than a word) is a plain store of the thread that delivers it: it
     * stays in its buffer until its release (put-with-signal's signal, a quiet, a fence) */
    if (bytes > 8)
        return;
    /* not a buffered store: the twins take the written bytes */
    for (int p = 0; p < w->n_dirty; p++) {
        dirty_page *d = &w->dirty[p];
        uintptr_t a = lo > d->page ? lo : d->page;
        uintptr_t b = hi < d->page + w->page ? hi : d->page + w->page;
        if (a < b)
            memcpy(d->twin + (a - d->page), (const void *)a, b - a);
    }
    /* and the buffered bytes there (its own, its PE's) are overwritten: memory holds the
     * write */
    forget_bytes(w, slot, lo, hi);
    forget_bytes(w, domain_of(w, slot), lo, hi);
    /* nobody's stale view may hide it: a read-modify-write must see the latest value */
    for (int k = 0; k < w->n_busy; k++)
        if (index_is_stale(w, w->busy[k])) {
            int before = w->n_busy;
            forget_bytes(w, w->busy[k], lo, hi);
            if (w->n_busy < before)
                k--;
        }
    if (!signal || bytes > 8)
        return;
    /* a word others wait for: which of the writer's buffered stores came before it */
    if (w->armed)
        collect(w, slot);
    flag_note *n = note_of(w, lo & ~(uintptr_t)7);
    *n = (flag_note){.word = lo & ~(uintptr_t)7, .slot = slot, .seq = w->seq,
                     .observed = w->observed[slot],
                     .decision = atomic_load_explicit(&t->world->sched->decisions,
                                                      memory_order_relaxed),
                     .call = t->api_call != NULL ? t->api_call
                                                 : atomic_load_explicit(&t->ent->call,
                                                                        memory_order_relaxed)};
}

/* Drops the bytes [lo, hi) from buffer `index`. */
static void forget_bytes(pgas_weak *w, int index, uintptr_t lo, uintptr_t hi)
{
    buffer *b = &w->bufs[index];
    if (b->live == 0)
        return;
    uint32_t emptied = 0;
    if (hi - lo <= 64) { /* a synchronizing write: its words looked up, not the buffer scanned */
        for (uintptr_t word = lo & ~(uintptr_t)7; word < hi; word += 8) {
            entry *e = find(b, word);
            if (e == NULL)
                continue;
            e->mask &= (uint8_t)~mask_of_range(word, lo, hi);
            emptied += e->mask == 0;
        }
    } else {
        for (uint32_t i = 0; i < b->n; i++) {
            entry *e = &b->e[i];
            if (e->mask == 0 || e->word + 8 <= lo || e->word >= hi)
                continue;
            e->mask &= (uint8_t)~mask_of_range(e->word, lo, hi);
            emptied += e->mask == 0;
        }
    }
    b->live -= emptied;
    if (b->live == 0) {
        b->n = 0;
        reindex(b);
        remove_busy(w, index);
    } else if (emptied > 0 && 2 * b->live < b->n) { /* half dead: compacted, in order */
        uint32_t kept = 0;
        for (uint32_t i = 0; i < b->n; i++)
            if (b->e[i].mask != 0)
                b->e[kept++] = b->e[i];
        b->n = kept;
        reindex(b);
    }
}

/* ---- the report of stores seen late ----------------------------------------------------- */

static void describe_slot(const pgas_sched *s, int slot, char *out, size_t len)
{
    const pgas_thread *th = atomic_load_explicit(&s->ents[slot].thread, memory_order_relaxed);
    if (th == NULL)
        snprintf(out, len, "entity %d", slot);
    else
        snprintf(out, len, "PE %d (%s)", th->pe, th->label);
}

static void describe_pc(uintptr_t pc, char *out, size_t len)
{
    char file[256], func[128];
    int line = 0;
    if (pc != 0 && pgas_source_line(pc, file, sizeof file, &line, func, sizeof func))
        snprintf(out, len, "%s:%d (in %s)", file, line, func);
    else if (pc != 0)
        snprintf(out, len, "pc %#lx (no line information: build with -g)", (unsigned long)pc);
    else
        snprintf(out, len, "an unknown line");
}

void pgas_weak_observe(pgas_thread *t, const volatile void *addr)
{
    int slot = holder_slot(t);
    if (slot < 0)
        return;
    pgas_weak *w = t->world->sched->weak;
    uintptr_t word = (uintptr_t)addr & ~(uintptr_t)7;
    flag_note *n = note_of(w, word);
    if (n->word != word || n->slot == slot)
        return;
    const entry *first = NULL;
    uint32_t pending = 0;
    int d = domain_of(w, n->slot);
    for (int which = 0; which < 2; which++) {
        /* the writer's own buffer, and, when the reader is on another PE, what the writer
         * published at gpu scope itself or had observed of its PE's when it wrote */
        if (which == 1 && d == domain_of(w, slot))
            break;
        const buffer *b = &w->bufs[which == 0 ? n->slot : d];
        for (uint32_t i = 0; i < b->n; i++)
            if (b->e[i].mask != 0 && b->e[i].seq <= n->seq &&
                (which == 0 || b->e[i].origin == n->slot || b->e[i].seq <= n->observed)) {
                pending++;
                if (first == NULL || b->e[i].seq < first->seq)
                    first = &b->e[i];
            }
    }
    if (pending == 0)
        return;
    uint64_t k = w->n_late++;
    if (k >= REPORT_MAX)
        return;
    /* the words are described now (the entities may be gone at the end); the lines later */
    pgas_sched *s = t->world->sched;
    char reader[160], writer[160], flag[256], data[256];
    describe_slot(s, slot, reader, sizeof reader);
    describe_slot(s, n->slot, writer, sizeof writer);
    pgas_describe_address(t->world, (const void *)word, flag, sizeof flag);
    pgas_describe_address(t->world, (const void *)first->word, data, sizeof data);
    uint64_t seen = word_load(word);
    snprintf(w->reports[k].text, sizeof w->reports[k].text,
             "%s read %s = %llu at decision %llu, written by %s in %s at decision %llu; "
             "%u store(s) %s made before that write were not visible yet, the first to "
             "%s%c%#lx",
             reader, flag, (unsigned long long)seen,
             (unsigned long long)atomic_load_explicit(&s->decisions, memory_order_relaxed),
             writer, n->call != NULL ? n->call : "a write",
             (unsigned long long)n->decision, pending, writer, data, '\x1f',
             (unsigned long)first->pc);
}

/* Called from on_fault, the page readable again: the running entity's load at addr (pc)
 * began on a byte of its stale view? Then it read an old value: recorded (no formatting of
 * addresses or lines here; those wait for the report). */
static void note_stale_read(pgas_weak *w, uintptr_t addr, uintptr_t pc)
{
    pgas_thread *t = pgas_current();
    int slot = t != NULL ? holder_slot(t) : -1;
    if (slot < 0 || slot != w->hidden_slot)
        return; /* another thread's access (none runs in the turn but its entity's) */
    const entry *e = find(&w->bufs[stale_of(w, slot)], addr & ~(uintptr_t)7);
    if (e == NULL || (e->mask & (1u << (addr & 7))) == 0)
        return;
    uint64_t k = w->n_stale_reads++;
    if (k >= REPORT_MAX)
        return;
    stale_read *r = &w->stale_reads[k];
    r->addr = addr;
    r->seen = word_load(addr & ~(uintptr_t)7);
    r->fresh = e->saved;
    r->mask = e->mask;
    r->pc = pc;
    r->store_pc = e->pc;
    r->decision = atomic_load_explicit(&w->s->decisions, memory_order_relaxed);
    r->call = t->api_call;
    describe_slot(w->s, slot, r->reader, sizeof r->reader);
    describe_slot(w->s, e->origin, r->writer, sizeof r->writer);
}

static void print_stale_reads(pgas_weak *w)
{
    fprintf(stderr, "shmemu: weak memory: %llu time(s) a thread read an old value: a word "
                    "another thread had published since, which the reader had not acquired "
                    "(a relaxed load or poll where an acquire was needed, or a missing "
                    "acquire):\n",
            (unsigned long long)w->n_stale_reads);
    for (uint64_t k = 0; k < w->n_stale_reads && k < REPORT_MAX; k++) {
        const stale_read *r = &w->stale_reads[k];
        char where[256], load[400], store[400], seen[64], fresh[64];
        pgas_describe_address(w->s->world, (const void *)r->addr, where, sizeof where);
        char file[256], func[128];
        int line = 0;
        if (r->call != NULL && !pgas_source_line(r->pc, file, sizeof file, &line, func,
                                                 sizeof func))
            snprintf(load, sizeof load, "inside %s", r->call); /* in the runtime or libc */
        else
            describe_pc(r->pc, load, sizeof load);
        describe_pc(r->store_pc, store, sizeof store);
        if (r->mask == 0xff) { /* a whole word: signed (flags, counters, fixed point) */
            snprintf(seen, sizeof seen, "%lld", (long long)r->seen);
            snprintf(fresh, sizeof fresh, "%lld", (long long)r->fresh);
        } else { /* some bytes of the word only: the words, and which bytes were old */
            snprintf(seen, sizeof seen, "%#llx (old bytes %#x)", (unsigned long long)r->seen,
                     r->mask);
            snprintf(fresh, sizeof fresh, "%#llx", (unsigned long long)r->fresh);
        }
        fprintf(stderr, "  %s read %s = %s at decision %llu (load at %s); the published "
                        "value was %s, written by %s (stored at %s)\n",
                r->reader, where, seen, (unsigned long long)r->decision, load, fresh,
                r->writer, store);
    }
}

static void print_report(pgas_weak *w)
{
    if (w->n_stale_reads > 0)
        print_stale_reads(w);
    if (w->n_late == 0) {
        if (w->n_stale_reads > 0)
            pgas_sched_print_replay(stderr, w->s);
        return;
    }
    fprintf(stderr, "shmemu: weak memory: %llu time(s) a thread read a word whose writer still "
                    "buffered stores it made before writing it (a relaxed store where a "
                    "release was needed, or a missing release):\n",
            (unsigned long long)w->n_late);
    for (uint64_t k = 0; k < w->n_late && k < REPORT_MAX; k++) {
        char *text = w->reports[k].text;
        char *sep = strchr(text, '\x1f');
        uintptr_t pc = 0;
        if (sep != NULL) {
            *sep = '\0';
            pc = (uintptr_t)strtoull(sep + 1, NULL, 16);
        }
        char line[400];
        describe_pc(pc, line, sizeof line);
        fprintf(stderr, "  %s (stored at %s)\n", text, line);
    }
    pgas_sched_print_replay(stderr, w->s);
}

/* ---- the fault handler ------------------------------------------------------------------ */

static void on_fault(int sig, siginfo_t *si, void *uc_v)
{
    pgas_weak *w = atomic_load_explicit(&active, memory_order_relaxed);
    uintptr_t a = (uintptr_t)si->si_addr;
    if (w != NULL && w->armed && si->si_code == SEGV_ACCERR &&
        a >= (uintptr_t)w->lo && a < (uintptr_t)w->lo + w->len) {
        uintptr_t page = a & ~(uintptr_t)(w->page - 1);
        uintptr_t pc = 0;
        bool write = true;
#if defined(__x86_64__)
        pc = (uintptr_t)((ucontext_t *)uc_v)->uc_mcontext.gregs[REG_RIP];
        write = (((ucontext_t *)uc_v)->uc_mcontext.gregs[REG_ERR] & 2) != 0; /* W bit */
#else
        (void)uc_v;
#endif
        for (int k = 0; k < w->n_hidden; k++) {
            if (w->hidden[k] != page)
                continue;
            /* a hidden page: readable again first (the note reads the word), then a load
             * is checked; a store faults once more, on a read-only page, and is twinned */
            w->hidden[k] = w->hidden[--w->n_hidden];
            if (mprotect((void *)page, w->page, PROT_READ) != 0)
                goto not_ours;
            if (!write)
                note_stale_read(w, a, pc);
            return;
        }
        if (w->n_dirty < MAX_TWINS) {
            dirty_page *d = &w->dirty[w->n_dirty];
            d->page = page;
            d->twin = w->twins + (size_t)w->n_dirty * w->page;
            d->pc = pc;
            memcpy(d->twin, (const void *)page, w->page);
            w->n_dirty++;
        } else {
            w->overflow_pages++; /* this page's stores of this turn are published at once */
            w->rearm = true;     /* and the whole heap is made read-only at the next close */
        }
        if (mprotect((void *)page, w->page, PROT_READ | PROT_WRITE) == 0)
            return;
    }
not_ours:
    /* not ours: the previous disposition takes the fault when it happens again */
    (void)sig;
    sigaction(SIGSEGV, w != NULL ? &w->old_segv : NULL, NULL);
    if (w == NULL)
        signal(SIGSEGV, SIG_DFL);
}

/* ---- set-up ----------------------------------------------------------------------------- */

/* pgas_hb_before's hook: the calling thread releases. */
static void release_current(bool gpu_scope)
{
    pgas_thread *t = pgas_current();
    if (t != NULL && t->ent != NULL)
        pgas_weak_release(t, gpu_scope);
}

/* pgas_hb_after's hook: the calling thread acquires. */
static void acquire_current(void)
{
    pgas_thread *t = pgas_current();
    if (t != NULL && t->ent != NULL)
        pgas_weak_acquire(t);
}

void pgas_weak_create(pgas_sched *s)
{
    static const char *const names[] = {"default", "weak"};
    if (shmemu_env_enum("SHMEMU_MEMORY", names, 2, 0) != 1)
        return;
    pgas_world *world = s->world;
    /* The mode writes the program's memory from the thread that hands the turn over: a race
     * checker would see races that are the mode's own, not the program's. */
    if (world->config.under_valgrind) {
        fprintf(stderr, "shmemu: SHMEMU_MEMORY=weak does not run under valgrind (it "
                        "write-protects the symmetric heap and rewrites it between turns); "
                        "unset one of them\n");
        exit(2);
    }
#ifdef SHMEMU_TSAN
    fprintf(stderr, "shmemu: SHMEMU_MEMORY=weak does not run in a ThreadSanitizer build (it "
                    "rewrites the symmetric heap between turns, which TSan would report as "
                    "races); use a plain or ASan build\n");
    exit(2);
#endif
    if (world->backend->processes || world->backend->ranks) {
        fprintf(stderr, "shmemu: SHMEMU_MEMORY=weak needs the threads backend (SHMEMU_BACKEND "
                        "unset or threads)\n");
        exit(2);
    }
    if (atomic_load(&active) != NULL) {
        fprintf(stderr, "shmemu: SHMEMU_MEMORY=weak: one weak job at a time per process\n");
        exit(2);
    }
    pgas_threads_state *ts = world->backend_state;
    pgas_weak *w = calloc(1, sizeof *w);
    if (w == NULL || ts == NULL) {
        fprintf(stderr, "shmemu: SHMEMU_MEMORY=weak: out of memory\n");
        exit(2);
    }
    w->s = s;
    w->lo = ts->region;
    w->len = ts->total;
    w->page = (size_t)sysconf(_SC_PAGESIZE);
    w->drain = (unsigned)shmemu_env_int("SHMEMU_WEAK_DRAIN", 1, 1000000, DEFAULT_DRAIN);
    w->stale_views = shmemu_env_bool("SHMEMU_WEAK_STALE", true);
    w->watch_reads = shmemu_env_bool("SHMEMU_WEAK_READS", true);
    static const char *const ends[] = {"sys", "gpu"};
    w->kernel_end_gpu = shmemu_env_enum("SHMEMU_WEAK_KERNEL_END", ends, 2, 0) == 1;
    w->rng = s->seed * 0xd1b54a32d192ed03ull + 0x7ea7;
    w->n_slots = s->capacity;
    w->n_pes = world->n_pes;
    w->n_bufs = 2 * s->capacity + world->n_pes;
    w->bufs = calloc((size_t)w->n_bufs, sizeof *w->bufs);
    w->busy = calloc((size_t)w->n_bufs, sizeof *w->busy);
    w->observed = malloc((size_t)w->n_slots * sizeof *w->observed);
    if (w->observed != NULL)
        for (int i = 0; i < w->n_slots; i++)
            w->observed[i] = UNSET;
    w->twins = mmap(NULL, (size_t)MAX_TWINS * w->page, PROT_READ | PROT_WRITE,
                    MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (w->bufs == NULL || w->busy == NULL || w->observed == NULL || w->twins == MAP_FAILED) {
        fprintf(stderr, "shmemu: SHMEMU_MEMORY=weak: out of memory\n");
        exit(2);
    }
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = on_fault;
    sa.sa_flags = SA_SIGINFO | SA_NODEFER;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGSEGV, &sa, &w->old_segv);
    s->weak = w;
    atomic_store(&active, w);
    atomic_store(&pgas_release_hook, release_current);
    atomic_store(&pgas_acquire_hook, acquire_current);
}

void pgas_weak_destroy(pgas_sched *s)
{
    pgas_weak *w = s->weak;
    if (w == NULL)
        return;
    if (w->armed)
        protect_or_die(w->lo, w->len, PROT_READ | PROT_WRITE);
    w->armed = false;
    w->n_dirty = w->n_open = w->n_hidden = 0;
    /* whatever is still buffered reaches memory: the job's end publishes everything (the
     * stale views are old bytes, dropped) */
    for (int k = 0; k < w->n_busy; k++) {
        if (index_is_stale(w, w->busy[k]))
            continue;
        buffer *b = &w->bufs[w->busy[k]];
        for (uint32_t i = 0; i < b->n; i++) {
            uint64_t m = bytes_of(b->e[i].mask);
            word_store(b->e[i].word, (word_load(b->e[i].word) & ~m) | (b->e[i].value & m));
        }
        b->n = 0;
    }
    print_report(w);
    if (shmemu_env_bool("SHMEMU_WEAK_STATS", false))
        fprintf(stderr, "shmemu: weak memory: %llu word store(s) buffered, %llu published "
                        "late, %llu at a release, %llu page(s) past the twin limit\n",
                (unsigned long long)w->captured, (unsigned long long)w->published_late,
                (unsigned long long)w->published_at_release,
                (unsigned long long)w->overflow_pages);
    sigaction(SIGSEGV, &w->old_segv, NULL);
    atomic_store(&pgas_release_hook, NULL);
    atomic_store(&pgas_acquire_hook, NULL);
    atomic_store(&active, NULL);
    for (int i = 0; i < w->n_bufs; i++) {
        free(w->bufs[i].e);
        free(w->bufs[i].index);
    }
    free(w->bufs);
    free(w->busy);
    free(w->observed);
    free(w->open);
    munmap(w->twins, (size_t)MAX_TWINS * w->page);
    s->weak = NULL;
    free(w);
}
