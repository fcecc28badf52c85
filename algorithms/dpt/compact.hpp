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
// each one can be seen, tested and measured against it. On OMP and TBB the same three steps run per slice
// through dpt's multicore recipe (dpt/detail/slice_scan.hpp), with no positions array: each core counts
// what its slice keeps (map + reduce), a short serial scan of the counts gives each slice its first output
// position, and each core copies its kept elements from there (scan + scatter within the slice).
#pragma once

#include <cstddef>
#include <cuda/std/functional>
#include <cuda/std/iterator>
#include <optional>
#include <thrust/iterator/transform_iterator.h>
#include <thrust/scan.h>
#include <thrust/scatter.h>
#include <thrust/type_traits/unwrap_contiguous_iterator.h>

#include <dpt/config.hpp>
#include <dpt/detail/temporary_array.hpp>
#include <dpt/detail/slice_scan.hpp>
#include <dpt/detail/streaming_store.hpp>

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

// The multicore recipe's reduce and walk of one slice: a total is a number of kept elements.
template <class InputIt, class OutputIt, class Predicate>
struct compact_loops {
  InputIt input;
  OutputIt output;
  Predicate pred;
  bool stream_output;  // write with streaming stores (dpt/detail/streaming_store.hpp)

  std::ptrdiff_t reduce(std::ptrdiff_t i, std::ptrdiff_t end) const {
    const auto in = input;
    const auto keep = pred;
    std::ptrdiff_t kept = 0;
    for (; i < end; ++i) kept += keep(in[i]) ? 1 : 0;
    return kept;
  }

  void prefetch(std::ptrdiff_t i) const { prefetch_elements(input + i, walk_chunk); }

  // *base: how many elements the slices before this one keep, i.e. where its first kept element goes.
  // The walk does not branch on the predicate, whose answers may come in no predictable order: it stores every
  // element at the next free position and advances the position past kept ones only, so a dropped element is
  // overwritten by the next kept one. That holds up to the slice's last kept element, where the walk stops;
  // past it no store may land, because the position then belongs to the next slice.
  std::ptrdiff_t scan(std::ptrdiff_t begin, std::ptrdiff_t end, const std::ptrdiff_t* base, index_range ahead) const {
    return with_output_store<OutputIt>(stream_output, [&](auto store) {
      const auto in = input;
      const auto out = output;
      const auto keep = pred;
      std::ptrdiff_t stop = end;
      while (stop > begin && !keep(in[stop - 1])) --stop;
      std::ptrdiff_t position = *base;
      walk_prefetching(
          begin, stop, ahead, [this](std::ptrdiff_t a) { prefetch(a); },
          [&](std::ptrdiff_t i) {
            const auto x = in[i];
            store(out, position, x);
            position += keep(x) ? 1 : 0;
          });
      return position;
    });
  }
};

// dpt::compact on OMP and TBB: the counts are the slice totals, the running total is the output position.
template <class DerivedPolicy, class InputIt, class OutputIt, class Predicate>
OutputIt multicore_compact(
    const thrust::detail::execution_policy_base<DerivedPolicy>& exec, InputIt first, std::ptrdiff_t n, OutputIt result,
    Predicate pred, slice_sizes sizes = slice_sizes::for_element_bytes(sizeof(::cuda::std::iter_value_t<InputIt>))) {
  const compact_loops<thrust::try_unwrap_contiguous_iterator_t<InputIt>,
                      thrust::try_unwrap_contiguous_iterator_t<OutputIt>, Predicate>
      loops{thrust::try_unwrap_contiguous_iterator(first), thrust::try_unwrap_contiguous_iterator(result), pred,
            should_stream<thrust::try_unwrap_contiguous_iterator_t<OutputIt>>(n)};
  const auto kept =
      run_slice_scan(exec, n, loops, std::optional<std::ptrdiff_t>(0), ::cuda::std::plus<std::ptrdiff_t>{}, sizes);
  return result + *kept;
}

}  // namespace detail

// Copies the elements x of [first, last) with pred(x) true to result, keeping their order. Returns the end of
// the output, which must not overlap the input. Scratch: one std::ptrdiff_t per input element on CUDA and CPP,
// none on OMP and TBB.
template <class DerivedPolicy, class InputIt, class OutputIt, class Predicate>
OutputIt compact(const thrust::detail::execution_policy_base<DerivedPolicy>& exec, InputIt first, InputIt last,
                 OutputIt result, Predicate pred) {
  const auto n = static_cast<std::ptrdiff_t>(thrust::distance(first, last));
  if constexpr (detail::is_multicore_cpu_policy_v<DerivedPolicy>) {
    // count, scan the counts, copy: each core counts its slice's keepers, then copies them from its base
    return detail::multicore_compact(exec, first, n, result, pred);
  } else {
    if (n == 0) {
      return result;
    }
    // map: 1 where the predicate holds (computed on the fly, never stored)
    const auto flags = thrust::make_transform_iterator(first, detail::predicate_to_flag<Predicate>{pred});
    // scan the flags: positions[i] − 1 is where element i goes if it is kept
    detail::temporary_array<std::ptrdiff_t, DerivedPolicy> positions(exec, n);
    thrust::inclusive_scan(exec, flags, flags + n, positions.begin());
    // scatter the kept elements to their positions
    const auto destinations = thrust::make_transform_iterator(positions.begin(), detail::minus_one{});
    thrust::scatter_if(exec, first, last, destinations, flags, result);
    const auto kept = detail::read_element(positions.end() - 1);
    return result + kept;
  }
}

}  // namespace dpt
