#!/usr/bin/env bash
# check-halo-mpi.sh: shmemu-md --halo mpi (md/src/par_mpi.c: the CPU-initiated halo of paper
# 000 Fig. 1 with MPI persistent requests; docs/md.md, "The MPI baseline") as a user meets it:
#   - refused before anything is printed where it cannot run: on the threads and the process
#     backend (the message says to start it with mpirun -np N), or in a build without MPI
#     (the message names libopenmpi-dev); with --transport direct and with --graph;
#     --mpi-staging without --halo mpi;
#   - where `mpirun --oversubscribe -np 2 true` works and the program has MPI: on the MPI
#     backend at 2 (2x1x1), 4 (2x2x1; 4x1x1: two pulses, forwarding) and 8 PEs (2x2x2), the
#     thermo line of every step and the checksum byte-identical to --halo fused on the threads
#     backend (repartitions included: --nstlist 10), with MPI on the device buffers and with
#     host copies (--mpi-staging on); --check on 4 ranks (the serial reference
#     at every step, every halo slot id-checked at each search); --halo-stats: the payload of
#     fused's put path, no signal words, no barriers; only rank 0 prints, and the dump and
#     checkpoint it writes are byte-identical to the threads run's.
# The MPI part prints SKIP lines (not counted as passes) where mpirun does not work.
# BUILD names the build folder (default build); MD_BIN the program. Ends with
# "N passed, N failed".
set -u
cd "$(dirname "$0")/.." || exit 2
build=${BUILD:-build}
md=${MD_BIN:-bin/shmemu-md}
[ "$build" = build ] || md=${MD_BIN:-$build/bin/shmemu-md}
unset SHMEMU_NPES SHMEMU_BACKEND
. tests/support/tally.sh
TALLY_LINES=20
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
[ -x "$md" ] || { echo "FAIL: $md not built (make BUILD=$build $md)"; exit 1; }
md=$(realpath "$md") # the output-file runs start in $tmp

# Does this program have MPI at all? (md/md.mk links it where mpicc and the runtime's MPI
# backend are found.)
if ldd "$md" 2>/dev/null | grep -q 'libmpi\.so'; then has_mpi=1; else has_mpi=0; fi

# ---- refusals: before the run starts, nothing on stdout, exit 1 -----------------------------
# refused NAME WANT_IN_STDERR [ENV...] -- ARGS...
refused() {
    local name=$1 want=$2 envs=()
    shift 2
    while [ "$1" != -- ]; do envs+=("$1"); shift; done
    shift
    env "${envs[@]}" "$md" "$@" >"$tmp/out" 2>"$tmp/err"
    local rc=$?
    if [ "$rc" = 1 ] && [ ! -s "$tmp/out" ] && grep -q -- "$want" "$tmp/err"; then
        ok "$name"
    else
        bad "$name: exit $rc (want 1), stdout $(wc -c <"$tmp/out") bytes (want 0), stderr should say '$want'" \
            "$(cat "$tmp/err" "$tmp/out")"
    fi
}
small=(--cells 4 --pes 2 --dd 2x1x1 --steps 2 --halo mpi)
if [ "$has_mpi" = 1 ]; then
    refused "--halo mpi on the threads backend: refused, says how to start it" \
        "mpirun -np N shmemu-md" -- "${small[@]}"
    refused "--halo mpi on the process backend: refused, names the backend" \
        "the process backend" SHMEMU_BACKEND=process -- "${small[@]}"
else
    refused "--halo mpi in a build without MPI: refused, names libopenmpi-dev" \
        "libopenmpi-dev" -- "${small[@]}"
fi
refused "--halo mpi --transport direct: refused (every byte goes through MPI)" \
    "never by stores into a peer" -- "${small[@]}" --transport direct
refused "--halo mpi --graph: refused (host waits inside a step)" \
    "--graph with --halo mpi" -- "${small[@]}" --graph
refused "--mpi-staging with --halo fused: refused (no MPI message to stage)" \
    "give --halo mpi" -- --cells 4 --pes 2 --steps 2 --halo fused --mpi-staging on

# ---- on the MPI backend ---------------------------------------------------------------------
mpi_ok=0
if [ "$has_mpi" = 0 ]; then
    echo "SKIP the MPI runs: $md has no MPI (md/md.mk: mpicc and the runtime's MPI backend)"
elif ! command -v mpirun >/dev/null 2>&1; then
    echo "SKIP the MPI runs: no mpirun (Debian: apt-get install openmpi-bin)"
