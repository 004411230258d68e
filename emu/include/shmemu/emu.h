/*
 * shmemu/emu.h: the CUDA execution emulator's host interface.
 *
 * Kernels are written once in the kernel dialect (shmemu/kernel.h) and launched with its
 * LAUNCH macro, which calls emu_launch. Host code uses the CUDA runtime's names for the
 * little of it that GPU-initiated communication code needs (streams with priorities,
 * events, synchronization, device memory), so the same host code also builds with nvcc.
 *
 * Execution (docs/emu.md has the whole model):
 *   - every block is a pthread attached to its PE (pgas_thread_attach); every block of
 *     every kernel in flight on every PE is live at once, unless a residency limit is set;
 *   - the threads of a block are fibers of the block's pthread, switching at __syncthreads,
 *     __syncwarp, warp collectives, mbarrier waits and every wait that would park;
 *   - each stream of a PE is a pthread that runs its operations in order; streams run
 *     concurrently. The default stream (NULL) is one more stream of the PE, with no implicit
 *     synchronization with the others (as CUDA's per-thread default stream).
 *
 * Environment (read when a PE first uses the emulator):
 *   SHMEMU_EMU_SMS=N        resident blocks per PE ("SMs"; default 0 = every block resident).
 *                           A kernel that would deadlock on a GPU with N SMs is reported.
 *   SHMEMU_EMU_STALL=SEC    how long every resident block (and the host) must be parked,
 *                           with blocks waiting for an SM, before that report (default 5;
 *                           20 under valgrind).
 *   SHMEMU_EMU_TRACE=PATH   record block timings and write PE p's Chrome trace (Perfetto)
 *                           to PATH with "%d" replaced by p (or ".p" appended) at PE exit.
 *   SHMEMU_EMU_STACK=BYTES  fiber stack size per emulated thread (default 64K; more under
 *                           sanitizers).
 */
#ifndef SHMEMU_EMU_H
#define SHMEMU_EMU_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "nvshmem.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- CUDA runtime types and names (the subset the emulator provides) ------------------- */

#ifdef __cplusplus
struct uint3; /* CUDA's vector type (shmemu-nvcc's layer, cuda/include, defines it) */
#endif
typedef struct dim3 {
    unsigned int x, y, z;
#ifdef __cplusplus
    /* CUDA's dim3 for C++ (shmemu-nvcc): sizes left out are 1, and it converts to uint3. */
    constexpr dim3(unsigned int vx = 1, unsigned int vy = 1, unsigned int vz = 1)
        : x(vx), y(vy), z(vz)
    {
    }
    constexpr dim3(const uint3 &v); /* both defined by cuda/include/shmemu_cuda/vector_types.h */
    constexpr operator uint3() const;
#endif
} dim3;

typedef struct emu_stream *cudaStream_t;
typedef struct emu_event *cudaEvent_t;

