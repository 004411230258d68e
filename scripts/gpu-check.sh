#!/bin/sh
# scripts/gpu-check.sh GPU_MD CPU_MD: `make gpu-check` (md/cuda.mk). On a GPU machine, runs
# the CUDA build of the MD app (GPU_MD) and the CPU emulator's (CPU_MD) on the same input
# and decomposition, and compares the checksum of every thermo line (docs/design.md D3: the same
# bits, any difference is a bug). Configurations: 1 GPU, and 2 GPUs when there are 2 or
# more; halo fused, pulse and host (the CPU-initiated baseline); transport direct
# (nvshmem_ptr) and signal (put-with-signal, forced). With GPU_CHECK_ORACLE=1 (the default)
# each multi-GPU configuration also runs with --check (the serial reference at every step
# and the id-coded halo test).
#
#   GPU_CHECK_ARGS   the input (default: --cells 6 --steps 60 --thermo 2; nstlist 20)
#   GPU_CHECK_PES    PE counts to try (default: 1, and 2 and 4 as far as GPUs allow)
#   GPU_CHECK_HALOS  halo variants (default: fused pulse host)
#   GPU_CHECK_GPU_ARGS  options for the GPU program only (e.g. --graph, --force-kernel loop,
#                    --bulk-copy off: the CUDA build's direct path uses bulk copies by
#                    default, the CPU build's stores): its checksums must still equal the
#                    CPU emulator's default run
#   GPU_CHECK_LOG    folder for every run's output (default: gpu-check-logs)
#   GPU_CHECK_TIMEOUT seconds per run (default 180)
#   GPU_CHECK_LAUNCHER  fork (default: the program forks one process per PE and bootstraps
#                    NVSHMEM with a unique id) or mpirun (every PE an MPI rank of
#                    `mpirun -np PES`, NVSHMEM's MPI bootstrap; md/cuda/launch_mpi.cu)
# Prints MATCH or MISMATCH per configuration and a summary; exits 1 on any mismatch or
# failed run, 2 when there is no GPU (NOT RUN).
set -u
GPU_MD=${1:?usage: gpu-check.sh GPU_MD CPU_MD}
CPU_MD=${2:?usage: gpu-check.sh GPU_MD CPU_MD}
ARGS=${GPU_CHECK_ARGS:---cells 6 --steps 60 --thermo 2}
LOG=${GPU_CHECK_LOG:-gpu-check-logs}
TMO=${GPU_CHECK_TIMEOUT:-180}
ORACLE=${GPU_CHECK_ORACLE:-1}
HALOS=${GPU_CHECK_HALOS:-fused pulse host}
GARGS=${GPU_CHECK_GPU_ARGS:-}
LAUNCHER=${GPU_CHECK_LAUNCHER:-fork}
case "$LAUNCHER" in
    fork|mpirun) ;;
    *) echo "gpu-check: GPU_CHECK_LAUNCHER=$LAUNCHER: use fork or mpirun" >&2; exit 2 ;;
esac
# What starts the GPU program for $1 PEs: nothing (it forks them), or mpirun.
launch() {
    if [ "$LAUNCHER" = mpirun ]; then
        echo "mpirun --allow-run-as-root --oversubscribe -np $1"
    fi
}
export NVSHMEM_DISABLE_NVLS=1   # never NVLink multicast (shared hosts)
[ -n "${NVSHMEM_LIB:-}" ] && export LD_LIBRARY_PATH="$NVSHMEM_LIB${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
mkdir -p "$LOG"

ngpu=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU ')
if [ "$ngpu" -lt 1 ]; then
    echo "NOT RUN: gpu-check: no GPU on this machine (nvidia-smi lists none)" >&2
    exit 2
fi
if [ -z "${GPU_CHECK_PES:-}" ]; then
    GPU_CHECK_PES=1
    [ "$ngpu" -ge 2 ] && GPU_CHECK_PES="1 2"
    [ "$ngpu" -ge 4 ] && GPU_CHECK_PES="1 2 4"
fi
dev=$(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -1)
echo "gpu-check: $(date -u '+%Y-%m-%d %H:%M UTC'), $ngpu x $dev, launcher $LAUNCHER, input: $ARGS${GARGS:+ (GPU only: $GARGS)}"

# "step checksum" of every thermo line (not comments, not the final 'checksum' line).
thermo() { grep -v '^#' "$1" | grep -v '^checksum' | awk 'NF > 2 { print $1, $NF }'; }

fail=0
matched=""
for pes in $GPU_CHECK_PES; do
    for halo in $HALOS; do
        for tr in direct signal; do
            tag="p${pes}-${halo}-${tr}"
            cpu="$LOG/$tag.cpu" gpu="$LOG/$tag.gpu"
            "$CPU_MD" $ARGS --pes "$pes" --halo "$halo" --transport "$tr" >"$cpu" 2>"$cpu.err"
            crc=$?
            t0=$(date +%s.%N)
            timeout "$TMO" $(launch "$pes") "$GPU_MD" $ARGS $GARGS --pes "$pes" --halo "$halo" \
                --transport "$tr" >"$gpu" 2>"$gpu.err"
            grc=$?
            t1=$(date +%s.%N)
            secs=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.1f", b - a }')
            routes=$(grep -o '[0-9]* pulse routes direct, [0-9]* put-signal' "$gpu.err" | head -1)
            if [ $crc -ne 0 ] || [ $grc -ne 0 ]; then
                echo "FAILED   $tag: cpu status $crc, gpu status $grc (${secs}s); $gpu.err:"
                tail -5 "$gpu.err" | sed 's/^/    /'
                fail=1
                continue
            fi
            thermo "$cpu" >"$cpu.sums"
            thermo "$gpu" >"$gpu.sums"
            n=$(wc -l <"$cpu.sums")
            if [ "$n" -gt 0 ] && cmp -s "$cpu.sums" "$gpu.sums"; then
                echo "MATCH    $tag: $n thermo checksums, last $(tail -1 "$gpu.sums") (${secs}s; $routes)"
                matched="$matched $tag"
            else
                echo "MISMATCH $tag: first difference (step cpu | step gpu):"
                diff "$cpu.sums" "$gpu.sums" | head -4 | sed 's/^/    /'
                fail=1
            fi
            if [ "$ORACLE" = 1 ] && [ "$pes" -gt 1 ]; then
                timeout "$TMO" $(launch "$pes") "$GPU_MD" $ARGS $GARGS --pes "$pes" \
                    --halo "$halo" --transport "$tr" --check >"$gpu.check" 2>"$gpu.check.err"
                orc=$?
                line=$(grep '^# check:' "$gpu.check")
                if [ $orc -eq 0 ] && [ -n "$line" ]; then
                    echo "         $tag --check: ${line#\# check: }"
                else
                    echo "FAILED   $tag --check: status $orc: ${line:-no check line}"
                    tail -3 "$gpu.check.err" | sed 's/^/    /'
                    fail=1
                fi
            fi
        done
    done
done
echo "gpu-check: matched:${matched:- none}"
[ $fail -eq 0 ] && echo "gpu-check: PASS" || echo "gpu-check: FAIL"
exit $fail
