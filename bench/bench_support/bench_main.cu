// main() of every dpt bench executable: parses dpt's size flags, registers the copy baseline (a device copy
// with thrust::copy on the build's device system and a host std::memcpy; on CPU builds also copy/streaming, see
// below), then the family, then runs.
//
//   --dpt_min_log2=N  --dpt_max_log2=N  --dpt_step_log2=N   sizes 2^min, 2^(min+step), … ≤ 2^max
//   plus every Google Benchmark flag (--benchmark_format=json, --benchmark_out=FILE, --benchmark_min_time=…)
#include "bench.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <iterator>
#include <map>
#include <thrust/copy.h>
#include <thrust/device_vector.h>
#include <thrust/execution_policy.h>

#if DPT_BENCH_GPU
#  include <exception>
#  include <string>

#  include <dpt/detail/cuda_check.hpp>
#else
#  include <thrust/for_each.h>
#  include <thrust/iterator/counting_iterator.h>

#  include <thread>

#  include <dpt/cpu/streaming_store.hpp>
#endif

namespace dpt::bench {
namespace {

options the_options;

// What one call of the copy benchmark measured. Google Benchmark calls a benchmark with growing iteration counts
// until one call runs long enough, and reports only that call (and, with --benchmark_repetitions, further calls
// with the same count): the trial calls before it, the ones with fewer iterations, are not the baseline.
struct copy_measurement {
  benchmark::IterationCount iterations;
  double bytes_per_second;
};
std::map<double, std::vector<copy_measurement>> copy_measurements;  // bytes moved → every call at that size

bool parse_int_flag(const char* arg, const char* name, int& value) {
  const auto length = std::strlen(name);
  if (std::strncmp(arg, name, length) != 0 || arg[length] != '=') return false;
  char* end = nullptr;
  const long parsed = std::strtol(arg + length + 1, &end, 10);
  if (*end != '\0' || parsed < 0 || parsed > 40) {
    std::fprintf(stderr, "bad value in %s (expected an integer 0..40)\n", arg);
    std::exit(2);
  }
  value = static_cast<int>(parsed);
  return true;
}

// Runs a copy of `source` (all ones) once into a poisoned `destination` and checks every element arrived (a share
// left out keeps the poison): a copy that skips work must not set the bound.
template <class Vector, class Copy>
bool copy_checked(benchmark::State& state, const Vector& source, Vector& destination, Copy& copy) {
  const auto all_ones = [&] {
    return equals_sequence(destination, static_cast<std::int64_t>(source.size()), [](std::int64_t) { return 1; });
  };
  return checked_output(state, destination, copy, all_ones, "wrong copy");
}

void register_copy_benchmarks() {
  for (const auto n : sizes()) {
    const double bytes = 2.0 * sizeof(int) * n;  // read n ints, write n ints
    add("copy/thrust_device", n, [n, bytes](benchmark::State& state) {
      thrust::device_vector<int> source(n, 1), destination(n);
      // the bandwidth bound: every element read once and written once
      const auto copy = [&] { thrust::copy(thrust::device, source.begin(), source.end(), destination.begin()); };
      if (!copy_checked(state, source, destination, copy)) return;
      const double seconds = timed_loop(state, where::device, copy);
      record_copy_bandwidth(bytes, state.iterations(), bytes * state.iterations() / seconds);
      report(state, seconds, n, bytes);
      state.counters.erase("copy_fraction");  // the baseline's fraction of itself, half measured, says nothing
    });
    add("copy/host_memcpy", n, [n, bytes](benchmark::State& state) {
      std::vector<int> source(n, 1), destination(n);
      const auto copy = [&] {
        std::memcpy(destination.data(), source.data(), n * sizeof(int));
        benchmark::DoNotOptimize(destination.data());
      };
      if (!copy_checked(state, source, destination, copy)) return;
      const double seconds = timed_loop(state, where::host, copy);
      report(state, seconds, n, bytes);
    });
#if !DPT_BENCH_GPU && DPT_HAVE_STREAMING_STORES
    // copy/thrust_device writes with normal stores, each of which first reads its cache line (read for
    // ownership); dpt's CPU algorithms stream outputs of streaming_output_bytes or more past the caches
    // (dpt/cpu/streaming_store.hpp). This copy does the same: each core copies its share, streamed by the same
    // rule and stores. Listed beside the baseline; fractions of copy are still taken against copy/thrust_device.
    add("copy/streaming", n, [n, bytes](benchmark::State& state) {
      thrust::device_vector<int> source(n, 1), destination(n);
      const int* from = thrust::raw_pointer_cast(source.data());
      int* to = thrust::raw_pointer_cast(destination.data());
      const std::int64_t shares = std::max(1u, std::thread::hardware_concurrency());
      const bool stream = dpt::cpu::should_stream<int*>(n);
      const auto copy_share = [=](std::int64_t share) {
        const std::int64_t begin = n * share / shares, end = n * (share + 1) / shares;
        dpt::cpu::with_output_store<int*>(stream, [&](auto store) {
          store(to, begin, from + begin, end - begin);
          return 0;
        });
      };
      const auto first = thrust::counting_iterator<std::int64_t>(0);
      const auto copy = [&] { thrust::for_each(thrust::device, first, first + shares, copy_share); };
      if (!copy_checked(state, source, destination, copy)) return;
      const double seconds = timed_loop(state, where::device, copy);
      report(state, seconds, n, bytes);
    });
#endif
  }
}

}  // namespace

const options& run_options() {
  return the_options;
}

std::vector<std::int64_t> sizes(int cap_log2) {
  std::vector<std::int64_t> result;
  const int top = std::min(the_options.max_log2, cap_log2);
  for (int k = the_options.min_log2; k <= top; k += std::max(1, the_options.step_log2)) {
    result.push_back(std::int64_t{1} << k);
  }
  return result;
}

void record_copy_bandwidth(double bytes, benchmark::IterationCount iterations, double bytes_per_second) {
  copy_measurements[bytes].push_back({iterations, bytes_per_second});
}

// The copy's bandwidth at one size: the median over its reported calls, those with the most iterations (one per
// repetition), so that one lucky or unlucky copy does not move every fraction.
double reported_bandwidth(const std::vector<copy_measurement>& calls) {
  benchmark::IterationCount most = 0;
  for (const auto& call : calls) most = std::max(most, call.iterations);
  std::vector<double> values;
  for (const auto& call : calls) {
    if (call.iterations == most) values.push_back(call.bytes_per_second);
  }
  std::sort(values.begin(), values.end());
  const auto n = values.size();
  return n % 2 ? values[n / 2] : 0.5 * (values[n / 2 - 1] + values[n / 2]);
}

double copy_bandwidth(double bytes) {
  // between the two copy sizes around `bytes`, a straight line in log(bytes), log(bytes/s); none outside them
  const auto above = copy_measurements.lower_bound(bytes);
  if (above == copy_measurements.end()) return 0;
  if (above->first == bytes) return reported_bandwidth(above->second);
  if (above == copy_measurements.begin()) return 0;
  const auto below = std::prev(above);
  const double t = std::log(bytes / below->first) / std::log(above->first / below->first);
  const double low = reported_bandwidth(below->second), high = reported_bandwidth(above->second);
  return std::exp((1 - t) * std::log(low) + t * std::log(high));
}

void report(benchmark::State& state, double total_seconds, double items, double bytes, const paired_copy* paired) {
  const auto iterations = static_cast<double>(state.iterations());
  state.SetItemsProcessed(static_cast<std::int64_t>(items * iterations));
  state.SetBytesProcessed(static_cast<std::int64_t>(bytes * iterations));
  if (total_seconds <= 0) return;
  const double bytes_per_second = bytes * iterations / total_seconds;
  const double reference = copy_bandwidth(bytes);
  if (reference > 0) state.counters["copy_fraction"] = bytes_per_second / reference;
  if (paired && paired->fraction(bytes) > 0) state.counters["paired_copy_fraction"] = paired->fraction(bytes);
}

}  // namespace dpt::bench

int main(int argc, char** argv) {
  using namespace dpt::bench;
  // dpt's flags first; Google Benchmark rejects what it does not know.
  int kept = 1;
  for (int i = 1; i < argc; ++i) {
    if (parse_int_flag(argv[i], "--dpt_min_log2", the_options.min_log2) ||
        parse_int_flag(argv[i], "--dpt_max_log2", the_options.max_log2) ||
        parse_int_flag(argv[i], "--dpt_step_log2", the_options.step_log2)) {
      continue;
    }
    argv[kept++] = argv[i];
  }
  argc = kept;
#if DPT_BENCH_GPU
  try {
    const std::string why = dpt::detail::why_no_cuda_device();
    if (!why.empty()) {
      std::printf("skipped: no device (%s)\n", why.c_str());
      return 77;
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "error: %s\n", e.what());
    return 1;
  }
  cudaDeviceProp properties{};
  DPT_CUDA_CHECK(cudaGetDeviceProperties(&properties, 0));
  benchmark::AddCustomContext("dpt_device", properties.name);
#endif
  benchmark::AddCustomContext("dpt_device_system", dpt::device_system_name());
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 2;
  register_copy_benchmarks();
  register_benchmarks();
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