typedef enum cudaError {
    cudaSuccess = 0,
    cudaErrorInvalidValue = 1,
    cudaErrorMemoryAllocation = 2,
    cudaErrorInvalidConfiguration = 9,
    cudaErrorInvalidResourceHandle = 400,
    cudaErrorIllegalState = 401,
    cudaErrorNotReady = 600,
    cudaErrorCooperativeLaunchTooLarge = 720,
    cudaErrorNotSupported = 801,
    cudaErrorStreamCaptureUnsupported = 900,
    cudaErrorStreamCaptureInvalidated = 901,
    cudaErrorStreamCaptureMerge = 902,
    cudaErrorStreamCaptureUnmatched = 903,
    cudaErrorStreamCaptureUnjoined = 904,
    cudaErrorStreamCaptureIsolation = 905,
    cudaErrorStreamCaptureImplicit = 906,
    cudaErrorCapturedEvent = 907,
    cudaErrorStreamCaptureWrongThread = 908,
    cudaErrorGraphExecUpdateFailure = 910
#ifdef __cplusplus
    /* The rest of CUDA's codes that shmemu-nvcc's C++ layer (cuda/) returns or names; C code
     * (emu/src) sees only the ones above. */
    ,
    cudaErrorInitializationError = 3,
    cudaErrorCudartUnloading = 4,
    cudaErrorInvalidSymbol = 13,
    cudaErrorInvalidHostPointer = 16,
    cudaErrorInvalidDevicePointer = 17,
    cudaErrorInvalidMemcpyDirection = 21,
    cudaErrorInsufficientDriver = 35,
    cudaErrorMissingConfiguration = 52,
    cudaErrorInvalidDeviceFunction = 98,
    cudaErrorNoDevice = 100,
    cudaErrorInvalidDevice = 101,
    cudaErrorInvalidKernelImage = 200,
    cudaErrorNoKernelImageForDevice = 209,
    cudaErrorSymbolNotFound = 500,
    cudaErrorIllegalAddress = 700,
    cudaErrorLaunchOutOfResources = 701,
    cudaErrorLaunchTimeout = 702,
    cudaErrorPeerAccessAlreadyEnabled = 704,
    cudaErrorPeerAccessNotEnabled = 705,
    cudaErrorAssert = 710,
    cudaErrorHostMemoryAlreadyRegistered = 712,
    cudaErrorHostMemoryNotRegistered = 713,
    cudaErrorLaunchFailure = 719,
    cudaErrorNotPermitted = 800,
    cudaErrorUnknown = 999
#endif
} cudaError_t;

enum { cudaStreamDefault = 0, cudaStreamNonBlocking = 1 };
enum { cudaEventDefault = 0, cudaEventBlockingSync = 1, cudaEventDisableTiming = 2 };

typedef enum cudaMemcpyKind {
    cudaMemcpyHostToHost = 0,
    cudaMemcpyHostToDevice = 1,
    cudaMemcpyDeviceToHost = 2,
    cudaMemcpyDeviceToDevice = 3,
    cudaMemcpyDefault = 4
} cudaMemcpyKind;

/* Stream priorities: lower numbers are higher priorities, as in CUDA; the range is
 * [greatest, least] = [-5, 0]. Values outside it are clamped. */
cudaError_t cudaDeviceGetStreamPriorityRange(int *leastPriority, int *greatestPriority);
cudaError_t cudaStreamCreate(cudaStream_t *stream);
cudaError_t cudaStreamCreateWithFlags(cudaStream_t *stream, unsigned int flags);
cudaError_t cudaStreamCreateWithPriority(cudaStream_t *stream, unsigned int flags,
                                         int priority);
/* Waits for the stream's work, then frees it. */
cudaError_t cudaStreamDestroy(cudaStream_t stream);
cudaError_t cudaStreamSynchronize(cudaStream_t stream);
/* cudaSuccess when all its work is done, cudaErrorNotReady otherwise. */
cudaError_t cudaStreamQuery(cudaStream_t stream);
cudaError_t cudaStreamWaitEvent(cudaStream_t stream, cudaEvent_t event, unsigned int flags);
/* Waits for every stream of the calling PE. */
cudaError_t cudaDeviceSynchronize(void);

cudaError_t cudaEventCreate(cudaEvent_t *event);
cudaError_t cudaEventCreateWithFlags(cudaEvent_t *event, unsigned int flags);
cudaError_t cudaEventDestroy(cudaEvent_t event);
cudaError_t cudaEventRecord(cudaEvent_t event, cudaStream_t stream);
enum { cudaEventRecordDefault = 0, cudaEventRecordExternal = 1 };
/* cudaEventRecordExternal on a capturing stream records the event as a node of the graph
 * (each replay records it, and it can be waited on and timed outside the graph); otherwise
 * cudaEventRecord. */
cudaError_t cudaEventRecordWithFlags(cudaEvent_t event, cudaStream_t stream,
                                     unsigned int flags);
