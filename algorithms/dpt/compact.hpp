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
// each one can be seen, tested and measured against it. On CUDA and CPP the three steps are still three
// Thrust pieces but one pass: the map is a transform_iterator the scan reads, and the scan hands each
// position straight to the scatter through a tabulate_output_iterator, so no positions array is stored (a
// GPU scan then moves what copy_if moves: the input once, the kept elements once, and the input again from
// cache to scatter it). The predicate runs twice per element there: once for the flag, once in the scatter.
// On OMP and TBB the same steps run per slice through
// dpt's multicore recipe (dpt/detail/slice_scan.hpp), with no positions array: each core compacts its slice
// into a buffer of its own, which also counts what it keeps (map + scan + scatter within the slice); a short
// serial scan of the counts gives each slice its first output position; and each core copies its buffer
// there (adding the base).
#pragma once

#include <cstddef>
#include <cuda/std/functional>
#include <cuda/std/iterator>
#include <algorithm>
#include <memory>
#include <optional>
#include <thrust/iterator/tabulate_output_iterator.h>
#include <thrust/iterator/transform_iterator.h>
#include <thrust/memory.h>
#include <thrust/scan.h>
#include <thrust/type_traits/unwrap_contiguous_iterator.h>

#include <dpt/config.hpp>
#include <dpt/detail/compact_block.hpp>
#include <dpt/detail/temporary_array.hpp>
#include <dpt/detail/slice_scan.hpp>
#include <dpt/detail/streaming_store.hpp>

namespace dpt {
namespace detail {

template <class Predicate>
struct predicate_to_flag {
  Predicate pred;
  template <class T>
  DPT_HOST_DEVICE std::ptrdiff_t operator()(const T& x) const {
    return pred(x) ? 1 : 0;
  }
};

// The scatter, fed by the scan: element i's inclusive count of kept elements is `position`, so a kept element
// goes to result[position − 1]. The last element's count is the number kept, written to *kept.
template <class InputIt, class OutputIt, class Predicate>
struct scatter_kept {
  InputIt input;
  OutputIt result;
  Predicate pred;
  std::ptrdiff_t last;
  std::ptrdiff_t* kept;
  DPT_HOST_DEVICE void operator()(std::ptrdiff_t i, std::ptrdiff_t position) const {
    const ::cuda::std::iter_value_t<InputIt> x = input[i];
    if (pred(x)) result[position - 1] = x;
    if (i == last) *kept = position;
  }
};

// A core's scratch for the compaction: the kept elements of the slice it reduced last, waiting for their base.
template <class T>
struct compact_scratch {
  std::unique_ptr<T[]> kept;
  std::ptrdiff_t slice_begin = -1, count = 0;
};

// The multicore recipe's reduce and walk of one slice: a total is a number of kept elements. The reduce
// gathers the slice's kept elements into the core's scratch (dpt/detail/compact_block.hpp), which counts them
// too: the slice is read from memory once and the predicate runs once per element. The walk then copies the
// kept run to its base: the lecture's "each core scans its slice, then adds its base".
template <class InputIt, class OutputIt, class Predicate>
struct compact_loops {
  using T = element_t<InputIt>;
  static constexpr bool buffered = can_buffer_kept_v<InputIt>;
  // the reduce reads its slice in one sequential pass, which the processor's own prefetcher serves
  bool prefetches_next_slice() const { return false; }

  InputIt input;
  OutputIt output;
  Predicate pred;
  bool stream_output;  // write with streaming stores (dpt/detail/streaming_store.hpp)
  compact_walk walk;   // how kept elements are gathered (dpt/detail/compact_block.hpp)

  compact_scratch<T> make_scratch(std::ptrdiff_t slice_length) const {
    compact_scratch<T> scratch;
    if constexpr (buffered) {
      if (slice_length > 0) scratch.kept.reset(new T[slice_length + compact_slack]);
    }
    return scratch;
  }

  std::ptrdiff_t reduce(compact_scratch<T>& scratch, std::ptrdiff_t begin, std::ptrdiff_t end) const {
    if constexpr (buffered) {
      // gather the kept elements, without branching on the predicate
      scratch.slice_begin = begin;
      scratch.count = compact_into(walk, input, begin, end, pred, scratch.kept.get());
      return scratch.count;
    } else {
      const auto in = input;
      const auto keep = pred;
      std::ptrdiff_t count = 0;
      for (std::ptrdiff_t i = begin; i < end; ++i) count += keep(in[i]) ? 1 : 0;
      return count;
    }
  }

