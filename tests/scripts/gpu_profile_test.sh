#!/usr/bin/env bash
# scripts/gpu-profile on a machine without a GPU: the real script in a made-up project with a stand-in bench_scan,
# and fake nvcc, nvidia-smi and ncu. It shows: each variant is profiled once, its kernel picked by name and its
# benchmark by filter, with the clocks left alone; summary.md holds each one's duration, DRAM throughput, occupancy
# and largest stalls read from ncu's CSV (with or without its units row); a variant ncu fails on, or whose CSV has
# no launch, gets a FAILED row and the others still run; a spent budget skips variants; no GPU exits 3, no build
# exits 2, and neither profiles anything.
#   tests/scripts/gpu_profile_test.sh
# shellcheck source-path=SCRIPTDIR
set -uo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=../test_support/script_test_lib.sh
source "$here/../test_support/script_test_lib.sh"
repo=$(cd "$here/../.." && pwd)

# --- the fakes, first on PATH ---------------------------------------------------------------------------------
fake_gpu_tools "$work/bin"
# Profiling writes NAME.ncu-rep holding the variant (from --benchmark_filter) and logs its arguments; FAKE_NCU_FAIL
# names a variant it fails on. --import prints the raw page of such a report: names, units, one launch's values.
cat >"$work/bin/ncu" <<'EOF'
#!/usr/bin/env bash
[[ $1 == --version ]] && { printf 'NVIDIA (R) Nsight Compute Command Line Profiler\nVersion 2025.3.1.0\n'; exit 0; }
if [[ $1 == --import ]]; then
  [[ $3 == --page && $4 == raw && $5 == --csv ]] || { echo "fake ncu: unexpected arguments: $*" >&2; exit 2; }
  variant=$(cat "$2")
  duration='"1,121.50"'
  [[ $variant == cub_device_scan ]] && duration='"693.25"'
  names=(ID "Kernel Name" gpu__time_duration.sum dram__throughput.avg.pct_of_peak_sustained_elapsed
    sm__warps_active.avg.pct_of_peak_sustained_active)
  for stall in barrier long_scoreboard sleeping; do
    names+=("smsp__average_warps_issue_stalled_${stall}_per_issue_active.ratio")
  done
  printf '"%s",' "${names[@]}" | sed 's/,$/\n/'
  [[ -z ${FAKE_NCU_NO_UNITS:-} ]] && echo '"","","us","%","%","ratio","ratio","ratio"'
  [[ -n ${FAKE_NCU_NO_LAUNCH:-} ]] && exit 0
  echo "\"0\",\"kernel\",$duration,\"45.60\",\"80.10\",\"1.50\",\"3.20\",\"n/a\""
  exit 0
