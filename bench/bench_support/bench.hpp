// Shared by every dpt benchmark: the run's sizes, timing (CUDA events on the GPU, a steady clock on the CPU),
// the check every variant passes before it is timed, and the throughput report — items/s, bytes/s and the
// fraction of copy bandwidth measured in the same run.
//
// Bytes are effective bytes throughout: the bytes the problem's inputs and outputs occupy, each counted once
// (what a perfect implementation must read and write), the same for every variant of a family so that variants
// compare directly. Temporaries, extra passes and the cache lines a normal store reads for ownership are not
// counted: a variant that moves more than the minimum shows as slower, not as more bytes.
//
// Each bench executable defines dpt::bench::register_benchmarks(); bench_main registers the copy benchmarks
// first, then the family's, so every family's run carries its own copy baseline.
#pragma once

#include <benchmark/benchmark.h>
#include <thrust/copy.h>
#include <thrust/device_vector.h>
#include <thrust/execution_policy.h>
#include <thrust/fill.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include <dpt/config.hpp>

#if DPT_CUDA_DEVICE_SYSTEM
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

// Bandwidth (effective bytes per second: n ints read, n written) of the device copy at `bytes`, measured earlier
// in this run: between two of the copy's sizes, a straight line in log(bytes), log(bytes/s); 0 outside the sizes
// the copy ran at (a copy of another size is another bound: in cache, or mostly start-up cost) or when no copy ran
// (filtered out). bench/plot works out the same fraction from the JSON.
double copy_bandwidth(double bytes);
// Records one call of the copy benchmark; only the calls Google Benchmark reports (the most iterations) count.
void record_copy_bandwidth(double bytes, benchmark::IterationCount iterations, double bytes_per_second);

// Registers `fn(state)` as `name/arg`, timed manually (every benchmark reports the time that timed_loop measured).
template <class Fn>
benchmark::internal::Benchmark* add(const std::string& name, std::int64_t arg, Fn&& fn) {
  return benchmark::RegisterBenchmark(name.c_str(), std::forward<Fn>(fn))
      ->Arg(arg)
      ->UseManualTime()
      ->Unit(benchmark::kMicrosecond);
}

// Every variant is checked before it is timed: `run_once` runs it once, untimed, into outputs it poisons first
// (see poison), and `correct` compares what it wrote with a simple host loop. A variant that disagrees is
// reported as an error (state.SkipWithError, listed by bench/plot) instead of a time: a fast wrong variant shows
// no number. Returns whether to go on and time it. The check costs one run and one host pass over the output.
template <class RunOnce, class Correct>
bool checked(benchmark::State& state, RunOnce&& run_once, Correct&& correct, const char* error) {
  run_once();
#if DPT_BENCH_GPU
  DPT_CUDA_CHECK(cudaDeviceSynchronize());
#endif
  if (correct()) return true;
  state.SkipWithError(error);
  return false;
}

// Fills an output (a thrust::device_vector or a std::vector) with a value no variant computes by accident:
// NaN for floating point, 0x7f7f7f7f-style bytes for integers.
template <class Vector>
void poison(Vector& v) {
  using T = typename Vector::value_type;
  T value{};
  if constexpr (std::is_floating_point_v<T>) {
    value = std::numeric_limits<T>::quiet_NaN();
  } else {
    value = static_cast<T>(0x7f7f7f7f7f7f7f7fULL);
  }
  thrust::fill(v.begin(), v.end(), value);
}

// `checked` for a variant whose one output is `output`: poisons it, runs `op` once and asks `correct`.
template <class Output, class Op, class Correct>
bool checked_output(benchmark::State& state, Output& output, Op& op, Correct&& correct, const char* error) {
  return checked(
      state,
      [&] {
        poison(output);
        op();
      },
      std::forward<Correct>(correct), error);
}

// Whether the first `count` elements of `v` (a device or host vector) are expected(0), expected(1), … (called
// once each, in order, so it may carry a running sum). Copied to the host 1 Mi elements at a time: checking an
// output of 2^28 elements takes no second copy of it.
template <class Vector, class Expected>
bool equals_sequence(const Vector& v, std::int64_t count, Expected&& expected) {
  using T = typename Vector::value_type;
  constexpr std::int64_t chunk = std::int64_t{1} << 20;
  if (count > static_cast<std::int64_t>(v.size())) return false;
  std::vector<T> buffer(static_cast<std::size_t>(std::min(count, chunk)));
  for (std::int64_t begin = 0; begin < count; begin += chunk) {
    const std::int64_t end = std::min(count, begin + chunk);
    thrust::copy(v.begin() + begin, v.begin() + end, buffer.begin());
    for (std::int64_t i = begin; i < end; ++i) {
      if (!(buffer[i - begin] == expected(i))) return false;
    }
  }
  return true;
}

