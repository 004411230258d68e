# scripts/job_slots.sh: sourced by the scripts that run checker jobs in the background
# (check-races.sh, detection-matrix.sh).
#
#   wait_for_slot N    returns once fewer than N background jobs of this shell are running
#
# It waits for whichever job ends first, so one long run (DRD on 8 PEs can take 15 minutes)
# does not hold the other slots idle, as waiting for the oldest job would.
wait_for_slot() {
    while [ "$(jobs -rp | wc -l)" -ge "$1" ]; do
        wait -n
    done
}
