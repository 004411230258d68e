#!/bin/sh
# md/cuda/gpu-timing.sh GPU_MD: the per-phase timing matrix of docs/gpu.md ("Timing") and
# bench/RESULTS.md (gpu timing), on the GPUs of this machine. For each size, PE count,
# halo variant, transport and graph setting, runs
#     GPU_MD --cells C --steps S --thermo 0 --pes P --halo H --transport T [--graph] --timing
# and prints one line: the configuration, PE 0's device ms per step of each phase (the
# "--timing:" line, CUDA events: steps without a search, the device synchronized after
# each step), PE 0's device µs per step of local work, non-local work, non-overlap and the
# step from the kernels' per-block %globaltimer stamps (the "--timing device:" line, the
# same steps; paper 000 §6.3, docs/papers.md), the whole run's atom-steps/s (wall clock, searches
# included) and the final checksum (every configuration of one size must print the same).
# Then the same configuration free-running:
#     GPU_MD ... --steps F --nstlist 100000 --thermo 0   (no --timing)
# one search (step 0), no synchronization until the last step: the wall-clock µs per step
# of the step loop (the host issues ahead; what a run without --timing gets). Its lists go
# stale (no search after step 0), which changes the physics, not the work: timing only.
#
#   GPU_TIMING_CELLS   sizes (default: 14 28: 10 976 and 87 808 atoms)
#   GPU_TIMING_PES     PE counts (default: 1 2; PEs beyond the GPUs share them)
#   GPU_TIMING_STEPS   steps per run (default 100; nstlist 20: 95 timed)
#   GPU_TIMING_ARGS    more options for every run (e.g. --force-kernel loop)
#   GPU_TIMING_FREE    steps of the free-running run (default 100; 0: none)
#   GPU_TIMING_CONFIGS halo:transport:graph triples (default below); 1 PE runs the fused
#                      ones only (one domain: no halo to exchange)
set -u
GPU_MD=${1:?usage: gpu-timing.sh GPU_MD}
CELLS=${GPU_TIMING_CELLS:-14 28}
PES=${GPU_TIMING_PES:-1 2}
STEPS=${GPU_TIMING_STEPS:-100}
FREE=${GPU_TIMING_FREE:-100}
XARGS=${GPU_TIMING_ARGS:-}
CONFIGS=${GPU_TIMING_CONFIGS:-fused:direct:0 fused:direct:1 pulse:direct:0 pulse:direct:1 \
host:direct:0 fused:signal:0 pulse:signal:0 host:signal:0}
export NVSHMEM_DISABLE_NVLS=1
[ -n "${NVSHMEM_LIB:-}" ] && export LD_LIBRARY_PATH="$NVSHMEM_LIB${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
dev=$(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -1)
echo "# gpu-timing: $(date -u '+%Y-%m-%d %H:%M UTC'), $(nvidia-smi -L | grep -c '^GPU ') x $dev, $STEPS steps${XARGS:+, $XARGS}"
echo "# cells atoms pes halo transport graph | kick+drift local-nb halo-x nonlocal-nb halo-f kick step (ms, events) | local-work non-local-work non-overlap step (us, %globaltimer) | atom-steps/s | checksum | free-running us/step"
for cells in $CELLS; do
    for pes in $PES; do
        for cfg in $CONFIGS; do
            halo=${cfg%%:*} rest=${cfg#*:}
            tr=${rest%%:*} graph=${rest#*:}
            [ "$pes" = 1 ] && [ "$halo" != fused ] && continue
            [ "$pes" = 1 ] && [ "$tr" != direct ] && continue
            g=""
            [ "$graph" = 1 ] && g=--graph
            out=$(timeout 300 "$GPU_MD" --cells "$cells" --steps "$STEPS" --thermo 0 \
                  --pes "$pes" --halo "$halo" --transport "$tr" $g $XARGS --timing 2>/tmp/gt.err)
            st=$?
            sum=$(echo "$out" | awk '/^checksum/ { print $2 }')
            atoms=$(echo "$out" | awk '/^# shmemu-md:/ { print $3 }')
            ph=$(awk '/--timing:/ { for (i = 1; i <= NF; i++) if ($i ~ /^[0-9.]+$/ && $(i-1) !~ /over/) printf "%s ", $i }' /tmp/gt.err)
            dv=$(awk '/--timing device:/ { sub(/.*timestamps: */, ""); n = split($0, f, " ")
                 for (i = 2; i <= n; i += 2) printf "%s ", f[i] }' /tmp/gt.err)
            rate=$(awk '/atom-steps\/s/ { for (i = 1; i <= NF; i++) if ($i == "atom-steps/s") print $(i-1) }' /tmp/gt.err | tr -d ':')
            [ $st -ne 0 ] && tail -3 /tmp/gt.err | sed 's/^/#   /'
            us=none
            if [ "$FREE" -gt 0 ]; then
                timeout 300 "$GPU_MD" --cells "$cells" --steps "$FREE" --nstlist 100000 \
                    --thermo 0 --pes "$pes" --halo "$halo" --transport "$tr" $g $XARGS \
                    >/dev/null 2>/tmp/gt.err
                us=$(awk -v n="$atoms" '/atom-steps\/s/ { for (i = 1; i <= NF; i++)
                     if ($i == "atom-steps/s") printf "%.1f", 1e6 * n / $(i-1) }' /tmp/gt.err)
            fi
            echo "$cells $atoms $pes $halo $tr $graph | ${ph:-none} | ${dv:-none} | ${rate:-?} | ${sum:-FAILED status $st} | ${us:-FAILED}"
        done
    done
done