// The first `count` elements of a device or host vector, on the host (all of them by default).
template <class T, class Alloc>
std::vector<T> on_host(const thrust::device_vector<T, Alloc>& v, std::int64_t count = -1) {
  std::vector<T> h(count < 0 ? v.size() : static_cast<std::size_t>(count));
  thrust::copy(v.begin(), v.begin() + h.size(), h.begin());
  return h;
}
template <class T, class Alloc>
std::vector<T> on_host(const std::vector<T, Alloc>& v, std::int64_t count = -1) {
  return std::vector<T>(v.begin(), count < 0 ? v.end() : v.begin() + count);
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

// A device copy of n int32 from a benchmark's input to its output, timed just before every iteration, and that
// iteration timed too: the benchmark's paired_copy_fraction is the median over iterations of its bandwidth
// over the copy's just before it, on the same memory. copy_fraction instead divides by the run's copy baseline,
// measured minutes earlier on other buffers; on the shared 2-core machine of docs/benchmarks.md copy bandwidth
// drifted by up to 40% within minutes, and differed by as much from one allocation to the next.
class paired_copy {
 public:
  paired_copy(const int* source, int* destination, std::int64_t n)
      : source_(source), destination_(destination), n_(n) {}

  void copy() {
    copy_seconds_.push_back(seconds_of([&] { thrust::copy(thrust::device, source_, source_ + n_, destination_); }));
  }
  template <class Op>
  void run(Op& op) {
    op_seconds_.push_back(seconds_of(op));
  }

  // The median over (copy, op) pairs of op's bytes/s over the copy's; the first pair (the warm-up) is left
  // out. 0 without pairs.
  double fraction(double op_bytes) const {
    std::vector<double> ratios;
    const double copy_bytes = 2.0 * sizeof(int) * static_cast<double>(n_);
    for (std::size_t i = 1; i < std::min(copy_seconds_.size(), op_seconds_.size()); ++i) {
      ratios.push_back(op_bytes / op_seconds_[i] / (copy_bytes / copy_seconds_[i]));
    }
    if (ratios.empty()) return 0;
    std::sort(ratios.begin(), ratios.end());
    const auto n = ratios.size();
    return n % 2 ? ratios[n / 2] : 0.5 * (ratios[n / 2 - 1] + ratios[n / 2]);
  }

 private:
  template <class Op>
  static double seconds_of(Op&& op) {
#if DPT_BENCH_GPU
    DPT_CUDA_CHECK(cudaDeviceSynchronize());
#endif
    const auto t0 = std::chrono::steady_clock::now();
    op();
#if DPT_BENCH_GPU
    DPT_CUDA_CHECK(cudaDeviceSynchronize());
#endif
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  }

  const int* source_;
  int* destination_;
  std::int64_t n_;
  std::vector<double> copy_seconds_, op_seconds_;
};

// items/s and bytes/s (per iteration: `items` processed, `bytes` the effective bytes), and copy_fraction: this
// benchmark's bytes/s over the copy's at the same bytes (copy_bandwidth), where there is one; with `paired`, also
// paired_copy_fraction (see paired_copy).
void report(benchmark::State& state, double total_seconds, double items, double bytes,
            const paired_copy* paired = nullptr);

// Times `op` and reports it over `items` and `bytes`. CPU builds run `paired` before every iteration (see
// paired_copy); GPU builds, whose copy bandwidth holds steady, do not.
template <class Op>
void measure(benchmark::State& state, where side, double items, double bytes, paired_copy paired, Op&& op) {
#if DPT_BENCH_GPU
  (void)paired;
  report(state, timed_loop(state, side, std::forward<Op>(op)), items, bytes);
#else
  const double seconds = timed_loop(
      state, side, [&] { paired.run(op); }, [&] { paired.copy(); });
  report(state, seconds, items, bytes, &paired);
#endif
}

// For a variant that works in place (a sort): `restore` puts its input back, before the checked run and, untimed,
// before every timed iteration; `op` is what is timed. Checks (see checked), times and reports over items and bytes.
template <class Restore, class Op, class Correct>
void measure_in_place(benchmark::State& state, where side, double items, double bytes, Restore&& restore, Op&& op,
                      Correct&& correct, const char* error) {
  const auto run_once = [&] {
    restore();
    op();
  };
  if (!checked(state, run_once, std::forward<Correct>(correct), error)) return;
  report(state, timed_loop(state, side, op, restore), items, bytes);
}

}  // namespace dpt::bench
