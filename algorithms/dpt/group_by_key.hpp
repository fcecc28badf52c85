// dpt/group_by_key.hpp — gather the values of equal keys into groups.
//
// The lecture's groupByKey turns a sequence of (key, value) pairs into one group per distinct key:
//
//   pairs   = (1,3) (2,8) (2,4) (1,6) (3,3) (1,9) (1,2) (2,8)
//   keys    = [1, 2, 3]
//   offsets = [0, 4, 7, 8]                      group g is values[offsets[g] .. offsets[g+1])
//   values  = [3, 6, 9, 2,  8, 4, 8,  3]        → (1,[3,6,9,2]) (2,[8,4,8]) (3,[3])
//
// Data-parallel recipe: a stable sort by key brings equal keys together while keeping each group's values in
// input order, then a unique-by-key over the positions finds where each group starts. Keys need operator<
// and operator==; −0.0 and +0.0 are one key (they compare equal), written +0.0, and NaN keys, which compare
// equal to nothing, have no defined place.
#pragma once

#include <cstddef>
#include <thrust/copy.h>
#include <thrust/fill.h>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/iterator/transform_output_iterator.h>
#include <cuda/std/iterator>
#include <thrust/transform.h>
#include <thrust/unique.h>

#include <dpt/config.hpp>
#include <dpt/detail/sortable_key.hpp>
#include <dpt/detail/temporary_array.hpp>
#include <dpt/sort.hpp>

namespace dpt {

template <class KeyOutputIt, class OffsetOutputIt>
struct group_by_key_result {
  KeyOutputIt keys_end;        // one past the last distinct key
  OffsetOutputIt offsets_end;  // one past the closing offset (= number of pairs); there are groups + 1 offsets
};

// Groups n pairs. Output capacity: keys_out ≥ n, offsets_out ≥ n + 1, values_out ≥ n (exactly n are written).
// Keys come out in ascending order; each group keeps its values in input order.
template <class DerivedPolicy, class KeyIt, class ValueIt, class KeyOutputIt, class OffsetOutputIt, class ValueOutputIt>
group_by_key_result<KeyOutputIt, OffsetOutputIt> group_by_key(
    const thrust::detail::execution_policy_base<DerivedPolicy>& exec, KeyIt keys_first, KeyIt keys_last,
    ValueIt values_first, KeyOutputIt keys_out, OffsetOutputIt offsets_out, ValueOutputIt values_out) {
  using offset_type = ::cuda::std::iter_value_t<OffsetOutputIt>;
  // keys as the sort stores them (int keys on CPU systems: sign bit flipped; −0.0 as +0.0: see
  // dpt/detail/sortable_key.hpp)
  using sort_key = detail::sortable_key<::cuda::std::iter_value_t<KeyIt>, DerivedPolicy>;
  const auto n = static_cast<std::ptrdiff_t>(thrust::distance(keys_first, keys_last));

  detail::temporary_array<typename sort_key::type, DerivedPolicy> sorted_keys(exec, n);
  thrust::transform(exec, keys_first, keys_last, sorted_keys.begin(), typename sort_key::encode{});
  thrust::copy_n(exec, values_first, n, values_out);
  // sort to bring equal keys together (stable: values keep their input order within a group)
  dpt::stable_sort_by_key(exec, sorted_keys.begin(), sorted_keys.end(), values_out);
  // find where each group starts: the first position of every run of equal keys
  const auto ends = thrust::unique_by_key_copy(
      exec, sorted_keys.begin(), sorted_keys.end(), thrust::make_counting_iterator<offset_type>(0),
      thrust::make_transform_output_iterator(keys_out, typename sort_key::decode{}), offsets_out);
  // close the last group
  thrust::fill_n(exec, ends.second, 1, static_cast<offset_type>(n));
  return {ends.first.base(), ends.second + 1};
}

}  // namespace dpt
