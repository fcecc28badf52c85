// dpt/detail/primitive_scratch.hpp — how many bytes the Thrust primitives that dpt composes take from their
// execution policy's allocator, on this build's device system (dpt/config.hpp): the pieces of the algorithms'
// *_temporary_bytes queries. Each is an upper bound for n elements.
//
// On the CPU systems the bounds are what Thrust's own source allocates: a merge or radix sort copies its keys and
// items, OpenMP's reduce_by_key (Thrust's generic one) materialises head and tail flags and the scanned values,
// TBB's holds a few bytes per partition, their adjacent_difference copies its input, OpenMP's find_if keeps a
// partial result per core; CPP's scans and reductions take nothing. On CUDA they are CUB's answers to its size
// queries (the first call of its two-phase interface), plus the second key and item buffers Thrust adds around a
// radix sort; Thrust dispatches the other primitives with its own tile sizes, so those get twice CUB's answer
// plus room for alignment.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <type_traits>

#include <dpt/config.hpp>

#include <thrust/tuple.h>

#if THRUST_DEVICE_SYSTEM == THRUST_DEVICE_SYSTEM_OMP
#  include <omp.h>
#endif
// CUB's size queries instantiate its kernels, which only nvcc compiles. A CUDA build may still compile a .cpp file
// that includes dpt's headers with the host compiler; there the CUDA bounds throw (cub_size_query_needs_nvcc).
#if DPT_CUDA_DEVICE_SYSTEM && defined(__CUDACC__)
#  define DPT_CUB_SIZE_QUERIES 1
#else
#  define DPT_CUB_SIZE_QUERIES 0
#endif
#if DPT_CUDA_DEVICE_SYSTEM && !DPT_CUB_SIZE_QUERIES
#  include <stdexcept>
#  include <string>
#endif
#if DPT_CUB_SIZE_QUERIES
#  include <cub/device/device_adjacent_difference.cuh>
#  include <cub/device/device_merge_sort.cuh>
#  include <cub/device/device_radix_sort.cuh>
#  include <cub/device/device_reduce.cuh>
#  include <cub/device/device_scan.cuh>
#  include <cuda/std/functional>
#  include <dpt/detail/cuda_check.hpp>
#endif

