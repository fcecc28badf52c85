// dpt/cpu/histogram_bins.hpp — the histogram's map step on OpenMP and TBB: every value's bin, across the cores.
//
//   values = [0.1, 0.7, NaN, 0.9, 1.4, 0.35]      K = 4 bins over [0, 1]
//   ids    = [0,   2,   6,   3,   5,   1]         (slots K = 4 below, 5 above, 6 NaN)
//
// Float values with float or double bounds and double values with double bounds, through raw pointers, on a CPU
// with AVX-512: blocks of vector steps (dpt/cpu/bin_map_avx512.hpp), one block per task. Anything else:
// thrust::transform with numpy_bin_index.
#pragma once

#include <cstddef>
#include <thrust/for_each.h>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/transform.h>
#include <thrust/type_traits/unwrap_contiguous_iterator.h>
#include <type_traits>

#include <dpt/config.hpp>
#include <dpt/cpu/bin_map_avx512.hpp>
#include <dpt/cpu/cpu_features.hpp>

namespace dpt::cpu {

// Values per task of the parallel map: 16 Ki of them.
inline constexpr std::ptrdiff_t map_bins_block_length = 16 * 1024;

// One task of the parallel map: the values of one block.
template <class BinIndex>
struct map_bins_block;

template <class Value, class Bound>
struct map_bins_block<numpy_bin_index<Value, Bound>> {
  const Value* values;
  int* ids;
  std::ptrdiff_t n;
  numpy_bin_index<Value, Bound> bin_of;
  void operator()(std::ptrdiff_t block) const {
#if DPT_HAVE_AVX512
    const std::ptrdiff_t begin = block * map_bins_block_length;
    const std::ptrdiff_t length = n - begin < map_bins_block_length ? n - begin : map_bins_block_length;
    map_bins_avx512(values + begin, length, bin_of, ids + begin);
#else
    (void)block;
#endif
  }
};

// ids[i] = bin_of(first[i]) for i in [0, n) on OpenMP or TBB: a vector of values at a time across the cores where
// can_map_bins_avx512_v and the CPU has AVX-512, thrust::transform otherwise.
template <class DerivedPolicy, class InputIt, class BinIndex, class OutputIt>
void map_bins(const thrust::detail::execution_policy_base<DerivedPolicy>& exec, InputIt first, std::ptrdiff_t n,
              BinIndex bin_of, OutputIt ids) {
  using values_t = thrust::try_unwrap_contiguous_iterator_t<InputIt>;
  using ids_t = thrust::try_unwrap_contiguous_iterator_t<OutputIt>;
  if constexpr (can_map_bins_avx512_v<values_t, ids_t, BinIndex>) {
    if (cpu_has_avx512()) {
      const std::ptrdiff_t blocks = (n + map_bins_block_length - 1) / map_bins_block_length;
      // map: every value to its bin id (or to a dropped slot), a block of vector steps per task
      thrust::for_each_n(exec, thrust::counting_iterator<std::ptrdiff_t>(0), blocks,
                         map_bins_block<BinIndex>{thrust::try_unwrap_contiguous_iterator(first),
                                                  thrust::try_unwrap_contiguous_iterator(ids), n, bin_of});
      return;
    }
  }
  // map: every value to its bin id (or to a dropped slot)
  thrust::transform(exec, first, first + n, ids, bin_of);
}

}  // namespace dpt::cpu
