#!/usr/bin/env bash
# check-install.sh: shmemu works installed, used from outside the source tree.
#   make install PREFIX=<tmp>: every header lies under include/shmemu/ (nothing of shmemu
#   directly in include/, where nvshmem.h or shmem.h would shadow a real NVSHMEM or
#   OpenSHMEM; the internal headers not at all), and each installed header compiles on its
#   own with the pkg-config flags. Then in another folder, with nothing of the source tree
#   and no LD_LIBRARY_PATH: a small ring program built with the installed shmemu-cc and
#   with `pkg-config --cflags --libs shmemu-main` runs at 4 PEs under the installed
#   shmemu-run (the pkg-config build finds libshmemu.so through its rpath); a program
#   built with the module shmemu (no main wrapper) runs as 1 PE; the installed shmemu-md
#   gives the same checksum fused on 2 PEs as serial on 1; the installed shmemu-explore
#   passes a few seeds; the installed shmemu-check with no -t runs every tool it can (all
#   three where clang is found) and passes the ring, and fails a racy twin naming the line.
# BUILD names the build folder to install from (default build). Takes well under a minute
# when that build and its -tsan twin exist (the default suite's earlier stages make them).
# Ends with "N passed, N failed"; exit status 0 when none failed.
set -u
cd "$(dirname "$0")/.."
repo=$(pwd)
build=${BUILD:-build}
. tests/support/tally.sh

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
prefix=$tmp/prefix
if ! ilog=$(make -s -j2 BUILD="$build" install PREFIX="$prefix" 2>&1); then
    echo "FAIL make install PREFIX=$prefix"; sed 's/^/    /' <<<"$ilog"
    echo "0 passed, 1 failed"; exit 1
fi
ok "make install PREFIX=$prefix"
for f in bin/shmemu-cc bin/shmemu-run bin/shmemu-check bin/shmemu-md bin/shmemu-explore \
         lib/pkgconfig/shmemu.pc lib/pkgconfig/shmemu-main.pc include/shmemu/nvshmem.h \
         include/shmemu/nvshmemx.h include/shmemu/shmem.h include/shmemu/shmemx.h \
         include/shmemu/shmemu/shmem_deprecated.h include/shmemu/shmemu/shmem_ctx.h \
         include/shmemu/shmemu/pgas.h lib/libshmemu.a lib/libshmemu_main.a lib/libshmemu_app.a \
         include/shmemu/shmemu/emu.h include/shmemu/shmemu/kernel.h; do
    [ -e "$prefix/$f" ] || bad "installed: $f is missing"
done
top=$(ls -A "$prefix/include")
if [ "$top" = shmemu ]; then ok "include/ holds only shmemu/ (no nvshmem.h or shmem.h at the top)"
else bad "include/ holds more than shmemu/" "$top"; fi
internal=$(find "$prefix/include" -path '*internal*')
if [ -z "$internal" ]; then ok "no internal header installed"
else bad "internal headers installed" "$internal"; fi

# From here on: a user's folder, the installed tools first on PATH, no loader path.
user=$tmp/user
mkdir -p "$user"
cd "$user" || exit 1
unset LD_LIBRARY_PATH SHMEMU_NPES SHMEMU_BUILD
export PATH="$prefix/bin:$PATH" PKG_CONFIG_PATH="$prefix/lib/pkgconfig"
cat >ring.c <<'EOF'
#include <stdio.h>
#include <nvshmem.h>
int main(void)
{
    nvshmem_init();
    int me = nvshmem_my_pe(), n = nvshmem_n_pes();
    int *box = nvshmem_malloc(4 * sizeof *box);
    int mine[4] = {me, me, me, me};
    nvshmem_int_put(box, mine, 4, (me + 1) % n);
    nvshmem_barrier_all();
    if (me == 0)
        for (int p = 0; p < n; p++)
            printf("PE %d of %d got %d\n", p, n, nvshmem_int_g(box + 3, p));
    nvshmem_barrier_all();
    nvshmem_free(box);
    nvshmem_finalize();
    return 0;
}
EOF
# The same, with PE 1 reading its box before the barrier that orders PE 0's put: a race
# (tests/racy/same_instant_race.c; the put is 16 bytes: a put of one word is an atomic
# exchange, invisible to valgrind).
cp "$repo/tests/racy/same_instant_race.c" racy.c
racy_line=$(grep -n 'RACY READ' racy.c | cut -d: -f1)
want=$'PE 0 of 4 got 3\nPE 1 of 4 got 0\nPE 2 of 4 got 1\nPE 3 of 4 got 2'