namespace dpt::detail {

// The item type of a sort that has no items (sorts keys only).
struct no_items {};

template <class Item>
constexpr std::size_t item_bytes() {
  if constexpr (std::is_same_v<Item, no_items>) {
    return 0;
  } else {
    return sizeof(Item);
  }
}

// n elements of `element` bytes each.
inline std::size_t array_bytes(std::ptrdiff_t n, std::size_t element) {
  return static_cast<std::size_t>(std::max<std::ptrdiff_t>(n, 0)) * element;
}

#if DPT_CUB_SIZE_QUERIES

// CUB's answer to a size query: `query(bytes)` makes the call with no storage, which sets bytes.
template <class Query>
std::size_t cub_storage_bytes(Query query, const char* what) {
  std::size_t bytes = 0;
  cuda_check(query(bytes), what);
  return bytes;
}

// A primitive Thrust dispatches to CUB with its own tiling, over n elements: twice CUB's answer to `query`, and
// room to align it.
template <class Query>
std::size_t thrust_dispatch_bytes(std::ptrdiff_t n, Query query, const char* what) {
  return n <= 0 ? 0 : 2 * cub_storage_bytes(query, what) + 512;
}

#elif DPT_CUDA_DEVICE_SYSTEM

[[noreturn]] inline std::size_t cub_size_query_needs_nvcc(const char* primitive) {
  throw std::logic_error(std::string("the scratch bound of ") + primitive +
                         " asks CUB, which needs nvcc: compile this file as CUDA");
}

#endif

// thrust::sort / sort_by_key / stable_sort_by_key with the default order.
template <class Key, class Item = no_items>
std::size_t sort_scratch_bytes(std::ptrdiff_t n) {
#if DPT_CUB_SIZE_QUERIES
  if (n <= 0) return 0;
  if constexpr (std::is_arithmetic_v<Key>) {
    // radix sort: Thrust's second key and item buffers (each rounded up to 128 bytes), then CUB's storage
    const auto round_up = [](std::size_t bytes) { return (bytes + 127) / 128 * 128; };
    cub::DoubleBuffer<Key> keys;
    const std::size_t cub_bytes = cub_storage_bytes(
        [&](std::size_t& bytes) {
          if constexpr (std::is_same_v<Item, no_items>) {
            return cub::DeviceRadixSort::SortKeys(nullptr, bytes, keys, n);
          } else {
            cub::DoubleBuffer<Item> items;
            return cub::DeviceRadixSort::SortPairs(nullptr, bytes, keys, items, n);
          }
        },
        "cub::DeviceRadixSort (size query)");
    return round_up(array_bytes(n, sizeof(Key))) + round_up(array_bytes(n, item_bytes<Item>())) + cub_bytes;
  } else {
    // merge sort (CUB's copies of the keys and items are part of its answer)
    static_assert(!std::is_same_v<Item, no_items>, "dpt sorts keys of other types only by key");
    Key* keys = nullptr;
    Item* items = nullptr;
    const auto query = [&](std::size_t& bytes) {
      return cub::DeviceMergeSort::SortPairs(nullptr, bytes, keys, items, n, ::cuda::std::less<>{});
    };
    return thrust_dispatch_bytes(n, query, "cub::DeviceMergeSort (size query)");
  }
#elif DPT_CUDA_DEVICE_SYSTEM
  (void)n;
  return cub_size_query_needs_nvcc("thrust::sort");
#else
  // a copy of the keys and of the items (a merge sort's halves, or a radix sort's second buffers)
  return array_bytes(n, sizeof(Key) + item_bytes<Item>());
#endif
}

// thrust::reduce_by_key over n keys, reading values of type Value.
template <class Key, class Value>
std::size_t reduce_by_key_scratch_bytes(std::ptrdiff_t n) {
#if DPT_CUB_SIZE_QUERIES
  Key* keys = nullptr;
  Value* values = nullptr;
  std::int64_t* runs = nullptr;
  const auto query = [&](std::size_t& bytes) {
    return cub::DeviceReduce::ReduceByKey(nullptr, bytes, keys, keys, values, values, runs, ::cuda::std::plus<>{}, n);
  };
  return thrust_dispatch_bytes(n, query, "cub::DeviceReduce::ReduceByKey (size query)");
#elif DPT_CUDA_DEVICE_SYSTEM
  (void)n;
  return cub_size_query_needs_nvcc("thrust::reduce_by_key");
#else
  // CPP's is one loop; TBB's reduces partitions in parallel, holding a few bytes each (176 bytes at 100003 keys on
  // 2 cores; 2 KiB allowed); OMP's, Thrust's generic one, stores head flags, tail flags, their scan (unsigned int
  // each) and the scanned values
  if (THRUST_DEVICE_SYSTEM == THRUST_DEVICE_SYSTEM_CPP) return 0;
  if (THRUST_DEVICE_SYSTEM == THRUST_DEVICE_SYSTEM_TBB) return 2048;
  return array_bytes(n, 3 * sizeof(unsigned int) + sizeof(Value));
#endif
}

// thrust::adjacent_difference of n elements of type T.
template <class T>
std::size_t adjacent_difference_scratch_bytes(std::ptrdiff_t n) {
#if DPT_CUB_SIZE_QUERIES
  T* elements = nullptr;
  const auto query = [&](std::size_t& bytes) {
    return cub::DeviceAdjacentDifference::SubtractLeftCopy(nullptr, bytes, elements, elements, n);
  };
  return thrust_dispatch_bytes(n, query, "cub::DeviceAdjacentDifference (size query)");
#elif DPT_CUDA_DEVICE_SYSTEM
  (void)n;
  return cub_size_query_needs_nvcc("thrust::adjacent_difference");
#else
  // CPP's is one loop; OMP's and TBB's, Thrust's generic one, copy the input first
  return THRUST_DEVICE_SYSTEM == THRUST_DEVICE_SYSTEM_CPP ? 0 : array_bytes(n, sizeof(T));
#endif
}

// thrust::inclusive_scan / exclusive_scan of n elements of type T.
template <class T>
std::size_t scan_scratch_bytes(std::ptrdiff_t n) {
#if DPT_CUB_SIZE_QUERIES
  T* elements = nullptr;
  const auto query = [&](std::size_t& bytes) {
    return cub::DeviceScan::InclusiveScan(nullptr, bytes, elements, elements, ::cuda::std::plus<>{}, n);
  };
  return thrust_dispatch_bytes(n, query, "cub::DeviceScan::InclusiveScan (size query)");
#elif DPT_CUDA_DEVICE_SYSTEM
  (void)n;
  return cub_size_query_needs_nvcc("thrust::inclusive_scan");
#else
  (void)n;
  return 0;  // a loop on the host (dpt's own scans on OMP and TBB take nothing from the policy)
#endif
}

// thrust::find_if, all_of and the other reductions over n elements.
inline std::size_t reduction_scratch_bytes(std::ptrdiff_t n) {
#if DPT_CUB_SIZE_QUERIES
  std::int64_t* elements = nullptr;
  const auto query = [&](std::size_t& bytes) { return cub::DeviceReduce::Sum(nullptr, bytes, elements, elements, n); };
  return thrust_dispatch_bytes(n, query, "cub::DeviceReduce::Sum (size query)");
#elif DPT_CUDA_DEVICE_SYSTEM
  (void)n;
  return cub_size_query_needs_nvcc("thrust::find_if");
#elif THRUST_DEVICE_SYSTEM == THRUST_DEVICE_SYSTEM_OMP
  // Thrust's find_if reduces (found, position) pairs: one partial result per core and the initial value
  if (n <= 0) return 0;
  return array_bytes(std::min<std::ptrdiff_t>(n, omp_get_num_procs()) + 1, sizeof(thrust::tuple<bool, std::ptrdiff_t>));
#else
  (void)n;
  return 0;  // CPP's and TBB's find_if and all_of take nothing from the policy
#endif
}

}  // namespace dpt::detail