elif ! timeout 60 mpirun --oversubscribe -np 2 true >"$tmp/mpirun.err" 2>&1; then
    echo "SKIP the MPI runs: mpirun --oversubscribe -np 2 true fails: $(head -3 "$tmp/mpirun.err")"
else
    mpi_ok=1
fi

# ranks DIR NP ARGS...: the program on NP MPI ranks (every rank one PE), each rank's stdout
# and stderr in DIR/out.R and DIR/err.R; returns the worst exit status.
ranks() {
    local dir=$1 np=$2
    shift 2
    mkdir -p "$dir"
    rm -f "$dir"/out.* "$dir"/err.*
    # shellcheck disable=SC2016 # expanded by each rank's shell
    timeout 300 mpirun --oversubscribe -np "$np" bash -c \
        'r=${OMPI_COMM_WORLD_RANK:-0}; exec "$0" "$@" >"'"$dir"'/out.$r" 2>"'"$dir"'/err.$r"' \
        "$md" --pes "$np" "$@"
}

# The lines compared: every thermo line and the checksum (not the '#' header lines, which
# name the halo and the PE kind).
body() { grep -v '^#' "$1"; }

# same DD NP CELLS EXTRA...: --halo mpi on NP ranks against --halo fused on threads (EXTRA:
# options of both runs; mpi_extra: of the mpi run only).
mpi_extra=()
same() {
    local dd=$1 np=$2 cells=$3
    shift 3
    local args=(--cells "$cells" --dd "$dd" --steps 30 --nstlist 10 --thermo 1 "$@")
    "$md" --pes "$np" "${args[@]}" --halo fused >"$tmp/fused.out" 2>"$tmp/fused.err"
    local rc0=$?
    ranks "$tmp/mpi" "$np" "${args[@]}" --halo mpi "${mpi_extra[@]}"
    local rc=$?
    local what="--halo mpi${mpi_extra[*]:+ ${mpi_extra[*]}} on $np MPI ranks --dd $dd${*:+ $*}"
    if [ "$rc0" != 0 ] || ! grep -q '^checksum ' "$tmp/fused.out"; then
        bad "$what: the fused reference failed (exit $rc0)" "$(cat "$tmp/fused.err")"
    elif [ "$rc" != 0 ] || ! grep -q '^checksum ' "$tmp/mpi/out.0"; then
        bad "$what: exit $rc" "$(cat "$tmp/mpi"/err.* "$tmp/mpi/out.0" 2>/dev/null)"
    elif [ "$(body "$tmp/fused.out")" != "$(body "$tmp/mpi/out.0")" ]; then
        bad "$what: thermo or checksum differ from --halo fused" \
            "$(diff <(body "$tmp/fused.out") <(body "$tmp/mpi/out.0") | head -20)"
    elif ! grep -q "halo mpi" "$tmp/mpi/out.0"; then
        bad "$what: the header does not say halo mpi" "$(grep '^#' "$tmp/mpi/out.0")"
    elif [ -n "$(cat "$tmp/mpi"/out.[1-9]* "$tmp/mpi"/err.[1-9]*)" ]; then
        bad "$what: a rank other than 0 printed (rank 0 speaks for the run)" \
            "$(head -5 "$tmp/mpi"/out.[1-9]* "$tmp/mpi"/err.[1-9]*)"
    else
        ok "$what: $(grep -vc '^#' "$tmp/mpi/out.0") lines (thermo of every step, checksum) equal to --halo fused on threads"
    fi
}