# run_ring NAME BINARY: BINARY runs under the installed shmemu-run at 4 PEs.
run_ring() {
    local out rc
    out=$(shmemu-run -np 4 "./$2" 2>&1)
    rc=$?
    if [ "$rc" = 0 ] && [ "$out" = "$want" ]; then ok "$1: 4 PEs under shmemu-run"; else
        bad "$1: exit $rc" "$out"; fi
}
if shmemu-cc -O2 -o ring_cc ring.c 2>"$tmp/cc.log"; then run_ring "installed shmemu-cc" ring_cc; else
    bad "installed shmemu-cc -o ring_cc ring.c" "$(cat "$tmp/cc.log")"; fi
# shellcheck disable=SC2046
if cc -O2 -o ring_pc ring.c $(pkg-config --cflags --libs shmemu-main) 2>"$tmp/pc.log"; then
    run_ring "pkg-config shmemu-main (shared library through the rpath)" ring_pc
    if ldd ./ring_pc | grep -q "libshmemu.so => $prefix/lib/libshmemu.so"; then
        ok "pkg-config build loads $prefix/lib/libshmemu.so"
    else bad "pkg-config build's libshmemu.so" "$(ldd ./ring_pc)"; fi
    # Under mpirun the installed library finds the MPI plugin installed beside it (not the
    # build tree's): ld.so's log of each rank names the file it opened.
    out=$(OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 mpirun -np 4 --oversubscribe \
          -x LD_DEBUG=files -x LD_DEBUG_OUTPUT="$tmp/ld" ./ring_pc 2>&1)
    rc=$?
    nplug=$(cat "$tmp"/ld.* 2>/dev/null | grep -c "file=$prefix/lib/libshmemu_mpi.so .*generating link map")
    if [ "$rc" = 0 ] && [ "$out" = "$want" ] && [ "$nplug" = 4 ]; then
        ok "pkg-config shmemu-main under mpirun -np 4: 4 PEs, each rank loads $prefix/lib/libshmemu_mpi.so"
    else bad "pkg-config shmemu-main under mpirun -np 4: exit $rc, $nplug of 4 ranks loaded the installed plugin" "$out"; fi
else
    bad "cc ring.c \$(pkg-config --cflags --libs shmemu-main)" "$(cat "$tmp/pc.log")"
fi
# shellcheck disable=SC2046
if cc -O2 -o ring_lib ring.c $(pkg-config --cflags --libs shmemu) 2>"$tmp/lib.log"; then
    out=$(./ring_lib 2>&1)
    if [ $? = 0 ] && [ "$out" = "PE 0 of 1 got 0" ]; then ok "pkg-config shmemu: runs as 1 PE"; else
        bad "pkg-config shmemu" "$out"; fi
else
    bad "cc ring.c \$(pkg-config --cflags --libs shmemu)" "$(cat "$tmp/lib.log")"
fi

# Every installed header compiles alone with the module's flags (none needs a header that
# was not installed): the C headers as C; the CUDA layer's (include/shmemu/cuda, C++, which
# shmemu-nvcc puts first on the include path) as C++17, as a .cu file includes them.
hdr_fail=""
for h in $(cd "$prefix/include/shmemu" && find . -name '*.h' -not -path './cuda/*' | sed 's|^\./||' | sort); do
    printf '#include <%s>\nint main(void) { return 0; }\n' "$h" >hdr.c
    # A header for code that speaks MPI (shmemu/mpi.h) compiles with MPI's flags too, as its
    # comment tells users; every other header with shmemu's alone.
    extra=""
    if grep -q '^#include <mpi.h>' "$prefix/include/shmemu/$h"; then
        extra=$(mpicc --showme:compile 2>/dev/null) ||
            { hdr_fail+="$h: needs MPI's headers, and mpicc --showme:compile gave none"$'\n'; continue; }
    fi
    # shellcheck disable=SC2046,SC2086
    cc -std=c17 -c -o hdr.o hdr.c $(pkg-config --cflags shmemu) $extra 2>"$tmp/hdr.log" ||
        hdr_fail+="$h: $(head -3 "$tmp/hdr.log")"$'\n'
