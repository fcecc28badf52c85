#!/usr/bin/env bash
# One-off diagnosis after check-3 (not committed): unpack the pack, then the fixed SpMV tests, the global lock,
# the rest of the grid, and racecheck on the scan that timed out.
set -u
o=$1; mkdir -p "$o"
scripts/gpu-check --build-only "$o/unpack" .gpu-prefix > "$o/unpack.log" 2>&1; tail -n 4 "$o/unpack.log"
p=$PWD/.gpu-prefix; tk=$(dirname "$(dirname "$(readlink -f "$(command -v nvcc)")")")
export LD_LIBRARY_PATH=$p/lib/x86_64-linux-gnu:$tk/lib64 DPT_MATRIX_DIR=$PWD/data/matrices
b=build/gpu-check; t=$(find $b/tests -maxdepth 2 -type f -name test_custom_kernels_gpu | head -n 1)
s=$(command -v compute-sanitizer || echo $tk/bin/compute-sanitizer)
step() { local name=$1 limit=$2; shift 2; local t0=$SECONDS
  timeout "$limit" "$@" > "$o/$name.log" 2>&1; echo "=== $name: exit $? after $((SECONDS - t0)) s"; tail -n 6 "$o/$name.log"; }
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader
step spmv_tests 45 "$t" "[spmv_kernel]" -d yes
g() { step "$1" "$2" $b/bench/bench_grid --dpt_min_log2=12 --dpt_max_log2=24 --dpt_step_log2=4 --benchmark_min_time=0.05 \
  --benchmark_filter="$3" --benchmark_out="$o/$1.json" --benchmark_out_format=json; }
g grid_global_lock 125 'grid/(5_sort|1_global_lock)/16_cells'
g grid_rest 25 'grid/.*/1M_cells|grid/(4_partial_grids|3_task_per_cell|2_lock_per_cell)/16_cells'
step racecheck_scratch 85 "$s" --tool racecheck --error-exitcode 99 "$t" -d yes "device scans reuse caller-owned scratch on a stream"