cudaError_t cudaEventSynchronize(cudaEvent_t event);
cudaError_t cudaEventQuery(cudaEvent_t event);
/* Milliseconds between two completed events. */
cudaError_t cudaEventElapsedTime(float *ms, cudaEvent_t start, cudaEvent_t end);

/* Device memory is host memory here (zeroed by cudaMalloc); copies are plain. */
cudaError_t cudaMalloc(void **ptr, size_t size);
cudaError_t cudaFree(void *ptr);
cudaError_t cudaMemset(void *ptr, int value, size_t count);
cudaError_t cudaMemcpy(void *dst, const void *src, size_t count, cudaMemcpyKind kind);

/* ---- stream capture and graphs (graph.c, capture.c) ---------------------------------------
 * While a stream captures, the work issued to it (launches, cudaMemcpyAsync and the other
 * one-thread calls of cuda/, NVSHMEM's *_on_stream calls) is recorded, not run; an event
 * recorded on it stands for the work recorded so far, and a stream that waits on such an
 * event joins the capture (fork), and must be joined back to the origin stream (a wait on an
 * event recorded in the joined stream) before cudaStreamEndCapture (else
 * cudaErrorStreamCaptureUnjoined). cudaGraphLaunch replays the recorded work: kernels with the
 * arguments they were captured with, the work of the origin stream on the launch stream, the
 * work of each joined stream on a stream of the instantiated graph, ordered by events exactly
 * where the capture had them, so the race checkers see the edges that issuing the same work
 * directly would give. Errors are CUDA's: waiting for a capturing stream
 * (cudaStreamSynchronize, cudaStreamQuery; cudaStreamDestroy too) gives
 * cudaErrorStreamCaptureUnsupported, and for a captured event (cudaEventSynchronize,
 * cudaEventQuery) cudaErrorCapturedEvent; a synchronous call that capture modes forbid
 * (cudaDeviceSynchronize, cudaMemcpy, cudaMemset) cudaErrorStreamCaptureUnsupported, or
 * cudaErrorStreamCaptureImplicit where a blocking stream captures and the call uses the
 * legacy stream; a capturing stream's wait on an event recorded outside the capture
 * cudaErrorStreamCaptureIsolation, on one of another capture cudaErrorStreamCaptureMerge.
 * Each invalidates the capture: work issued to it then gives
 * cudaErrorStreamCaptureInvalidated, and so does cudaStreamEndCapture, with a NULL graph.
 * cudaGraphExecUpdate takes new parameters into an exec of the same topology. Not emulated:
 * launching a graph into a capturing stream (child graphs), graph nodes added by hand
 * (cudaGraphAdd*Node), cudaThreadExchangeStreamCaptureMode, cudaEventWaitExternal,
 * memory nodes (cuda/'s cudaMallocAsync allocates when captured; its cudaFreeAsync is refused
 * on a capturing stream). */

typedef struct emu_graph *cudaGraph_t;
typedef struct emu_graph_exec *cudaGraphExec_t;
typedef struct emu_graph_node *cudaGraphNode_t; /* no node API: only cudaStreamGetCaptureInfo's */

typedef enum cudaStreamCaptureMode {
    cudaStreamCaptureModeGlobal = 0,
    cudaStreamCaptureModeThreadLocal = 1,
    cudaStreamCaptureModeRelaxed = 2
} cudaStreamCaptureMode;

typedef enum cudaStreamCaptureStatus {
    cudaStreamCaptureStatusNone = 0,
    cudaStreamCaptureStatusActive = 1,
    cudaStreamCaptureStatusInvalidated = 2
} cudaStreamCaptureStatus;

enum {
    cudaGraphInstantiateFlagAutoFreeOnLaunch = 1,
    cudaGraphInstantiateFlagUpload = 2,
    cudaGraphInstantiateFlagDeviceLaunch = 4,
    cudaGraphInstantiateFlagUseNodePriority = 8
};

#ifdef __cplusplus
#define EMU_DEFAULT_ARG(v) = v /* CUDA's C++ defaults */
#else
#define EMU_DEFAULT_ARG(v)
#endif

