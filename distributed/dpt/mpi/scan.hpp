// dpt/mpi/scan.hpp — inclusive and exclusive scan of a sequence cut into slices across MPI ranks.
//
// The lecture's two-level scan with ranks in place of cores: each rank scans its slice with dpt (on its own device
// system), the ranks exchange slice totals (MPI_Exscan, O(log ranks) steps), and each rank adds the total of the
// ranks before it, its base.
//
//   rank slices        [3, 1, 7]     [0, 4, 1]      [6, 3]
//   scan each slice    [3, 4, 11]    [0, 4, 5]      [6, 9]         totals 11, 5, 9
//   Exscan of totals   —             11             16
//   add the base       [3, 4, 11]    [11, 15, 16]   [22, 25]       = inclusive_scan of the whole sequence
//
// Any associative operator works (it need not be commutative, nor have an identity: an empty slice passes its
// predecessors' total on). It runs on the device and, to combine totals, on the host. Integers give exactly the
// single-process answer; floating-point sums are added in another order, within the usual rounding bound.
// The output's last element is read on the host (the slice total): iterators must be the policy's own
// (thrust::device_vector's or device_ptr on CUDA; any on the CPU systems).
#pragma once

#include <cuda/std/functional>
#include <cuda/std/iterator>
#include <optional>
#include <thrust/distance.h>
#include <thrust/transform.h>

#include <dpt/config.hpp>
#include <dpt/mpi/communicator.hpp>
#include <dpt/mpi/detail/exclusive_prefix.hpp>
#include <dpt/scan.hpp>

namespace dpt::mpi {
namespace detail {

// base ⊕ x: the ranks before this one come first.
template <class T, class AssociativeOp>
struct add_base {
  T base;
  AssociativeOp op;
  DPT_HOST_DEVICE T operator()(const T& x) const { return op(base, x); }
};

}  // namespace detail

// The exchange step on its own, for a rank that scans its slice by other means (dpt-scan's hand-written kernels):
// the ⊕ of the slice totals of the ranks before this one, or nothing on rank 0 and where those ranks hold no
// elements. `my_total` is this rank's slice total, nothing for an empty slice. Collective: one MPI_Exscan.
template <class T, class AssociativeOp = ::cuda::std::plus<>>
std::optional<T> base_of_slice(const communicator& comm, std::optional<T> my_total, AssociativeOp op = {}) {
  const detail::partial<T> mine = my_total ? detail::partial<T>{*my_total, 1} : detail::partial<T>{};
  const auto base = detail::exclusive_prefix(comm, mine, detail::combine_partials<AssociativeOp>{op});
  return base.present ? std::optional<T>(base.value) : std::nullopt;
}

// result[i] = x_0 ⊕ … ⊕ x_i over the whole sequence, for the elements of this rank's slice. Collective: every rank
// of `comm` calls it. Per call: one dpt::inclusive_scan, one host read, one MPI_Exscan, one transform (not on rank 0).
template <class DerivedPolicy, class InputIt, class OutputIt, class AssociativeOp = ::cuda::std::plus<>>
OutputIt inclusive_scan(const communicator& comm, const thrust::detail::execution_policy_base<DerivedPolicy>& exec,
                        InputIt first, InputIt last, OutputIt result, AssociativeOp op = {}) {
  using T = ::cuda::std::iter_value_t<InputIt>;
  const auto n = thrust::distance(first, last);
  // each rank scans its slice
  const OutputIt end = dpt::inclusive_scan(exec, first, last, result, op);
  // the ranks exchange slice totals: this rank gets the total of the ranks before it
  const auto base = base_of_slice<T>(comm, n > 0 ? std::optional<T>(T(*(end - 1))) : std::nullopt, op);
  // each rank adds its base
  if (base && n > 0) thrust::transform(exec, result, end, result, detail::add_base<T, AssociativeOp>{*base, op});
  return end;
}

// result[i] = init ⊕ x_0 ⊕ … ⊕ x_{i−1} over the whole sequence, for this rank's slice; the output must not overlap
// the input. Collective. Per call: two dpt scans (the first, into the output, finds the slice total that the
// operator, which need have no identity, gives no other way), one host read, one MPI_Exscan.
template <class DerivedPolicy, class InputIt, class OutputIt, class T, class AssociativeOp = ::cuda::std::plus<>>
OutputIt exclusive_scan(const communicator& comm, const thrust::detail::execution_policy_base<DerivedPolicy>& exec,
                        InputIt first, InputIt last, OutputIt result, T init, AssociativeOp op = {}) {
  const auto n = thrust::distance(first, last);
  // each rank finds its slice total (the last element of its inclusive scan)
  std::optional<T> total;
  if (n > 0) total = *(dpt::inclusive_scan(exec, first, last, result, op) - 1);
  // the ranks exchange slice totals: this rank gets the total of the ranks before it
  const auto base = base_of_slice<T>(comm, total, op);
  // each rank scans its slice from init ⊕ its base
  return dpt::exclusive_scan(exec, first, last, result, base ? T(op(init, *base)) : init, op);
}

}  // namespace dpt::mpi
