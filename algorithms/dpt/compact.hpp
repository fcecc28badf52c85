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
// each one can be seen, tested and measured against it. The scan is dpt::inclusive_scan, which uses every
// core on the OMP and TBB device systems (Thrust's OMP scan is serial).
#pragma once

#include <cstddef>
#include <cuda/std/iterator>
#include <thrust/iterator/transform_iterator.h>
#include <thrust/scan.h>
#include <thrust/scatter.h>

#include <dpt/config.hpp>
#include <dpt/detail/temporary_array.hpp>
#include <dpt/scan.hpp>

namespace dpt {
namespace detail {

struct minus_one {
  DPT_HOST_DEVICE std::ptrdiff_t operator()(std::ptrdiff_t i) const { return i - 1; }
};

template <class Predicate>
struct predicate_to_flag {
  Predicate pred;
  template <class T>
  DPT_HOST_DEVICE std::ptrdiff_t operator()(const T& x) const {
    return pred(x) ? 1 : 0;
  }
};

}  // namespace detail

// Copies the elements x of [first, last) with pred(x) true to result, keeping their order. Returns the end of
// the output. Scratch: one std::ptrdiff_t per input element.
template <class DerivedPolicy, class InputIt, class OutputIt, class Predicate>
OutputIt compact(const thrust::detail::execution_policy_base<DerivedPolicy>& exec, InputIt first, InputIt last,
                 OutputIt result, Predicate pred) {
  const auto n = static_cast<std::ptrdiff_t>(thrust::distance(first, last));
  if (n == 0) {
    return result;
  }
  // map: 1 where the predicate holds (computed on the fly, never stored)
  const auto flags = thrust::make_transform_iterator(first, detail::predicate_to_flag<Predicate>{pred});
  // scan the flags: positions[i] − 1 is where element i goes if it is kept
  detail::temporary_array<std::ptrdiff_t, DerivedPolicy> positions(exec, n);
  dpt::inclusive_scan(exec, flags, flags + n, positions.begin());
  // scatter the kept elements to their positions
  const auto destinations = thrust::make_transform_iterator(positions.begin(), detail::minus_one{});
  thrust::scatter_if(exec, first, last, destinations, flags, result);
  const auto kept = detail::read_element(positions.end() - 1);
  return result + kept;
}

}  // namespace dpt
