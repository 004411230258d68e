#!/usr/bin/env bash
# scripts/gpu-corpus.sh: the .cu corpus (tests/cuda_corpus/, docs/cuda-corpus.md) on a real GPU
# with the real NVSHMEM, and its output against the CPU run's.
#
#   scripts/gpu-corpus.sh compile DIR [NAME...]  where nvcc and NVSHMEM are (`make cuda-compile`):
#       compiles and links every corpus program, unchanged, and compiles each broken twin
#       (every BROKEN_ name the source tests) with nvcc against NVSHMEM, into DIR.
#   scripts/gpu-corpus.sh gpu DIR [NAME...]      on the GPU machine (`make gpu-corpus`):
#       builds every corpus program, unchanged, with nvcc (-x cu -std=c++17 -arch=sm_90
#       -rdc=true) against NVSHMEM, and runs it with mpirun (NVSHMEM_BOOTSTRAP=MPI) on each PE
#       count of GPU_CORPUS_PES (default "2 4"). With fewer GPUs than PEs the PEs share GPUs
#       under NVIDIA MPS (started here if not running), and tests/cuda_corpus/gpu/one_gpu.c
#       (LD_PRELOAD) maps the programs' cudaSetDevice(mype_node) to mype_node mod GPUs.
#       Writes DIR/NAME.pN.out (stdout), DIR/NAME.pN.err and DIR/summary.txt; exits 1 if a run
#       failed (non-zero exit or fewer "NAME: PE p ok" lines than PEs).
#   The CPU side: tests/cuda_corpus/gpu/results/ keeps a GPU run's NAME.pN.out files and
#   summary.txt, and tests/check-cuda-corpus.sh (make check-user) requires every CPU run's
#   sorted output to equal them; to record a new GPU run, copy its DIR/*.out and summary.txt
#   there.
# Ends with "N passed, N failed".
set -u
cd "$(dirname "$0")/.."
mode=${1:-}
dir=${2:-}
[ -n "$mode" ] && [ -n "$dir" ] || {
    echo "usage: scripts/gpu-corpus.sh compile|gpu DIR [NAME...]" >&2
    exit 2
}
shift 2
C=${GPU_CORPUS_SRC:-tests/cuda_corpus} # GPU_CORPUS_SRC: another folder of .cu files (debugging)
names=("$@")
if [ ${#names[@]} -eq 0 ]; then
    for f in "$C"/*.cu; do names+=("$(basename "$f" .cu)"); done
fi
PES=${GPU_CORPUS_PES:-2 4}
passed=0
failed=0
pass() { passed=$((passed + 1)); echo "gpu-corpus: ok: $*"; }
fail() { failed=$((failed + 1)); echo "gpu-corpus: FAIL: $*" >&2; }
# the lines a run is judged by: its "NAME: PE p ..." lines and other stdout, sorted
oks() { grep -c "^$1: PE [0-9]* ok$" "$2"; }

# The toolchain of the GPU side: nvcc, NVSHMEM (NVSHMEM_HOME or the nvidia-nvshmem-cu13 wheel).
find_nvcc_nvshmem() {
    nvcc=${NVCC:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}
    nv=${NVSHMEM_HOME:-$(python3 -c 'import nvidia.nvshmem as m; print(list(m.__path__)[0])' 2>/dev/null)}
    [ -x "$nvcc" ] || { echo "NOT RUN: gpu-corpus: nvcc not found (set NVCC)" >&2; exit 2; }
    [ -f "$nv/include/nvshmem.h" ] || { echo "NOT RUN: gpu-corpus: NVSHMEM not found (set NVSHMEM_HOME)" >&2; exit 2; }
    cuda_home=${nvcc%/bin/nvcc}
}

# nvcc_build: every program, linked, and every broken twin (each BROKEN_ name its source
# tests), compiled, all at once (the GPU machine has many cores) into $b.
nvcc_build() {
    mkdir -p "$b/lib"
    # The wheel ships libnvshmem_host.so.N only: link through a folder of plain names.
    ln -sf "$(ls "$nv"/lib/libnvshmem_host.so* | head -1)" "$b/lib/libnvshmem_host.so"
    ln -sf "$nv/lib/libnvshmem_device.a" "$b/lib/libnvshmem_device.a"
    local name def
    for name in "${names[@]}"; do
        ( "$nvcc" -x cu -std=c++17 -arch=sm_90 -rdc=true -O1 -I"$nv/include" -c "$C/$name.cu" \
              -o "$b/$name.o" > "$b/$name.build" 2>&1 &&
          "$nvcc" -arch=sm_90 -rdc=true -cudart shared -o "$b/$name" "$b/$name.o" \
              -L"$b/lib" -lnvshmem_host -lnvshmem_device -Xlinker -rpath="$nv/lib" \
              -L"$cuda_home/lib64/stubs" -lcuda >> "$b/$name.build" 2>&1 ) &
        for def in $(grep -oE '\bBROKEN_[A-Z0-9_]+' "$C/$name.cu" | sort -u); do
            "$nvcc" -x cu -std=c++17 -arch=sm_90 -rdc=true -O1 -I"$nv/include" -D"$def" \
                -c "$C/$name.cu" -o "$b/$name-$def.o" > "$b/$name-$def.build" 2>&1 &
        done
    done
    wait
    for name in "${names[@]}"; do
        if [ -x "$b/$name" ]; then pass "$name: built with nvcc"; else
            fail "$name: does not build with nvcc:"; head -20 "$b/$name.build" >&2; fi
        for def in $(grep -oE '\bBROKEN_[A-Z0-9_]+' "$C/$name.cu" | sort -u); do
            if [ -f "$b/$name-$def.o" ]; then pass "$name -D$def: compiled with nvcc"; else
                fail "$name -D$def: does not compile with nvcc:"; head -20 "$b/$name-$def.build" >&2; fi
        done
    done
}

compile_mode() {
    mkdir -p "$dir" && dir=$(cd "$dir" && pwd)
    local nvcc nv cuda_home b=$dir
    find_nvcc_nvshmem
    nvcc_build
}

gpu_mode() {
    mkdir -p "$dir" && dir=$(cd "$dir" && pwd)
    local nvcc nv cuda_home b=$dir/build
    find_nvcc_nvshmem
    local mpirun=${MPIRUN:-$(command -v mpirun)}
    [ -n "$mpirun" ] || { echo "NOT RUN: gpu-corpus: mpirun not found (set MPIRUN)" >&2; exit 2; }
    local ngpu
    ngpu=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU ')
    [ "$ngpu" -ge 1 ] || { echo "NOT RUN: gpu-corpus: no GPU (nvidia-smi lists none)" >&2; exit 2; }
    mkdir -p "$b"
    gcc -O2 -shared -fPIC -o "$b/one_gpu.so" tests/cuda_corpus/gpu/one_gpu.c -ldl || exit 1
    export NVSHMEM_DISABLE_NVLS=1 NVSHMEM_BOOTSTRAP=MPI
    export LD_LIBRARY_PATH="$nv/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
    local most=0 n
    for n in $PES; do [ "$n" -gt "$most" ] && most=$n; done
    if [ "$most" -gt "$ngpu" ]; then
        export CUDA_MPS_PIPE_DIRECTORY=${CUDA_MPS_PIPE_DIRECTORY:-/tmp/mps}
        export CUDA_MPS_LOG_DIRECTORY=${CUDA_MPS_LOG_DIRECTORY:-/tmp/mpslog}
        mkdir -p "$CUDA_MPS_PIPE_DIRECTORY" "$CUDA_MPS_LOG_DIRECTORY"
        pgrep -x nvidia-cuda-mps > /dev/null ||
            { nvidia-cuda-mps-control -d && echo "gpu-corpus: started MPS"; }
    fi
    local dev
    dev=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)
    {
        echo "gpu-corpus: $(date -u '+%Y-%m-%d %H:%M UTC'), $ngpu x $dev, $("$nvcc" --version | tail -1)"
        echo "NVSHMEM $(awk '/define NVSHMEM_VENDOR_(MAJOR|MINOR|PATCH)_VERSION/ { printf "%s%s", s, $3; s = "." }' \
            "$nv"/include/non_abi/nvshmem_version.h 2> /dev/null) ($nv)"
    } | tee "$dir/summary.txt"
    local name np out
    nvcc_build
    for name in "${names[@]}"; do
        if [ ! -x "$b/$name" ]; then
            echo "$name build FAIL" >> "$dir/summary.txt"
            continue
        fi
        for np in $PES; do
            out=$dir/$name.p$np
            # A PE that exits on an error leaves the others waiting in NVSHMEM: bound each run.
            # Under MPS, NVSHMEM supports every API (its "full MPG" mode; on-stream reductions
            # need it) only when the PEs' CUDA_MPS_ACTIVE_THREAD_PERCENTAGE add up to at most
            # 100. Eager module loading: with CUDA's default lazy loading, the first launch of
            # a kernel waits while another kernel of the process spins for it (fence_put_flag).
            timeout -k 5 "${GPU_CORPUS_TIMEOUT:-60}" "$mpirun" --allow-run-as-root --oversubscribe -np "$np" \
                -x NVSHMEM_DISABLE_NVLS -x NVSHMEM_BOOTSTRAP -x LD_LIBRARY_PATH \
                -x CUDA_MODULE_LOADING=EAGER \
                ${CUDA_MPS_PIPE_DIRECTORY:+-x CUDA_MPS_ACTIVE_THREAD_PERCENTAGE=$((100 / np))} \
                ${CUDA_MPS_PIPE_DIRECTORY:+-x CUDA_MPS_PIPE_DIRECTORY} \
                -x LD_PRELOAD="$b/one_gpu.so" "$b/$name" > "$out.out" 2> "$out.err"
            local rc=$? k
            pkill -9 -f "$b/$name\$" 2> /dev/null # what a timed-out job left
            k=$(oks "$name" "$out.out")
            if [ $rc -eq 0 ] && [ "$k" -eq "$np" ]; then
                pass "$name on $np PEs (GPU)"; echo "$name p$np ok" >> "$dir/summary.txt"
            else
                fail "$name on $np PEs (GPU): exit $rc, $k of $np ok lines"
                tail -5 "$out.err" >&2
                echo "$name p$np FAIL exit $rc, $k of $np ok" >> "$dir/summary.txt"
            fi
        done
    done
}

case $mode in
compile) compile_mode ;;
gpu) gpu_mode ;;
*) echo "usage: scripts/gpu-corpus.sh compile|gpu DIR [NAME...]" >&2; exit 2 ;;
esac
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
