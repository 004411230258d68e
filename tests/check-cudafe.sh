#!/usr/bin/env bash
# tests/check-cudafe.sh: shmemu-cudafe (cuda/tools/cudafe.h) and bin/shmemu-nvcc, without
# shmemu's CUDA layer: tests/cudafe/stub/cuda_runtime.h stands in for it.
#
#   BUILD=build CUDAFE=bin/shmemu-cudafe tests/check-cudafe.sh     (what make check-cudafe runs)
#   with SANITIZE=... CC=clang (make check-asan, check-tsan): the rewriter is the sanitized
#   one, and the driver's programs are built with clang and -Xcompiler -fsanitize=...
#   UPDATE=1 tests/check-cudafe.sh   rewrites tests/cudafe/cases/*.out from the rewriter's
#                                    output (read the diff before committing it)
#
# 1. rewriter, cases/*.ii: the output equals cases/NAME.out byte for byte, keeps the input's
#    line count, and compiles (g++ -std=c++17 -Wall -Wextra -Werror, with the stand-in).
#    Where shmemu's CUDA layer is (cuda/include/cuda_runtime.h), they compile against it too.
# 2. rewriter, errors/*.ii: exit 1, the message its first line expects (FILE:LINE included),
#    and no output file.
# 3. rewriter, macro.cu through the real g++ -E: launches, kernels and shared arrays that
#    macros write are rewritten with the invocation's line; the result compiles.
#    device_macro.cu: a device-only NVSHMEM call a macro writes, refused in host code at the
#    macro's use (nvcc's message); and the rewriter's list of device-only names against the
#    runtime's strict-mode checks.
# 4. the program's usage: wrong argument counts, OUT == IN refused.
# 5. bin/shmemu-nvcc: a program of .cu, .cpp and .c built in one command and with -c then a
#    link, run on 2 PEs; every GPU-only option accepted; unknown options refused (exit 2);
#    compiler errors naming the .cu line; rewriter errors naming it; -dlink, -MD, -std,
#    -x cu, a missing libshmemu_cuda.a; and an installed layout (bin/, lib/, include/shmemu).
set -u
cd "$(dirname "$0")/.."
root=$PWD
BUILD=${BUILD:-build}
CUDAFE=${CUDAFE:-bin/shmemu-cudafe}
case "$CUDAFE" in /*) ;; *) CUDAFE=$root/$CUDAFE ;; esac
CXX=${SHMEMU_CXX:-g++}
T=tests/cudafe
STUB=$T/stub/cuda_runtime.h
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
passed=0
failed=0

pass() { passed=$((passed + 1)); }
fail() {
    echo "check-cudafe: FAIL: $*" >&2
    failed=$((failed + 1))
}
# Shows a file's last lines under a failure.
show() { sed -n '1,15p' "$1" | sed 's/^/    /' >&2; }

[ -x "$CUDAFE" ] || { echo "check-cudafe: $CUDAFE is missing: run make" >&2; exit 1; }

# ---- 1. expected outputs, and they compile
for in in "$T"/cases/*.ii; do
    name=$(basename "$in" .ii)
    out=$tmp/$name.ii
    if ! "$CUDAFE" "$in" "$out" 2> "$tmp/$name.err"; then
        fail "cases/$name.ii: shmemu-cudafe refused it:"; show "$tmp/$name.err"
        continue
    fi
    if [ "${UPDATE:-0}" = 1 ]; then cp "$out" "$T/cases/$name.out"; fi
    if ! diff -u "$T/cases/$name.out" "$out" > "$tmp/$name.diff"; then
        fail "cases/$name.ii: output differs from cases/$name.out:"; show "$tmp/$name.diff"
    else
        pass
    fi
    # without line markers past the first, every rewrite keeps the line count
    if [ "$(grep -c '^# [0-9]' "$in")" = 1 ] && [ "$(wc -l < "$in")" != "$(wc -l < "$out")" ]; then
        fail "cases/$name.ii: the output has $(wc -l < "$out") lines, the input $(wc -l < "$in")"
    else
        pass
    fi
    if ! "$CXX" -std=c++17 -fsyntax-only -Wall -Wextra -Werror -Wno-unused -x c++ -include "$STUB" \
            "$out" 2> "$tmp/$name.cxx"; then
        fail "cases/$name.ii: the rewritten output does not compile:"; show "$tmp/$name.cxx"
    else
        pass
    fi
done

# ---- 1b. where shmemu's CUDA layer is there (cuda/include), the outputs compile against it
# too: the rewriter's forms and the layer's declarations agree
if [ -f cuda/include/cuda_runtime.h ]; then
    for in in "$T"/cases/*.ii; do
        name=$(basename "$in" .ii)
        if "$CXX" -std=c++17 -fsyntax-only -w -x c++ -Icuda/include -Ipgas/include -Iemu/include \
                -D__SHMEMU_NVCC__ -include cuda_runtime.h "$tmp/$name.ii" 2> "$tmp/$name.layer"; then
            pass
        else
            fail "cases/$name.ii: the rewritten output does not compile against cuda/include:"
            show "$tmp/$name.layer"
        fi
    done
fi

# ---- 2. errors
for in in "$T"/errors/*.ii; do
    name=$(basename "$in" .ii)
    want=$(head -1 "$in" | sed -n 's,^// expect: ,,p')
    [ -n "$want" ] || { fail "errors/$name.ii: no '// expect: ' first line"; continue; }
    "$CUDAFE" "$in" "$tmp/err.ii" 2> "$tmp/err.txt"
    rc=$?
    if [ $rc -ne 1 ] || ! grep -qF -- "$want" "$tmp/err.txt" || [ -e "$tmp/err.ii" ]; then
        fail "errors/$name.ii: want exit 1, no output and '$want'; got exit $rc:"
        show "$tmp/err.txt"
        rm -f "$tmp/err.ii"
    else
        pass
    fi
done

# ---- 3. macros, through the real preprocessor
if "$CXX" -E -x c++ -std=c++17 -D__SHMEMU_NVCC__ -include "$STUB" "$T/macro.cu" -o "$tmp/m.ii" &&
   "$CUDAFE" "$tmp/m.ii" "$tmp/m.rw.ii" 2> "$tmp/m.err"; then
    for want in '"kern", "tests/cudafe/macro.cu", 15,' '"kern", "tests/cudafe/macro.cu", 16,' \
                '"add", "tests/cudafe/macro.cu", 19, ' '"add", "tests/cudafe/macro.cu", 20, ' \
                'shmemu_kreg_kern_9_' 'static thread_local float tile[32]' \
                'int *const s = ::shmemu_cuda::dynamic_shared<int>();'; do
        if grep -qF -- "$want" "$tmp/m.rw.ii"; then pass; else fail "macro.cu: no '$want' in the output"; fi
    done
    if grep -q '<<<\|__global__\|__shared__' "$tmp/m.rw.ii"; then
        fail "macro.cu: CUDA syntax left in the output"
    else
        pass
    fi
    if "$CXX" -std=c++17 -c -x c++-cpp-output -Wall -Wextra -Werror "$tmp/m.rw.ii" -o "$tmp/m.o" 2> "$tmp/m.cxx"; then
        pass
    else
        fail "macro.cu: the rewritten output does not compile:"; show "$tmp/m.cxx"
    fi
else
    fail "macro.cu: preprocessing or rewriting failed:"; show "$tmp/m.err"
fi

# ---- 3b. a device-only NVSHMEM call that a macro of the user's writes, through the real
# preprocessor with __device__ left to the rewriter (as shmemu-nvcc does): refused in host
# code at the macro's use line; without that call, no error and no __device__ left
dm=(-E -x c++ -std=c++17 -D__SHMEMU_NVCC__ -D__SHMEMU_CUDAFE__ -include "$STUB" "$T/device_macro.cu")
if "$CXX" "${dm[@]}" -o "$tmp/dm.ii"; then
    "$CUDAFE" "$tmp/dm.ii" "$tmp/dm.rw.ii" 2> "$tmp/dm.err"
    rc=$?
    if [ $rc -eq 1 ] && grep -qF 'tests/cudafe/device_macro.cu:11:5: error: calling a __device__ function("nvshmem_int_wait_until") from a __host__ function("main") is not allowed' "$tmp/dm.err"; then
        pass
    else
        fail "device_macro.cu: want exit 1 and an error at 11:5, got exit $rc:"; show "$tmp/dm.err"
    fi
else
    fail "device_macro.cu: preprocessing failed"
fi
if "$CXX" "${dm[@]}" -DNO_HOST_CALL -o "$tmp/dm2.ii" && "$CUDAFE" "$tmp/dm2.ii" "$tmp/dm2.rw.ii" 2> "$tmp/dm2.err" &&
   ! grep -q '__device__\|__host__' "$tmp/dm2.rw.ii" &&
   "$CXX" -std=c++17 -fsyntax-only -x c++-cpp-output -Wall -Wextra -Werror "$tmp/dm2.rw.ii" 2> "$tmp/dm2.cxx"; then
    pass
else
    fail "device_macro.cu -DNO_HOST_CALL: want no error, no __device__ left, and C++ that compiles:"
    show "$tmp/dm2.err"; [ -f "$tmp/dm2.cxx" ] && show "$tmp/dm2.cxx"
fi

# ---- 3c. the rewriter's list of device-only names (pgas/src/device_only_names.h) is the
# runtime's: of every nvshmem_ name nvshmem.h declares, it accepts exactly those whose
# definition in pgas/src goes through a strict-mode check (put_signal_bytes, the wait and
# test sets, pgas_check_device_only). The core's entries for OpenSHMEM-only types
# (nvshmem_longdouble_*, pgas/src/core_types.h) are no NVSHMEM API and are left out.
if "${CC:-cc}" -std=c17 -Ipgas/src -x c - -o "$tmp/don" <<'EOF' 2> "$tmp/don.err"
#include <stdio.h>
#include <string.h>
#include "device_only_names.h"
int main(void)
{
    char b[256];
    while (fgets(b, sizeof b, stdin)) {
        size_t n = strcspn(b, "\n");
        if (shmemu_device_only_name(b, n))
            printf("%.*s\n", (int)n, b);
    }
    return 0;
}
EOF
then
    cpp_c() { "${CC:-cc}" -E -P -D_GNU_SOURCE -Ipgas/include -Ipgas/src -Iemu/include "$@"; }
    cpp_c pgas/include/nvshmem.h | grep -o 'nvshmem_[A-Za-z0-9_]*[[:space:]]*(' | tr -d '( \t' |
        sort -u > "$tmp/don_declared.txt"
    "$tmp/don" < "$tmp/don_declared.txt" > "$tmp/don_list.txt"
    for f in rma p2p_sync signal_api; do cpp_c "pgas/src/$f.c"; done | tr '\n' ' ' |
        sed 's/\(static \|[a-z0-9_]* nvshmem_[a-z0-9_]*(\)/\n&/g' | grep -E '^[a-z0-9_]+ nvshmem_' |
        grep -E 'put_signal_bytes\(|set_(wait|test)_(all|any|some)\(|pgas_check_device_only\(' |
        sed -E 's/^[a-z0-9_]+ (nvshmem_[a-z0-9_]*)\(.*/\1/' | sort -u |
        grep -Fx -f "$tmp/don_declared.txt" > "$tmp/don_runtime.txt"
    n=$(wc -l < "$tmp/don_list.txt")
    if [ "$n" -ge 200 ] && diff "$tmp/don_list.txt" "$tmp/don_runtime.txt" > "$tmp/don.diff"; then
        pass
    else
        fail "device_only_names.h and the runtime's strict-mode checks disagree ($n names; < only the list's, > only the runtime's):"
        show "$tmp/don.diff"
    fi
