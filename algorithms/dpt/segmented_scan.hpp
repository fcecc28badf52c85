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
// Data-parallel recipe: a segmented scan is an ordinary scan of (flag, value) pairs under the operator
//
//   (f1, v1) ⊕ (f2, v2) = (f1 | f2,  f2 ? v2 : v1 op v2)        "a head flag cuts off everything before it"
//
// which is associative whenever op is (op need not be commutative). So one scan does it — one pass, no
// segment-id temporary. Thrust's *_scan_by_key is such a scan of pairs: a binary predicate on the keys of
// elements i and i+1 says whether i+1 continues i's segment, so with the head flags as keys and "i+1 is no
// head" as the predicate it scans the pairs straight from the flags. (For arithmetic values of up to 8 bytes,
// CUB's scan by key packs a tile's (flag, value) state into one word for its look-back.) OpenMP and TBB policies,
// where Thrust's *_scan_by_key runs serially, go to dpt's CPU backend (dpt/cpu/segmented_scan.hpp), which runs
// the same scan of pairs on every core. The first element starts a segment whether or not its flag is set. The
// inclusive form may write over its input; the exclusive form needs a separate output.
#pragma once

#include <cstddef>
#include <cuda/std/functional>
#include <cuda/std/iterator>
#include <thrust/scan.h>

#include <dpt/config.hpp>
#include <dpt/cpu/segmented_scan.hpp>

namespace dpt {
namespace detail {

// Thrust's segment predicate for head flags: element i+1 continues the segment of element i unless it is a head.
struct continues_segment {
  template <class Flag>
  DPT_HOST_DEVICE bool operator()(const Flag& /*flag_i*/, const Flag& flag_next) const {
    return !static_cast<bool>(flag_next);
  }
};

}  // namespace detail

// result[i] = data[s] ⊕ … ⊕ data[i], where s is the start of i's segment. Returns the end of the output. The
// output may be the input. Per call (both segmented scans) on CUDA and CPP: one scan by key, no host read.
template <class DerivedPolicy, class InputIt, class FlagIt, class OutputIt, class AssociativeOp = ::cuda::std::plus<>>
OutputIt segmented_inclusive_scan(const thrust::detail::execution_policy_base<DerivedPolicy>& exec, InputIt first,
                                  InputIt last, FlagIt head_flags, OutputIt result, AssociativeOp op = {}) {
  using T = ::cuda::std::iter_value_t<InputIt>;
  const auto n = static_cast<std::ptrdiff_t>(thrust::distance(first, last));
  if constexpr (cpu::handles_v<DerivedPolicy>) {
    return cpu::segmented_scan<false>(exec, first, n, head_flags, result, T{}, op);
  } else {
    // segmented scan = one scan of (flag, value) pairs; a head flag restarts the running value
    return thrust::inclusive_scan_by_key(exec, head_flags, head_flags + n, first, result, detail::continues_segment{},
                                         op);
  }
}

// result[i] = init ⊕ data[s] ⊕ … ⊕ data[i−1]; every segment starts again from `init`, which must be an
// identity of `op` for the result to mean "prefix of the segment". Returns the end of the output, which must
// not overlap the input.
template <class DerivedPolicy, class InputIt, class FlagIt, class OutputIt, class T,
          class AssociativeOp = ::cuda::std::plus<>>
OutputIt segmented_exclusive_scan(const thrust::detail::execution_policy_base<DerivedPolicy>& exec, InputIt first,
                                  InputIt last, FlagIt head_flags, OutputIt result, T init, AssociativeOp op = {}) {
  const auto n = static_cast<std::ptrdiff_t>(thrust::distance(first, last));
  if constexpr (cpu::handles_v<DerivedPolicy>) {
    return cpu::segmented_scan<true>(exec, first, n, head_flags, result, init, op);
  } else {
    // segmented scan = one scan of (flag, value) pairs; every head starts again from init
    return thrust::exclusive_scan_by_key(exec, head_flags, head_flags + n, first, result, init,
                                         detail::continues_segment{}, op);
  }
}

}  // namespace dpt