/* Any stream of the PE, NULL included (emu's default stream is CUDA's per-thread one);
 * cudaErrorIllegalState if it captures already, cudaErrorInvalidValue for an unknown mode. */
cudaError_t cudaStreamBeginCapture(cudaStream_t stream, cudaStreamCaptureMode mode);
/* On the origin stream (else cudaErrorStreamCaptureUnmatched; cudaErrorIllegalState if the
 * stream is not capturing; cudaErrorStreamCaptureWrongThread from another thread unless
 * relaxed). Every stream of the capture leaves capture mode. */
cudaError_t cudaStreamEndCapture(cudaStream_t stream, cudaGraph_t *pGraph);
cudaError_t cudaStreamIsCapturing(cudaStream_t stream, cudaStreamCaptureStatus *pCaptureStatus);
/* Status, id and graph; dependencies_out and numDependencies_out must be NULL (no node API:
 * cudaErrorNotSupported). */
cudaError_t cudaStreamGetCaptureInfo(cudaStream_t stream,
                                     cudaStreamCaptureStatus *captureStatus_out,
                                     unsigned long long *id_out EMU_DEFAULT_ARG(0),
                                     cudaGraph_t *graph_out EMU_DEFAULT_ARG(0),
                                     const cudaGraphNode_t **dependencies_out EMU_DEFAULT_ARG(0),
                                     size_t *numDependencies_out EMU_DEFAULT_ARG(0));
/* CUDA 12's signature. flags: cudaGraphInstantiateFlag* but DeviceLaunch (ignored: every
 * launch is a host launch). The graph may be destroyed afterwards. */
cudaError_t cudaGraphInstantiate(cudaGraphExec_t *pGraphExec, cudaGraph_t graph,
                                 unsigned long long flags EMU_DEFAULT_ARG(0));
cudaError_t cudaGraphInstantiateWithFlags(cudaGraphExec_t *pGraphExec, cudaGraph_t graph,
                                          unsigned long long flags EMU_DEFAULT_ARG(0));
/* Replays the graph on stream: after the stream's earlier work and the exec's earlier
 * launches, before the stream's later work. */
cudaError_t cudaGraphLaunch(cudaGraphExec_t graphExec, cudaStream_t stream);
/* Nothing to upload: checks its arguments. */
cudaError_t cudaGraphUpload(cudaGraphExec_t graphExec, cudaStream_t stream);

typedef enum cudaGraphExecUpdateResult {
    cudaGraphExecUpdateSuccess = 0,
    cudaGraphExecUpdateError = 1,
    cudaGraphExecUpdateErrorTopologyChanged = 2,
    cudaGraphExecUpdateErrorNodeTypeChanged = 3,
    cudaGraphExecUpdateErrorFunctionChanged = 4,
    cudaGraphExecUpdateErrorParametersChanged = 5,
    cudaGraphExecUpdateErrorNotSupported = 6,
    cudaGraphExecUpdateErrorUnsupportedFunctionChange = 7,
    cudaGraphExecUpdateErrorAttributesChanged = 8
} cudaGraphExecUpdateResult;

typedef struct cudaGraphExecUpdateResultInfo {
    cudaGraphExecUpdateResult result;
    cudaGraphNode_t errorNode;     /* always NULL here (no node API) */
    cudaGraphNode_t errorFromNode; /* always NULL here */
} cudaGraphExecUpdateResultInfo;

/* CUDA 12's signature. Takes graph's parameters into the exec when graph has the exec's
 * topology (the same nodes, captured on the same streams in the same order, with the same
 * dependencies and kinds, launches of the same kernels): kernel arguments, grid, block and
 * shared memory, and the operands of the NVSHMEM stream calls may differ; later launches
 * replay graph (launches already queued keep what they had). Otherwise
 * cudaErrorGraphExecUpdateFailure with resultInfo->result saying why, and the exec is
 * unchanged. */
