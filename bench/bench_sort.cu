// Sort family: uniformly random int32 keys sorted by thrust::sort on the build's device system (a radix sort
// on CUDA, a parallel merge sort on OMP/TBB), by std::sort on one core, and on the GPU by
// cub::DeviceRadixSort. Each iteration sorts a fresh copy of the same keys; only the sort is timed.
// Bytes count one read and one write of the keys, so copy_fraction says how many copies' time a sort costs.
#include "support/bench.hpp"

#include <algorithm>
#include <random>
#include <thrust/copy.h>
#include <thrust/device_vector.h>
#include <thrust/execution_policy.h>
#include <thrust/sort.h>

#if DPT_BENCH_GPU
#  include <cub/device/device_radix_sort.cuh>
#endif

namespace dpt::bench {
namespace {

std::vector<int> random_keys(std::int64_t n) {
  std::mt19937 rng(2024);
  std::vector<int> keys(n);
  for (auto& k : keys) k = static_cast<int>(rng());
  return keys;
}

}  // namespace

void register_benchmarks() {
  // std::sort at 2^28 takes about a minute per iteration on two cores; sorts stop at 2^26.
  for (const auto n : sizes(26)) {
    const double bytes = 2.0 * sizeof(int) * n;
    add("sort/thrust", n, [n, bytes](benchmark::State& state) {
      const auto host_keys = random_keys(n);
      const thrust::device_vector<int> unsorted(host_keys.begin(), host_keys.end());
      thrust::device_vector<int> keys(n);
      const double seconds = timed_loop(
          state, where::device, [&] { thrust::sort(thrust::device, keys.begin(), keys.end()); },
          [&] { thrust::copy(unsorted.begin(), unsorted.end(), keys.begin()); });
      report(state, seconds, n, bytes);
    });
#if !DPT_BENCH_GPU
    add("sort/std_sort", n, [n, bytes](benchmark::State& state) {
      const auto unsorted = random_keys(n);
      std::vector<int> keys(n);
      const double seconds = timed_loop(
          state, where::host, [&] { std::sort(keys.begin(), keys.end()); },
          [&] { std::copy(unsorted.begin(), unsorted.end(), keys.begin()); });
      report(state, seconds, n, bytes);
    });
#else
    add("sort/cub_radix_sort", n, [n, bytes](benchmark::State& state) {
      const auto host_keys = random_keys(n);
      const thrust::device_vector<int> unsorted(host_keys.begin(), host_keys.end());
      thrust::device_vector<int> keys(n), alternate(n);
      cub::DoubleBuffer<int> buffer(thrust::raw_pointer_cast(keys.data()), thrust::raw_pointer_cast(alternate.data()));
      std::size_t temp_bytes = 0;
      DPT_CUDA_CHECK(cub::DeviceRadixSort::SortKeys(nullptr, temp_bytes, buffer, static_cast<int>(n)));
      thrust::device_vector<unsigned char> temp(temp_bytes);
      void* temp_storage = thrust::raw_pointer_cast(temp.data());
      const double seconds = timed_loop(
          state, where::device,
          [&] {
            DPT_CUDA_CHECK(cub::DeviceRadixSort::SortKeys(temp_storage, temp_bytes, buffer, static_cast<int>(n)));
          },
          [&] {
            buffer.selector = 0;
            thrust::copy(unsorted.begin(), unsorted.end(), keys.begin());
          });
      report(state, seconds, n, bytes);
    });
#endif
  }
}

}  // namespace dpt::bench
