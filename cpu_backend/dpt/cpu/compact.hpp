// dpt/cpu/compact.hpp — dpt::compact on OpenMP and TBB.
//
// The lecture's filter (map to flags, scan, scatter) per slice through the multicore recipe
// (dpt/cpu/slice_scan.hpp), with no positions array: each core compacts its slice into a buffer of its own, which
// also counts what it keeps (map + scan + scatter within the slice); a short serial scan of the counts gives each
// slice its first output position; and each core copies its buffer there (adding the base).
#pragma once

#include <algorithm>
#include <cstddef>
#include <cuda/std/functional>
#include <cuda/std/iterator>
#include <memory>
#include <optional>
#include <thrust/type_traits/unwrap_contiguous_iterator.h>

#include <dpt/config.hpp>
#include <dpt/cpu/compact_block.hpp>
#include <dpt/cpu/slice_scan.hpp>
#include <dpt/cpu/streaming_store.hpp>
#include <dpt/cpu/tuning.hpp>

namespace dpt::cpu {

// A core's scratch for the compaction: the kept elements of the slice it reduced last, waiting for their base.
template <class T>
struct compact_scratch {
  std::unique_ptr<T[]> kept;
  std::ptrdiff_t slice_begin = -1, count = 0;
};

// The multicore recipe's reduce and walk of one slice: a total is a number of kept elements. The reduce
// gathers the slice's kept elements into the core's scratch (dpt/cpu/compact_block.hpp), which counts them
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
  bool stream_output;  // write with streaming stores (dpt/cpu/streaming_store.hpp)
  compact_walk walk;   // how kept elements are gathered (dpt/cpu/compact_block.hpp)

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
// (256 KiB, read twice) and hand off less often; longer slices are no faster (docs/benchmarks.md, compact).
inline slice_sizes compact_slice_sizes(std::size_t element_bytes) {
  return slice_sizes::for_element_bytes(element_bytes, 1024 * 1024);
}

// dpt::compact on OMP and TBB: the counts are the slice totals, the running total is the output position.
template <class DerivedPolicy, class InputIt, class OutputIt, class Predicate>
OutputIt compact(const thrust::detail::execution_policy_base<DerivedPolicy>& exec, InputIt first, std::ptrdiff_t n,
                 OutputIt result, Predicate pred, const tuning& tune = {}) {
  const compact_loops<thrust::try_unwrap_contiguous_iterator_t<InputIt>,
                      thrust::try_unwrap_contiguous_iterator_t<OutputIt>, Predicate>
      loops{thrust::try_unwrap_contiguous_iterator(first), thrust::try_unwrap_contiguous_iterator(result), pred,
            should_stream<thrust::try_unwrap_contiguous_iterator_t<OutputIt>>(n),
            tune.gather.value_or(fastest_compact_walk<thrust::try_unwrap_contiguous_iterator_t<InputIt>>())};
  const auto kept =
      run_slice_scan(exec, n, loops, std::optional<std::ptrdiff_t>(0), ::cuda::std::plus<std::ptrdiff_t>{},
                     tune.slices.value_or(compact_slice_sizes(sizeof(::cuda::std::iter_value_t<InputIt>))));
  return result + *kept;
}

}  // namespace dpt::cpu