cudaError_t cudaGraphExecUpdate(cudaGraphExec_t hGraphExec, cudaGraph_t hGraph,
                                cudaGraphExecUpdateResultInfo *resultInfo);
/* Waits for the exec's launches, then frees it. */
cudaError_t cudaGraphExecDestroy(cudaGraphExec_t graphExec);
cudaError_t cudaGraphDestroy(cudaGraph_t graph);

/* For layers over the emulator (cuda/'s cudaMemcpy and cudaMemset, which wait for every
 * stream): cudaSuccess when the calling host thread may make a synchronous call now, else
 * the error CUDA gives, after invalidating the captures it breaks (call names the call in the
 * message). legacy_stream: the call uses CUDA's legacy default stream (cudaMemcpy), which a
 * capturing blocking stream forbids in every capture mode. */
cudaError_t emu_capture_sync_allowed(const char *call, bool legacy_stream);

/* The error of the last failed launch or call of this thread, then cudaSuccess. */
cudaError_t cudaGetLastError(void);
cudaError_t cudaPeekAtLastError(void);
const char *cudaGetErrorString(cudaError_t error);
/* Records e as the calling host thread's last error (for layers over the emulator, such as
 * cuda/'s); returns e. */
cudaError_t emu_set_error(cudaError_t e);

/* ---- launching (LAUNCH and LAUNCH_COOP in shmemu/kernel.h call this) -------------------- */

typedef struct emu_kernel {
    const char *name;
    void (*entry)(const void *args); /* unpacks the argument struct and runs the kernel */
    size_t arg_size;
} emu_kernel;

/* Queues kernel k on stream (NULL: the PE's default stream) with a copy of its argument
 * struct. cooperative: every block must be resident at once (grid_sync is allowed).
 * Returns cudaSuccess or, after printing why, an error (also kept for cudaGetLastError). */
cudaError_t emu_launch(const emu_kernel *k, dim3 grid, dim3 block, size_t dynamic_shared,
                       cudaStream_t stream, const void *args, size_t arg_size,
                       bool cooperative);

/* ---- options and records (this PE) ------------------------------------------------------- */

/* Resident blocks per PE (0: no limit). Applies to blocks admitted from now on. */
void emu_set_sm_limit(int sms);
/* Records each block's start, end and SM from now on (SHMEMU_EMU_TRACE turns it on). */
void emu_set_timing(bool on);

typedef struct emu_block_record {
    const char *kernel; /* the kernel's name (static storage) */
    unsigned launch;    /* launch number on this PE, from 1 */
    int stream;         /* stream number on this PE (0 = default stream) */
    int priority;
    dim3 block;
    int sm;             /* the SM slot the block held */
    uint64_t admitted;  /* admission order on this PE, from 1 */
    uint64_t start_ns;  /* CLOCK_MONOTONIC */
    uint64_t end_ns;
} emu_block_record;

/* Copies up to max of this PE's block records of finished kernels (call after a
 * synchronize), in admission order; returns how many exist. */
size_t emu_block_records(emu_block_record *out, size_t max);
/* Writes this PE's records as Chrome trace-event JSON (tmp file + rename). 0 or -1. */
int emu_trace_write(const char *path);
/* Blocks of this PE's kernels that wait for an SM (with a residency limit). */
int emu_blocks_waiting_for_sm(void);
/* Waits until at least n blocks of this PE wait for an SM (for tests and tools). */
void emu_wait_blocks_waiting_for_sm(int n);

/* ---- NVSHMEM's stream calls -------------------------------------------------------------- */
/* Each is queued on the stream and runs in stream order, on the stream's thread. Sources are
 * read when the operation runs, as on a GPU. */

void nvshmemx_putmem_on_stream(void *dest, const void *source, size_t bytes, int pe,
                               cudaStream_t stream);
void nvshmemx_putmem_nbi_on_stream(void *dest, const void *source, size_t bytes, int pe,
                                   cudaStream_t stream);
void nvshmemx_getmem_on_stream(void *dest, const void *source, size_t bytes, int pe,
                               cudaStream_t stream);
