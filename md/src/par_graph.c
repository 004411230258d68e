/*
 * par_graph.c: --graph, CUDA graph capture of a whole step (paper 000 §5.3, docs/papers.md), CUDA
 * build.
 *
 * A step without a pair search (kick + drift, both force paths with the halos, kick) is
 * issued as usual, but into a capture of the update stream: the other streams join the
 * capture through the step's own events (par.h: the update stream forks to the local and
 * non-local streams and joins them before the closing kick), and the capture ends as one
 * graph, launched on the update stream. The halo kernels take the exchange's sequence
 * number by value, so each step's graph differs from the last in kernel arguments only:
 * the step is captured again and cudaGraphExecUpdate patches the instantiated graph (it
 * is instantiated again when the update is refused, e.g. after a search changed the
 * topology). So what a graph saves here is the GPU's per-launch gaps, not the host's
 * launch calls. The bits cannot change: the same kernels with the same arguments in the
 * same stream order.
 *
 * The emulator has no graphs: the CPU build refuses --graph (md_par_graph_available).
 * --timing during a capture records the phase events as external event nodes of the graph.
 */
#include "cuda_check.h"
#include "par_int.h"
#include "util.h"

#ifdef __CUDACC__

bool md_par_graph_available(void) { return true; }

void md_par_graph_begin(md_par_pe *c)
{
    MD_CUDA(cudaStreamBeginCapture(c->s_upd, cudaStreamCaptureModeThreadLocal));
    c->timer.capturing = true;
}

int md_par_graph_launch(md_par_pe *c, md_error *err)
{
    cudaGraph_t g = NULL;
    cudaError_t e = cudaStreamEndCapture(c->s_upd, &g);
    c->timer.capturing = false;
    if (e != cudaSuccess || !g)
        return md_fail(err, "--graph: PE %d: capturing the step failed: %s", c->me,
                       cudaGetErrorString(e));
    cudaGraphExec_t x = (cudaGraphExec_t)c->graph_exec;
    if (x) {
        cudaGraphExecUpdateResultInfo info;
        if (cudaGraphExecUpdate(x, g, &info) != cudaSuccess) {
            (void)cudaGetLastError(); /* refused: instantiate afresh */
            MD_CUDA(cudaGraphExecDestroy(x));
            x = NULL;
        }
    }
    if (!x) {
        e = cudaGraphInstantiate(&x, g, 0);
        c->graph_builds++;
    }
    MD_CUDA(cudaGraphDestroy(g));
    c->graph_exec = x;
    if (e != cudaSuccess || !x)
        return md_fail(err, "--graph: PE %d: instantiating the step's graph failed: %s",
                       c->me, cudaGetErrorString(e));
    e = cudaGraphLaunch(x, c->s_upd);
    if (e != cudaSuccess)
        return md_fail(err, "--graph: PE %d: launching the step's graph failed: %s", c->me,
                       cudaGetErrorString(e));
    c->graph_launches++;
    return 0;
}

void md_par_graph_free(md_par_pe *c)
{
    if (c->graph_exec)
        MD_CUDA(cudaGraphExecDestroy((cudaGraphExec_t)c->graph_exec));
    c->graph_exec = NULL;
}

void md_par_event_record_captured(cudaEvent_t ev, cudaStream_t s)
{
    MD_CUDA(cudaEventRecordWithFlags(ev, s, cudaEventRecordExternal));
}

#else /* the emulator: no graphs */

bool md_par_graph_available(void) { return false; }

void md_par_graph_begin(md_par_pe *c) { (void)c; }

int md_par_graph_launch(md_par_pe *c, md_error *err)
{
    return md_fail(err, "--graph: PE %d: CUDA graphs exist in the CUDA build only", c->me);
}

void md_par_graph_free(md_par_pe *c) { (void)c; }

void md_par_event_record_captured(cudaEvent_t ev, cudaStream_t s)
{
    MD_CUDA(cudaEventRecord(ev, s));
}

#endif