fi
echo "$*" >>"$FAKE_NCU_LOG"
for arg; do
  case $arg in
    --benchmark_filter=*) variant=${arg#*=^scan/} variant=${variant%/} ;;
  esac
done
previous=
for arg; do
  [[ $previous == --export ]] && report=$arg
  previous=$arg
done
[[ ${FAKE_NCU_FAIL:-} == "$variant" ]] && { echo "==ERROR== ERR_NVGPUCTRPERM"; exit 1; }
echo "$variant" >"$report.ncu-rep"
echo "==PROF== Report: $report.ncu-rep"
EOF
chmod +x "$work"/bin/*
export PATH="$work/bin:$PATH" FAKE_NCU_LOG=$work/ncu.log

# --- the made-up project: the real scripts and a built bench_scan ----------------------------------------------
root=$work/root
mkdir -p "$root/scripts" "$root/build/gpu-check/bench"
cp -p "$repo"/scripts/{gpu-profile,common.sh} "$root/scripts/"
printf '#!/bin/sh\necho bench_scan\n' >"$root/build/gpu-check/bench/bench_scan"
chmod +x "$root/build/gpu-check/bench/bench_scan"

# profile NAME [VAR=VALUE...]: gpu-profile into $work/NAME/out; what it printed $work/NAME/log, its exit status
# $work/NAME/status.
profile() {
  local name=$1
  shift
  mkdir -p "$work/$name"
  : >"$FAKE_NCU_LOG"
  env "$@" "$root/scripts/gpu-profile" "$work/$name/out" >"$work/$name/log" 2>&1
  echo $? >"$work/$name/status"
}
expect_line() {  # expect_line FILE LINE WHY
  grep -qxF -- "$2" "$1" || fail "$3: no line '$2' in $1: $(cat "$1" 2>/dev/null)"
}

# --- every variant profiled ------------------------------------------------------------------------------------
profile all
expect_status all 0
summary=$work/all/out/summary.md
expect_line "$summary" "| cub_device_scan | 693.25 us | 45.60 | 80.10 | long_scoreboard 3.20, barrier 1.50 |" \
  "CUB's row reads the CSV, the largest stall first and n/a left out"
single_pass_row="| kernels_single_pass_as_cub | 1121.50 us | 45.60 | 80.10 | long_scoreboard 3.20, barrier 1.50 |"
expect_line "$summary" "$single_pass_row" "a value with a thousands separator is read as one number"
[[ $(grep -c '^| kernels_single_pass' "$summary") == 4 ]] || fail "four single passes by default: $(cat "$summary")"
[[ $(wc -l <"$FAKE_NCU_LOG") == 5 ]] || fail "one ncu run per variant: $(cat "$FAKE_NCU_LOG")"
cub_run='--clock-control none .*--kernel-name regex:DeviceScanKernel --launch-skip 3 --launch-count 1 .*'
grep -q -- "$cub_run--benchmark_filter=^scan/cub_device_scan/\$" "$FAKE_NCU_LOG" ||
  fail "CUB's kernel is picked by name, clocks left alone: $(cat "$FAKE_NCU_LOG")"
single_pass_run='--kernel-name regex:single_pass_scan_kernel .*--dpt_min_log2=28 --dpt_max_log2=28 .*'
grep -q -- "$single_pass_run--benchmark_filter=^scan/kernels_single_pass/\$" "$FAKE_NCU_LOG" ||
  fail "the single pass is profiled at 2^28 alone: $(cat "$FAKE_NCU_LOG")"
[[ -s $work/all/out/kernels_single_pass.csv ]] || fail "the raw page is kept as CSV"
ls "$work"/all/out/*.ncu-rep >/dev/null 2>&1 && fail "the reports are removed once read"

# --- one variant fails -----------------------------------------------------------------------------------------
profile one_fails FAKE_NCU_FAIL=kernels_single_pass_block_order
expect_status one_fails 1
failed_row="| kernels_single_pass_block_order | — | — | — | FAILED: exit 1 (kernels_single_pass_block_order.txt) |"
expect_line "$work/one_fails/out/summary.md" "$failed_row" "a variant ncu fails on says so"
grep -q ERR_NVGPUCTRPERM "$work/one_fails/out/kernels_single_pass_block_order.txt" || fail "ncu's error is kept"
grep -q '^| kernels_single_pass_as_cub | 1121.50 us' "$work/one_fails/out/summary.md" ||
  fail "the variants after a failed one still run"

# --- ncu's CSV without units, or without a launch ---------------------------------------------------------------
profile no_units FAKE_NCU_NO_UNITS=1 DPT_PROFILE_VARIANTS=cub_device_scan
expect_status no_units 0
no_units_row="| cub_device_scan | 693.25 | 45.60 | 80.10 | long_scoreboard 3.20, barrier 1.50 |"
expect_line "$work/no_units/out/summary.md" "$no_units_row" "a CSV without its units row is read all the same"
profile no_launch FAKE_NCU_NO_UNITS=1 FAKE_NCU_NO_LAUNCH=1 DPT_PROFILE_VARIANTS=cub_device_scan
expect_status no_launch 1
no_launch_row="| cub_device_scan | — | — | — | FAILED: could not read cub_device_scan.csv |"
expect_line "$work/no_launch/out/summary.md" "$no_launch_row" "a CSV without a profiled launch fails its row"
grep -q "cub_device_scan.csv: no profiled launch" "$work/no_launch/log" || fail "it says what the CSV lacks"

# --- chosen variants, a spent budget, no GPU, no build ------------------------------------------------------
profile chosen DPT_PROFILE_VARIANTS="kernels_single_pass nonsense"
expect_status chosen 1
[[ $(wc -l <"$FAKE_NCU_LOG") == 1 ]] || fail "only the chosen variants run: $(cat "$FAKE_NCU_LOG")"
grep -q "unknown variant nonsense" "$work/chosen/log" || fail "an unknown variant is named"
profile no_time DPT_PROFILE_BUDGET=0
expect_status no_time 1
[[ $(grep -c 'skipped: time budget' "$work/no_time/out/summary.md") == 5 ]] ||
  fail "a spent budget skips every variant"
profile no_gpu FAKE_NO_GPU=1
expect_status no_gpu 3
[[ -s $FAKE_NCU_LOG ]] && fail "without a GPU nothing is profiled"
rm -rf "$root/build"
profile no_build
expect_status no_build 2
grep -q "run scripts/gpu-check first" "$work/no_build/log" || fail "without a build it says what to run"
[[ -s $FAKE_NCU_LOG ]] && fail "without a build nothing is profiled"

finish gpu-profile
