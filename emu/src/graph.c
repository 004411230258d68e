/*
 * graph.c: CUDA graphs made by stream capture: cudaStreamBeginCapture / EndCapture /
 * IsCapturing / GetCaptureInfo, cudaGraphInstantiate, cudaGraphLaunch and the destroys.
 * capture.c records the graph; this file replays it.
 *
 * A graph is its list of nodes (recorded operations) in capture order, each with its lane
 * (the capture's stream it was issued on) and the nodes it depends on (capture.c). An exec
 * (emu_graph_exec) shares the graph (a reference count: there is no API here that changes a
 * graph after capture; cudaGraphExecUpdate moves the exec to another graph of the same
 * topology) and owns, for each lane but the origin's, a stream, and the events that
 * carry the dependencies between lanes. cudaGraphLaunch(exec, stream) enqueues, in the list's
 * order (a topological order of the dependencies), a fresh copy of each node's operation (a
 * launch with a fresh copy of the argument bytes captured) on its lane's stream: the origin
 * lane on the launch stream, the others on the exec's streams. A node that depends on a node
 * of another lane first waits on an event recorded after that node. So replay is the same
 * work issued on the same number of streams with the same event edges as the capture had:
 * the race checkers see exactly the edges issuing it directly would give (docs/design.md D4),
 * and work of two lanes that the capture left unordered stays unordered (not linearized on
 * one stream). The edges added are CUDA's own promises for a graph launch: the exec's other
 * lanes start after the launch stream's earlier work (an event recorded there first), the
 * launch stream's later work comes after every lane (an event at each lane's end), and a
 * launch comes after the exec's previous launch (an event at the end of each launch, waited
 * on by the next, which matters when the next launch is on another stream).
 *
 * Lane streams outlive their exec: cudaGraphExecDestroy waits (with no edge) for the exec's
 * work and keeps its streams on the PE for the next exec (emu_pe.spare_lanes; joining a
 * stream thread would be an edge CUDA does not have). A reused lane stream orders the new
 * exec's work after the destroyed one's, which had completed.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

struct emu_graph_exec {
    emu_pe *pe;
    struct emu_graph *graph;
    int n_lanes;
    emu_stream **lane_stream; /* [lane]; [0] unused (the launch stream) */
    cudaEvent_t *after;       /* [node]: recorded after it when another lane depends on it */
    cudaEvent_t start;        /* the launch stream's earlier work, for the other lanes */
    cudaEvent_t *lane_end;    /* [lane] */
    cudaEvent_t done;         /* the end of the last launch */
    bool launched;
};

