// dpt/find_repeats.hpp — every index i with a[i] == a[i+1], in ascending order (CS149 assignment 3).
//
//   a          = [1, 2, 2, 1, 1, 1, 3, 5, 3, 3]
//   flags      = [0, 1, 0, 1, 1, 0, 0, 0, 1]        map: a[i] == a[i+1], for i < n − 1
//   positions  = [0, 0, 1, 1, 2, 3, 3, 3, 3]        exclusive scan of the flags: where each flagged i goes
//   repeats    = [1, 3, 4, 8]                       scatter the flagged i to their positions
//
// find_repeats spells out the assignment's path (flags, exclusive scan, scatter); find_repeats_copy_if is the
// same thing as one idiomatic Thrust call — copy_if over the indices with a stencil that pairs each element
// with its right neighbour (a zip of a and a shifted by one). Both write the indices to `result` and return
// the end of the output (result capacity: n − 1, or 0 when n < 2).
#pragma once

#include <cstddef>
#include <cuda/std/iterator>
#include <thrust/copy.h>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/iterator/zip_iterator.h>
#include <thrust/scan.h>
#include <thrust/scatter.h>
#include <thrust/transform.h>
#include <thrust/tuple.h>

#include <dpt/config.hpp>
#include <dpt/scan.hpp>
#include <dpt/detail/temporary_array.hpp>

namespace dpt {
namespace detail {

struct equals_right_neighbour {
  template <class T>
  DPT_HOST_DEVICE int operator()(const T& value, const T& right) const {
    return value == right ? 1 : 0;
  }
  template <class Pair>
  DPT_HOST_DEVICE bool operator()(const Pair& value_and_right) const {
    return thrust::get<0>(value_and_right) == thrust::get<1>(value_and_right);
  }
};

}  // namespace detail

// The assignment's path. Scratch: two std::ptrdiff_t per element.
template <class DerivedPolicy, class InputIt, class OutputIt>
OutputIt find_repeats(const thrust::detail::execution_policy_base<DerivedPolicy>& exec, InputIt first, InputIt last,
                      OutputIt result) {
  using index_type = ::cuda::std::iter_value_t<OutputIt>;
  const auto n = static_cast<std::ptrdiff_t>(thrust::distance(first, last));
  if (n < 2) return result;
  const std::ptrdiff_t pairs = n - 1;
  detail::temporary_array<std::ptrdiff_t, DerivedPolicy> flags(exec, pairs), positions(exec, pairs);
  // map: flag each i whose element equals its right neighbour
  thrust::transform(exec, first, last - 1, first + 1, flags.begin(), detail::equals_right_neighbour{});
  // exclusive scan of the flags: how many repeats come before i, i.e. where i goes
  dpt::exclusive_scan(exec, flags.begin(), flags.end(), positions.begin(), std::ptrdiff_t{0});
  // scatter the flagged indices to their positions
  const auto indices = thrust::make_counting_iterator<index_type>(0);
  thrust::scatter_if(exec, indices, indices + pairs, positions.begin(), flags.begin(), result);
  const auto found = detail::read_element(positions.end() - 1) + detail::read_element(flags.end() - 1);
  return result + found;
}

// The idiomatic Thrust call: keep index i where the stencil (a[i], a[i+1]) holds an equal pair.
template <class DerivedPolicy, class InputIt, class OutputIt>
OutputIt find_repeats_copy_if(const thrust::detail::execution_policy_base<DerivedPolicy>& exec, InputIt first,
                              InputIt last, OutputIt result) {
  using index_type = ::cuda::std::iter_value_t<OutputIt>;
  const auto n = static_cast<std::ptrdiff_t>(thrust::distance(first, last));
  if (n < 2) return result;
  const auto indices = thrust::make_counting_iterator<index_type>(0);
  const auto neighbours = thrust::make_zip_iterator(first, first + 1);
  // filter the indices by the stencil "equals its right neighbour"
  return thrust::copy_if(exec, indices, indices + (n - 1), neighbours, result, detail::equals_right_neighbour{});
}

}  // namespace dpt
