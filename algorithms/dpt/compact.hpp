// dpt/compact.hpp — stream compaction: keep the elements that satisfy a predicate, in order.
//
// The lecture builds filter from map, scan and scatter:
//
//   data      = [3, 8, 4, 6, 3, 9, 2, 8]        keep even
//   flags     = [0, 1, 1, 1, 0, 0, 1, 1]        map: predicate as 0/1
//   positions = [0, 0, 1, 2, 3, 3, 3, 4]        exclusive scan of flags: where each kept element goes
//   result    = [8, 4, 6, 2, 8]                 scatter the kept elements to their positions
//
// dpt scans inclusively ([0, 1, 2, 3, 3, 3, 4, 5]) and scatters to positions[i] − 1: the same positions, and
// the last entry is the number kept, so the predicate never has to run on the host.
//
// thrust::copy_if is the library's fused version of the same idea; dpt::compact spells out the steps so
// each one can be seen, tested and measured against it. On CUDA and CPP the three steps are still three
// Thrust pieces but one pass: the map is a transform_iterator the scan reads, and the scan hands each
// position straight to the scatter through a tabulate_output_iterator, so no positions array is stored (a
// GPU scan then moves what copy_if moves: the input once, the kept elements once, and the input again from
// cache to scatter it). The predicate runs twice per element there: once for the flag, once in the scatter.
// Flags and positions are 32-bit integers while the input has fewer than 2^31 elements: half the scan's state
// and traffic of 64-bit counts, and on CUDA CUB then scans larger tiles.
// OpenMP and TBB policies go to dpt's CPU backend (dpt/cpu/compact.hpp), which runs the same three steps
// slice by slice on every core.
#pragma once

#include <cstddef>
#include <cstdint>
#include <limits>
#include <cuda/std/iterator>
#include <thrust/iterator/tabulate_output_iterator.h>
#include <thrust/iterator/transform_iterator.h>
#include <thrust/memory.h>
#include <thrust/scan.h>

#include <dpt/config.hpp>
#include <dpt/cpu/compact.hpp>
#include <dpt/detail/primitive_scratch.hpp>
#include <dpt/detail/temporary_array.hpp>

namespace dpt {
namespace detail {

template <class Count, class Predicate>
struct predicate_to_flag {
  Predicate pred;
  template <class T>
  DPT_HOST_DEVICE Count operator()(const T& x) const {
    return pred(x) ? 1 : 0;
  }
};

// The scatter, fed by the scan: element i's inclusive count of kept elements is `position`, so a kept element
// goes to result[position − 1]. The last element's count is the number kept, written to *kept.
template <class Count, class InputIt, class OutputIt, class Predicate>
struct scatter_kept {
  InputIt input;
  OutputIt result;
  Predicate pred;
  std::ptrdiff_t last;
  Count* kept;
  DPT_HOST_DEVICE void operator()(std::ptrdiff_t i, Count position) const {
    const ::cuda::std::iter_value_t<InputIt> x = input[i];
    if (pred(x)) result[position - 1] = x;
    if (i == last) *kept = position;
  }
};

// The Thrust composition with counts of type Count (which must hold n): map, scan, scatter in one pass. Returns
// the number kept.
template <class Count, class DerivedPolicy, class InputIt, class OutputIt, class Predicate>
std::ptrdiff_t compact_counting_in(const thrust::detail::execution_policy_base<DerivedPolicy>& exec, InputIt first,
                                   std::ptrdiff_t n, OutputIt result, Predicate pred) {
  // map: 1 where the predicate holds (computed on the fly, never stored)
  const auto flags = thrust::make_transform_iterator(first, predicate_to_flag<Count, Predicate>{pred});
  // scatter each kept element to its position as the scan produces it (never stored), and keep the count
  temporary_array<Count, DerivedPolicy> kept(exec, 1);
  const auto scatter = thrust::make_tabulate_output_iterator(scatter_kept<Count, InputIt, OutputIt, Predicate>{
      first, result, pred, n - 1, thrust::raw_pointer_cast(kept.begin())});
  // scan the flags: position − 1 is where a kept element goes
  thrust::inclusive_scan(exec, flags, flags + n, scatter);
  return static_cast<std::ptrdiff_t>(read_element(kept.begin()));
}

}  // namespace detail

// Copies the elements x of [first, last) with pred(x) true to result, keeping their order. Returns the end of
// the output, which must not overlap the input. Scratch: one count (32 or 64 bits) on CUDA and CPP; on
// OMP and TBB, one slice's worth of elements (1 MiB of input) per core. Per call on CUDA and CPP: one scan and one
// host read, the count (the caller needs the end); nothing for an empty input.
template <class DerivedPolicy, class InputIt, class OutputIt, class Predicate>
OutputIt compact(const thrust::detail::execution_policy_base<DerivedPolicy>& exec, InputIt first, InputIt last,
                 OutputIt result, Predicate pred) {
  const auto n = static_cast<std::ptrdiff_t>(thrust::distance(first, last));
  if constexpr (cpu::handles_v<DerivedPolicy>) {
    // count, scan the counts, copy: each core counts its slice's keepers, then copies them from its base
    return cpu::compact(exec, first, n, result, pred);
  } else {
    if (n == 0) {
      return result;
    }
    // count in 32 bits while they can hold n
    return result + (n <= std::numeric_limits<std::int32_t>::max()
                         ? detail::compact_counting_in<std::int32_t>(exec, first, n, result, pred)
                         : detail::compact_counting_in<std::ptrdiff_t>(exec, first, n, result, pred));
  }
}

// An upper bound on the bytes compact of n elements takes through thrust::device's policy, on this build's device
// system: the count and the scan's scratch on CUDA and CPP; nothing on OMP and TBB, whose per-core slice buffers
// come from the heap, not from the policy.
inline std::size_t compact_temporary_bytes(std::ptrdiff_t n) {
  if (cpu::handles_device_system_v || n <= 0) return 0;
  if (n <= std::numeric_limits<std::int32_t>::max()) {
    return sizeof(std::int32_t) + detail::scan_scratch_bytes<std::int32_t>(n);
  }
  return sizeof(std::ptrdiff_t) + detail::scan_scratch_bytes<std::ptrdiff_t>(n);
}

}  // namespace dpt
