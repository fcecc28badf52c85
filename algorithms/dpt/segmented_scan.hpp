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
// which is associative whenever op is (op need not be commutative). So one dpt::inclusive_scan does it —
// one pass, no segment-id temporary — and inherits dpt's multicore CPU path on OMP and TBB, where Thrust's
// *_scan_by_key runs serially. The exclusive form scans the pairs (flag[i], flag[i] ? init : data[i−1]): each
// segment starts from init and accumulates the element before the current one. The first element starts a
// segment whether or not its flag is set.
#pragma once

#include <cstddef>
#include <cuda/std/functional>
#include <cuda/std/iterator>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/iterator/discard_iterator.h>
#include <thrust/iterator/transform_iterator.h>
#include <thrust/iterator/zip_iterator.h>
#include <thrust/tuple.h>

#include <dpt/config.hpp>
#include <dpt/scan.hpp>

namespace dpt {
namespace detail {

// The segmented operator on (head flag, value) pairs.
template <class T, class AssociativeOp>
struct head_flag_op {
  AssociativeOp op;
  DPT_HOST_DEVICE thrust::tuple<bool, T> operator()(const thrust::tuple<bool, T>& a,
                                                    const thrust::tuple<bool, T>& b) const {
    const bool b_starts = thrust::get<0>(b);
    return {thrust::get<0>(a) || b_starts,
            b_starts ? thrust::get<1>(b) : static_cast<T>(op(thrust::get<1>(a), thrust::get<1>(b)))};
  }
};

// Element i of the inclusive scan's input: (is a head, data[i]); the first element always is.
template <class T, class InputIt, class FlagIt>
struct inclusive_pair {
  InputIt data;
  FlagIt flags;
  DPT_HOST_DEVICE thrust::tuple<bool, T> operator()(std::ptrdiff_t i) const {
    return {i == 0 || static_cast<bool>(flags[i]), static_cast<T>(data[i])};
  }
};

// Element i of the exclusive scan's input: (is a head, init at a head, otherwise data[i − 1]).
template <class T, class InputIt, class FlagIt>
struct exclusive_pair {
  InputIt data;
  FlagIt flags;
  T init;
  DPT_HOST_DEVICE thrust::tuple<bool, T> operator()(std::ptrdiff_t i) const {
    const bool head = i == 0 || static_cast<bool>(flags[i]);
    return {head, head ? init : static_cast<T>(data[i - 1])};
  }
};

// Scans the pairs that `make_pair` yields for 0 .. n−1 and writes only their values to result.
template <class T, class DerivedPolicy, class PairOf, class OutputIt, class AssociativeOp>
OutputIt scan_head_flag_pairs(const thrust::detail::execution_policy_base<DerivedPolicy>& exec, PairOf make_pair,
                              std::ptrdiff_t n, OutputIt result, AssociativeOp op) {
  const auto pairs = thrust::make_transform_iterator(thrust::make_counting_iterator<std::ptrdiff_t>(0), make_pair);
  const auto flags_dropped = thrust::make_zip_iterator(thrust::make_discard_iterator(), result);
  // segmented scan = one scan of (flag, value) pairs; a head flag restarts the running value
  dpt::inclusive_scan(exec, pairs, pairs + n, flags_dropped, head_flag_op<T, AssociativeOp>{op});
  return result + n;
}

}  // namespace detail

// result[i] = data[s] ⊕ … ⊕ data[i], where s is the start of i's segment. Returns the end of the output.
template <class DerivedPolicy, class InputIt, class FlagIt, class OutputIt, class AssociativeOp = ::cuda::std::plus<>>
OutputIt segmented_inclusive_scan(const thrust::detail::execution_policy_base<DerivedPolicy>& exec, InputIt first,
                                  InputIt last, FlagIt head_flags, OutputIt result, AssociativeOp op = {}) {
  using T = ::cuda::std::iter_value_t<InputIt>;
  const auto n = static_cast<std::ptrdiff_t>(thrust::distance(first, last));
  return detail::scan_head_flag_pairs<T>(exec, detail::inclusive_pair<T, InputIt, FlagIt>{first, head_flags}, n, result,
                                         op);
}

// result[i] = init ⊕ data[s] ⊕ … ⊕ data[i−1]; every segment starts again from `init`, which must be an
// identity of `op` for the result to mean "prefix of the segment". Returns the end of the output.
template <class DerivedPolicy, class InputIt, class FlagIt, class OutputIt, class T,
          class AssociativeOp = ::cuda::std::plus<>>
OutputIt segmented_exclusive_scan(const thrust::detail::execution_policy_base<DerivedPolicy>& exec, InputIt first,
                                  InputIt last, FlagIt head_flags, OutputIt result, T init, AssociativeOp op = {}) {
  const auto n = static_cast<std::ptrdiff_t>(thrust::distance(first, last));
  return detail::scan_head_flag_pairs<T>(exec, detail::exclusive_pair<T, InputIt, FlagIt>{first, head_flags, init}, n,
                                         result, op);
}

}  // namespace dpt