else
    fail "the device-only names helper did not build:"; show "$tmp/don.err"
fi

# ---- 4. the program's usage
"$CUDAFE" > /dev/null 2> "$tmp/u.txt"
[ $? -eq 2 ] && grep -q 'usage: shmemu-cudafe IN.ii OUT.ii' "$tmp/u.txt" && pass || fail "no arguments: want exit 2 and usage"
cp "$T/cases/global.ii" "$tmp/same.ii"
"$CUDAFE" "$tmp/same.ii" "$tmp/same.ii" 2> "$tmp/u.txt"
[ $? -eq 2 ] && grep -q 'would overwrite the input' "$tmp/u.txt" && cmp -s "$tmp/same.ii" "$T/cases/global.ii" &&
    pass || fail "OUT == IN: want exit 2, the input untouched"
ln -s same.ii "$tmp/link.ii"
"$CUDAFE" "$tmp/same.ii" "$tmp/link.ii" 2> "$tmp/u.txt"
[ $? -eq 2 ] && cmp -s "$tmp/same.ii" "$T/cases/global.ii" && pass || fail "OUT a link to IN: want exit 2"
"$CUDAFE" "$tmp/missing.ii" "$tmp/x.ii" 2> "$tmp/u.txt"
[ $? -eq 2 ] && grep -q 'missing.ii: cannot read' "$tmp/u.txt" && pass || fail "a missing input: want exit 2"