  // *base: how many elements the slices before this one keep, i.e. where its first kept element goes.
  std::ptrdiff_t scan(compact_scratch<T>& scratch, std::ptrdiff_t begin, std::ptrdiff_t end, const std::ptrdiff_t* base,
                      index_range /*ahead*/) const {
    return with_output_store<OutputIt>(stream_output, [&](auto store) {
      const auto in = input;
      const auto out = output;
      const auto keep = pred;
      std::ptrdiff_t position = *base, i = begin;
      if (scratch.slice_begin == begin) {
        // reduced on this core: add the base, i.e. copy the kept run there
        store(out, position, static_cast<const T*>(scratch.kept.get()), scratch.count);
        scratch.slice_begin = -1;
        return position + scratch.count;
      }
      // one core does everything, without a reduce: gather block by block through a small buffer
      if constexpr (buffered) {
        T kept[compact_block_length + compact_slack];
        for (; i < end; i += compact_block_length) {
          const auto count = compact_into(walk, in, i, std::min(end, i + compact_block_length), keep, kept);
          store(out, position, static_cast<const T*>(kept), count);
          position += count;
        }
      } else {
        for (; i < end; ++i) {
          if (keep(in[i])) store(out, position++, in[i]);
        }
      }
      return position;
    });
  }
};

// The compaction's slices: 1 MiB of input. Its reduce reads a slice once, from memory, and only the kept elements
// (typically a fraction of it) wait in the core's scratch for the walk, so slices can be longer than a scan's
// (256 KiB, read twice) and hand off less often. On the 2-core machine of docs/benchmarks.md, 2^24 and 2^26 random
// int32 (about half kept) compacted 10–15% faster in 1 MiB slices than in 256 KiB ones (OMP, best of 30 runs,
// alternated); 2 and 4 MiB were no faster.
inline slice_sizes compact_slice_sizes(std::size_t element_bytes) {
  return slice_sizes::for_element_bytes(element_bytes, 1024 * 1024);
}

// dpt::compact on OMP and TBB: the counts are the slice totals, the running total is the output position.
// `walk` chooses how kept elements are gathered; tests pass each one.
template <class DerivedPolicy, class InputIt, class OutputIt, class Predicate>
OutputIt multicore_compact(
    const thrust::detail::execution_policy_base<DerivedPolicy>& exec, InputIt first, std::ptrdiff_t n, OutputIt result,
    Predicate pred, slice_sizes sizes = compact_slice_sizes(sizeof(::cuda::std::iter_value_t<InputIt>)),
    compact_walk walk = fastest_compact_walk<thrust::try_unwrap_contiguous_iterator_t<InputIt>>()) {
  const compact_loops<thrust::try_unwrap_contiguous_iterator_t<InputIt>,
                      thrust::try_unwrap_contiguous_iterator_t<OutputIt>, Predicate>
      loops{thrust::try_unwrap_contiguous_iterator(first), thrust::try_unwrap_contiguous_iterator(result), pred,
            should_stream<thrust::try_unwrap_contiguous_iterator_t<OutputIt>>(n), walk};
  const auto kept =
      run_slice_scan(exec, n, loops, std::optional<std::ptrdiff_t>(0), ::cuda::std::plus<std::ptrdiff_t>{}, sizes);
  return result + *kept;
}

}  // namespace detail

// Copies the elements x of [first, last) with pred(x) true to result, keeping their order. Returns the end of
// the output, which must not overlap the input. Scratch: one std::ptrdiff_t (the count) on CUDA and CPP; on
// OMP and TBB, one slice's worth of elements (1 MiB of input) per core.
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
    // scatter each kept element to its position as the scan produces it (never stored), and keep the count
    detail::temporary_array<std::ptrdiff_t, DerivedPolicy> kept(exec, 1);
    const auto scatter = thrust::make_tabulate_output_iterator(detail::scatter_kept<InputIt, OutputIt, Predicate>{
        first, result, pred, n - 1, thrust::raw_pointer_cast(kept.begin())});
    // scan the flags: position − 1 is where a kept element goes
    thrust::inclusive_scan(exec, flags, flags + n, scatter);
    return result + detail::read_element(kept.begin());
  }
}

}  // namespace dpt
