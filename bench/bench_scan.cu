// Scan family: the same int32 inclusive sum by Thrust on the build's device system, by dpt::inclusive_scan
// (the lecture's "each core scans its slice, then adds its base" on OMP/TBB), by std::inclusive_scan on one
// core, and on the GPU by cub::DeviceScan and by every hand-written device scan of custom_kernels/ (the
// lecture's three launches over three block scans, and the single-pass decoupled look-back, also in the tile
// cub::DeviceScan uses on sm_90 and with the look-back's other choices: tiles in blockIdx order, CUB's sleeps, and
// both). Every variant of every family here is checked against a host loop before it is timed (checked in
// bench.hpp). Every scan reads n ints and writes n ints, like the copy baseline: bytes are effective bytes, the
// problem's inputs and outputs, the same for every variant. In CPU builds each benchmark also reports its fraction
// of a copy from its own input to its own output timed just before each iteration (paired_copy in bench.hpp): the
// CPU target is judged on it. Thrust's and dpt's calls take their scratch from a dpt::context, allocated by the
// checked call and reused by the timed ones, as CUB's and the hand-written scans' scratch is allocated before
// their timing: no variant's time includes an allocation (on CUDA, nor a synchronisation after each call).
#include "bench_support/bench.hpp"

#include <numeric>
#include <thrust/device_vector.h>
#include <thrust/execution_policy.h>
#include <thrust/scan.h>
#include <thrust/sequence.h>

#include <dpt/compact.hpp>
#include <dpt/context.hpp>
#include <dpt/scan.hpp>
#include <dpt/segmented_scan.hpp>
#include <thrust/copy.h>
#include <thrust/fill.h>
#include <thrust/functional.h>

#if DPT_BENCH_GPU
#  include <cub/device/device_scan.cuh>
#  include <dpt/kernels/device_scan.hpp>
#endif

