/*
 * capture.c: stream capture: what a capturing stream does with the work issued to it.
 *
 * A capture sequence (emu_capture) builds a graph (emu_graph): a list of nodes, each a
 * recorded operation (the emu_op the call built, kept as a template), the lane it was issued
 * on (the index of its stream in the capture; 0 is the origin) and the nodes it depends on.
 * As in CUDA, each capturing stream carries the set of nodes its next operation depends on
 * (emu_stream.cap_deps): an operation becomes a node with those dependencies and then is the
 * stream's only one; an event recorded on a capturing stream takes a copy of the set
 * (emu_event.cap_deps), unless it is an external record (cudaEventRecordWithFlags), which is
 * a node; a stream that waits on such an event adds the event's set to its own,
 * joining the capture first if it was not capturing (a fork). A node's dependencies are
 * always earlier nodes, so the list is in a topological order; graph.c replays it.
 *
 * Invariants: a stream is in at most one capture, and stays in it until
 * cudaStreamEndCapture on the origin (emu_capture_end); an invalidated capture records
 * nothing more (its streams' work is dropped with cudaErrorStreamCaptureInvalidated) until
 * it ends. Everything here belongs to the PE's host thread (capture state is host
 * bookkeeping, like CUDA's): no atomics, no edges for the race checkers (docs/design.md D4).
 *
 * Below stream.c (which calls emu_capture_record from its enqueue) and above current.c;
 * graph.c, at the top, has the CUDA entry points.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

static void *grow(void *p, int *cap, int need, size_t size)
{
    if (need <= *cap)
        return p;
    int n = *cap > 0 ? *cap * 2 : 8;
    while (n < need)
        n *= 2;
    void *q = realloc(p, (size_t)n * size);
    if (q == NULL) {
        fprintf(stderr, "shmemu: out of memory recording a stream capture\n");
        exit(2);
    }
    *cap = n;
    return q;
}

void emu_deps_add(emu_deps *d, int id)
{
    for (int i = 0; i < d->n; i++)
        if (d->ids[i] == id)
            return;
    d->ids = grow(d->ids, &d->cap, d->n + 1, sizeof *d->ids);
    d->ids[d->n++] = id;
}

void emu_deps_add_all(emu_deps *d, const emu_deps *from)
{
    for (int i = 0; i < from->n; i++)
        emu_deps_add(d, from->ids[i]);
}

void emu_deps_free(emu_deps *d)
{
    free(d->ids);
    *d = (emu_deps){0};
}

void emu_op_discard(emu_op *op)
{
    if (op->launch != NULL) {
        free(op->launch->args);
        free(op->launch);
    }
    free(op->owned);
    free(op);
}

void emu_graph_free(struct emu_graph *g)
{
    if (g == NULL)
        return;
    for (int i = 0; i < g->n_nodes; i++) {
        emu_op_discard(g->nodes[i].op);
        emu_deps_free(&g->nodes[i].deps);
    }
    free(g->nodes);
    free(g->lane_priority);
    free(g);
}

static void *zalloc(size_t bytes)
{
    void *p = calloc(1, bytes);
    if (p == NULL) {
        fprintf(stderr, "shmemu: out of memory recording a stream capture\n");
        exit(2);
    }
    return p;
}

/* s joins c as its next lane, depending on nothing yet. */
static void join(emu_capture *c, emu_stream *s)
{
    c->streams = grow(c->streams, &c->cap_streams, c->n_streams + 1, sizeof *c->streams);
    s->lane = c->n_streams;
    c->streams[c->n_streams++] = s;
    s->capture = c;
    s->cap_deps.n = 0;
    struct emu_graph *g = c->graph;
    int cap = g->n_lanes;
    g->lane_priority = grow(g->lane_priority, &cap, g->n_lanes + 1, sizeof *g->lane_priority);
    g->lane_priority[g->n_lanes++] = s->priority;
}

emu_capture *emu_capture_begin(emu_pe *pe, emu_stream *s, int mode)
{
    emu_capture *c = zalloc(sizeof *c);
    c->pe = pe;
    c->id = ++pe->last_capture_id;
    c->mode = mode;
    c->thread = pthread_self();
    c->graph = zalloc(sizeof *c->graph);
    c->graph->pe = pe;
    c->graph->refs = 1;
    join(c, s);
    c->next = pe->captures;
    pe->captures = c;
    return c;
}

emu_capture *emu_capture_find(emu_pe *pe, uint64_t id)
{
    for (emu_capture *c = pe->captures; c != NULL; c = c->next)
        if (c->id == id)
            return c;
    return NULL;
}

void emu_capture_invalidate(emu_capture *c, const char *call, const char *what)
{
    if (c->invalidated)
        return;
    c->invalidated = true;
    emu_complain(call, "%s; the capture begun on stream %d is invalidated: its work is dropped "
                       "and cudaStreamEndCapture returns cudaErrorStreamCaptureInvalidated",
                 what, c->streams[0]->id);
}

struct emu_graph *emu_capture_end(emu_capture *c)
{
    for (int i = 0; i < c->n_streams; i++) {
        emu_stream *s = c->streams[i];
        s->capture = NULL;
        s->lane = 0;
        emu_deps_free(&s->cap_deps);
    }
    for (emu_capture **p = &c->pe->captures; *p != NULL; p = &(*p)->next) {
        if (*p == c) {
            *p = c->next;
            break;
        }
    }
    struct emu_graph *g = c->graph;
    free(c->streams);
    free(c);
    return g;
}

