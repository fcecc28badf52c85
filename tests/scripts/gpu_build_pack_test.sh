#!/usr/bin/env bash
# How a CUDA build packed on one machine stands in for the build on a lent GPU (scripts/gpu_build_pack.sh), with
# a made-up source tree, build and nvcc: the pack holds the build's executables and static libraries and nothing of
# CMake's; it is accepted only for the same build inputs, CUDA release and architecture; unpacked, its files are the same;
# an executable whose library is missing is refused.
#   tests/scripts/gpu_build_pack_test.sh
set -uo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/../../scripts/gpu_build_pack.sh"
source "$(dirname "${BASH_SOURCE[0]}")/../test_support/script_test_lib.sh"

# A stand-in nvcc whose build line the test sets.
mkdir -p "$work/bin"
printf '#!/bin/sh\necho "nvcc: NVIDIA (R) Cuda compiler driver"\necho "Cuda compilation tools, release %s, V%s"\n' \
  '${FAKE_CUDA:-13.0}' '${FAKE_CUDA:-13.0}.${FAKE_PATCH:-88}' >"$work/bin/nvcc"
chmod +x "$work/bin/nvcc"
export PATH="$work/bin:$PATH"

# A source tree with every folder a build reads, and a Python cache that does not count.
root=$work/root
mkdir -p "$root"/{cmake,cpu_backend/dpt/cpu,algorithms/dpt,custom_kernels,apps,tests/scripts/__pycache__,bench}
echo 'project(x)' >"$root/CMakeLists.txt"
echo '{}' >"$root/CMakePresets.json"
echo '# helpers' >"$root/cmake/helpers.cmake"
echo 'int scan();' >"$root/algorithms/dpt/scan.hpp"
echo 'int main() {}' >"$root/tests/test_a.cu"
echo 'cache' >"$root/tests/scripts/__pycache__/plot.cpython-311.pyc"
echo 'bench' >"$root/bench/bench_a.cu"
echo 'kernel' >"$root/custom_kernels/k.hpp"
echo 'int cpu_scan();' >"$root/cpu_backend/dpt/cpu/scan.hpp"
grep -qxF cpu_backend/dpt/cpu/scan.hpp <(dpt_build_inputs "$root") || fail "the CPU backend is not a build input"
echo 'app' >"$root/apps/main.cu"

# A build: executables and a static library to pack; CMake's compiler-id program and scripts to leave out.
build=$work/build
mkdir -p "$build"/{tests,bin,custom_kernels,CMakeFiles/3.25.1/CompilerIdCUDA}
cp /bin/true "$build/tests/test_a"
cp /bin/true "$build/bin/dpt-app"
echo '!<arch>' >"$build/custom_kernels/libdpt_simt.a"
cp /bin/true "$build/CMakeFiles/3.25.1/CompilerIdCUDA/a.out"
echo 'add_test(a)' >"$build/tests/CTestTestfile.cmake"

# The inputs are hashed before the build; a source edited during the build makes the pack refuse.
hashes=$work/inputs.sha256
dpt_hash_inputs "$root" >"$hashes"
pack=$work/cuda-build.tar.gz
echo 'int scan(long);' >"$root/algorithms/dpt/scan.hpp"
if message=$(dpt_pack_build "$build" "$pack" "$root" 90 "$hashes" 2>&1); then
  fail "a source changed during the build, and the build was packed"
elif [[ $message != *"the sources changed during the build (algorithms/dpt/scan.hpp"* || -e $pack ]]; then
  fail "a source changed during the build: '$message', pack left: $([[ -e $pack ]] && echo yes || echo no)"
fi
echo 'int scan();' >"$root/algorithms/dpt/scan.hpp"
dpt_pack_build "$build" "$pack" "$root" 90 "$hashes" || fail "packing a build failed"
listing=$(tar -tzf "$pack" 2>/dev/null)
for entry in dpt-pack/manifest dpt-pack/sources.sha256 ./tests/test_a ./bin/dpt-app ./custom_kernels/libdpt_simt.a; do
  grep -qxF "$entry" <<<"$listing" || fail "the pack lacks $entry: $listing"
done
grep -q 'CMakeFiles\|CTestTestfile' <<<"$listing" && fail "the pack holds CMake's files: $listing"
grep -q '__pycache__' <(tar -xzOf "$pack" dpt-pack/sources.sha256) && fail "a Python cache counts as a build input"
[[ $(dpt_pack_field "$pack" arch) == 90 ]] || fail "the manifest's arch is '$(dpt_pack_field "$pack" arch)'"
[[ $(dpt_pack_field "$pack" cuda) == 13.0 ]] || fail "the manifest's CUDA release is '$(dpt_pack_field "$pack" cuda)'"
[[ $(dpt_pack_field "$pack" nvcc) == V13.0.88 ]] || fail "the manifest's nvcc is '$(dpt_pack_field "$pack" nvcc)'"
[[ -n $(dpt_pack_field "$pack" built) ]] || fail "the manifest does not say when it was built"

