#!/usr/bin/env bash
# scripts/gpu-check's control flow, on a machine without a GPU: the real scripts and bench/plot in a made-up
# project, a build pack of stand-in executables, and fake nvcc, nvidia-smi, cmake, ctest and compute-sanitizer.
# It shows: a passing run unpacks the pack, runs every step, and leaves report.md (steps, GPU targets, the given
# commit) and one archive; a sanitizer's error fails its row, a sanitizer stopped at its share with no errors is
# only incomplete; ctest stopped at the budget fails its row and the sanitizers still run; a test skipped on a GPU
# fails; a TERM still writes the report and leaves no process behind; no GPU exits 3 having done nothing; a pack
# of other sources is refused and the tree is built instead.
#   tests/scripts/gpu_check_test.sh
# shellcheck source-path=SCRIPTDIR
set -uo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=../test_support/script_test_lib.sh
source "$here/../test_support/script_test_lib.sh"
repo=$(cd "$here/../.." && pwd)

# --- the fakes, first on PATH ---------------------------------------------------------------------------------
fake_gpu_tools "$work/bin"
# configure makes the build folder; a build copies FAKE_BUILD_FROM into it (and fails without it)
cat >"$work/bin/cmake" <<'EOF'
#!/usr/bin/env bash
if [[ $1 == --preset && $2 == cuda && $3 == -B ]]; then
  mkdir -p "$4" && echo "-- Build files have been written to: $PWD/$4" && exit 0
elif [[ $1 == --build && -n ${FAKE_BUILD_FROM:-} ]]; then
  cp -a "$FAKE_BUILD_FROM/." "$2/" && echo "[100%] Built target everything" && exit 0
fi
echo "fake cmake: unexpected arguments: $*" >&2
exit 2
EOF
# -N lists the custom-kernel test; a run passes 3 tests, or skips one (FAKE_CTEST_SKIP), or sleeps (FAKE_CTEST_SLEEP)
# as a process named after this fake, so that pgrep finds it
cat >"$work/bin/ctest" <<'EOF'
#!/usr/bin/env bash
[[ $1 == --test-dir && $2 == build/gpu-check && " $* " == *" -L gpu "* ]] ||
  { echo "fake ctest: unexpected arguments: $*" >&2; exit 2; }
echo "Test project $PWD/$2"
[[ $3 == -N ]] && { printf '  Test #4: test_custom_kernels_gpu\n\nTotal Tests: 1\n'; exit 0; }
echo "    Start 4: test_custom_kernels_gpu"
[[ -n ${FAKE_CTEST_SLEEP:-} ]] && exec -a "$0" sleep "$FAKE_CTEST_SLEEP"
echo "1/3 Test #4: test_custom_kernels_gpu ........   Passed    0.50 sec"
if [[ -n ${FAKE_CTEST_SKIP:-} ]]; then
  echo "2/3 Test #5: test_scan_gpu ..................***Skipped   0.01 sec"
else
  echo "2/3 Test #5: test_scan_gpu ..................   Passed    0.40 sec"
fi
printf '3/3 Test #6: test_spmv_gpu ..................   Passed    0.30 sec\n\n'
printf '100%% tests passed, 0 tests failed out of 3\n\nTotal Test time (real) =   1.20 sec\n'
[[ -n ${FAKE_CTEST_SKIP:-} ]] && printf '\nThe following tests did not run:\n\t  5 - test_scan_gpu (Skipped)\n'
exit 0
EOF
# runs the test executable it is given; FAKE_SANITIZER_ERROR=TOOL reports an error, FAKE_SANITIZER_HANG=TOOL hangs
cat >"$work/bin/compute-sanitizer" <<'EOF'
#!/usr/bin/env bash
tool=
while [[ $1 == --* ]]; do
  case $1 in --tool | --error-exitcode | --leak-check) [[ $1 == --tool ]] && tool=$2; shift 2 ;; *) shift ;; esac
done
echo "========= COMPUTE-SANITIZER"
[[ -x ${1:-} ]] || { echo "fake compute-sanitizer: no executable '${1:-}'"; exit 98; }
"$@"
if [[ ${FAKE_SANITIZER_HANG:-} == "$tool" ]]; then
  # stopped, it reports the TERM as Catch2 does: one more failed assertion, no error of the code under test
  trap 'printf "%s\n" "t.cu:1: FAILED:" "  {Unknown expression after the reported line}" \
    "due to a fatal error condition:" "  SIGTERM - Termination request signal"; exit 143' TERM
  sleep 300 &
  wait