# ---- 5. the driver
# A sanitized runtime (BUILD of make check-asan or check-tsan) links into sanitized programs.
xsan=()
if [ -n "${SANITIZE:-}" ]; then
    # one -Xcompiler each: like nvcc, shmemu-nvcc splits -Xcompiler's value at commas
    IFS=, read -r -a sans <<< "$SANITIZE"
    for s in "${sans[@]}"; do xsan+=(-Xcompiler "-fsanitize=$s"); done
    case "${CC:-}" in clang*) export SHMEMU_CXX=clang++ SHMEMU_CC=clang ;; esac
fi
nvcc() { "$root/bin/shmemu-nvcc" "${xsan[@]}" "$@"; }
NVCC=nvcc
fake=$tmp/build # a build folder with the real runtime and the stand-in layer's library
mkdir -p "$fake/lib" "$fake/bin"
for f in libshmemu.a libshmemu_main.a libshmemu_app.a; do ln -s "$root/$BUILD/lib/$f" "$fake/lib/$f"; done
ln -s "$CUDAFE" "$fake/bin/shmemu-cudafe"
"$CXX" -std=c++17 -c "$T/stub/stub_lib.cpp" -o "$tmp/stub_lib.o" && ar rcs "$fake/lib/libshmemu_cuda.a" "$tmp/stub_lib.o" ||
    fail "the stand-in layer's library did not build"