if [ "$mpi_ok" = 1 ]; then
    same 2x1x1 2 6
    same 2x2x1 4 6
    same 4x1x1 4 6                 # two pulses along x: forwarding through the index maps
    same 2x2x1 4 6 --dim-order xyz
    same 2x2x2 8 6
    # host copies for MPI (the path of the CUDA build with an MPI that is not CUDA-aware)
    mpi_extra=(--mpi-staging on)
    same 2x2x1 4 6
    same 4x1x1 4 6
    mpi_extra=()

    # Output files: written by rank 0 alone, byte-identical to the threads run's.
    io=(--cells 5 --dd 2x2x1 --steps 40 --dump-every 10)
    (cd "$tmp" && "$md" --pes 4 "${io[@]}" --dump t.xyz --checkpoint t.ck >/dev/null 2>&1)
    (cd "$tmp" && ranks "$tmp/io" 4 "${io[@]}" --halo mpi --dump m.xyz --checkpoint m.ck)
    rc=$?
    if [ "$rc" = 0 ] && [ -s "$tmp/t.xyz" ] && cmp -s "$tmp/t.xyz" "$tmp/m.xyz" &&
        [ -s "$tmp/t.ck" ] && cmp -s "$tmp/t.ck" "$tmp/m.ck"; then
        ok "--halo mpi on 4 ranks: the dump and the checkpoint byte-identical to --halo fused on threads"
    else
        bad "--halo mpi on 4 ranks: dump or checkpoint differ (exit $rc)" \
            "$(ls -l "$tmp"/*.xyz "$tmp"/*.ck 2>&1; cat "$tmp/io"/err.* 2>/dev/null)"
    fi

    # ... and the other ranks do not touch them (strace: no open, rename or unlink of them).
    if command -v strace >/dev/null 2>&1; then
        rm -f "$tmp"/trace.* "$tmp"/s.xyz "$tmp"/s.ck
        # shellcheck disable=SC2016 # expanded by each rank's shell
        (cd "$tmp" && timeout 300 mpirun --oversubscribe -np 2 bash -c \
            'r=${OMPI_COMM_WORLD_RANK:-0}; if [ "$r" = 0 ]; then exec "$0" "$@"; fi
             exec strace -f -qq -e trace=open,openat,creat,rename,renameat,renameat2,unlink,unlinkat \
                 -o "trace.$r" "$0" "$@"' \
            "$md" --pes 2 --cells 4 --steps 20 --halo mpi --dump s.xyz --checkpoint s.ck >/dev/null 2>&1)
        rc=$?
        if [ "$rc" = 0 ] && [ -s "$tmp/s.xyz" ] && [ -s "$tmp/trace.1" ] &&
            ! grep -q 's\.xyz\|s\.ck' "$tmp/trace.1"; then
            ok "--halo mpi on 2 ranks: rank 1 never opens, renames or removes the dump or checkpoint"
        else
            bad "--halo mpi on 2 ranks: rank 1 touched the output files (exit $rc)" \
                "$(grep 's\.xyz\|s\.ck' "$tmp/trace.1" 2>&1 | head -5)"
        fi
    else
        echo "SKIP whether other ranks touch the output files: no strace"
    fi

    # --check: the serial reference at every step, every halo slot id-checked at each search.
    ranks "$tmp/chk" 4 --cells 5 --dd 2x2x1 --steps 20 --nstlist 5 --halo mpi --check
    rc=$?
    if [ "$rc" = 0 ] && grep -q "parallel checksums identical at every step" "$tmp/chk/out.0" &&
        grep -Eq '; [1-9][0-9]* halo slots id-checked' "$tmp/chk/out.0"; then
        ok "--halo mpi --check on 4 ranks: $(sed -n 's/^# check: //p' "$tmp/chk/out.0")"
    else
        bad "--halo mpi --check on 4 ranks: exit $rc" "$(cat "$tmp/chk"/err.* "$tmp/chk/out.0" 2>/dev/null)"
    fi

    # --halo-stats: the put path's payload, one message per non-empty send, no signal words,
    # no barriers.
    stats=(--cells 6 --dd 2x2x1 --steps 20 --nstlist 10 --halo-stats)
    "$md" --pes 4 "${stats[@]}" --halo fused --transport signal >"$tmp/fs.out" 2>&1
    ranks "$tmp/st" 4 "${stats[@]}" --halo mpi
    rc=$?
    f=$(awk '$2 == "traffic" && $3 == "all" { print $5, $8 }' "$tmp/fs.out")
    m=$(awk '$2 == "traffic" && $3 == "all" { print $5, $8 }' "$tmp/st/out.0")
    ms=$(awk '$2 == "traffic" && $3 == "all" { print $4, $6, $7, $9, $13 }' "$tmp/st/out.0")
    if [ "$rc" = 0 ] && [ -n "$f" ] && [ "$f" = "$m" ] && [ "$(awk '{ print ($1 > 0) $2 + 0 ($3 > 0) $4 + 0 $5 + 0 }' <<<"$ms")" = 10100 ]; then
        ok "--halo mpi --halo-stats: bytes (x, f) $m as fused's put path, msgs $ms (x msgs, x sig, f msgs, f sig, barriers)"
    else
        bad "--halo mpi --halo-stats: exit $rc, bytes $m (fused $f), x msgs/x sig/f msgs/f sig/barriers $ms" \
            "$(grep traffic "$tmp/fs.out" "$tmp/st/out.0")"
    fi
fi

tally_end
