// Scan family: the same int32 inclusive sum by Thrust on the build's device system, by dpt::inclusive_scan
// (the lecture's "each core scans its slice, then adds its base" on OMP/TBB), by std::inclusive_scan on one
// core, and on the GPU by cub::DeviceScan and by every hand-written device scan of custom_kernels/ (the
// lecture's three launches over three block scans, and the single-pass decoupled look-back, also in the tile
// cub::DeviceScan uses on sm_90; each checked against Thrust's scan before it is timed). Every scan reads
// n ints and writes n ints, like the copy baseline. In CPU builds each benchmark also reports its fraction of a
// copy from its own input to its own output timed just before each iteration (paired_copy in bench.hpp): the
// CPU target is judged on it.
#include "support/bench.hpp"

#include <numeric>
#include <thrust/device_vector.h>
#include <thrust/execution_policy.h>
#include <thrust/scan.h>
#include <thrust/sequence.h>

#include <dpt/compact.hpp>
#include <dpt/scan.hpp>
#include <dpt/segmented_scan.hpp>
#include <thrust/copy.h>
#include <thrust/equal.h>
#include <thrust/fill.h>
#include <thrust/functional.h>

#if DPT_BENCH_GPU
#  include <cub/device/device_scan.cuh>
#  if defined(DPT_BENCH_HAVE_CUSTOM_KERNELS)
#    include <dpt/kernels/device_scan.hpp>
#  endif
#endif