fi
if [[ ${FAKE_SANITIZER_ERROR:-} == "$tool" ]]; then
  printf '========= Invalid __global__ read of size 4 bytes\n========= ERROR SUMMARY: 1 error\n'
  exit 99
fi
echo "========= ERROR SUMMARY: 0 errors"
EOF
chmod +x "$work"/bin/*
# the same without nvidia-smi, for a PATH that has none
mkdir -p "$work/no-smi"
for tool in nvcc cmake ctest compute-sanitizer; do ln -s "$work/bin/$tool" "$work/no-smi/$tool"; done
system_path=$PATH
export PATH="$work/bin:$PATH"

# --- the made-up project: the real scripts and bench/plot, and a file in each folder a build reads -------------
root=$work/root
mkdir -p "$root"/{scripts,cmake,algorithms,custom_kernels,apps,tests,bench}
cp -p "$repo"/scripts/{gpu-check,common.sh,gpu_build_pack.sh} "$root/scripts/"
cp -p "$repo/bench/plot" "$root/bench/"
echo 'project(x)' >"$root/CMakeLists.txt"
echo '{}' >"$root/CMakePresets.json"
for folder in cmake algorithms custom_kernels apps tests; do echo "// $folder" >"$root/$folder/source.cu"; done

# A build of stand-ins, packed: the custom-kernel test, and two benchmarks writing Google Benchmark JSON: each its
# copy, and bench_scan a single-pass scan taking 1.25 ms where CUB takes 1.2 ms (0.96×: the target met).
build=$work/build
mkdir -p "$build/tests" "$build/bench"
printf '#!/bin/sh\necho "test spec, $# argument(s): $*"\necho "All tests passed (12 assertions in 3 test cases)"\n' \
  >"$build/tests/test_custom_kernels_gpu"
cat >"$build/bench/bench_scan" <<'EOF'
#!/bin/sh
for arg; do case $arg in --benchmark_out=*) out=${arg#*=} ;; esac; done
entry() { printf '{"name": "%s/268435456/manual_time", "run_type": "iteration", "real_time": %s, "time_unit": "ms", "bytes_per_second": 2e12, "items_per_second": 2.7e11, "copy_fraction": %s}' "$@"; }
all=$(entry copy/thrust_device 1.0 1.0)
[ "${0##*/}" = bench_scan ] &&
  all="$all, $(entry scan/cub_device_scan 1.2 0.83), $(entry scan/kernels_single_pass 1.25 0.8)"
