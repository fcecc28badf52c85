// dpt/segmented_scan.hpp — scan within segments marked by head flags.
//
// The lecture represents a sequence of sequences as one flat sequence plus head flags (1 where a segment
// begins), and scans every segment at once:
//
//   data  = [1, 2, 6, 1, 2, 3, 4]          segments [[1,2], [6], [1,2,3,4]]
//   flags = [1, 0, 1, 1, 0, 0, 0]
//   segmented_exclusive_scan(+) → [0, 1, 0, 0, 1, 3, 6]
//   segmented_inclusive_scan(+) → [1, 3, 6, 1, 3, 6, 10]
//
// Data-parallel recipe: an inclusive scan of the flags numbers the segments (the segment id of every
// element), then Thrust's *_scan_by_key scans runs of equal ids. The first element starts a segment whether
// or not its flag is set. Any associative operator works; it need not be commutative.
#pragma once

#include <cstdint>
#include <cuda/std/functional>
#include <thrust/functional.h>
#include <cuda/std/iterator>
#include <thrust/iterator/transform_iterator.h>
#include <thrust/scan.h>

#include <dpt/config.hpp>
#include <dpt/detail/temporary_array.hpp>

namespace dpt {
namespace detail {

// Head flag → 0 or 1 in unsigned 32-bit arithmetic. Segment ids are only ever compared with their neighbour,
// and neighbours differ by 0 or 1, so wrap-around after 2^32 segments cannot merge two segments.
struct head_flag_to_count {
  template <class Flag>
  DPT_HOST_DEVICE std::uint32_t operator()(const Flag& flag) const {
    return flag ? 1u : 0u;
  }
};

// Materialises one segment id per element. Cost: 4 bytes per element of scratch, one read of the flags and
// one write of the ids.
template <class DerivedPolicy, class FlagIt>
auto segment_ids(const thrust::detail::execution_policy_base<DerivedPolicy>& exec, FlagIt head_flags,
                 std::ptrdiff_t n) {
  temporary_array<std::uint32_t, DerivedPolicy> ids(exec, n);
  // scan the flags: each element learns how many segments began at or before it
  auto counts = thrust::make_transform_iterator(head_flags, head_flag_to_count{});
  thrust::inclusive_scan(exec, counts, counts + n, ids.begin());
  return ids;
}

}  // namespace detail

// result[i] = data[s] ⊕ … ⊕ data[i], where s is the start of i's segment. Returns the end of the output.
template <class DerivedPolicy, class InputIt, class FlagIt, class OutputIt, class AssociativeOp = ::cuda::std::plus<>>
OutputIt segmented_inclusive_scan(const thrust::detail::execution_policy_base<DerivedPolicy>& exec, InputIt first,
                                  InputIt last, FlagIt head_flags, OutputIt result, AssociativeOp op = {}) {
  const auto n = static_cast<std::ptrdiff_t>(thrust::distance(first, last));
  const auto ids = detail::segment_ids(exec, head_flags, n);
  // segmented scan: scan runs of equal segment ids
  return thrust::inclusive_scan_by_key(exec, ids.begin(), ids.end(), first, result, ::cuda::std::equal_to<>{}, op);
}

// result[i] = init ⊕ data[s] ⊕ … ⊕ data[i−1]; every segment starts again from `init`, which must be an
// identity of `op` for the result to mean "prefix of the segment". Returns the end of the output.
template <class DerivedPolicy, class InputIt, class FlagIt, class OutputIt, class T,
          class AssociativeOp = ::cuda::std::plus<>>
OutputIt segmented_exclusive_scan(const thrust::detail::execution_policy_base<DerivedPolicy>& exec, InputIt first,
                                  InputIt last, FlagIt head_flags, OutputIt result, T init, AssociativeOp op = {}) {
  const auto n = static_cast<std::ptrdiff_t>(thrust::distance(first, last));
  const auto ids = detail::segment_ids(exec, head_flags, n);
  // segmented scan: scan runs of equal segment ids, each run seeded with init
  return thrust::exclusive_scan_by_key(exec, ids.begin(), ids.end(), first, result, init, ::cuda::std::equal_to<>{},
                                       op);
}

}  // namespace dpt