# The same tree, nvcc and architecture: accepted, and unpacked byte for byte, executables still executable.
why=$(dpt_check_pack "$pack" "$root" 90) || fail "an unchanged tree was refused: $why"
echo 'other cache' >"$root/tests/scripts/__pycache__/other.pyc"
why=$(dpt_check_pack "$pack" "$root" 90) || fail "a new Python cache made the pack stale: $why"
target=$work/device-build
mkdir -p "$target"
dpt_unpack_build "$pack" "$target" || fail "unpacking failed"
for file in tests/test_a bin/dpt-app custom_kernels/libdpt_simt.a; do
  cmp -s "$build/$file" "$target/$file" || fail "$file differs after unpacking"
done
[[ -x $target/tests/test_a && -x $target/bin/dpt-app ]] || fail "unpacked executables are not executable"
[[ -e $target/dpt-pack || -e $target/CMakeFiles ]] && fail "unpacking left the manifest or CMake's files"

# Anything else: refused, saying why.
expect_refused() {  # expect_refused WHAT EXPECTED-MESSAGE ARCH
  local why
  if why=$(dpt_check_pack "$pack" "$root" "$3"); then
    fail "$1 was accepted"
  elif [[ $why != *"$2"* ]]; then
    fail "$1: the reason '$why' does not say '$2'"
  fi
}
echo 'int scan(int);' >"$root/algorithms/dpt/scan.hpp"
expect_refused "a changed header" "built from other sources: algorithms/dpt/scan.hpp" 90
echo 'int scan();' >"$root/algorithms/dpt/scan.hpp"
echo 'new' >"$root/tests/test_b.cu"
expect_refused "a new source file" "this tree has build inputs the pack's did not" 90
rm "$root/tests/test_b.cu"
rm "$root/bench/bench_a.cu"
expect_refused "a removed source file" "built from other sources" 90
echo 'bench' >"$root/bench/bench_a.cu"
expect_refused "another architecture" "built for sm_90, not sm_80" 80
FAKE_CUDA=13.1 expect_refused "another CUDA release" "built with CUDA 13.0, here 13.1" 90
FAKE_PATCH=48 dpt_check_pack "$pack" "$root" 90 >/dev/null || fail "another nvcc of the same release was refused"
why=$(dpt_check_pack "$pack" "$root" 90) || fail "the restored tree was refused: $why"
tar -czf "$work/other.tar.gz" -C "$root" CMakeLists.txt
pack_was=$pack
pack=$work/other.tar.gz
expect_refused "a tar that is not a pack" "is not a build pack" 90
pack=$work/missing.tar.gz
expect_refused "a missing file" "no pack" 90
pack=$pack_was

# An executable whose shared library the machine lacks is refused when unpacked, by name.
mkdir -p "$work/lib" "$work/linked/tests"
echo 'int helper(void) { return 0; }' >"$work/lib/helper.c"
echo 'int helper(void); int main(void) { return helper(); }' >"$work/lib/main.c"
if cc -shared -fPIC -o "$work/lib/libdpt_helper.so" "$work/lib/helper.c" &&
  cc -o "$work/linked/tests/test_linked" "$work/lib/main.c" -L"$work/lib" -ldpt_helper; then
  dpt_pack_build "$work/linked" "$work/linked.tar.gz" "$root" 90 "$hashes" || fail "packing the linked build failed"
  mkdir -p "$work/unpacked-ok" "$work/unpacked-missing"
  LD_LIBRARY_PATH=$work/lib dpt_unpack_build "$work/linked.tar.gz" "$work/unpacked-ok" ||
    fail "an executable whose library is on LD_LIBRARY_PATH was refused"
  if message=$(dpt_unpack_build "$work/linked.tar.gz" "$work/unpacked-missing" 2>&1); then
    fail "an executable whose library is missing was accepted"
  elif [[ $message != *"tests/test_linked cannot run here: libdpt_helper.so"* ]]; then
    fail "the refusal does not name the executable and its library: $message"
  fi
else
  fail "cc could not build the stand-in executable"
fi

# A build with nothing to pack.
mkdir -p "$work/empty"
dpt_pack_build "$work/empty" "$work/empty.tar.gz" "$root" 90 "$hashes" 2>/dev/null && fail "an empty build was packed"
[[ -e $work/empty.tar.gz ]] && fail "a failed pack left a file"

finish gpu_build_pack