export SHMEMU_BUILD=$fake SHMEMU_CUDA_INCLUDE=$root/$T/stub
D=$T/driver

# expect NAME STATUS PATTERN COMMAND...: exit STATUS and, when PATTERN is not empty, a line
# of its output (stdout and stderr) that holds PATTERN (a fixed string)
expect() {
    local name=$1 status=$2 pattern=$3
    shift 3
    "$@" > "$tmp/out.txt" 2>&1
    local rc=$?
    if [ $rc -ne "$status" ] || { [ -n "$pattern" ] && ! grep -qF -- "$pattern" "$tmp/out.txt"; }; then
        fail "$name: want exit $status${pattern:+ and '$pattern'}, got $rc:"
        show "$tmp/out.txt"
        return 1
    fi
    pass
}

run_ok() { # NAME PROGRAM: it prints the stand-in program's ok line on 2 PEs
    expect "$1" 0 "cudafe-driver: ok on 2 PEs" env SHMEMU_NPES=2 "$2"
}

gpu_flags=(-arch=sm_90 -arch sm_80 --gpu-architecture=sm_90 -gencode arch=compute_90,code=sm_90
           -gencode=arch=compute_80,code=sm_80 --generate-code arch=compute_90,code=sm_90
           -code sm_90 --gpu-code=sm_90 -rdc=true -rdc true --relocatable-device-code=true
           --expt-relaxed-constexpr -expt-relaxed-constexpr --expt-extended-lambda
           --extended-lambda -ccbin g++ --compiler-bindir=/usr/bin --use_fast_math -use_fast_math
           -maxrregcount 64 -maxrregcount=32 -Xptxas -v --ptxas-options=-v -Xnvlink --verbose
           -Xfatbin -compress-all -cudart static -cudart=shared --cudart shared -t 4 --threads=2
           -ftz=true -prec-div=false -prec-sqrt false -fmad=true -res-usage -m64
           -Wno-deprecated-gpu-targets -Wext-lambda-captures-this -Wdefault-stream-launch
           -Wmissing-launch-bounds -Werror cross-execution-space-call
           --default-stream per-thread -default-stream=legacy
           -lnvshmem -lnvshmem_host -lnvshmem_device -lcuda -lcudart -lcudart_static
           -lcudadevrt -lnvidia-ml -l nvshmem_host)
expect "one command, every GPU-only option" 0 "" \
    "$NVCC" -O2 -g -lineinfo -G -std=c++17 "${gpu_flags[@]}" -I"$D" -DUNUSED=1 -UUNUSED \
    -Xcompiler -Wall,-Wextra -Xlinker --as-needed -o "$tmp/prog" "$D/ok.cu" "$D/helper.cpp" "$D/helper_c.c" &&
    run_ok "the program of one command" "$tmp/prog"

