// Sort family: uniformly random 32-bit keys sorted by thrust::sort on the build's device system (a radix sort on
// CUDA, a parallel merge sort on OMP/TBB), by dpt::sort (on the CPU systems the CPU backend's radix sort for 32-bit
// keys from 2^23 on, below that Highway's vqsort on every core and a parallel merge: dpt/cpu/sort.hpp; on CUDA the
// same thrust::sort), on CPU builds by the radix sort at every size (dpt/cpu/radix_sort.hpp), std::sort on one core
// and tbb::parallel_sort on every core (a parallel comparison sort), and on the GPU by cub::DeviceRadixSort. The
// grid's sort — random 32-bit cells with the particle ids riding along, stably — by thrust::stable_sort_by_key and
// dpt::stable_sort_by_key (on the CPU systems the radix sort), and on CPU builds by the backend's vqsort and merges.
// Thrust's and dpt's sorts run twice: on thrust::device, which allocates each call's scratch inside the timed call,
// and through a dpt::context (the _context variants), whose pool keeps it from the checked call on, so that neither
// side's time includes an allocation. Each iteration sorts a fresh copy of the same keys; only the sort is timed.
// Every variant is checked before it is timed (checked in bench.hpp): its keys must come out in order and be the
// same keys (and the ids each at its own cell, ascending within a cell). Bytes are effective bytes, the problem's
// input and output (one read and one write of the keys, 8n; of keys and ids, 16n), the same for every variant; a
// sort makes several passes and moves more, so copy_fraction says how many copies' time a sort costs, not how close
// it comes to the memory bus. The keys are unsigned: CCCL 3.0.1's CPU sorts put negative int keys out of order
// (NVIDIA/cccl#4919; this benchmark's check caught it), so an int sort there would time a wrong answer.
#include "bench_support/bench.hpp"

#include <algorithm>
#include <random>
#include <thrust/copy.h>
#include <thrust/device_vector.h>
#include <thrust/execution_policy.h>
#include <thrust/sequence.h>
#include <thrust/sort.h>
#include <type_traits>

#include <dpt/context.hpp>
#include <dpt/sort.hpp>

#if DPT_BENCH_GPU
#  include <cub/device/device_radix_sort.cuh>
#else
#  include <tbb/parallel_sort.h>
#endif