namespace dpt::bench {
namespace {

// The raw pointer to a vector's elements (for paired_copy).
template <class Vector>
auto raw(Vector& v) {
  return thrust::raw_pointer_cast(v.data());
}

thrust::device_vector<int> scan_input(std::int64_t n) {
  thrust::device_vector<int> values(n);
  thrust::sequence(values.begin(), values.end(), 0, 7);  // any values; sums wrap harmlessly
  return values;
}

// Head flags with segments of 1–64 elements (mean about 32).
thrust::device_vector<int> segment_flags(std::int64_t n) {
  std::vector<int> flags(n, 0);
  std::uint32_t state = 12345;
  for (std::int64_t i = 0; i < n; i += 1 + (state >> 26)) {
    flags[i] = 1;
    state = state * 1664525u + 1013904223u;
  }
  return thrust::device_vector<int>(flags.begin(), flags.end());
}

// Random values for compaction: whether a value is odd follows no pattern a branch predictor could learn.
thrust::device_vector<int> random_input(std::int64_t n) {
  std::vector<int> values(n);
  std::uint32_t state = 2463534242u;
  for (auto& v : values) {  // xorshift32
    state ^= state << 13;
    state ^= state >> 17;
    state ^= state << 5;
    v = static_cast<int>(state >> 1);
  }
  return thrust::device_vector<int>(values.begin(), values.end());
}

struct is_odd {
  DPT_HOST_DEVICE bool operator()(int x) const { return x % 2 != 0; }
};

// The same input through dpt's segmented scan (one scan of (flag, value) pairs: on CUDA and CPP, Thrust's
// scan by key with the flags as keys) and through Thrust's inclusive_scan_by_key on segment ids (scan the flags
// into ids, then scan by key: a pass and a temporary more); and dpt::compact (map + scan + scatter) against
// thrust::copy_if. Bytes: data + flags read, output written;
// for compact, random data read and the odd half written.
void register_segmented_and_compact(std::int64_t n) {
  add("segmented_scan/dpt", n, [n](benchmark::State& state) {
    const auto input = scan_input(n);
    const auto flags = segment_flags(n);
    thrust::device_vector<int> output(n);
    measure(state, where::device, n, 3.0 * sizeof(int) * n, paired_copy(raw(input), raw(output), n), [&] {
      dpt::segmented_inclusive_scan(thrust::device, input.begin(), input.end(), flags.begin(), output.begin());
    });
  });
  add("segmented_scan/thrust_scan_by_key", n, [n](benchmark::State& state) {
    const auto input = scan_input(n);
    const auto flags = segment_flags(n);
    thrust::device_vector<int> ids(n), output(n);
    measure(state, where::device, n, 3.0 * sizeof(int) * n, paired_copy(raw(input), raw(output), n), [&] {
      thrust::inclusive_scan(thrust::device, flags.begin(), flags.end(), ids.begin());
      thrust::inclusive_scan_by_key(thrust::device, ids.begin(), ids.end(), input.begin(), output.begin());
    });
  });
  const double compact_bytes = 1.5 * sizeof(int) * n;
  add("compact/dpt", n, [n, compact_bytes](benchmark::State& state) {
    const auto input = random_input(n);
    thrust::device_vector<int> output(n);
    measure(state, where::device, n, compact_bytes, paired_copy(raw(input), raw(output), n),
            [&] { dpt::compact(thrust::device, input.begin(), input.end(), output.begin(), is_odd{}); });
  });
  add("compact/thrust_copy_if", n, [n, compact_bytes](benchmark::State& state) {
    const auto input = random_input(n);
    thrust::device_vector<int> output(n);
    measure(state, where::device, n, compact_bytes, paired_copy(raw(input), raw(output), n),
            [&] { thrust::copy_if(thrust::device, input.begin(), input.end(), output.begin(), is_odd{}); });
  });
}

#if DPT_BENCH_GPU && defined(DPT_BENCH_HAVE_CUSTOM_KERNELS)
// One of the hand-written device scans, in the default tile or the one named, in caller-owned scratch (a null
// scratch asks for its size), as cub::DeviceScan is timed.
using kernel_scan = void (*)(void* scratch, std::size_t& scratch_bytes, const int*, int*, std::int64_t);
template <dpt::kernels::device_scan_algorithm Algorithm, int BlockThreads = dpt::kernels::scan_block_threads,
          int ItemsPerThread = dpt::kernels::scan_items_per_thread>
void scan_with_kernels(void* scratch, std::size_t& scratch_bytes, const int* in, int* out, std::int64_t n) {
  dpt::kernels::inclusive_scan<BlockThreads, ItemsPerThread>(scratch, scratch_bytes, Algorithm, in, out, n,
                                                             ::cuda::std::plus<int>{});
}

// A hand-written scan runs once into a poisoned output and is compared with thrust::inclusive_scan before it
// is timed: a kernel that is fast and wrong reports an error, not a time.
template <class Scan>
bool scans_like_thrust(const thrust::device_vector<int>& input, thrust::device_vector<int>& output, Scan&& scan) {
  thrust::device_vector<int> expected(input.size());
  thrust::inclusive_scan(thrust::device, input.begin(), input.end(), expected.begin());
  thrust::fill(output.begin(), output.end(), 0x7f7f7f7f);
  scan();
  return thrust::equal(thrust::device, output.begin(), output.end(), expected.begin());
}
#endif

}  // namespace

void register_benchmarks() {
  for (const auto n : sizes()) register_segmented_and_compact(n);
  for (const auto n : sizes()) {
    const double bytes = 2.0 * sizeof(int) * n;
    add("scan/thrust", n, [n, bytes](benchmark::State& state) {
      const auto input = scan_input(n);
      thrust::device_vector<int> output(n);
      measure(state, where::device, n, bytes, paired_copy(raw(input), raw(output), n),
              [&] { thrust::inclusive_scan(thrust::device, input.begin(), input.end(), output.begin()); });
    });
#if !DPT_BENCH_GPU
    add("scan/dpt", n, [n, bytes](benchmark::State& state) {
      const auto input = scan_input(n);
      thrust::device_vector<int> output(n);
      measure(state, where::device, n, bytes, paired_copy(raw(input), raw(output), n),
              [&] { dpt::inclusive_scan(thrust::device, input.begin(), input.end(), output.begin()); });
    });
    add("scan/std_inclusive_scan", n, [n, bytes](benchmark::State& state) {
      std::vector<int> input(n), output(n);
      std::iota(input.begin(), input.end(), 0);
      measure(state, where::host, n, bytes, paired_copy(input.data(), output.data(), n), [&] {
        std::inclusive_scan(input.begin(), input.end(), output.begin());
        benchmark::DoNotOptimize(output.data());
      });
    });
#else
    add("scan/cub_device_scan", n, [n, bytes](benchmark::State& state) {
      const auto input = scan_input(n);
      thrust::device_vector<int> output(n);
      const int* in = thrust::raw_pointer_cast(input.data());
      int* out = thrust::raw_pointer_cast(output.data());
      std::size_t temp_bytes = 0;
      DPT_CUDA_CHECK(cub::DeviceScan::InclusiveSum(nullptr, temp_bytes, in, out, n));
      thrust::device_vector<unsigned char> temp(temp_bytes);
      void* temp_storage = thrust::raw_pointer_cast(temp.data());
      measure(state, where::device, n, bytes, paired_copy(raw(input), raw(output), n),
              [&] { DPT_CUDA_CHECK(cub::DeviceScan::InclusiveSum(temp_storage, temp_bytes, in, out, n)); });
    });
#  if defined(DPT_BENCH_HAVE_CUSTOM_KERNELS)
    using dpt::kernels::device_scan_algorithm;
    const std::pair<const char*, kernel_scan> kernels[] = {
        {"scan/kernels_three_launch_lecture", &scan_with_kernels<device_scan_algorithm::three_launch_lecture>},
        {"scan/kernels_three_launch_shuffle", &scan_with_kernels<device_scan_algorithm::three_launch_shuffle>},
        {"scan/kernels_three_launch_blelloch", &scan_with_kernels<device_scan_algorithm::three_launch_blelloch>},
        {"scan/kernels_single_pass", &scan_with_kernels<device_scan_algorithm::single_pass>},
        {"scan/kernels_single_pass_128x24", &scan_with_kernels<device_scan_algorithm::single_pass, 128, 24>},
    };
    for (const auto& [name, scan] : kernels) {
      add(name, n, [n, bytes, scan = scan](benchmark::State& state) {
        const auto input = scan_input(n);
        thrust::device_vector<int> output(n);
        const int* in = thrust::raw_pointer_cast(input.data());
        int* out = thrust::raw_pointer_cast(output.data());
        std::size_t scratch_bytes = 0;
        scan(nullptr, scratch_bytes, in, out, n);
        thrust::device_vector<unsigned char> scratch(scratch_bytes);  // allocated outside the timing, as CUB's is
        void* d_scratch = thrust::raw_pointer_cast(scratch.data());
        if (!scans_like_thrust(input, output, [&] { scan(d_scratch, scratch_bytes, in, out, n); }))
          return state.SkipWithError("the output disagrees with thrust::inclusive_scan");
        measure(state, where::device, n, bytes, paired_copy(raw(input), raw(output), n),
                [&] { scan(d_scratch, scratch_bytes, in, out, n); });
      });
    }
#  endif
#endif
  }
}

}  // namespace dpt::bench