printf '{"context": {"dpt_device_system": "cuda", "host_name": "fake"}, "benchmarks": [%s]}\n' "$all" >"$out"
echo "${0##*/}: done"
EOF
cp "$build/bench/bench_scan" "$build/bench/bench_spmv"
chmod +x "$build"/tests/* "$build"/bench/*
# shellcheck source=../../scripts/gpu_build_pack.sh
source "$root/scripts/gpu_build_pack.sh"
dpt_hash_inputs "$root" >"$work/inputs.sha256"
pack=$work/cuda-build.tar.gz
dpt_pack_build "$build" "$pack" "$root" 90 "$work/inputs.sha256" || fail "packing the stand-in build failed"

# run_check NAME [VAR=VALUE...]: gpu-check on its own copy of the project (made here unless it exists), with the
# pack; its OUTDIR is $work/NAME/out, what it printed $work/NAME/log, its exit status $work/NAME/status.
run_check() {
  local name=$1
  shift
  mkdir -p "$work/$name"
  [[ -d $work/$name/root ]] || cp -a "$root" "$work/$name/"
  env DPT_GPU_CHECK_PREBUILT="$pack" "$@" "$work/$name/root/scripts/gpu-check" "$work/$name/out" >"$work/$name/log" 2>&1
  echo $? >"$work/$name/status"
}
expect_row() {  # expect_row NAME STEP RESULT-PREFIX: the report's step table has that row
  grep -qF "| $2 | $3" "$work/$1/out/report.md" 2>/dev/null ||
    fail "$1: no row '| $2 | $3...' in report.md: $(sed -n '/^| step /,$p' "$work/$1/out/report.md" 2>/dev/null)"
}
listing() { find "$1" -mindepth 1 -maxdepth 1 -printf '%f\n' 2>/dev/null | LC_ALL=C sort | paste -s -d ' '; }
kernels=test_custom_kernels_gpu

# --- the runs that are not stopped from outside, side by side (the two that wait on timeouts take ~45 s) ------
run_check pass DPT_GPU_CHECK_BUNDLE=1 DPT_SOURCE_COMMIT=abc1234 &
run_check sanitizer_error FAKE_SANITIZER_ERROR=racecheck &
# a budget of 80 s, 10 held back: memcheck's share, a third of what is left, is 20 to 26 s if the steps before it
# take at most 20 s (below 20 s it would be skipped)
run_check sanitizer_hang FAKE_SANITIZER_HANG=memcheck DPT_GPU_CHECK_BUDGET=80 DPT_SANITIZER_RESERVE=10 &
# ctest gets 125 - 60 - 20 = 45 s at most, less what configure and unpack took (30 at least, or it is skipped);
# stopped there, it leaves 80 s, whatever those took: each sanitizer's share is over 20 s
run_check slow_ctest FAKE_CTEST_SLEEP=300 DPT_GPU_CHECK_BUDGET=125 DPT_SANITIZER_RESERVE=60 &
run_check skipped FAKE_CTEST_SKIP=1 &
run_check no_gpu FAKE_NO_GPU=1 &
if PATH=$system_path command -v nvidia-smi >/dev/null; then
  echo "nvidia-smi is on this machine's PATH: the case of a PATH without it is left out"
else
  run_check no_smi PATH="$work/no-smi:$system_path" &
fi
mkdir -p "$work/stale" && cp -a "$root" "$work/stale/"
echo '// edited after the pack was built' >>"$work/stale/root/algorithms/source.cu"
run_check stale FAKE_BUILD_FROM="$build" &
wait

# 1. Everything passes: report.md and the archive only, every step passed, the GPU targets, the given commit.
expect_status pass 0
[[ $(listing "$work/pass/out") == "gpu-check-files.tar.gz report.md" ]] ||
  fail "pass: OUTDIR holds $(listing "$work/pass/out"), not report.md and the archive"
archive=$(tar -tzf "$work/pass/out/gpu-check-files.tar.gz" 2>/dev/null)
for file in configure.log ctest.log bench_scan.json bench_spmv.json benchmarks.md sanitizer-{memcheck,racecheck,synccheck}-$kernels.log; do
  grep -qxF "$file" <<<"$archive" || fail "pass: the archive lacks $file: $(paste -s -d ' ' <<<"$archive")"
done
expect_row pass configure passed
expect_row pass "build (sm_90)" "passed: unpacked cuda-build.tar.gz, built "
expect_row pass "gpu tests" "passed: 100% tests passed, 0 tests failed out of 3"
for step in bench_scan bench_spmv; do expect_row pass "$step" passed; done
for tool in memcheck racecheck synccheck; do expect_row pass "$tool $kernels" "passed: ERROR SUMMARY: 0 errors"; done
# racecheck, the slowest by far on a GPU, runs last: a fair share of what is left is then all that is left
order=$(grep -o 'compute-sanitizer --tool [a-z]*' "$work/pass/log" | cut -d ' ' -f 3 | paste -s -d ' ')
[[ $order == "memcheck synccheck racecheck" ]] || fail "pass: the sanitizers ran in the order '$order'"
# the sanitizers run one element type of every kernel, the spec given to the test as one argument after --warn
tar -xzOf "$work/pass/out/gpu-check-files.tar.gz" "sanitizer-memcheck-$kernels.log" 2>/dev/null |
  grep -qxF 'test spec, 3 argument(s): --warn NoTests ~[large] *- std::int32_t,~[large] *caller-owned scratch on a stream,~[large] *sum on the GPU - spmv_types<float*' ||
  fail "pass: memcheck did not run the default test spec"
report=$(cat "$work/pass/out/report.md" 2>/dev/null)
for line in "- commit: abc1234 (given by the caller)" "- command: \`scripts/gpu-check $work/pass/out\`" \
  "- GPU: NVIDIA H200, 570.00, 143771 MiB" "- CUDA: 13.0 (nvcc V13.0.88); sm_90; $(nproc) cores" "## GPU targets" \
  "| single-pass scan ≥ 0.95× CUB at 2^28 int32 | 0.96× | met |" "100% tests passed, 0 tests failed out of 3"; do
  grep -qxF -- "$line" <<<"$report" || fail "pass: report.md lacks the line '$line'"
done
grep -q 'FAILED\|skipped\|incomplete' <<<"$report" && fail "pass: report.md has a step not passed: $report"

# 2. A sanitizer's error fails its row; one stopped at its share without errors is incomplete, not a failure.
expect_status sanitizer_error 1
expect_row sanitizer_error "racecheck $kernels" "FAILED: exit 99, ERROR SUMMARY: 1 error (sanitizer-racecheck-$kernels.log)"
for tool in memcheck synccheck; do expect_row sanitizer_error "$tool $kernels" passed; done
expect_status sanitizer_hang 0
expect_row sanitizer_hang "memcheck $kernels" "incomplete: timed out after 2"
for tool in racecheck synccheck; do expect_row sanitizer_hang "$tool $kernels" passed; done

# 3. ctest past its limit is stopped there and fails; the sanitizers still get their shares.
expect_status slow_ctest 1
expect_row slow_ctest "gpu tests" "FAILED: stopped at the budget's "
for tool in memcheck racecheck synccheck; do expect_row slow_ctest "$tool $kernels" passed; done

# 4. A test that ctest skipped on a machine with a GPU fails the step, though ctest counts it as passed.
expect_status skipped 1
expect_row skipped "gpu tests" "FAILED: 1 skipped on a machine with a GPU: 100% tests passed"

# 6. No GPU (nvidia-smi lists none, or is not on PATH): exit 3, nothing configured, nothing written.
for name in no_gpu no_smi; do
  [[ -f $work/$name/status ]] || continue
  expect_status "$name" 3
  [[ -z $(listing "$work/$name/out") && ! -e $work/$name/root/build ]] ||
    fail "$name: something was written: OUTDIR: $(listing "$work/$name/out"); project: $(listing "$work/$name/root")"
  grep -q 'no GPU here' "$work/$name/log" || fail "$name: it did not say there is no GPU: $(cat "$work/$name/log")"
done

# 7. A pack built from other sources is refused, saying which; the tree is built and the steps run on that build.
expect_status stale 0
expect_row stale "unpack cuda-build.tar.gz" "skipped: built from other sources: algorithms/source.cu"
expect_row stale "build (sm_90, $(nproc) jobs)" passed
expect_row stale "memcheck $kernels" passed

# 5. TERM while ctest runs: the report names the step, the run exits 1, and ctest is stopped with it.
mkdir -p "$work/term" && cp -a "$root" "$work/term/"
DPT_GPU_CHECK_PREBUILT=$pack FAKE_CTEST_SLEEP=300 "$work/term/root/scripts/gpu-check" "$work/term/out" \
  >"$work/term/log" 2>&1 &
pid=$!
for ((i = 0; i < 300; i++)); do  # at most 30 s for ctest to start
  grep -q 'Start 4' "$work/term/out/ctest.log" 2>/dev/null && break
  sleep 0.1
done
grep -q 'Start 4' "$work/term/out/ctest.log" 2>/dev/null || fail "term: ctest did not start: $(cat "$work/term/log")"
kill -TERM "$pid"
for ((i = 0; i < 300; i++)); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
if kill -0 "$pid" 2>/dev/null; then
  fail "term: gpu-check still runs 30 s after TERM"
  kill -KILL "$pid"
fi
wait "$pid"
echo $? >"$work/term/status"
expect_status term 1
expect_row term "gpu tests" "FAILED: stopped by SIGTERM after "
mapfile -t leftover < <(pgrep -f "$work")
if ((${#leftover[@]} > 0)); then
  fail "processes of the runs are left running: $(ps -o pid=,args= -p "${leftover[@]}" | paste -s -d ';')"
  kill "${leftover[@]}" 2>/dev/null  # this test's own: their command lines name its folder
fi

finish gpu_check