namespace dpt::bench {
namespace {

using key = std::uint32_t;

std::vector<key> random_keys(std::int64_t n) {
  std::mt19937 rng(2024);
  std::vector<key> keys(n);
  for (auto& k : keys) k = static_cast<key>(rng());
  return keys;
}

// A fingerprint of the keys as a multiset (the sum of a mix of each key): equal for any order of the same keys.
std::uint64_t multiset_fingerprint(const std::vector<key>& keys) {
  std::uint64_t sum = 0;
  for (const key k : keys) {
    std::uint64_t z = std::uint64_t(k) + 0x9e3779b97f4a7c15ULL;  // splitmix64's finaliser
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    sum += z ^ (z >> 31);
  }
  return sum;
}

// Whether `sorted` holds the keys of `unsorted` in ascending order (one host pass each).
bool sorts(const std::vector<key>& unsorted, const std::vector<key>& sorted) {
  return sorted.size() == unsorted.size() && std::is_sorted(sorted.begin(), sorted.end()) &&
         multiset_fingerprint(sorted) == multiset_fingerprint(unsorted);
}

constexpr const char* sort_error = "the keys are not the input's keys in ascending order";

// Whether (cells, particles) is `unsorted` stably sorted by cell, the particle ids riding along: every particle once,
// at its own cell, cells ascending, ids ascending within a cell.
bool sorts_by_cell(const std::vector<key>& unsorted, const std::vector<key>& cells, const std::vector<key>& particles) {
  if (cells.size() != unsorted.size() || particles.size() != unsorted.size()) return false;
  std::vector<bool> seen(unsorted.size(), false);
  for (std::size_t i = 0; i < cells.size(); ++i) {
    const key p = particles[i];
    if (p >= unsorted.size() || seen[p] || unsorted[p] != cells[i]) return false;
    seen[p] = true;
    if (i > 0 && (cells[i - 1] > cells[i] || (cells[i - 1] == cells[i] && particles[i - 1] > p))) return false;
  }
  return true;
}

constexpr const char* sort_by_key_error = "the (cell, particle) pairs are not the input's, stably sorted by cell";

}  // namespace

void register_benchmarks() {
  // std::sort at 2^28 takes about a minute per iteration on two cores; sorts stop at 2^26.
  for (const auto n : sizes(26)) {
    const double bytes = 2.0 * sizeof(key) * n;
    // Sorts of device vectors on the build's device system: `sort(policy, first, last)`, the policy thrust::device
    // (scratch allocated and freed inside each timed call, as a bare call does) or, with `Pooled`, a dpt::context's
    // (its pool keeps the scratch from the checked call on: no allocation in the timed region; on CUDA no
    // synchronisation after each call either, the timing waits for the device).
    const auto add_device_sort = [n, bytes](const char* name, auto sort, auto pooled) {
      add(name, n, [n, bytes, sort](benchmark::State& state) {
        const auto host_keys = random_keys(n);
        const thrust::device_vector<key> unsorted(host_keys.begin(), host_keys.end());
        thrust::device_vector<key> keys(n);
        dpt::context context;
        const auto restore = [&] { thrust::copy(unsorted.begin(), unsorted.end(), keys.begin()); };
        const auto op = [&] {
          if constexpr (decltype(pooled)::value) {
            sort(context.policy(), keys.begin(), keys.end());
          } else {
            sort(thrust::device, keys.begin(), keys.end());
          }
        };
        measure_in_place(
            state, where::device, n, bytes, restore, op, [&] { return sorts(host_keys, on_host(keys)); }, sort_error);
      });
    };
    const auto thrust_sort = [](auto policy, auto first, auto last) { thrust::sort(policy, first, last); };
    const auto dpt_sort = [](auto policy, auto first, auto last) { dpt::sort(policy, first, last); };
    add_device_sort("sort/thrust", thrust_sort, std::false_type{});
    add_device_sort("sort/dpt", dpt_sort, std::false_type{});
    add_device_sort("sort/thrust_context", thrust_sort, std::true_type{});
    add_device_sort("sort/dpt_context", dpt_sort, std::true_type{});

    // The grid's sort (dpt/grid.hpp): random cells, with the particle ids 0, 1, …, n − 1 riding along, stably.
    // Effective bytes: one read and one write of both arrays.
    const auto add_sort_by_key = [n](const char* name, auto sort, auto pooled) {
      add(name, n, [n, sort](benchmark::State& state) {
        const auto host_cells = random_keys(n);
        const thrust::device_vector<key> unsorted(host_cells.begin(), host_cells.end());
        thrust::device_vector<key> cells(n), particles(n);
        dpt::context context;
        const auto restore = [&] {
          thrust::copy(unsorted.begin(), unsorted.end(), cells.begin());
          thrust::sequence(particles.begin(), particles.end());
        };
        const auto op = [&] {
          if constexpr (decltype(pooled)::value) {
            sort(context.policy(), cells.begin(), cells.end(), particles.begin());
          } else {
            sort(thrust::device, cells.begin(), cells.end(), particles.begin());
          }
        };
        measure_in_place(
            state, where::device, n, 4.0 * sizeof(key) * n, restore, op,
            [&] { return sorts_by_cell(host_cells, on_host(cells), on_host(particles)); }, sort_by_key_error);
      });
    };
    const auto thrust_sort_by_key = [](auto policy, auto keys_first, auto keys_last, auto values_first) {
      thrust::stable_sort_by_key(policy, keys_first, keys_last, values_first);
    };
    const auto dpt_sort_by_key = [](auto policy, auto keys_first, auto keys_last, auto values_first) {
      dpt::stable_sort_by_key(policy, keys_first, keys_last, values_first);
    };
    add_sort_by_key("sort_by_key/thrust", thrust_sort_by_key, std::false_type{});
    add_sort_by_key("sort_by_key/dpt", dpt_sort_by_key, std::false_type{});
    add_sort_by_key("sort_by_key/thrust_context", thrust_sort_by_key, std::true_type{});
    add_sort_by_key("sort_by_key/dpt_context", dpt_sort_by_key, std::true_type{});
#if !DPT_BENCH_GPU
    // The two host sorts: keys in a std::vector, sorted in place by `sort`.
    const auto add_host_sort = [n, bytes](const char* name, auto sort) {
      add(name, n, [n, bytes, sort](benchmark::State& state) {
        const auto unsorted = random_keys(n);
        std::vector<key> keys(n);
        const auto restore = [&] { std::copy(unsorted.begin(), unsorted.end(), keys.begin()); };
        const auto op = [&] { sort(keys.begin(), keys.end()); };
        measure_in_place(
            state, where::host, n, bytes, restore, op, [&] { return sorts(unsorted, keys); }, sort_error);
      });
    };
#  if DPT_CPU_SORT
    // The CPU backend's other method for each (dpt::sort's default is vqsort and merges, stable_sort_by_key's the
    // radix sort): both sides of the choice in dpt/cpu/sort.hpp, measured side by side.
    add_device_sort(
        "sort/dpt_radix",
        [](auto policy, auto first, auto last) {
          dpt::cpu::sort(policy, first, last, {{}, 0, dpt::cpu::sort_method::radix});
        },
        std::false_type{});
    add_sort_by_key(
        "sort_by_key/dpt_vqsort",
        [](auto policy, auto keys_first, auto keys_last, auto values_first) {
          dpt::cpu::stable_sort_by_key(policy, keys_first, keys_last, values_first,
                                       {{}, 0, dpt::cpu::sort_method::vqsort_merge});
        },
        std::false_type{});
#  endif
    add_host_sort("sort/std_sort", [](auto first, auto last) { std::sort(first, last); });
    add_host_sort("sort/tbb_parallel_sort", [](auto first, auto last) { tbb::parallel_sort(first, last); });
#else
    add("sort/cub_radix_sort", n, [n, bytes](benchmark::State& state) {
      const auto host_keys = random_keys(n);
      const thrust::device_vector<key> unsorted(host_keys.begin(), host_keys.end());
      thrust::device_vector<key> keys(n), alternate(n);
      cub::DoubleBuffer<key> buffer(thrust::raw_pointer_cast(keys.data()), thrust::raw_pointer_cast(alternate.data()));
      std::size_t temp_bytes = 0;
      DPT_CUDA_CHECK(cub::DeviceRadixSort::SortKeys(nullptr, temp_bytes, buffer, static_cast<int>(n)));
      thrust::device_vector<unsigned char> temp(temp_bytes);
      void* temp_storage = thrust::raw_pointer_cast(temp.data());
      const auto op = [&] {
        DPT_CUDA_CHECK(cub::DeviceRadixSort::SortKeys(temp_storage, temp_bytes, buffer, static_cast<int>(n)));
      };
      const auto restore = [&] {
        buffer.selector = 0;
        thrust::copy(unsorted.begin(), unsorted.end(), keys.begin());
      };
      // the sorted keys lie in whichever buffer cub left current
      const auto sorted = [&] { return on_host(buffer.selector == 0 ? keys : alternate); };
      measure_in_place(
          state, where::device, n, bytes, restore, op, [&] { return sorts(host_keys, sorted()); }, sort_error);
    });
#endif
  }
}

}  // namespace dpt::bench
