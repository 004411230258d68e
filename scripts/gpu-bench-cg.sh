#!/bin/sh
# scripts/gpu-bench-cg.sh GPU_CG CUSPARSE_CG: `make gpu-bench-cg` (cg/cuda.mk). On a GPU
# machine, the time per iteration of the CUDA build's solvers (cg-mono, cg-host --reduce sync
# and stream, pcg-mono where built) on 3-D Poisson at each size and PE count, and of the
# cuSPARSE/cuBLAS CG of bench/cg_cusparse.cu (one GPU) on the same matrix and tolerance.
# The solvers' time is what PE 0 reports for the solve alone ("... on the GPU, PE 0: K
# iterations in T s: X ms per iteration", launch to completion: no process or NVSHMEM
# start-up); the anchor's is cudaEvent time of its iterations after a warm-up solve. More PEs
# than GPUs share GPUs under NVIDIA's MPS (started here, stopped on exit; docs/gpu.md), each
# PE process with CUDA_MPS_ACTIVE_THREAD_PERCENTAGE = 100 / (PEs per GPU): NVSHMEM's "full
# MPG" mode, without which it refuses the collectives (scripts/gpu-check-cg.sh says more).
#
#   GPU_BENCH_CG_SIZES    N of --poisson3d N (default: 64 128)
#   GPU_BENCH_CG_PES      PE counts (default: 1 2 4)
#   GPU_BENCH_CG_SOLVERS  (default: cg-mono cg-host:sync cg-host:stream pcg-mono)
#   GPU_BENCH_CG_GRID     the solvers' grid per PE (default: --threads 256 and --blocks
#                         64 / (PEs per GPU), at least 1; the bits do not depend on it)
#   GPU_BENCH_CG_ARGS     more options for every run (default: --tol 1e-8)
#   GPU_BENCH_CG_LOG      folder for every run's output (default: gpu-bench-cg-logs)
#   GPU_BENCH_CG_TIMEOUT  seconds per run (default 300)
#   GPU_CG_MPS            auto (default: MPS when PEs exceed GPUs), 0 (never)
# Prints one line per run: size rows pes solver iterations ms/iteration checksum. Exits 2 when
# there is no GPU (NOT RUN), 1 when a run failed.
set -u
GPU_CG=${1:?usage: gpu-bench-cg.sh GPU_CG CUSPARSE_CG}
ANCHOR=${2:?usage: gpu-bench-cg.sh GPU_CG CUSPARSE_CG}
SIZES=${GPU_BENCH_CG_SIZES:-64 128}
PES=${GPU_BENCH_CG_PES:-1 2 4}
SOLVERS=${GPU_BENCH_CG_SOLVERS:-cg-mono cg-host:sync cg-host:stream pcg-mono}
GRID=${GPU_BENCH_CG_GRID:-}
ARGS=${GPU_BENCH_CG_ARGS:---tol 1e-8}
LOG=${GPU_BENCH_CG_LOG:-gpu-bench-cg-logs}
TMO=${GPU_BENCH_CG_TIMEOUT:-300}
mkdir -p "$LOG"

gpu_name=gpu-bench-cg
. "$(dirname "$0")/gpu-cg-common.sh"
echo "# gpu-bench-cg: $(date -u '+%Y-%m-%d %H:%M UTC'), $ngpu x $dev; grid ${GRID:-auto}; $ARGS"
echo "# n rows pes solver iterations ms_per_iteration checksum"

fail=0
for n in $SIZES; do
    rows=$((n * n * n))
    out="$LOG/n$n-cusparse"
    if timeout "$TMO" "$ANCHOR" --poisson3d "$n" $ARGS >"$out" 2>"$out.err"; then
        awk -v n="$n" -v rows="$rows" '/^cusparse-cg/ { print n, rows, 1, "cusparse-cublas", $7, $11, "-" }' "$out"
    else
        echo "$n $rows 1 cusparse-cublas FAILED ($(tail -1 "$out.err"))"
        fail=1
    fi
    for pes in $PES; do
        per_gpu=$(( (pes + ngpu - 1) / ngpu ))
        mps_env "$pes"
        grid=$GRID
        [ -n "$grid" ] || grid="--threads 256 --blocks $(( 64 / per_gpu > 0 ? 64 / per_gpu : 1 ))"
        for sv in $SOLVERS; do
            solver=${sv%%:*}
            reduce=""
            [ "$solver" != "$sv" ] && reduce="--reduce ${sv#*:}"
            out="$LOG/n$n-p$pes-$(echo "$sv" | tr ':' '-')"
            timeout "$TMO" env $mpsenv "$GPU_CG" --poisson3d "$n" --solver "$solver" $reduce \
                --pes "$pes" $grid $ARGS >"$out" 2>"$out.err"
            rc=$?
            line=$(grep 'on the GPU, PE 0:' "$out.err" | head -1)
            sum=$(grep '^checksum' "$out" | awk '{ print $2 }')
            if [ $rc -gt 1 ] || [ -z "$line" ]; then
                echo "$n $rows $pes $sv FAILED (status $rc: $(tail -1 "$out.err"))"
                fail=1
                continue
            fi
            echo "$line" | sed 's/.*PE 0: \([0-9]*\) iterations in [0-9.]* s: \([0-9.e+-]*\) ms.*/\1 \2/' |
                awk -v n="$n" -v rows="$rows" -v pes="$pes" -v sv="$sv" -v sum="$sum" \
                    '{ print n, rows, pes, sv, $1, $2, sum }'
        done
    done
done
exit $fail