mkdir -p "$tmp/objs"
expect "-c of a .cu" 0 "" "$NVCC" -c -O1 -I"$D" -dc "$D/ok.cu" -o "$tmp/objs/ok.o"
expect "-c of a .cpp" 0 "" "$NVCC" -c -I "$D" "$D/helper.cpp" -o "$tmp/objs/helper.o"
( cd "$tmp/objs" && expect "-c without -o (NAME.o here)" 0 "" "$NVCC" -c -I"$root/$D" "$root/$D/helper_c.c" ) &&
    [ -f "$tmp/objs/helper_c.o" ] && pass || fail "-c without -o: no helper_c.o"
expect "-dlink (an empty object)" 0 "" "$NVCC" -dlink -arch=sm_90 "$tmp/objs/ok.o" -o "$tmp/objs/dlink.o"
expect "the link of objects" 0 "" "$NVCC" -o "$tmp/prog2" "$tmp/objs/ok.o" "$tmp/objs/helper.o" \
    "$tmp/objs/helper_c.o" "$tmp/objs/dlink.o" -lnvshmem_host -lcudart &&
    run_ok "the program of -c and a link" "$tmp/prog2"

cp "$D/helper.cpp" "$tmp/as_cu.cpp"
expect "-x cu on a .cpp" 0 "" "$NVCC" -c -x cu -I"$D" "$tmp/as_cu.cpp" -o "$tmp/as_cu.o"
expect "-std=c++14 raised" 0 "compiling as c++17" "$NVCC" -c -std=c++14 -I"$D" "$D/helper.cpp" -o "$tmp/h14.o"
expect "-std=c++20 kept" 0 "" "$NVCC" -c -std=c++20 -I"$D" "$D/ok.cu" -o "$tmp/ok20.o"
expect "-MD" 0 "" "$NVCC" -c -MD -I"$D" "$D/ok.cu" -o "$tmp/dep.o" &&
    grep -q "^$tmp/dep.o:" "$tmp/dep.d" && grep -q 'ok.cu' "$tmp/dep.d" && grep -q 'helper.h' "$tmp/dep.d" &&
    pass || fail "-MD: $tmp/dep.d does not name dep.o, ok.cu and helper.h"

expect "--default-stream per-thread" 0 "" "$NVCC" -c --default-stream per-thread -DWANT_PER_THREAD \
    "$D/per_thread.cu" -o "$tmp/pt.o"
expect "--default-stream legacy" 0 "" "$NVCC" -c --default-stream=legacy "$D/per_thread.cu" -o "$tmp/pt.o"
expect "-g: debug lines name the .cu file" 0 "" "$NVCC" -c -g -I"$D" "$D/ok.cu" -o "$tmp/okg.o" &&
    objdump --dwarf=decodedline "$tmp/okg.o" | grep -q '^ok\.cu  *2[0-9] ' && pass ||
    fail "-g: no line of ok.cu in the object's line table"

expect "an unknown option" 2 'shmemu-nvcc: unknown option "-foo"' "$NVCC" -foo -c "$D/ok.cu"
expect "an unknown long option" 2 'unknown option "--fancy-gpu"' "$NVCC" --fancy-gpu "$D/ok.cu"
expect "a host option without -Xcompiler" 2 'pass a host compiler option with -Xcompiler -fopenmp' \
    "$NVCC" -fopenmp -c "$D/ok.cu"
expect "-o without a value" 2 "-o needs a value" "$NVCC" -c "$D/ok.cu" -o
expect "no inputs" 2 "no input files" "$NVCC" -O2
expect "an unknown input" 2 "unknown kind of input" "$NVCC" -c "$T/cases/global.ii"
expect "a missing input" 2 "nothing.cu: no such file" "$NVCC" -c nothing.cu
expect "-c -o with two sources" 2 "-o with -c names one object file" \
    "$NVCC" -c "$D/helper.cpp" "$D/helper_c.c" -o "$tmp/two.o"
expect "a bad -x" 2 "-x fortran: unknown language" "$NVCC" -x fortran "$D/ok.cu"
expect "a bad -std" 2 "-std=c++99: unknown language standard" "$NVCC" -std=c++99 "$D/ok.cu"
expect "--help" 0 "-arch/--gpu-architecture X" "$NVCC" --help

