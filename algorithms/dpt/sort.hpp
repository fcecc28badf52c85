// dpt/sort.hpp — sort, and stable sort by key: the step that every sort-based solution of the lecture stands on
// (the grid's cells, the histogram's bin ids, group-by-key's keys).
//
//   keys                             = [3, 1, 2, 1]      values = [a, b, c, d]
//   sort(keys)                       → [1, 1, 2, 3]
//   stable_sort_by_key(keys, values) → [1, 1, 2, 3],     values → [b, d, c, a]   (equal keys keep input order)
//
// On CUDA the calls are thrust::sort and thrust::stable_sort_by_key (CUB's radix sort). On the CPU device systems
// (CPP, OpenMP, TBB) dpt's CPU backend sorts (dpt/cpu/sort.hpp): a radix sort that scatters by the top digit
// across the cores and sorts each bucket in cache (dpt/cpu/radix_sort.hpp), for a sort by key of integer keys with
// values of up to 4 bytes (the grid's cells and particle ids) and for large sorts of 32-bit keys (the histogram's
// bin ids); otherwise Highway's vectorised quicksort on every core, then a parallel merge. It
// takes integer, float and double keys (by key: keys of up to 32 bits, trivially copyable values, fewer than 2^32
// of them); others go to Thrust's sort on every system.
//
// Floating-point keys are ordered −NaN < −∞ < … < −0.0 < +0.0 < … < +∞ < +NaN on the CPU systems (a valid order for
// `<` whenever no key is NaN); a stable sort by key treats −0.0 and +0.0 as one key, as `<` does. Where Thrust
// sorts for a CPU policy, int and floating-point keys are compared in that order (detail::sort_order_less): its
// radix sort would misorder negative int keys and split the two zeros (dpt/detail/sortable_key.hpp).
#pragma once

#include <cstddef>
#include <cuda/std/iterator>
#include <thrust/sort.h>
#include <type_traits>

#include <dpt/config.hpp>
#include <dpt/detail/primitive_scratch.hpp>
#include <dpt/detail/sortable_key.hpp>

#if DPT_CPU_SORT
#  include <dpt/cpu/sort.hpp>
#endif

namespace dpt {
namespace detail {

// True when Thrust, sorting these keys for this policy, needs sort_order_less to put them in dpt's order.
template <class DerivedPolicy, class Key>
inline constexpr bool needs_sort_order_v =
    is_cpu_policy_v<DerivedPolicy> ? key_encoding_v<Key, DerivedPolicy> != key_encoding::as_is : false;

// True when dpt's CPU backend sorts these keys (and values, unless Value is void) under this policy. Calls into
// dpt::cpu stand under #if DPT_CPU_SORT: the CUDA build has no CPU sort to name.
template <class DerivedPolicy, class Key, class Value = void>
constexpr bool cpu_backend_sorts() {
#if DPT_CPU_SORT
  if constexpr (is_cpu_policy_v<DerivedPolicy>) {
    if constexpr (std::is_void_v<Value>) {
      return cpu::supports_sort_v<Key>;
    } else {
      return cpu::supports_sort_by_key_v<Key, Value>;
    }
  }
#endif
  return false;
}

}  // namespace detail

// Sorts [first, last) ascending. Per call: one Thrust call (on the CPU systems the backend's one parallel loop), no
// host read.
template <class DerivedPolicy, class RandomIt>
void sort(const thrust::detail::execution_policy_base<DerivedPolicy>& exec, RandomIt first, RandomIt last) {
#if DPT_CPU_SORT
  if constexpr (detail::cpu_backend_sorts<DerivedPolicy, ::cuda::std::iter_value_t<RandomIt>>()) {
    // the CPU backend's sort: counted and scattered by the top digit, buckets sorted in cache (large sorts of
    // 32-bit keys); or each core sorts its chunk and the sorted runs are merged
    cpu::sort(exec, first, last);
  } else
#endif
  {
    using key_type = ::cuda::std::iter_value_t<RandomIt>;
    if constexpr (std::is_integral_v<key_type> && detail::needs_sort_order_v<DerivedPolicy, key_type>) {
      // one sort on the device system, compared rather than radix-sorted
      thrust::sort(exec, first, last, detail::sort_order_less<key_type>{});
    } else {
      // one sort on the device system
      thrust::sort(exec, first, last);
    }
  }
}

// Sorts [keys_first, keys_last) ascending and permutes the values from values_first alike; keys that compare equal
// keep their input order. Per call: one Thrust call, no host read.
template <class DerivedPolicy, class KeyIt, class ValueIt>
void stable_sort_by_key(const thrust::detail::execution_policy_base<DerivedPolicy>& exec, KeyIt keys_first,
                        KeyIt keys_last, ValueIt values_first) {
#if DPT_CPU_SORT
  if constexpr (detail::cpu_backend_sorts<DerivedPolicy, ::cuda::std::iter_value_t<KeyIt>,
                                          ::cuda::std::iter_value_t<ValueIt>>()) {
    if (keys_last - keys_first < cpu::max_sort_by_key_length) {
      // (key, value) words scattered by their top digit and each bucket radix-sorted in cache; or each core sorts
      // its chunk of (key, position) pairs, the runs are merged, the values follow their positions
      return cpu::stable_sort_by_key(exec, keys_first, keys_last, values_first);
    }
  }
#endif
  using key_type = ::cuda::std::iter_value_t<KeyIt>;
  if constexpr (detail::needs_sort_order_v<DerivedPolicy, key_type>) {
    // one stable sort on the device system, compared rather than radix-sorted
    thrust::stable_sort_by_key(exec, keys_first, keys_last, values_first, detail::sort_order_less<key_type>{});
  } else {
    // one stable sort on the device system
    thrust::stable_sort_by_key(exec, keys_first, keys_last, values_first);
  }
}

// An upper bound on the bytes sort (Item = detail::no_items) or stable_sort_by_key (values of type Item) of n keys
// of type Key take through thrust::device's policy, on this build's device system.
template <class Key, class Item = detail::no_items>
std::size_t sort_temporary_bytes(std::ptrdiff_t n) {
#if DPT_CPU_SORT
  using device_policy = std::decay_t<decltype(thrust::device)>;
  if constexpr (std::is_same_v<Item, detail::no_items>) {
    if constexpr (detail::cpu_backend_sorts<device_policy, Key>()) return cpu::sort_temporary_bytes<Key>(n);
  } else if constexpr (detail::cpu_backend_sorts<device_policy, Key, Item>()) {
    return cpu::stable_sort_by_key_temporary_bytes<Key, Item>(n);
  }
#endif
  return detail::sort_scratch_bytes<Key, Item>(n);
}

}  // namespace dpt