void nvshmemx_getmem_nbi_on_stream(void *dest, const void *source, size_t bytes, int pe,
                                   cudaStream_t stream);
void nvshmemx_putmem_signal_on_stream(void *dest, const void *source, size_t bytes,
                                      uint64_t *sig_addr, uint64_t signal, int sig_op, int pe,
                                      cudaStream_t stream);
void nvshmemx_putmem_signal_nbi_on_stream(void *dest, const void *source, size_t bytes,
                                          uint64_t *sig_addr, uint64_t signal, int sig_op,
                                          int pe, cudaStream_t stream);
void nvshmemx_signal_op_on_stream(uint64_t *sig_addr, uint64_t signal, int sig_op, int pe,
                                  cudaStream_t stream);
void nvshmemx_signal_wait_until_on_stream(uint64_t *sig_addr, int cmp, uint64_t cmp_value,
                                          cudaStream_t stream);
void nvshmemx_quiet_on_stream(cudaStream_t stream);
void nvshmemx_barrier_all_on_stream(cudaStream_t stream);
void nvshmemx_sync_all_on_stream(cudaStream_t stream);
int nvshmemx_barrier_on_stream(nvshmem_team_t team, cudaStream_t stream);

#define SHMEMU_DECLARE_RMA_ON_STREAM(TYPE, NAME)                                              \
    void nvshmemx_##NAME##_put_on_stream(TYPE *dest, const TYPE *source, size_t nelems,       \
                                         int pe, cudaStream_t stream);                        \
    void nvshmemx_##NAME##_get_on_stream(TYPE *dest, const TYPE *source, size_t nelems,       \
                                         int pe, cudaStream_t stream);                        \
    void nvshmemx_##NAME##_p_on_stream(TYPE *dest, TYPE value, int pe, cudaStream_t stream);
SHMEMU_RMA_TYPES(SHMEMU_DECLARE_RMA_ON_STREAM)
#undef SHMEMU_DECLARE_RMA_ON_STREAM

/* Team collectives on a stream (on_stream.c): queued, and made by the stream's thread with
 * nvshmem.h's collective when the stream reaches them. Every PE of the team queues the same
 * collectives in the same order. Return 0. */
int nvshmemx_broadcastmem_on_stream(nvshmem_team_t team, void *dest, const void *source,
                                    size_t nelems, int PE_root, cudaStream_t stream);
int nvshmemx_fcollectmem_on_stream(nvshmem_team_t team, void *dest, const void *source,
                                   size_t nelems, cudaStream_t stream);
int nvshmemx_alltoallmem_on_stream(nvshmem_team_t team, void *dest, const void *source,
                                   size_t nelems, cudaStream_t stream);

#define SHMEMU_DECLARE_COLL_ON_STREAM(TYPE, NAME)                                             \
    int nvshmemx_##NAME##_broadcast_on_stream(nvshmem_team_t team, TYPE *dest,                \
                                              const TYPE *source, size_t nelems, int PE_root, \
                                              cudaStream_t stream);                           \
    int nvshmemx_##NAME##_fcollect_on_stream(nvshmem_team_t team, TYPE *dest,                 \
                                             const TYPE *source, size_t nelems,               \
                                             cudaStream_t stream);                            \
    int nvshmemx_##NAME##_alltoall_on_stream(nvshmem_team_t team, TYPE *dest,                 \
                                             const TYPE *source, size_t nelems,               \
                                             cudaStream_t stream);
SHMEMU_RMA_TYPES(SHMEMU_DECLARE_COLL_ON_STREAM)
#undef SHMEMU_DECLARE_COLL_ON_STREAM

#define SHMEMU_DECLARE_REDUCE_ON_STREAM_OP(TYPE, NAME, OP)                                    \
    int nvshmemx_##NAME##_##OP##_reduce_on_stream(nvshmem_team_t team, TYPE *dest,            \
                                                  const TYPE *source, size_t nreduce,         \
                                                  cudaStream_t stream);
