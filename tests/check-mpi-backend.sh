#!/usr/bin/env bash
# check-mpi-backend.sh: the MPI backend (every PE an MPI rank: a program built by shmemu-cc
# started with mpirun; docs/pgas.md, "The MPI backend") as a user meets it:
#   - tests/mpi/nodes.c, an OpenSHMEM program, at 2-4 ranks on one node and across simulated
#     nodes (SHMEMU_MPI_NODE_SIZE=1 and 2: ranks of different groups share no memory, every
#     access goes through MPI RMA): heap and static data, put-with-signal, atomics from every
#     PE on one word, a lock, a team split and a reduction on it, fcollect; shmem_ptr reaches
#     exactly the peers of the same node;
#   - tests/process/symmetric.c (globals, statics, heap, waits, shmem_ptr) on one node;
#   - the MD app's whole output identical to the threads backend's (fused, pulse and host,
#     direct and put-signal, 1-D and 2-D, and 3-D on 8 ranks), on one node and on nodes of
#     one rank, where --transport auto must pick put-with-signal for every route;
#   - the checking mode (SHMEMU_CHECK_NBI=1): a missing quiet reads stale data on the same
#     seeds as on the threads backend, on one node and across nodes; the fixed program never;
#   - a rank killed with SIGKILL ends the job (mpirun's doing) within 2 s, leaving no file
#     in TMPDIR and no shmemu segment in /dev/shm;
#   - misuse: a job of more PEs than ranks, the deterministic scheduler, a missing plugin.
# BUILD names the build folder (default build). Prints SKIP and exits 0 only when mpirun is
# missing (the README's test command installs Open MPI; then this runs). Ends with "N passed,
# N failed".
set -u
cd "$(dirname "$0")/.."
root=$PWD
build=${BUILD:-build}
md=${MD_BIN:-bin/shmemu-md}
[ "$build" = build ] || md=${MD_BIN:-$build/bin/shmemu-md}
unset SHMEMU_NPES SHMEMU_BACKEND SHMEMU_MPI_NODE_SIZE
. tests/support/tally.sh
TALLY_LINES=20

if ! command -v mpirun >/dev/null 2>&1 || ! command -v mpicc >/dev/null 2>&1; then
    echo "SKIP: mpirun or mpicc not found (Debian: apt-get install libopenmpi-dev openmpi-bin)"
    exit 0
fi
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
# Many ranks on few cores, and no network interface needed.
MPIRUN=(mpirun --oversubscribe --mca btl self,vader)

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export TMPDIR="$tmp/tmpdir"
mkdir -p "$TMPDIR"
make -s BUILD="$build" libs "$md" >/dev/null || { echo "FAIL: make BUILD=$build libs $md"; exit 1; }
[ -f "$build/lib/libshmemu_mpi.so" ] || { echo "FAIL: $build/lib/libshmemu_mpi.so was not built"; exit 1; }
cc() { SHMEMU_BUILD="$root/$build" "$root/bin/shmemu-cc" "$@"; }
cc -g -O1 -o "$tmp/nodes" tests/mpi/nodes.c || { echo "FAIL: shmemu-cc nodes.c"; exit 1; }
for p in symmetric busy nbi_flag; do
    cc -g -O1 -o "$tmp/$p" "tests/process/$p.c" || { echo "FAIL: shmemu-cc $p.c"; exit 1; }
done
# mpirun NODE_SIZE NP PROGRAM ARGS...
mpi() {
    local k=$1 np=$2
    shift 2
    timeout 120 "${MPIRUN[@]}" -x SHMEMU_MPI_NODE_SIZE="$k" -np "$np" "$@"
}

# ---- an OpenSHMEM program across nodes --------------------------------------------------
for np in 2 3 4; do
    for k in 0 1 2; do
        [ "$k" -lt "$np" ] || continue
        per=$((k == 0 ? np : k))
        want=$((per - 1)) # peers in this PE's node (every node full: np is a multiple of k)
        [ $((np % per)) = 0 ] || want=x
        out=$(mpi "$k" "$np" "$tmp/nodes" 2>&1)
        rc=$?
        good=$(grep -c "^PE [0-9]* ok: " <<<"$out")
        reach=$(awk '/^PE [0-9]* ok: / {print $4}' <<<"$out" | sort -u | tr '\n' ' ')
        where="nodes.c on $np ranks, $([ "$k" = 0 ] && echo "one node" || echo "nodes of $k")"
        if [ "$rc" = 0 ] && [ "$good" = "$np" ] && { [ "$want" = x ] || [ "$reach" = "$want " ]; }; then
            ok "$where: RMA, statics, put-with-signal, atomics, lock, team, fcollect; shmem_ptr reaches ${reach% } peer(s)"
        else
            bad "$where: exit $rc, $good of $np ok, shmem_ptr reaches '$reach' (want $want)" "$out"
        fi
    done
