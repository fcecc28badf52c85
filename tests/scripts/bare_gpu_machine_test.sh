#!/usr/bin/env bash
# scripts/bare-gpu-machine, the stand-in for a bare GPU machine that scripts/gpu-prefix builds its pack on: inside
# it the headers and libraries of the packages scripts/setup installs are gone, the toolchain still compiles and
# links, and outside it nothing changed. Skipped (77) where no mount namespace can be made.
#   tests/scripts/bare_gpu_machine_test.sh
set -uo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/../test_support/script_test_lib.sh"
bare=$(dirname "${BASH_SOURCE[0]}")/../../scripts/bare-gpu-machine

# One line per probe: the header or file, and whether the bare machine has it.
cat >"$work/probe.sh" <<'PROBE'
for header in catch2/catch.hpp benchmark/benchmark.h boost/context/fiber.hpp stb/stb_image_write.h tbb/tbb.h \
              eigen3/Eigen/Core CLI/CLI.hpp hwy/contrib/sort/vqsort.h vector cstdio; do
  if echo "#include <$header>" | g++ -E -x c++ - >/dev/null 2>&1; then echo "$header present"; else echo "$header absent"; fi
done
for file in /usr/lib/cmake/Catch2 /usr/lib/x86_64-linux-gnu/libbenchmark.so /usr/lib/x86_64-linux-gnu/libboost_context.so \
            /usr/lib/x86_64-linux-gnu/libtbb.so; do
  if [[ -e $file ]]; then echo "$file present"; else echo "$file absent"; fi
done
echo 'int main() { return 0; }' >"$1/main.cpp"
g++ -o "$1/main" "$1/main.cpp" && "$1/main" && echo "g++ links"
cmake --version >/dev/null && echo "cmake runs"
PROBE
"$bare" bash "$work/probe.sh" "$work" >"$work/inside" 2>"$work/stderr"
status=$?
if ((status == 77)); then
  echo "bare_gpu_machine: skipped: $(cat "$work/stderr")"
  exit 77
fi
((status == 0)) || fail "exit status $status: $(cat "$work/stderr")"
for absent in catch2/catch.hpp benchmark/benchmark.h boost/context/fiber.hpp stb/stb_image_write.h tbb/tbb.h \
              eigen3/Eigen/Core CLI/CLI.hpp hwy/contrib/sort/vqsort.h /usr/lib/cmake/Catch2 /usr/lib/x86_64-linux-gnu/libbenchmark.so \
              /usr/lib/x86_64-linux-gnu/libboost_context.so /usr/lib/x86_64-linux-gnu/libtbb.so; do
  grep -qxF "$absent absent" "$work/inside" || fail "$absent is still there on the bare machine"
done
for present in "vector present" "cstdio present" "g++ links" "cmake runs"; do
  grep -qxF "$present" "$work/inside" || fail "the toolchain broke: no '$present'"
done
# Outside, every hidden thing is back (the packages are installed here: scripts/setup).
bash "$work/probe.sh" "$work" >"$work/outside" 2>&1
for header in catch2/catch.hpp benchmark/benchmark.h boost/context/fiber.hpp CLI/CLI.hpp; do
  grep -qxF "$header present" "$work/outside" || fail "$header is missing outside the bare machine"
done
cat "$work/inside"
finish bare_gpu_machine