#define SHMEMU_DECLARE_REDUCE_ON_STREAM_BITWISE(TYPE, NAME)                                   \
    SHMEMU_REDUCE_BITWISE_OPS(SHMEMU_DECLARE_REDUCE_ON_STREAM_OP, TYPE, NAME)
#define SHMEMU_DECLARE_REDUCE_ON_STREAM_ARITH(TYPE, NAME)                                     \
    SHMEMU_REDUCE_ARITH_OPS(SHMEMU_DECLARE_REDUCE_ON_STREAM_OP, TYPE, NAME)
SHMEMU_REDUCE_BITWISE_TYPES(SHMEMU_DECLARE_REDUCE_ON_STREAM_BITWISE)
SHMEMU_REDUCE_ARITH_TYPES(SHMEMU_DECLARE_REDUCE_ON_STREAM_ARITH)
#undef SHMEMU_DECLARE_REDUCE_ON_STREAM_ARITH
#undef SHMEMU_DECLARE_REDUCE_ON_STREAM_BITWISE
#undef SHMEMU_DECLARE_REDUCE_ON_STREAM_OP

/* The rest of NVSHMEM 3.x's stream calls (on_stream_forms.c): typed and sized (8..128 bits)
 * RMA, strided RMA, put-with-signal, g (which waits for the stream and returns the value),
 * typed waits (status and cmp_values are read when the stream reaches the wait) and the team
 * sync. Errors in their arguments are reported when the stream runs them. */
int nvshmemx_team_sync_on_stream(nvshmem_team_t team, cudaStream_t stream);

#define SHMEMU_DECLARE_TYPED_ON_STREAM(TYPE, NAME)                                            \
    void nvshmemx_##NAME##_put_nbi_on_stream(TYPE *dest, const TYPE *source, size_t nelems,   \
                                             int pe, cudaStream_t stream);                    \
    void nvshmemx_##NAME##_get_nbi_on_stream(TYPE *dest, const TYPE *source, size_t nelems,   \
                                             int pe, cudaStream_t stream);                    \
    void nvshmemx_##NAME##_put_signal_on_stream(TYPE *dest, const TYPE *source,               \
                                                size_t nelems, uint64_t *sig_addr,            \
                                                uint64_t signal, int sig_op, int pe,          \
                                                cudaStream_t stream);                         \
    void nvshmemx_##NAME##_put_signal_nbi_on_stream(TYPE *dest, const TYPE *source,           \
                                                    size_t nelems, uint64_t *sig_addr,        \
                                                    uint64_t signal, int sig_op, int pe,      \
                                                    cudaStream_t stream);                     \
    TYPE nvshmemx_##NAME##_g_on_stream(const TYPE *source, int pe, cudaStream_t stream);      \
    void nvshmemx_##NAME##_iput_on_stream(TYPE *dest, const TYPE *source, ptrdiff_t dst,      \
                                          ptrdiff_t sst, size_t nelems, int pe,               \
                                          cudaStream_t stream);                               \
    void nvshmemx_##NAME##_iget_on_stream(TYPE *dest, const TYPE *source, ptrdiff_t dst,      \
                                          ptrdiff_t sst, size_t nelems, int pe,               \
                                          cudaStream_t stream);
SHMEMU_RMA_TYPES(SHMEMU_DECLARE_TYPED_ON_STREAM)
#undef SHMEMU_DECLARE_TYPED_ON_STREAM