done
n_cuda=0
for h in $(cd "$prefix/include/shmemu/cuda" && find . -type f | sed 's|^\./||' | sort); do
    printf '#include <%s>\nint main() { return 0; }\n' "$h" >hdr.cpp
    n_cuda=$((n_cuda + 1))
    # shellcheck disable=SC2046
    c++ -std=c++17 -c -o hdr.o hdr.cpp -I"$prefix/include/shmemu/cuda" $(pkg-config --cflags shmemu) \
        2>"$tmp/hdr.log" || hdr_fail+="cuda/$h: $(head -3 "$tmp/hdr.log")"$'\n'
done
if [ -z "$hdr_fail" ] && [ "$n_cuda" -gt 0 ]; then
    ok "every installed header compiles alone with pkg-config --cflags shmemu ($n_cuda of the CUDA layer as C++)"
else bad "installed headers that do not compile alone (or no CUDA layer headers installed)" "$hdr_fail"; fi

# The installed MD app: the fused halo on 2 PEs gives the serial run's checksum bits.
serial=$(shmemu-md --cells 4 --halo serial --pes 1 --steps 4 2>&1 | grep '^checksum')
fused=$(shmemu-md --cells 4 --halo fused --pes 2 --steps 4 2>&1 | grep '^checksum')
if [ -n "$serial" ] && [ "$serial" = "$fused" ]; then ok "installed shmemu-md: $fused (serial = fused)"
else bad "installed shmemu-md" "serial: '$serial'"$'\n'"fused: '$fused'"; fi

out=$(SHMEMU_NPES=3 shmemu-explore --quiet 4 -- ./ring_cc 2>&1)
rc=$?
if [ "$rc" = 0 ] && grep -q '4 seed(s) of random passed' <<<"$out"; then ok "installed shmemu-explore"
else bad "installed shmemu-explore: exit $rc" "$out"; fi

# The installed shmemu-check, every tool it can run (no -t).
ntools=3
command -v clang >/dev/null || ntools=2
out=$(shmemu-check -n 4 -o "$tmp/chk" ring.c 2>&1)
rc=$?
if [ "$rc" = 0 ] && [ "$(grep -cE '^(helgrind|drd|tsan): clean' <<<"$out")" = "$ntools" ]; then
    ok "installed shmemu-check ring.c: exit 0, $ntools tools clean"
else bad "installed shmemu-check ring.c: exit $rc" "$out"; fi
out=$(shmemu-check -n 2 -o "$tmp/chk" racy.c 2>&1)
rc=$?
# Every tool must name PE 1's racy read. helgrind and TSan show both accesses; DRD shows the
# later access and only the segment of the other thread, so when PE 1 reads before PE 0's
# put the read appears as PE 1's segment around the racy line (which comes first is up to
# the threads' timing: both forms name the read's thread and lines).
tools_naming_read=$(awk -v L="$racy_line" '
    /^[a-z]+: / { tool = $1 }
    index($0, "racy.c:" L " in main() by PE 1 host") { named[tool] = 1 }
    match($0, /an access by PE 1 host (within|between) racy\.c:[0-9]+( in [a-z_]+\(\))?( and racy\.c:[0-9]+)?/) {
        n = split(substr($0, RSTART, RLENGTH), w, /racy\.c:/)
        lo = w[2] + 0; hi = (n > 2 ? w[3] : w[2]) + 0
        if (tool == "drd:" && lo <= L && L <= hi) named[tool] = 1
    }
    END { c = 0; for (t in named) c++; print c }' <<<"$out")
if [ "$rc" = 1 ] && [ "$(grep -cE '^(helgrind|drd|tsan): [0-9]+ race' <<<"$out")" = "$ntools" ] &&
    [ "$tools_naming_read" -ge "$ntools" ]; then
    ok "installed shmemu-check racy.c: exit 1, $ntools tools report racy.c:$racy_line by PE 1 host"
else bad "installed shmemu-check racy.c: exit $rc" "$out"; fi

tally_end