done
for np in 2 4; do
    out=$(mpi 0 "$np" "$tmp/symmetric" 2>&1)
    rc=$?
    good=$(grep -c "^PE [0-9]* ok" <<<"$out")
    if [ "$rc" = 0 ] && [ "$good" = "$np" ] && grep -q "distinct processes" <<<"$out"; then
        ok "symmetric.c on $np ranks of one node: globals, statics, heap, atomics, waits, shmem_ptr"
    else
        bad "symmetric.c on $np ranks: exit $rc, $good of $np ok" "$out"
    fi
done

# ---- the MD app, bit for bit -----------------------------------------------------------
# md_same NODE_SIZE HALO TRANSPORT DD PES [want]: every line of rank 0's output equals the
# threads backend's (stderr less the timing line, then stdout); want=signal: every route of
# PE 0 went by put-with-signal (the timing line's count of direct routes is 0).
md_same() {
    local k=$1 halo=$2 tr=$3 dd=$4 np=$5 want=${6:-}
    local args=(--cells 6 --dd "$dd" --halo "$halo" --transport "$tr" --steps 30 --thermo 1)
    local a b timing
    "$md" "${args[@]}" >"$tmp/md.out" 2>"$tmp/md.err"
    a=$(grep -v "atom-steps/s" "$tmp/md.err"; cat "$tmp/md.out")
    mpi "$k" "$np" "$md" --pes "$np" "${args[@]}" >"$tmp/md.out" 2>"$tmp/md.err"
    timing=$(grep "atom-steps/s" "$tmp/md.err")
    b=$(grep -v "atom-steps/s" "$tmp/md.err"; cat "$tmp/md.out")
    b=${b//PE MPI ranks/PE threads}
    local what="shmemu-md --halo $halo --transport $tr --dd $dd on $np ranks$([ "$k" = 0 ] || echo ", nodes of $k")"
    if [ "$a" != "$b" ] || ! grep -q "^checksum " <<<"$a"; then
        bad "$what: differs from the threads backend" "$(diff <(echo "$a") <(echo "$b") | head -20)"
    elif [ "$want" = signal ] && ! grep -q " 0 pulse routes direct" <<<"$timing"; then
        bad "$what: --transport auto did not pick put-with-signal between nodes" "$timing"
    else
        ok "$what: every line equal to the threads backend's${want:+ (put-with-signal on every route)}"
    fi
}
for halo in fused pulse host; do
    for tr in direct signal; do
        md_same 0 "$halo" "$tr" 2x1x1 2
        md_same 0 "$halo" "$tr" 2x2x1 4
    done
done
md_same 0 fused auto 2x2x2 8
md_same 1 fused auto 2x2x1 4 signal
md_same 1 pulse auto 2x1x1 2 signal
md_same 2 host signal 2x2x1 4
# --transport direct where no peer shares memory: every route falls back to put-with-signal
# (the transport decision is per route), and the bits stay the threads backend's.
md_same 1 fused direct 2x2x1 4 signal

# ---- the checking mode ------------------------------------------------------------------
# stale_seeds NODE_SIZE MODE (NODE_SIZE "threads": the threads backend)
stale_seeds() {
    local seeds="" s out
    for s in 1 2 3 4 5 6 7 8; do
        if [ "$1" = threads ]; then
            out=$(SHMEMU_CHECK_NBI=1 SHMEMU_CHECK_SEED=$s "$root/bin/shmemu-run" -n 2 \
                  "$tmp/nbi_flag" "$2" 2>&1)
        else
            out=$(mpi "$1" 2 -x SHMEMU_CHECK_NBI=1 -x SHMEMU_CHECK_SEED=$s "$tmp/nbi_flag" "$2" 2>&1)
        fi
        grep -q "PE 1: stale" <<<"$out" && seeds="$seeds $s"
        grep -q "PE 1: \(stale\|fresh\)" <<<"$out" || seeds="$seeds error($s)"
    done
    echo "${seeds# }"
}
bug_threads=$(stale_seeds threads noquiet)
for k in 0 1; do
    bug=$(stale_seeds "$k" noquiet)
    fixed=$(stale_seeds "$k" quiet)
    where=$([ "$k" = 0 ] && echo "one node" || echo "nodes of 1")
    if [ -n "$bug" ] && [ "$bug" = "$bug_threads" ] && [ -z "$fixed" ]; then
        ok "SHMEMU_CHECK_NBI=1 on MPI ranks ($where): the missing quiet reads stale data on seeds $bug (as on threads), the fixed program never"
    else
        bad "SHMEMU_CHECK_NBI=1 on MPI ranks ($where): stale seeds '$bug', threads '$bug_threads', fixed '$fixed'"
    fi
done

# ---- a rank killed ------------------------------------------------------------------------
shm_before=$(ls /dev/shm 2>/dev/null | grep -i shmemu | sort)
for victim in 1 0; do
    mpi 1 3 "$tmp/busy" >"$tmp/out" 2>"$tmp/err" &
    job=$!
    for _ in $(seq 200); do [ "$(grep -c ready "$tmp/out")" = 3 ] && break; sleep 0.05; done
    pid=$(awk -v pe="$victim" '$2 == pe && $3 == "ready" {print $4}' "$tmp/out")
    if [ -z "$pid" ]; then
        kill "$job" 2>/dev/null
        wait "$job" 2>/dev/null
        bad "kill: rank $victim never became ready" "$(cat "$tmp/out" "$tmp/err")"
        continue
    fi
    t0=$(date +%s%N)
    kill -9 "$pid"
    wait "$job" 2>/dev/null
    rc=$?
    ms=$((($(date +%s%N) - t0) / 1000000))
    sleep 0.2
    left=$(pgrep -f -x "$tmp/busy" | wc -l)
    files=$(find "$TMPDIR" -mindepth 1 -name 'shmemu-*' | wc -l)
    shm_after=$(ls /dev/shm 2>/dev/null | grep -i shmemu | sort)
    what="SIGKILL to rank $victim of 3 (nodes of 1)"
    if [ "$ms" -lt 2000 ] && [ "$rc" != 0 ] && [ "$left" = 0 ] && [ "$files" = 0 ] &&
        [ "$shm_after" = "$shm_before" ]; then
        ok "$what: mpirun ended the job in $ms ms (exit $rc); no rank, file or segment left"
    else
        bad "$what: ended in $ms ms, exit $rc, $left ranks left, $files shmemu files in TMPDIR" \
            "$(tail -5 "$tmp/err"; ls "$TMPDIR")"
        pkill -9 -f -x "$tmp/busy" 2>/dev/null
    fi
done

# ---- misuse -------------------------------------------------------------------------------
out=$(mpi 0 2 -x SHMEMU_NPES=3 "$tmp/nodes" 2>&1)
if [ $? != 0 ] && grep -q "a job of 3 PEs needs 3 MPI ranks, and 2 were started; start it with mpirun -np 3" <<<"$out"; then
    ok "a job of more PEs than ranks is refused with the mpirun -np to use"
else
    bad "a job of more PEs than ranks" "$out"
fi
out=$(mpi 0 2 -x SHMEMU_SCHED=random "$tmp/nodes" 2>&1)
if [ $? != 0 ] && grep -q "deterministic scheduler .* use the threads backend" <<<"$out"; then
    ok "the deterministic scheduler on MPI ranks is refused, naming the threads backend"
else
    bad "SHMEMU_SCHED under mpirun was not refused" "$out"
fi
out=$(mpi 0 2 -x SHMEMU_MPI_PLUGIN=/nonexistent/libshmemu_mpi.so "$tmp/nodes" 2>&1)
if [ $? != 0 ] && grep -q "SHMEMU_MPI_PLUGIN=/nonexistent/libshmemu_mpi.so cannot be loaded" <<<"$out"; then
    ok "a plugin that cannot be loaded is named in the message"
else
    bad "a missing MPI plugin" "$out"
fi
out=$(SHMEMU_BACKEND=mpi "$tmp/nodes" 2>&1)
if [ $? = 0 ] && grep -q "^PE 0 ok: 0 of 0 peers" <<<"$out"; then
    ok "SHMEMU_BACKEND=mpi without mpirun: a job of one rank (MPI's singleton)"
else
    bad "SHMEMU_BACKEND=mpi without mpirun" "$out"
fi
out=$(mpi 0 2 -x SHMEMU_BACKEND=threads -x SHMEMU_NPES=2 "$tmp/nodes" 2>&1)
if [ $? = 0 ] && [ "$(grep -c "^PE [0-9] ok: 1 of 1 peers" <<<"$out")" = 4 ]; then
    ok "SHMEMU_BACKEND=threads under mpirun: every rank runs a job of its own PE threads"
else
    bad "SHMEMU_BACKEND=threads under mpirun" "$out"
fi

tally_end
