#!/bin/sh
# scripts/gpu-check-cg.sh GPU_CG CPU_CG: `make gpu-check-cg` (cg/cuda.mk). On a GPU machine,
# runs the CUDA build of the CG app (GPU_CG) and the CPU emulator's (CPU_CG) on the same
# input, solver and PE count, with --history, and requires the same standard output: the
# residual of every iteration, the iteration count, the error and the checksum of x
# (docs/design.md D3: the same bits; any difference is a bug). Configurations: every solver
# (cg-mono, cg-host --reduce sync and stream, pcg-mono where the CPU program has it) on every
# input at every PE count. More PEs than GPUs share GPUs: the script starts NVIDIA's MPS for
# those runs (docs/gpu.md) when nvidia-cuda-mps-control is there, gives each PE process
# CUDA_MPS_ACTIVE_THREAD_PERCENTAGE = 100 / (PEs per GPU), and stops MPS after. NVSHMEM runs
# several processes per GPU in "full MPG" mode only so: without MPS (or with a larger
# percentage) it refuses its collectives, which every cg solver uses for its reductions
# ("Called NVSHMEM API not supported with limited MPG (Multiple Processes Per GPU) runs",
# seen on an H100, 2026-11-27).
#
#   GPU_CHECK_CG_INPUTS   inputs, ';'-separated (default: --poisson3d 20;--poisson3d 30;
#                         --matrix tests/cg_data/spd40.mtx --seed 7)
#   GPU_CHECK_CG_PES      PE counts (default: 1 2 4)
#   GPU_CHECK_CG_SOLVERS  solvers (default: cg-mono cg-host:sync cg-host:stream pcg-mono)
#   GPU_CHECK_CG_GPU_ARGS options for the GPU program only (e.g. --blocks 64 --threads 1024,
#                         --partition metis, --transport direct; the "# solver" line that
#                         states them is then left out of the comparison):
#                         its output must still equal the CPU program's default run
#   GPU_CG_MPS            auto (default: MPS when PEs exceed GPUs), 0 (never)
#   GPU_CHECK_CG_LOG      folder for every run's output (default: gpu-check-cg-logs)
#   GPU_CHECK_CG_TIMEOUT  seconds per run (default 180)
# Prints MATCH, MISMATCH or FAILED per configuration and a summary; exits 1 on any mismatch
# or failed run, 2 when there is no GPU (NOT RUN).
set -u
GPU_CG=${1:?usage: gpu-check-cg.sh GPU_CG CPU_CG}
CPU_CG=${2:?usage: gpu-check-cg.sh GPU_CG CPU_CG}
INPUTS=${GPU_CHECK_CG_INPUTS:---poisson3d 20;--poisson3d 30;--matrix tests/cg_data/spd40.mtx --seed 7}
PES=${GPU_CHECK_CG_PES:-1 2 4}
SOLVERS=${GPU_CHECK_CG_SOLVERS:-cg-mono cg-host:sync cg-host:stream pcg-mono}
GARGS=${GPU_CHECK_CG_GPU_ARGS:-}
LOG=${GPU_CHECK_CG_LOG:-gpu-check-cg-logs}
TMO=${GPU_CHECK_CG_TIMEOUT:-180}
mkdir -p "$LOG"

gpu_name=gpu-check-cg
. "$(dirname "$0")/gpu-cg-common.sh"
echo "gpu-check-cg: $(date -u '+%Y-%m-%d %H:%M UTC'), $ngpu x $dev${GARGS:+ (GPU only: $GARGS)}"

# pcg-mono only where the CPU program has it.
has_solver() { "$CPU_CG" --help 2>/dev/null | grep -q -- "$1"; }

rm -f "$LOG/.match" "$LOG/.fail"
for pes in $PES; do
    mps_env "$pes"
    for sv in $SOLVERS; do
        solver=${sv%%:*}
        reduce=""
        [ "$solver" != "$sv" ] && reduce="--reduce ${sv#*:}"
        if ! has_solver "$solver"; then
            echo "SKIPPED  $sv: $CPU_CG has no --solver $solver"
            continue
        fi
        echo "$INPUTS" | tr ';' '\n' | while IFS= read -r input; do
            [ -n "$input" ] || continue
            tag="p${pes}-$(echo "$sv $input" | tr -c 'A-Za-z0-9.\n' '_' | tr -s _)"
            cpu="$LOG/$tag.cpu" gpu="$LOG/$tag.gpu"
            "$CPU_CG" $input --solver "$solver" $reduce --pes "$pes" --history >"$cpu" \
                2>"$cpu.err"
            crc=$?
            timeout "$TMO" env $mpsenv "$GPU_CG" $input --solver "$solver" $reduce --pes "$pes" \
                --history $GARGS >"$gpu" 2>"$gpu.err"
            grc=$?
            per=$(grep -o '[0-9.e+-]* ms per iteration' "$gpu.err" | head -1)
            iters=$(grep '^iterations' "$gpu" | awk '{ print $2 }')
            sum=$(grep '^checksum' "$gpu" | awk '{ print $2 }')
            # status 1 (not converged) is a result too, if both agree on it
            if [ $crc -gt 1 ] || [ $grc -gt 1 ] || [ $crc -ne $grc ] || [ -z "$sum" ]; then
                echo "FAILED   $tag: cpu status $crc, gpu status $grc; $gpu.err:"
                tail -5 "$gpu.err" | sed 's/^/    /'
                echo 1 >>"$LOG/.fail"
            # With GPU-only options the "# solver ..." line (the settings: --partition,
            # --transport) differs by design; every other line must still be equal.
            elif cmp -s "$cpu" "$gpu" || { [ -n "$GARGS" ] &&
                 grep -v '^# solver ' "$cpu" >"$cpu.cmp" &&
                 grep -v '^# solver ' "$gpu" >"$gpu.cmp" && cmp -s "$cpu.cmp" "$gpu.cmp"; }; then
                echo "MATCH    $tag: iterations $iters, checksum $sum, $(grep -c '^residual' "$gpu") residuals (GPU $per)"
                echo 1 >>"$LOG/.match"
            else
                echo "MISMATCH $tag: first difference (cpu | gpu):"
                diff "$cpu" "$gpu" | head -4 | sed 's/^/    /'
                echo 1 >>"$LOG/.fail"
            fi
        done
    done
done
nmatch=$(cat "$LOG/.match" 2>/dev/null | wc -l)
nfail=$(cat "$LOG/.fail" 2>/dev/null | wc -l)
rm -f "$LOG/.match" "$LOG/.fail"
echo "gpu-check-cg: $nmatch matched, $nfail failed or differed"
[ "$nfail" -eq 0 ] && [ "$nmatch" -gt 0 ] && echo "gpu-check-cg: PASS" && exit 0
echo "gpu-check-cg: FAIL"
exit 1