namespace dpt::bench {
namespace {

// The raw pointer to a vector's elements (for paired_copy).
template <class Vector>
auto raw(Vector& v) {
  return thrust::raw_pointer_cast(v.data());
}

// Checks a variant into its poisoned output (checked_output in bench.hpp), then times it, paired with a copy of
// n ints from its input to its output (paired_copy). Every benchmark of this family ends here.
template <class Input, class Output, class Op, class Correct>
void check_then_measure(benchmark::State& state, std::int64_t n, double bytes, const Input& input, Output& output,
                        Op&& op, Correct&& correct, const char* error) {
  if (!checked_output(state, output, op, std::forward<Correct>(correct), error)) return;
  measure(state, where::device, n, bytes, paired_copy(raw(input), raw(output), n), op);
}

thrust::device_vector<int> scan_input(std::int64_t n) {
  thrust::device_vector<int> values(n);
  thrust::sequence(values.begin(), values.end(), 0, 7);  // any values; sums wrap harmlessly
  return values;
}

// Head flags with segments of 1–64 elements (mean about 32), one after the other: at(0), at(1), …
struct head_flags {
  std::int64_t next = 0;
  std::uint32_t state = 12345;
  bool at(std::int64_t i) {
    if (i != next) return false;
    state = state * 1664525u + 1013904223u;
    next += 1 + (state >> 26);
    return true;
  }
};

thrust::device_vector<int> segment_flags(std::int64_t n) {
  std::vector<int> flags(n);
  head_flags heads;
  for (std::int64_t i = 0; i < n; ++i) flags[i] = heads.at(i);
  return thrust::device_vector<int>(flags.begin(), flags.end());
}

// Random values for compaction (xorshift32): whether a value is odd follows no pattern a branch predictor could
// learn.
struct random_values {
  std::uint32_t state = 2463534242u;
  int next() {
    state ^= state << 13;
    state ^= state >> 17;
    state ^= state << 5;
    return static_cast<int>(state >> 1);
  }
};

thrust::device_vector<int> random_input(std::int64_t n) {
  std::vector<int> values(n);
  random_values random;
  for (auto& v : values) v = random.next();
  return thrust::device_vector<int>(values.begin(), values.end());
}

// The host loops every variant is checked against (see checked in bench.hpp), one element after the other for
// equals_sequence; sums wrap as unsigned. scan_input's inclusive sum, 0 + 7 + 14 + …
template <class Vector>
bool is_scan(const Vector& output, std::int64_t n) {
  std::uint32_t sum = 0;
  return equals_sequence(output, n, [&](std::int64_t i) { return static_cast<int>(sum += 7u * std::uint32_t(i)); });
}

// scan_input's inclusive sum restarted at every head flag.
bool is_segmented_scan(const thrust::device_vector<int>& output, std::int64_t n) {
  std::uint32_t sum = 0;
  head_flags heads;
  return equals_sequence(output, n, [&](std::int64_t i) {
    const auto value = 7u * static_cast<std::uint32_t>(i);
    sum = heads.at(i) ? value : sum + value;
    return static_cast<int>(sum);
  });
}

struct is_odd {
  DPT_HOST_DEVICE bool operator()(int x) const { return x % 2 != 0; }
};

// The same input through dpt's segmented scan (one scan of (flag, value) pairs: on CUDA and CPP, Thrust's
// scan by key with the flags as keys) and through Thrust's inclusive_scan_by_key on segment ids (scan the flags
// into ids, then scan by key: a pass and a temporary more); and dpt::compact (map + scan + scatter) against
// thrust::copy_if. Bytes are effective bytes, the problem's inputs and outputs, the same for every variant:
// data + flags read and the output written (12n; scan by key also writes and reads its ids, which are not
// counted); for compact, the random data read and its odd values (about half) written (about 6n).
void register_segmented_and_compact(std::int64_t n) {
  const double segmented_bytes = 3.0 * sizeof(int) * n;
  // Both segmented scans of the same input and flags; `ids` is room for the segment ids of a variant that makes
  // them (`makes_ids`), allocated outside the timing, and empty for the others.
  const auto segmented_variant = [n, segmented_bytes](const char* name, bool makes_ids, auto scan) {
    add(name, n, [n, segmented_bytes, makes_ids, scan](benchmark::State& state) {
      const auto input = scan_input(n);
      const auto flags = segment_flags(n);
      thrust::device_vector<int> ids(makes_ids ? n : 0), output(n);
      dpt::context context;
      check_then_measure(
          state, n, segmented_bytes, input, output, [&] { scan(context.policy(), input, flags, ids, output); },
          [&] { return is_segmented_scan(output, n); }, "the output disagrees with the sequential segmented scan");
    });
  };
  segmented_variant("segmented_scan/dpt", false,
                    [](auto policy, const auto& input, const auto& flags, auto&, auto& output) {
                      dpt::segmented_inclusive_scan(policy, input.begin(), input.end(), flags.begin(), output.begin());
                    });
  segmented_variant("segmented_scan/thrust_scan_by_key", true,
                    [](auto policy, const auto& input, const auto& flags, auto& ids, auto& output) {
                      thrust::inclusive_scan(policy, flags.begin(), flags.end(), ids.begin());
                      thrust::inclusive_scan_by_key(policy, ids.begin(), ids.end(), input.begin(), output.begin());
                    });
  // Both compacts of the same random input, checked against the host loop's odd values in order.
  const auto compact_variant = [n](const char* name, auto compact) {
    add(name, n, [n, compact](benchmark::State& state) {
      const auto input = random_input(n);
      thrust::device_vector<int> output(n);
      dpt::context context;
      std::int64_t odd = 0;  // how many values both must keep
      random_values random;
      for (std::int64_t i = 0; i < n; ++i) odd += is_odd{}(random.next());
      std::int64_t kept = -1;
      const auto op = [&] { kept = compact(context.policy(), input, output); };
      const auto correct = [&] {
        random_values random;  // the input again, one value after the other
        const auto next_odd = [&](std::int64_t) {
          int v = random.next();
          while (!is_odd{}(v)) v = random.next();
          return v;
        };
        return kept == odd && equals_sequence(output, kept, next_odd);
      };
      // the input read, the kept values (about half) written
      const double bytes = sizeof(int) * (double(n) + double(odd));
      check_then_measure(state, n, bytes, input, output, op, correct,
                         "the output disagrees with the sequential filter");
    });
  };
  compact_variant("compact/dpt", [](auto policy, const auto& input, auto& output) {
    return dpt::compact(policy, input.begin(), input.end(), output.begin(), is_odd{}) - output.begin();
  });
  compact_variant("compact/thrust_copy_if", [](auto policy, const auto& input, auto& output) {
    return thrust::copy_if(policy, input.begin(), input.end(), output.begin(), is_odd{}) - output.begin();
  });
}

#if DPT_BENCH_GPU
// One of the hand-written device scans, in the default tile or the one named, in caller-owned scratch (a null
// scratch asks for its size), as cub::DeviceScan is timed.
using kernel_scan = void (*)(void* scratch, std::size_t& scratch_bytes, const int*, int*, std::int64_t);
template <dpt::kernels::device_scan_algorithm Algorithm, int BlockThreads = dpt::kernels::scan_block_threads,
          int ItemsPerThread = dpt::kernels::scan_items_per_thread>
void scan_with_kernels(void* scratch, std::size_t& scratch_bytes, const int* in, int* out, std::int64_t n) {
  dpt::kernels::inclusive_scan<BlockThreads, ItemsPerThread>(scratch, scratch_bytes, Algorithm, in, out, n,
                                                             ::cuda::std::plus<int>{});
}

// The single pass with its look-back's choices named (detail::single_pass_scan), to find where its gap to CUB
// lies: CUB numbers tiles by blockIdx instead of an atomic counter, and sleeps before its first look.
template <class TileId, class Wait, int BlockThreads = dpt::kernels::scan_block_threads,
          int ItemsPerThread = dpt::kernels::scan_items_per_thread>
void single_pass_with(void* scratch, std::size_t& scratch_bytes, const int* in, int* out, std::int64_t n) {
  namespace k = dpt::kernels;
  using policy = k::tile_policy<BlockThreads, ItemsPerThread, k::block_scan_algorithm::warp_scans_shuffle>;
  if (!scratch) {
    scratch_bytes =
        k::detail::scan_scratch_bytes<BlockThreads, ItemsPerThread, int>(k::device_scan_algorithm::single_pass, n);
    return;
  }
  k::detail::single_pass_scan<policy, TileId, Wait>(in, out, n, ::cuda::std::plus<int>{}, false, 0, scratch,
                                                    k::stream_t{});
}

#endif

}  // namespace

void register_benchmarks() {
  for (const auto n : sizes()) register_segmented_and_compact(n);
  for (const auto n : sizes()) {
    const double bytes = 2.0 * sizeof(int) * n;
    // Checks a scan of scan_input(n) into `output`, then times it.
    const auto check_then_measure_scan = [n, bytes](benchmark::State& state, const auto& input, auto& output,
                                                    auto&& op) {
      check_then_measure(
          state, n, bytes, input, output, op, [&] { return is_scan(output, n); },
          "the output disagrees with the sequential scan");
    };
    add("scan/thrust", n, [n, check_then_measure_scan](benchmark::State& state) {
      const auto input = scan_input(n);
      thrust::device_vector<int> output(n);
      dpt::context context;
      check_then_measure_scan(state, input, output, [&] {
        thrust::inclusive_scan(context.policy(), input.begin(), input.end(), output.begin());
      });
    });
#if !DPT_BENCH_GPU
    add("scan/dpt", n, [n, check_then_measure_scan](benchmark::State& state) {
      const auto input = scan_input(n);
      thrust::device_vector<int> output(n);
      dpt::context context;
      check_then_measure_scan(state, input, output, [&] {
        dpt::inclusive_scan(context.policy(), input.begin(), input.end(), output.begin());
      });
    });
    add("scan/std_inclusive_scan", n, [n, check_then_measure_scan](benchmark::State& state) {
      std::vector<int> input(n), output(n);
      for (std::int64_t i = 0; i < n; ++i) input[i] = static_cast<int>(7u * static_cast<std::uint32_t>(i));
      check_then_measure_scan(state, input, output, [&] {
        std::inclusive_scan(input.begin(), input.end(), output.begin());
        benchmark::DoNotOptimize(output.data());
      });
    });
#else
    add("scan/cub_device_scan", n, [n, check_then_measure_scan](benchmark::State& state) {
      const auto input = scan_input(n);
      thrust::device_vector<int> output(n);
      const int* in = thrust::raw_pointer_cast(input.data());
      int* out = thrust::raw_pointer_cast(output.data());
      std::size_t temp_bytes = 0;
      DPT_CUDA_CHECK(cub::DeviceScan::InclusiveSum(nullptr, temp_bytes, in, out, n));
      thrust::device_vector<unsigned char> temp(temp_bytes);
      void* temp_storage = thrust::raw_pointer_cast(temp.data());
      check_then_measure_scan(state, input, output, [&] {
        DPT_CUDA_CHECK(cub::DeviceScan::InclusiveSum(temp_storage, temp_bytes, in, out, n));
      });
    });
    using dpt::kernels::device_scan_algorithm;
    using dpt::kernels::detail::block_index_tile_id, dpt::kernels::detail::dynamic_tile_id;
    using dpt::kernels::detail::eager_wait, dpt::kernels::detail::settled_wait;
    const std::pair<const char*, kernel_scan> kernels[] = {
        {"scan/kernels_three_launch_lecture", &scan_with_kernels<device_scan_algorithm::three_launch_lecture>},
        {"scan/kernels_three_launch_shuffle", &scan_with_kernels<device_scan_algorithm::three_launch_shuffle>},
        {"scan/kernels_three_launch_blelloch", &scan_with_kernels<device_scan_algorithm::three_launch_blelloch>},
        {"scan/kernels_single_pass", &scan_with_kernels<device_scan_algorithm::single_pass>},
        {"scan/kernels_single_pass_128x24", &scan_with_kernels<device_scan_algorithm::single_pass, 128, 24>},
        {"scan/kernels_single_pass_block_order", &single_pass_with<block_index_tile_id, eager_wait>},
        {"scan/kernels_single_pass_settled_wait", &single_pass_with<dynamic_tile_id, settled_wait>},
        {"scan/kernels_single_pass_block_order_settled_wait", &single_pass_with<block_index_tile_id, settled_wait>},
        {"scan/kernels_single_pass_as_cub", &single_pass_with<block_index_tile_id, settled_wait, 128, 24>},
    };
    for (const auto& [name, scan] : kernels) {
      add(name, n, [n, check_then_measure_scan, scan = scan](benchmark::State& state) {
        const auto input = scan_input(n);
        thrust::device_vector<int> output(n);
        const int* in = thrust::raw_pointer_cast(input.data());
        int* out = thrust::raw_pointer_cast(output.data());
        std::size_t scratch_bytes = 0;
        scan(nullptr, scratch_bytes, in, out, n);
        thrust::device_vector<unsigned char> scratch(scratch_bytes);  // allocated outside the timing, as CUB's is
        void* d_scratch = thrust::raw_pointer_cast(scratch.data());
        check_then_measure_scan(state, input, output, [&] { scan(d_scratch, scratch_bytes, in, out, n); });
      });
    }
#endif
  }
}

}  // namespace dpt::bench