#define SHMEMU_DECLARE_SIZED_ON_STREAM(BITS, TYPE)                                            \
    void nvshmemx_put##BITS##_on_stream(void *dest, const void *source, size_t nelems, int pe, \
                                        cudaStream_t stream);                                 \
    void nvshmemx_put##BITS##_nbi_on_stream(void *dest, const void *source, size_t nelems,    \
                                            int pe, cudaStream_t stream);                     \
    void nvshmemx_get##BITS##_on_stream(void *dest, const void *source, size_t nelems, int pe, \
                                        cudaStream_t stream);                                 \
    void nvshmemx_get##BITS##_nbi_on_stream(void *dest, const void *source, size_t nelems,    \
                                            int pe, cudaStream_t stream);                     \
    void nvshmemx_put##BITS##_signal_on_stream(void *dest, const void *source, size_t nelems, \
                                               uint64_t *sig_addr, uint64_t signal,           \
                                               int sig_op, int pe, cudaStream_t stream);      \
    void nvshmemx_put##BITS##_signal_nbi_on_stream(void *dest, const void *source,            \
                                                   size_t nelems, uint64_t *sig_addr,         \
                                                   uint64_t signal, int sig_op, int pe,       \
                                                   cudaStream_t stream);                      \
    void nvshmemx_iput##BITS##_on_stream(void *dest, const void *source, ptrdiff_t dst,       \
                                         ptrdiff_t sst, size_t nelems, int pe,                \
                                         cudaStream_t stream);                                \
    void nvshmemx_iget##BITS##_on_stream(void *dest, const void *source, ptrdiff_t dst,       \
                                         ptrdiff_t sst, size_t nelems, int pe,                \
                                         cudaStream_t stream);
SHMEMU_SIZED_TYPES(SHMEMU_DECLARE_SIZED_ON_STREAM)
#undef SHMEMU_DECLARE_SIZED_ON_STREAM

#define SHMEMU_DECLARE_WAIT_ON_STREAM(TYPE, NAME)                                             \
    void nvshmemx_##NAME##_wait_until_on_stream(TYPE *ivar, int cmp, TYPE cmp_value,          \
                                                cudaStream_t stream);                         \
    void nvshmemx_##NAME##_wait_until_all_on_stream(TYPE *ivars, size_t nelems,               \
                                                    const int *status, int cmp,               \
                                                    TYPE cmp_value, cudaStream_t stream);     \
    void nvshmemx_##NAME##_wait_until_all_vector_on_stream(TYPE *ivars, size_t nelems,        \
                                                           const int *status, int cmp,        \
                                                           TYPE *cmp_values,                  \
                                                           cudaStream_t stream);
SHMEMU_WAIT_TYPES(SHMEMU_DECLARE_WAIT_ON_STREAM)
#undef SHMEMU_DECLARE_WAIT_ON_STREAM

#define SHMEMU_DECLARE_REDUCESCATTER_ON_STREAM_OP(TYPE, NAME, OP)                             \
    int nvshmemx_##NAME##_##OP##_reducescatter_on_stream(nvshmem_team_t team, TYPE *dest,     \
                                                         const TYPE *source, size_t nreduce,  \
                                                         cudaStream_t stream);
#define SHMEMU_DECLARE_REDUCESCATTER_ON_STREAM_BITWISE(TYPE, NAME)                            \
    SHMEMU_REDUCE_BITWISE_OPS(SHMEMU_DECLARE_REDUCESCATTER_ON_STREAM_OP, TYPE, NAME)
#define SHMEMU_DECLARE_REDUCESCATTER_ON_STREAM_ARITH(TYPE, NAME)                              \
    SHMEMU_REDUCE_ARITH_OPS(SHMEMU_DECLARE_REDUCESCATTER_ON_STREAM_OP, TYPE, NAME)
SHMEMU_REDUCE_BITWISE_TYPES(SHMEMU_DECLARE_REDUCESCATTER_ON_STREAM_BITWISE)
SHMEMU_REDUCE_ARITH_TYPES(SHMEMU_DECLARE_REDUCESCATTER_ON_STREAM_ARITH)
#undef SHMEMU_DECLARE_REDUCESCATTER_ON_STREAM_ARITH
#undef SHMEMU_DECLARE_REDUCESCATTER_ON_STREAM_BITWISE
#undef SHMEMU_DECLARE_REDUCESCATTER_ON_STREAM_OP

#ifdef __cplusplus
}
#endif

#endif
