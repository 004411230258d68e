# scripts/gpu-cg-common.sh: sourced by gpu-check-cg.sh and gpu-bench-cg.sh (not run alone).
# Sets ngpu and dev (the GPU count and name; NOT RUN, exit 2, without a GPU), keeps NVLink
# multicast off, puts NVSHMEM_LIB on the library path, and defines
#   mps_env PES   starts NVIDIA's MPS once (stopped on exit) when PES outnumber the GPUs and
#                 sets mpsenv to CUDA_MPS_ACTIVE_THREAD_PERCENTAGE=100/(PEs per GPU) for the
#                 PE processes' environment (`env $mpsenv prog`: NVSHMEM's "full MPG" mode;
#                 without it NVSHMEM refuses its collectives when processes share a GPU;
#                 docs/cg.md, "On a GPU"); mpsenv is empty when every PE has its own GPU.
#                 Not in a subshell: it records that MPS runs.
# The caller sets gpu_name (its name, for messages and MPS's folders) before sourcing it.
export NVSHMEM_DISABLE_NVLS=1   # never NVLink multicast (shared hosts)
[ -n "${NVSHMEM_LIB:-}" ] && export LD_LIBRARY_PATH="$NVSHMEM_LIB${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
ngpu=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU ')
if [ "$ngpu" -lt 1 ]; then
    echo "NOT RUN: $gpu_name: no GPU on this machine (nvidia-smi lists none)" >&2
    exit 2
fi
dev=$(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -1)

mps_on=0
mps_stop() {
    [ $mps_on = 1 ] && echo quit | nvidia-cuda-mps-control && mps_on=0
    return 0
}
trap mps_stop EXIT
mps_env() {
    mpsenv=""
    [ "$1" -le "$ngpu" ] && return 0
    if [ $mps_on = 0 ] && [ "${GPU_CG_MPS:-auto}" != 0 ]; then
        if command -v nvidia-cuda-mps-control >/dev/null 2>&1; then
            export CUDA_MPS_PIPE_DIRECTORY=/tmp/$gpu_name-mps CUDA_MPS_LOG_DIRECTORY=/tmp/$gpu_name-mpslog
            mkdir -p "$CUDA_MPS_PIPE_DIRECTORY" "$CUDA_MPS_LOG_DIRECTORY"
            nvidia-cuda-mps-control -d && mps_on=1 && echo "# $gpu_name: MPS started" >&2
        else
            echo "# $gpu_name: no nvidia-cuda-mps-control: NVSHMEM will refuse collectives" >&2
        fi
    fi
    mpsenv="CUDA_MPS_ACTIVE_THREAD_PERCENTAGE=$((100 / (($1 + ngpu - 1) / ngpu)))"
}