expect "a type error names the .cu line" 1 "type_error.cu:6:" "$NVCC" -c "$D/type_error.cu" -o "$tmp/te.o"
if grep -q '\.ii:' "$tmp/out.txt"; then fail "a type error: a temporary .ii file is named"; show "$tmp/out.txt"; fi
expect "a bad launch names the .cu line" 1 "launch_error.cu:9:" "$NVCC" -c "$D/launch_error.cu" -o "$tmp/le.o"
expect "a rewriter error names the .cu line" 1 "rewrite_error.cu:8: shmemu-cudafe: a launch configuration has 2 to 4 parts" \
    "$NVCC" -c "$D/rewrite_error.cu" -o "$tmp/re.o"
expect "a device-only call in host code, as nvcc" 1 \
    'device_only.cu:9:17: error: calling a __device__ function("nvshmem_signal_wait_until") from a __host__ function("main") is not allowed' \
    "$NVCC" -c "$D/device_only.cu" -o "$tmp/do.o"
[ ! -e "$tmp/te.o" ] && [ ! -e "$tmp/re.o" ] && [ ! -e "$tmp/do.o" ] && pass || fail "a failed compile left an object file"

mkdir -p "$tmp/nolayer/lib"
for f in libshmemu.a libshmemu_main.a libshmemu_app.a; do ln -s "$root/$BUILD/lib/$f" "$tmp/nolayer/lib/$f"; done
SHMEMU_BUILD=$tmp/nolayer expect "a missing libshmemu_cuda.a" 2 "libshmemu_cuda.a is missing; run: make BUILD=" \
    "$NVCC" -o "$tmp/p3" "$tmp/objs/ok.o" "$tmp/objs/helper.o" "$tmp/objs/helper_c.o"

# an installed layout: bin/ (shmemu-nvcc, shmemu-cc, shmemu-cudafe), lib/, include/shmemu/ (as
# make install lays them out; the stand-in as the layer's headers), no SHMEMU_* variables
inst=$tmp/inst
mkdir -p "$inst/bin" "$inst/lib" "$inst/include/shmemu/shmemu" "$inst/include/shmemu/cuda"
cp bin/shmemu-nvcc bin/shmemu-cc "$CUDAFE" "$inst/bin/"
cp "$root/$BUILD/lib/libshmemu.a" "$root/$BUILD/lib/libshmemu_main.a" "$root/$BUILD/lib/libshmemu_app.a" "$fake/lib/libshmemu_cuda.a" "$inst/lib/"
cp pgas/include/nvshmem.h pgas/include/nvshmemx.h "$inst/include/shmemu/"
cp pgas/include/shmemu/*.h emu/include/shmemu/*.h "$inst/include/shmemu/shmemu/"
cp "$STUB" "$inst/include/shmemu/cuda/"
# Under make check-tsan the program is built with TSan, which an installed shmemu serves from
# lib/shmemu/tsan (make install puts the TSan runtime there); it goes again before the check
# of an installation without it, below.
case ",${SANITIZE:-}," in *,thread,*)
    mkdir -p "$inst/lib/shmemu/tsan"
    cp "$inst/lib/"*.a "$inst/lib/shmemu/tsan/" ;;
esac
( cd "$tmp" && env -u SHMEMU_BUILD -u SHMEMU_CUDA_INCLUDE "$inst/bin/shmemu-nvcc" "${xsan[@]}" -O2 -I"$root/$D" \
      -o inst_prog "$root/$D/ok.cu" "$root/$D/helper.cpp" "$root/$D/helper_c.c" ) > "$tmp/inst.txt" 2>&1 &&
    pass || { fail "an installed shmemu-nvcc did not build the program:"; show "$tmp/inst.txt"; }
[ -x "$tmp/inst_prog" ] && run_ok "the program of an installed shmemu-nvcc" "$tmp/inst_prog"
rm -rf "$inst/lib/shmemu/tsan"
expect "an installed shmemu without its TSan runtime" 2 \
    "this shmemu was installed without clang" "$inst/bin/shmemu-nvcc" -Xcompiler -fsanitize=thread \
    -o "$tmp/inst_tsan" "$tmp/objs/ok.o"

echo "check-cudafe: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