static cudaError_t complain(cudaError_t e, const char *call, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static cudaError_t complain(cudaError_t e, const char *call, const char *fmt, ...)
{
    char message[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(message, sizeof message, fmt, ap);
    va_end(ap);
    emu_complain(call, "%s", message);
    return emu_set_error(e);
}

/* ---- capture ----------------------------------------------------------------------------- */

cudaError_t cudaStreamBeginCapture(cudaStream_t stream, cudaStreamCaptureMode mode)
{
    emu_pe *pe = emu_stream_device("cudaStreamBeginCapture");
    if (mode != cudaStreamCaptureModeGlobal && mode != cudaStreamCaptureModeThreadLocal &&
        mode != cudaStreamCaptureModeRelaxed)
        return complain(cudaErrorInvalidValue, "cudaStreamBeginCapture",
                        "mode %d is not a cudaStreamCaptureMode (Global 0, ThreadLocal 1, "
                        "Relaxed 2)", (int)mode);
    emu_stream *s = emu_stream_resolve(pe, stream);
    if (s->capture != NULL)
        return complain(cudaErrorIllegalState, "cudaStreamBeginCapture",
                        "stream %d is capturing already; end that capture first", s->id);
    emu_capture_begin(pe, s, (int)mode);
    return cudaSuccess;
}

/* True when every node is the origin's current node or one it depends on, directly or not:
 * every stream that joined the capture was joined back. Else *lane is an unjoined one. */
static bool all_joined(const emu_capture *c, int *lane)
{
    const struct emu_graph *g = c->graph;
    bool *seen = calloc((size_t)g->n_nodes + 1, sizeof *seen);
    int *todo = malloc(((size_t)g->n_nodes + 1) * sizeof *todo);
    if (seen == NULL || todo == NULL) {
        fprintf(stderr, "shmemu: out of memory ending a stream capture\n");
        exit(2);
    }
    int n = 0;
    const emu_deps *origin = &c->streams[0]->cap_deps;
    for (int i = 0; i < origin->n; i++)
        if (!seen[origin->ids[i]]) {
            seen[origin->ids[i]] = true;
            todo[n++] = origin->ids[i];
        }
    while (n > 0) {
        const emu_deps *d = &g->nodes[todo[--n]].deps;
        for (int i = 0; i < d->n; i++)
            if (!seen[d->ids[i]]) {
                seen[d->ids[i]] = true;
                todo[n++] = d->ids[i];
            }
    }
    bool ok = true;
    for (int i = 0; i < g->n_nodes && ok; i++)
        if (!seen[i]) {
            ok = false;
            *lane = g->nodes[i].lane;
        }
    free(seen);
    free(todo);
    return ok;
}

cudaError_t cudaStreamEndCapture(cudaStream_t stream, cudaGraph_t *pGraph)
{
    const char *call = "cudaStreamEndCapture";
    emu_pe *pe = emu_stream_device(call);
    if (pGraph == NULL)
        return complain(cudaErrorInvalidValue, call, "pGraph is NULL");
    emu_stream *s = emu_stream_resolve(pe, stream);
    emu_capture *c = s->capture;
    if (c == NULL)
        return complain(cudaErrorIllegalState, call,
                        "stream %d is not capturing (no cudaStreamBeginCapture on it, or its "
                        "capture has ended)", s->id);
    if (c->streams[0] != s) {
        emu_capture_invalidate(c, call, "called on a stream that joined the capture; end it "
                                        "on the stream that began it");
        return emu_set_error(cudaErrorStreamCaptureUnmatched);
    }
    if (c->mode != cudaStreamCaptureModeRelaxed && !pthread_equal(c->thread, pthread_self()))
        return complain(cudaErrorStreamCaptureWrongThread, call,
                        "a capture not begun with cudaStreamCaptureModeRelaxed ends on the "
                        "thread that began it");
    *pGraph = NULL;
    if (c->invalidated) {
        emu_graph_free(emu_capture_end(c));
        return emu_set_error(cudaErrorStreamCaptureInvalidated);
    }
    int lane = 0;
    if (!all_joined(c, &lane)) {
        int id = c->streams[lane]->id;
        emu_graph_free(emu_capture_end(c));
        return complain(cudaErrorStreamCaptureUnjoined, call,
                        "stream %d joined the capture (it waited on an event recorded in it) "
                        "and its work was not joined back: record an event on it after its "
                        "work and make stream %d wait on that event before ending the capture",
                        id, s->id);
    }
    *pGraph = emu_capture_end(c);
    return cudaSuccess;
}

cudaError_t cudaStreamIsCapturing(cudaStream_t stream, cudaStreamCaptureStatus *pCaptureStatus)
{
    return cudaStreamGetCaptureInfo(stream, pCaptureStatus, NULL, NULL, NULL, NULL);
}

cudaError_t cudaStreamGetCaptureInfo(cudaStream_t stream,
                                     cudaStreamCaptureStatus *captureStatus_out,
                                     unsigned long long *id_out, cudaGraph_t *graph_out,
                                     const cudaGraphNode_t **dependencies_out,
                                     size_t *numDependencies_out)
{
    const char *call = "cudaStreamGetCaptureInfo";
    emu_pe *pe = emu_stream_device(call);
    if (captureStatus_out == NULL)
        return complain(cudaErrorInvalidValue, call, "captureStatus_out is NULL");
    if (dependencies_out != NULL || numDependencies_out != NULL)
        return complain(cudaErrorNotSupported, call,
                        "graph nodes are not exposed here: pass NULL for dependencies_out "
                        "and numDependencies_out");
    emu_capture *c = emu_stream_resolve(pe, stream)->capture;
    *captureStatus_out = c == NULL          ? cudaStreamCaptureStatusNone
                         : c->invalidated ? cudaStreamCaptureStatusInvalidated
                                          : cudaStreamCaptureStatusActive;
    if (c != NULL && !c->invalidated) {
        if (id_out != NULL)
            *id_out = c->id;
        if (graph_out != NULL)
            *graph_out = c->graph;
    }
    return cudaSuccess;
}

/* ---- instantiate, launch, destroy -------------------------------------------------------- */

static void *xcalloc(size_t n, size_t size)
{
    void *p = calloc(n ? n : 1, size);
    if (p == NULL) {
        fprintf(stderr, "shmemu: out of memory instantiating a graph\n");
        exit(2);
    }
    return p;
}

static cudaEvent_t new_event(void)
{
    cudaEvent_t e = NULL;
    if (cudaEventCreateWithFlags(&e, cudaEventDisableTiming) != cudaSuccess) {
        fprintf(stderr, "shmemu: out of memory instantiating a graph\n");
        exit(2);
    }
    return e;
}

/* A stream for a lane: a spare one of the same priority, or a new one. */
static emu_stream *lane_stream(emu_pe *pe, int priority)
{
    for (emu_stream **p = &pe->spare_lanes; *p != NULL; p = &(*p)->next_spare) {
        emu_stream *s = *p;
        if (s->priority == priority) {
            *p = s->next_spare;
            s->next_spare = NULL;
            return s;
        }
    }
    emu_stream *s = emu_stream_new(pe, priority);
    s->flags = cudaStreamNonBlocking;
    return s;
}

static cudaError_t instantiate(const char *call, cudaGraphExec_t *pGraphExec, cudaGraph_t graph,
                               unsigned long long flags)
{
    emu_pe *pe = emu_stream_device(call);
    if (pGraphExec == NULL || graph == NULL)
        return complain(cudaErrorInvalidValue, call, "pGraphExec or graph is NULL");
    const unsigned long long known =
        cudaGraphInstantiateFlagAutoFreeOnLaunch | cudaGraphInstantiateFlagUpload |
        cudaGraphInstantiateFlagDeviceLaunch | cudaGraphInstantiateFlagUseNodePriority;
    if ((flags & ~known) != 0)
        return complain(cudaErrorInvalidValue, call,
                        "flags 0x%llx: use cudaGraphInstantiateFlag* values", flags);
    if (graph->pe != pe)
        return complain(cudaErrorInvalidValue, call,
                        "the graph was captured by another PE (each PE is its own GPU)");
    struct emu_graph_exec *x = xcalloc(1, sizeof *x);
    x->pe = pe;
    x->graph = graph;
    graph->refs++;
    x->n_lanes = graph->n_lanes;
    x->lane_stream = xcalloc((size_t)x->n_lanes, sizeof *x->lane_stream);
    x->lane_end = xcalloc((size_t)x->n_lanes, sizeof *x->lane_end);
    x->after = xcalloc((size_t)graph->n_nodes, sizeof *x->after);
    for (int v = 0; v < graph->n_nodes; v++) {
        const emu_graph_node *node = &graph->nodes[v];
        if (node->lane != 0 && x->lane_stream[node->lane] == NULL) {
            x->lane_stream[node->lane] = lane_stream(pe, graph->lane_priority[node->lane]);
            x->lane_end[node->lane] = new_event();
        }
        for (int i = 0; i < node->deps.n; i++) {
            int u = node->deps.ids[i];
            if (graph->nodes[u].lane != node->lane && x->after[u] == NULL)
                x->after[u] = new_event();
        }
    }
    x->start = new_event();
    x->done = new_event();
    *pGraphExec = x;
    return cudaSuccess;
}

cudaError_t cudaGraphInstantiate(cudaGraphExec_t *pGraphExec, cudaGraph_t graph,
                                 unsigned long long flags)
{
    return instantiate("cudaGraphInstantiate", pGraphExec, graph, flags);
}

cudaError_t cudaGraphInstantiateWithFlags(cudaGraphExec_t *pGraphExec, cudaGraph_t graph,
                                          unsigned long long flags)
{
    return instantiate("cudaGraphInstantiateWithFlags", pGraphExec, graph, flags);
}

/* A fresh copy of a recorded operation, to be queued on s. */
static emu_op *op_copy(const emu_op *t, emu_stream *s)
{
    emu_op *op = emu_op_new(t->kind);
    op->dest = t->dest;
    op->source = t->source;
    op->bytes = t->bytes;
    op->pe = t->pe;
    op->nbi = t->nbi;
    op->sig_addr = t->sig_addr;
    op->signal = t->signal;
    op->sig_op = t->sig_op;
    op->cmp = t->cmp;
    op->team = t->team;
    op->nelems = t->nelems;
    op->run = t->run;
    if (t->owned != NULL) { /* a _p call's value (its source), or a call's operands */
        op->owned = malloc(t->owned_bytes);
        if (op->owned == NULL) {
            fprintf(stderr, "shmemu: out of memory replaying a graph\n");
            exit(2);
        }
        memcpy(op->owned, t->owned, t->owned_bytes);
        op->owned_bytes = t->owned_bytes;
        if (t->source == t->owned)
            op->source = op->owned;
    }
    if (t->launch != NULL)
        op->launch = emu_launch_copy(t->launch, s);
    if (t->kind == EMU_OP_EVENT_RECORD) { /* an external record: this replay's generation */
        op->event = t->event;
        op->event_gen = atomic_fetch_add(&t->event->recorded, 1) + 1;
    }
    return op;
}

/* Replays in the graph's list order, which is a topological order of its dependencies;
 * each lane's nodes go to its own stream in that order, so a lane runs its nodes in the
 * order they were captured on that stream. */
cudaError_t cudaGraphLaunch(cudaGraphExec_t graphExec, cudaStream_t stream)
{
    const char *call = "cudaGraphLaunch";
    emu_pe *pe = emu_stream_device(call);
    if (graphExec == NULL)
        return complain(cudaErrorInvalidValue, call, "graphExec is NULL");
    struct emu_graph_exec *x = graphExec;
    if (x->pe != pe)
        return complain(cudaErrorInvalidValue, call,
                        "the graph exec belongs to another PE (each PE is its own GPU)");
    emu_stream *s = emu_stream_resolve(pe, stream);
    if (s->capture != NULL) {
        emu_capture_invalidate(s->capture, call,
                               "launching a graph into a capturing stream (a child graph "
                               "node) is not emulated");
        return emu_set_error(cudaErrorStreamCaptureUnsupported);
    }
    const struct emu_graph *g = x->graph;
    if (x->launched)
        cudaStreamWaitEvent(s, x->done, 0);
    cudaEventRecord(x->start, s);
    for (int l = 1; l < x->n_lanes; l++)
        if (x->lane_stream[l] != NULL)
            cudaStreamWaitEvent(x->lane_stream[l], x->start, 0);
    for (int v = 0; v < g->n_nodes; v++) {
        const emu_graph_node *node = &g->nodes[v];
        emu_stream *ls = node->lane == 0 ? s : x->lane_stream[node->lane];
        for (int i = 0; i < node->deps.n; i++) {
            int u = node->deps.ids[i];
            if (g->nodes[u].lane != node->lane)
                cudaStreamWaitEvent(ls, x->after[u], 0);
        }
        emu_stream_enqueue(ls, op_copy(node->op, ls));
        if (x->after[v] != NULL)
            cudaEventRecord(x->after[v], ls);
    }
    for (int l = 1; l < x->n_lanes; l++) {
        if (x->lane_stream[l] != NULL) {
            cudaEventRecord(x->lane_end[l], x->lane_stream[l]);
            cudaStreamWaitEvent(s, x->lane_end[l], 0);
        }
    }
    cudaEventRecord(x->done, s);
    x->launched = true;
    return cudaSuccess;
}

cudaError_t cudaGraphUpload(cudaGraphExec_t graphExec, cudaStream_t stream)
{
    emu_pe *pe = emu_stream_device("cudaGraphUpload");
    if (graphExec == NULL)
        return complain(cudaErrorInvalidValue, "cudaGraphUpload", "graphExec is NULL");
    (void)emu_stream_resolve(pe, stream);
    return cudaSuccess;
}

static void graph_release(struct emu_graph *g)
{
    if (--g->refs == 0)
        emu_graph_free(g);
}

/* Why node b (of the new graph) cannot take node a's place, or cudaGraphExecUpdateSuccess. */
static cudaGraphExecUpdateResult node_update(const emu_graph_node *a, const emu_graph_node *b)
{
    if (a->lane != b->lane || a->deps.n != b->deps.n)
        return cudaGraphExecUpdateErrorTopologyChanged;
    for (int i = 0; i < a->deps.n; i++)
        if (a->deps.ids[i] != b->deps.ids[i])
            return cudaGraphExecUpdateErrorTopologyChanged;
    if (a->op->kind != b->op->kind || (a->op->launch == NULL) != (b->op->launch == NULL))
        return cudaGraphExecUpdateErrorNodeTypeChanged;
    if (a->op->launch != NULL && (a->op->launch->kernel != b->op->launch->kernel ||
                                  a->op->launch->coop != b->op->launch->coop))
        return cudaGraphExecUpdateErrorFunctionChanged;
    if (a->op->run != b->op->run)
        return cudaGraphExecUpdateErrorFunctionChanged; /* another team collective */
    return cudaGraphExecUpdateSuccess;
}

cudaError_t cudaGraphExecUpdate(cudaGraphExec_t hGraphExec, cudaGraph_t hGraph,
                                cudaGraphExecUpdateResultInfo *resultInfo)
{
    const char *call = "cudaGraphExecUpdate";
    emu_pe *pe = emu_stream_device(call);
    if (hGraphExec == NULL || hGraph == NULL || resultInfo == NULL)
        return complain(cudaErrorInvalidValue, call,
                        "hGraphExec, hGraph or resultInfo is NULL");
    *resultInfo = (cudaGraphExecUpdateResultInfo){cudaGraphExecUpdateError, NULL, NULL};
    struct emu_graph_exec *x = hGraphExec;
    const struct emu_graph *old = x->graph;
    if (hGraph->pe != pe || x->pe != pe)
        return complain(cudaErrorInvalidValue, call,
                        "the graph or the exec belongs to another PE (each PE is its own GPU)");
    cudaGraphExecUpdateResult why = cudaGraphExecUpdateSuccess;
    if (hGraph->n_nodes != old->n_nodes || hGraph->n_lanes != old->n_lanes)
        why = cudaGraphExecUpdateErrorTopologyChanged;
    for (int v = 0; v < old->n_nodes && why == cudaGraphExecUpdateSuccess; v++)
        why = node_update(&old->nodes[v], &hGraph->nodes[v]);
    resultInfo->result = why;
    if (why != cudaGraphExecUpdateSuccess)
        return emu_set_error(cudaErrorGraphExecUpdateFailure); /* CUDA says no more either */
    hGraph->refs++;
    graph_release(x->graph);
    x->graph = hGraph;
    return cudaSuccess;
}

cudaError_t cudaGraphExecDestroy(cudaGraphExec_t graphExec)
{
    emu_pe *pe = emu_stream_device("cudaGraphExecDestroy");
    if (graphExec == NULL)
        return complain(cudaErrorInvalidValue, "cudaGraphExecDestroy", "graphExec is NULL");
    struct emu_graph_exec *x = graphExec;
    /* done's record is the exec's last operation on any stream; cudaEventDestroy waits for
     * it with no edge (CUDA frees an exec in flight when it completes, without a sync) */
    cudaEventDestroy(x->done);
    cudaEventDestroy(x->start);
    for (int v = 0; v < x->graph->n_nodes; v++)
        if (x->after[v] != NULL)
            cudaEventDestroy(x->after[v]);
    for (int l = 1; l < x->n_lanes; l++) {
        if (x->lane_stream[l] != NULL) {
            cudaEventDestroy(x->lane_end[l]);
            x->lane_stream[l]->next_spare = pe->spare_lanes;
            pe->spare_lanes = x->lane_stream[l];
        }
    }
    graph_release(x->graph);
    free(x->lane_stream);
    free(x->lane_end);
    free(x->after);
    free(x);
    return cudaSuccess;
}

cudaError_t cudaGraphDestroy(cudaGraph_t graph)
{
    if (graph == NULL)
        return complain(cudaErrorInvalidValue, "cudaGraphDestroy", "graph is NULL");
    graph_release(graph);
    return cudaSuccess;
}