cudaError_t emu_capture_record(emu_stream *s, emu_op *op)
{
    emu_capture *c = s->capture;
    if (c->invalidated) {
        emu_op_discard(op);
        return emu_set_error(cudaErrorStreamCaptureInvalidated);
    }
    if (op->owned != NULL && op->owned_bytes == 0) { /* a replay could not copy it */
        emu_op_discard(op);
        emu_capture_invalidate(c, "a stream call", "this call cannot be captured yet (the "
                               "emulator does not know the size of its operands: "
                               "emu_op.owned_bytes)");
        return emu_set_error(cudaErrorStreamCaptureUnsupported);
    }
    struct emu_graph *g = c->graph;
    g->nodes = grow(g->nodes, &g->cap_nodes, g->n_nodes + 1, sizeof *g->nodes);
    emu_graph_node *node = &g->nodes[g->n_nodes];
    *node = (emu_graph_node){.op = op, .lane = s->lane};
    emu_deps_add_all(&node->deps, &s->cap_deps);
    s->cap_deps.n = 0;
    emu_deps_add(&s->cap_deps, g->n_nodes);
    g->n_nodes++;
    return cudaSuccess;
}

cudaError_t emu_capture_event_record(emu_stream *s, struct emu_event *e)
{
    emu_capture *c = s->capture;
    if (c->invalidated)
        return emu_set_error(cudaErrorStreamCaptureInvalidated);
    e->capture_id = c->id;
    e->cap_deps.n = 0;
    emu_deps_add_all(&e->cap_deps, &s->cap_deps);
    return cudaSuccess;
}

cudaError_t emu_capture_event_wait(emu_pe *pe, emu_stream *s, struct emu_event *e,
                                   bool *handled)
{
    emu_capture *ec = e->capture_id != 0 ? emu_capture_find(pe, e->capture_id) : NULL;
    if (ec == NULL)
        e->capture_id = 0; /* its capture has ended: an ordinary event again */
    *handled = s->capture != NULL || ec != NULL;
    if (!*handled)
        return cudaSuccess;
    if (ec == NULL) {
        if (atomic_load_explicit(&e->recorded, memory_order_relaxed) == 0)
            return cudaSuccess; /* never recorded: nothing to wait for, as outside a capture */
        emu_capture_invalidate(s->capture, "cudaStreamWaitEvent",
                               "a capturing stream waits on an event recorded outside the "
                               "capture; record the event in the capture, or wait before "
                               "cudaStreamBeginCapture");
        return emu_set_error(cudaErrorStreamCaptureIsolation);
    }
    if (s->capture != NULL && s->capture != ec) {
        emu_capture_invalidate(s->capture, "cudaStreamWaitEvent",
                               "the stream waits on an event of another capture sequence");
        emu_capture_invalidate(ec, "cudaStreamWaitEvent",
                               "a stream of another capture sequence waits on its event");
        return emu_set_error(cudaErrorStreamCaptureMerge);
    }
    if (ec->invalidated)
        return emu_set_error(cudaErrorStreamCaptureInvalidated);
    if (s->capture == NULL)
        join(ec, s);
    emu_deps_add_all(&s->cap_deps, &e->cap_deps);
    return cudaSuccess;
}

cudaError_t emu_capture_stream_sync(emu_stream *s, const char *call)
{
    if (s->capture == NULL)
        return cudaSuccess;
    emu_capture_invalidate(s->capture, call,
                           "the stream is capturing: its work is recorded, not run, so there is "
                           "nothing to wait for; synchronize after cudaStreamEndCapture");
    return emu_set_error(cudaErrorStreamCaptureUnsupported);
}

cudaError_t emu_capture_event_sync(struct emu_event *e, const char *call)
{
    if (e->capture_id == 0)
        return cudaSuccess;
    emu_capture *c = emu_capture_find(e->pe, e->capture_id);
    if (c == NULL) {
        e->capture_id = 0;
        return cudaSuccess;
    }
    emu_capture_invalidate(c, call,
                           "the event was last recorded in a capturing stream: it stands for "
                           "recorded work, which does not run");
    return emu_set_error(cudaErrorCapturedEvent);
}

/* CUDA's rule for the calls a capture may forbid: a thread may not make them while it has a
 * capture of its own that is not relaxed, nor while any thread has a global one. And a
 * stream created without cudaStreamNonBlocking that captures makes every use of the legacy
 * stream an error, in any mode (it would depend on the capture). */
cudaError_t emu_capture_sync_allowed(const char *call, bool legacy_stream)
{
    emu_pe *pe = emu_pe_current();
    if (pe == NULL || pe->captures == NULL)
        return cudaSuccess;
    cudaError_t e = cudaSuccess;
    for (emu_capture *c = pe->captures; c != NULL; c = c->next) {
        bool blocking = false;
        for (int i = 0; i < c->n_streams; i++)
            blocking |= (c->streams[i]->flags & cudaStreamNonBlocking) == 0;
        if (legacy_stream && blocking) {
            emu_capture_invalidate(c, call,
                                   "a stream created without cudaStreamNonBlocking is "
                                   "capturing, and this call uses the legacy stream, which "
                                   "would depend on it; create capturing streams with "
                                   "cudaStreamNonBlocking, or call it after "
                                   "cudaStreamEndCapture");
            e = cudaErrorStreamCaptureImplicit;
        } else if (c->mode == cudaStreamCaptureModeGlobal ||
                   (c->mode == cudaStreamCaptureModeThreadLocal &&
                    pthread_equal(c->thread, pthread_self()))) {
            emu_capture_invalidate(c, call,
                                   "a synchronous call while a capture forbids it (mode "
                                   "global, or thread-local on this thread); call it after "
                                   "cudaStreamEndCapture, or capture with "
                                   "cudaStreamCaptureModeRelaxed");
            if (e == cudaSuccess)
                e = cudaErrorStreamCaptureUnsupported;
        }
    }
    return e == cudaSuccess ? e : emu_set_error(e);
}
