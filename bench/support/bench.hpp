// Shared by every dpt benchmark: the run's sizes, timing (CUDA events on the GPU, a steady clock on the CPU)
// and the throughput report — items/s, bytes/s and the fraction of copy bandwidth measured in the same run.
//
// Each bench executable defines dpt::bench::register_benchmarks(); bench_main registers the copy benchmarks
// first, then the family's, so every family's run carries its own copy baseline.
#pragma once

#include <benchmark/benchmark.h>

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <utility>
#include <vector>

#include <dpt/config.hpp>

#if THRUST_DEVICE_SYSTEM == THRUST_DEVICE_SYSTEM_CUDA
#  include <cuda_runtime_api.h>
#  define DPT_BENCH_GPU 1
#else
#  define DPT_BENCH_GPU 0
#endif

namespace dpt::bench {

#if DPT_BENCH_GPU
[[noreturn]] inline void cuda_failure(cudaError_t status, const char* call, const char* file, int line) {
  std::fprintf(stderr, "%s:%d: %s failed: %s\n", file, line, call, cudaGetErrorString(status));
  std::exit(1);
}
#  define DPT_CUDA_CHECK(call)                                                                            \
    do {                                                                                                  \
      const cudaError_t dpt_status_ = (call);                                                             \
      if (dpt_status_ != cudaSuccess) ::dpt::bench::cuda_failure(dpt_status_, #call, __FILE__, __LINE__); \
    } while (0)
#endif

// The sizes of this run, from --dpt_min_log2 / --dpt_max_log2 / --dpt_step_log2 (see bench_main.cu).
struct options {
  int min_log2 = 10;
  int max_log2 = 22;
  int step_log2 = 2;
};
const options& run_options();

// 2^min_log2, … up to min(2^max_log2, 2^cap_log2): the element counts a family benchmarks.
std::vector<std::int64_t> sizes(int cap_log2 = 40);

// Defined by each bench executable: registers its family's benchmarks (after the copy baseline).
void register_benchmarks();

// Bandwidth (bytes read + written per second) of the device copy that moved closest to `bytes`, measured
// earlier in this run; 0 when no copy ran (filtered out).
double copy_bandwidth(double bytes);
void record_copy_bandwidth(double bytes, double bytes_per_second);

// Registers `fn(state)` as `name/arg`, timed manually (every benchmark reports the time that timed_loop measured).
template <class Fn>
benchmark::internal::Benchmark* add(const std::string& name, std::int64_t arg, Fn&& fn) {
  return benchmark::RegisterBenchmark(name.c_str(), std::forward<Fn>(fn))
      ->Arg(arg)
      ->UseManualTime()
      ->Unit(benchmark::kMicrosecond);
}

// Times `op` once per iteration and returns the total. Device work is bracketed by CUDA events on the
// default stream in GPU builds; host work (and every CPU build) uses a steady clock. `setup` runs untimed
// before each iteration (e.g. restoring unsorted keys); one untimed warm-up call of `op` comes first.
enum class where { device, host };

template <class Op, class Setup>
double timed_loop(benchmark::State& state, where side, Op&& op, Setup&& setup) {
  double total = 0;
#if DPT_BENCH_GPU
  cudaEvent_t start{}, stop{};
  if (side == where::device) {
    DPT_CUDA_CHECK(cudaEventCreate(&start));
    DPT_CUDA_CHECK(cudaEventCreate(&stop));
  }
#endif
  setup();
  op();  // warm-up, untimed: first touch of the pages, thread pools, CUDA context and kernel loading
  for (auto _ : state) {
    setup();
    double seconds = 0;
#if DPT_BENCH_GPU
    if (side == where::device) {
      DPT_CUDA_CHECK(cudaDeviceSynchronize());
      DPT_CUDA_CHECK(cudaEventRecord(start));
      op();
      DPT_CUDA_CHECK(cudaGetLastError());
      DPT_CUDA_CHECK(cudaEventRecord(stop));
      DPT_CUDA_CHECK(cudaEventSynchronize(stop));
      float ms = 0;
      DPT_CUDA_CHECK(cudaEventElapsedTime(&ms, start, stop));
      seconds = ms * 1e-3;
    } else
#endif
    {
      (void)side;
      const auto t0 = std::chrono::steady_clock::now();
      op();
      benchmark::ClobberMemory();
      seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    }
    state.SetIterationTime(seconds);
    total += seconds;
  }
#if DPT_BENCH_GPU
  if (side == where::device) {
    DPT_CUDA_CHECK(cudaEventDestroy(start));
    DPT_CUDA_CHECK(cudaEventDestroy(stop));
  }
#endif
  return total;
}

template <class Op>
double timed_loop(benchmark::State& state, where side, Op&& op) {
  return timed_loop(state, side, std::forward<Op>(op), [] {});
}

// items/s and bytes/s (per iteration: `items` processed, `bytes` read + written), and copy_fraction: this
// benchmark's bytes/s over the copy's at the closest size, measured in the same run.
void report(benchmark::State& state, double total_seconds, double items, double bytes);

}  // namespace dpt::bench
