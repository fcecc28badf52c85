// dpt/scatter_reduce.hpp — scatter with a combining operator: out[idx[i]] = op(out[idx[i]], in[i]) for every
// i, when several i may share a destination, without atomics.
//
//   out     = [10, 20, 30, 40]
//   in      = [ 1,  2,  3,  4,  5]
//   idx     = [ 3,  0,  3,  3,  1]                  op = +
//   sorted  = idx [0, 1, 3, 3, 3]  in [2, 5, 1, 3, 4]   sort by destination (stable)
//   reduced = idx [0, 1, 3]        in [2, 5, 8]         segmented reduction of each destination's values
//   out     = [12, 25, 30, 48]                          combine with out and scatter: one write per destination
//
// The lecture's recipe again: where atomics would serialise the writers of a shared destination, sort brings
// them together, reduce_by_key combines them, and the scatter that follows has no two writers per location.
// op must be associative and commutative (sum, min, max); a floating-point sum is combined in a tree, so it
// can round differently from a left-to-right loop. An index outside [0, out size) is an error, found by a
// data-parallel check before anything is written.
#pragma once

#include <cstddef>
#include <cuda/std/functional>
#include <cuda/std/iterator>
#include <cuda/std/type_traits>
#include <stdexcept>
#include <string>
#include <thrust/copy.h>
#include <thrust/iterator/permutation_iterator.h>
#include <thrust/logical.h>
#include <thrust/reduce.h>
#include <thrust/sort.h>
#include <thrust/transform.h>

#include <dpt/config.hpp>
#include <dpt/detail/temporary_array.hpp>

namespace dpt {
namespace detail {

// True for an index outside [0, size). Compared without narrowing: an unsigned 64-bit index past the largest
// std::ptrdiff_t must not wrap to a negative one.
template <class Index>
struct index_outside {
  std::ptrdiff_t size;
  DPT_HOST_DEVICE bool operator()(const Index& i) const {
    if constexpr (::cuda::std::is_signed_v<Index>) {
      return i < Index(0) || static_cast<long long>(i) >= static_cast<long long>(size);
    } else {
      return static_cast<unsigned long long>(i) >= static_cast<unsigned long long>(size);
    }
  }
};

}  // namespace detail

// For i in [0, n): out_first[indices[i]] = op(out_first[indices[i]], values[i]), where n = last − first.
// Values are converted to out's value type before they are combined. Throws std::out_of_range, leaving out
// untouched, if an index is outside [0, out_last − out_first). Returns out_last.
// Scratch: n indices, n values, and as many of each again for the reduced runs.
template <class DerivedPolicy, class InputIt, class IndexIt, class OutputIt, class BinaryOp>
OutputIt scatter_reduce(const thrust::detail::execution_policy_base<DerivedPolicy>& exec, InputIt first, InputIt last,
                        IndexIt indices, OutputIt out_first, OutputIt out_last, BinaryOp op) {
  using index_type = ::cuda::std::iter_value_t<IndexIt>;
  using value_type = ::cuda::std::iter_value_t<OutputIt>;
  const auto n = static_cast<std::ptrdiff_t>(thrust::distance(first, last));
  const auto out_size = static_cast<std::ptrdiff_t>(thrust::distance(out_first, out_last));
  // check every destination first (a data-parallel any_of), so a bad index never writes anywhere
  if (thrust::any_of(exec, indices, indices + n, detail::index_outside<index_type>{out_size})) {
    throw std::out_of_range("scatter_reduce: an index is outside the output's " + std::to_string(out_size) +
                            " elements");
  }
  if (n == 0) return out_last;

  detail::temporary_array<index_type, DerivedPolicy> sorted_indices(exec, n);
  detail::temporary_array<value_type, DerivedPolicy> sorted_values(exec, n);
  thrust::copy_n(exec, indices, n, sorted_indices.begin());
  thrust::copy_n(exec, first, n, sorted_values.begin());
  // sort by destination to bring each destination's values together (stable: input order within a run)
  thrust::stable_sort_by_key(exec, sorted_indices.begin(), sorted_indices.end(), sorted_values.begin());
  // segmented reduction: one combined value per distinct destination
  detail::temporary_array<index_type, DerivedPolicy> destinations(exec, n);
  detail::temporary_array<value_type, DerivedPolicy> combined(exec, n);
  const auto ends = thrust::reduce_by_key(exec, sorted_indices.begin(), sorted_indices.end(), sorted_values.begin(),
                                          destinations.begin(), combined.begin(), ::cuda::std::equal_to<>{}, op);
  const auto runs = ends.first - destinations.begin();
  // gather, combine and scatter: each destination now appears once, so no two writes collide
  const auto targets = thrust::make_permutation_iterator(out_first, destinations.begin());
  thrust::transform(exec, targets, targets + runs, combined.begin(), targets, op);
  return out_last;
}

}  // namespace dpt
