// dpt/mpi/segmented_scan.hpp — segmented scan of a sequence cut into slices across MPI ranks; segments may cross
// ranks.
//
// Each rank scans the segments of its slice with dpt; the elements before the slice's first head continue the
// segment open at the end of the previous ranks, whose running value the ranks exchange under the lecture's
// segmented operator (MPI_Exscan of (head seen, value) pairs):
//
//   (h1, v1) ⊕ (h2, v2) = (h1 | h2,  h2 ? v2 : v1 op v2)        "a head flag cuts off everything before it"
//
//   data   [1, 2 | 6, 1, 2 | 3, 4]      flags [1, 0 | 1, 1, 0 | 0, 0]      (slices of ranks 0, 1, 2)
//   local  [1, 3 | 6, 1, 3 | 3, 7]      summaries (0, 3), (1, 3), (0, 7)
//   carry  —       (0, 3): no element before rank 1's first head      (1, 3): rank 2's elements add 3
//   result [1, 3 | 6, 1, 3 | 6, 10]     = segmented_inclusive_scan of the whole sequence
//
// The first element of the whole sequence starts a segment whether or not its flag is set; the first element of a
// later rank's slice continues its segment unless flagged. Host reads per call: the slice's last result and where
// its first head is (iterators must be the policy's own, as in dpt/mpi/scan.hpp).
#pragma once

#include <cuda/std/functional>
#include <cuda/std/iterator>
#include <thrust/distance.h>
#include <thrust/find.h>
#include <thrust/transform.h>

#include <dpt/config.hpp>
#include <dpt/mpi/communicator.hpp>
#include <dpt/mpi/detail/exclusive_prefix.hpp>
#include <dpt/mpi/scan.hpp>
#include <dpt/segmented_scan.hpp>

namespace dpt::mpi {
namespace detail {

// What a slice passes on: the running value of the segment open at its end, and whether a head cut it.
template <class T>
struct segment_summary {
  T value{};
  int present = 0;
  int head = 0;
};

// The lecture's segmented operator on slice summaries, absent ones skipped.
template <class AssociativeOp>
struct combine_segments {
  AssociativeOp op;
  template <class T>
  segment_summary<T> operator()(const segment_summary<T>& lower, const segment_summary<T>& upper) const {
    if (!lower.present) return upper;
    if (!upper.present) return lower;
    return {upper.head ? upper.value : op(lower.value, upper.value), 1, lower.head | upper.head};
  }
};

struct is_head {
  template <class Flag>
  DPT_HOST_DEVICE bool operator()(const Flag& flag) const {
    return static_cast<bool>(flag);
  }
};

// Scans the slice's segments locally (`local_scan`), then carries the previous ranks' open segment into the
// elements before the first head. `running_value(end)` is the slice's running value at its end.
template <class DerivedPolicy, class FlagIt, class OutputIt, class AssociativeOp, class LocalScan, class RunningValue>
OutputIt carried_segmented_scan(const communicator& comm,
                                const thrust::detail::execution_policy_base<DerivedPolicy>& exec, std::ptrdiff_t n,
                                FlagIt head_flags, OutputIt result, AssociativeOp op, LocalScan local_scan,
                                RunningValue running_value) {
  using T = ::cuda::std::iter_value_t<OutputIt>;
  // each rank scans the segments of its slice
  const OutputIt end = local_scan();
  // find the slice's first head: the elements before it continue the previous ranks' open segment
  const auto first_head = static_cast<std::ptrdiff_t>(
      thrust::distance(head_flags, thrust::find_if(exec, head_flags, head_flags + n, is_head{})));
  segment_summary<T> mine{};
  if (n > 0) mine = {running_value(end), 1, first_head < n};
  // the ranks exchange (head seen, running value) under the segmented operator
  const auto carry = exclusive_prefix(comm, mine, combine_segments<AssociativeOp>{op});
  // the elements before the first head add the carried value
  if (carry.present && first_head > 0)
    thrust::transform(exec, result, result + first_head, result, add_base<T, AssociativeOp>{carry.value, op});
  return end;
}

}  // namespace detail

// result[i] = x_s ⊕ … ⊕ x_i over the whole sequence, s the start of i's segment, for this rank's slice. The output
// may be the input. Collective. Per call: one dpt segmented scan, one find, one MPI_Exscan, at most one transform.
template <class DerivedPolicy, class InputIt, class FlagIt, class OutputIt, class AssociativeOp = ::cuda::std::plus<>>
OutputIt segmented_inclusive_scan(const communicator& comm,
                                  const thrust::detail::execution_policy_base<DerivedPolicy>& exec, InputIt first,
                                  InputIt last, FlagIt head_flags, OutputIt result, AssociativeOp op = {}) {
  using T = ::cuda::std::iter_value_t<OutputIt>;
  const auto n = static_cast<std::ptrdiff_t>(thrust::distance(first, last));
  return detail::carried_segmented_scan(
      comm, exec, n, head_flags, result, op,
      [&] { return dpt::segmented_inclusive_scan(exec, first, last, head_flags, result, op); },
      [](OutputIt end) { return T(*(end - 1)); });
}

// result[i] = init ⊕ x_s ⊕ … ⊕ x_{i−1} over the whole sequence, for this rank's slice; `init` must be an identity
// of op (dpt::segmented_exclusive_scan's rule); the output must not overlap the input. Collective. Per call as the
// inclusive form, plus one more host read (the slice's last input).
template <class DerivedPolicy, class InputIt, class FlagIt, class OutputIt, class T,
          class AssociativeOp = ::cuda::std::plus<>>
OutputIt segmented_exclusive_scan(const communicator& comm,
                                  const thrust::detail::execution_policy_base<DerivedPolicy>& exec, InputIt first,
                                  InputIt last, FlagIt head_flags, OutputIt result, T init, AssociativeOp op = {}) {
  using V = ::cuda::std::iter_value_t<OutputIt>;
  const auto n = static_cast<std::ptrdiff_t>(thrust::distance(first, last));
  return detail::carried_segmented_scan(
      comm, exec, n, head_flags, result, op,
      [&] { return dpt::segmented_exclusive_scan(exec, first, last, head_flags, result, init, op); },
      // the running value at the end: the last prefix, then the last element
      [&](OutputIt end) { return V(op(V(*(end - 1)), V(*(last - 1)))); });
}

}  // namespace dpt::mpi
