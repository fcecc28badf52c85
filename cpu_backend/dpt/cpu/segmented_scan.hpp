// dpt/cpu/segmented_scan.hpp — dpt::segmented_inclusive_scan and dpt::segmented_exclusive_scan on OpenMP and TBB.
//
// Thrust's *_scan_by_key runs serially on OpenMP and TBB. The lecture's segmented scan is one scan of
// (head flag, value) pairs under the operator
//
//   (f1, v1) ⊕ (f2, v2) = (f1 | f2,  f2 ? v2 : v1 op v2)        "a head flag cuts off everything before it"
//
// so it runs through the multicore recipe (dpt/cpu/slice_scan.hpp) like any scan: ⊕ combines the slice totals,
// and the per-slice loops, written out on plain values, compute "running = head ? x : running op x", or a vector
// at a time for integer sums on CPUs with AVX-512 (dpt/cpu/scan_avx512.hpp). The first element starts a segment
// whether or not its flag is set.
#pragma once

#include <cstddef>
#include <cuda/std/iterator>
#include <optional>
#include <thrust/tuple.h>
#include <thrust/type_traits/unwrap_contiguous_iterator.h>

#include <dpt/config.hpp>
#include <dpt/cpu/scan_avx512.hpp>
#include <dpt/cpu/slice_scan.hpp>
#include <dpt/cpu/streaming_store.hpp>
#include <dpt/cpu/tuning.hpp>

namespace dpt::cpu {

// The segmented operator on (head flag, value) pairs.
template <class T, class AssociativeOp>
struct head_flag_op {
  AssociativeOp op;
  DPT_HOST_DEVICE thrust::tuple<bool, T> operator()(const thrust::tuple<bool, T>& a,
                                                    const thrust::tuple<bool, T>& b) const {
    const bool b_starts = thrust::get<0>(b);
    return {thrust::get<0>(a) || b_starts,
            b_starts ? thrust::get<1>(b) : static_cast<T>(op(thrust::get<1>(a), thrust::get<1>(b)))};
  }
};

// The multicore recipe's reduce and walk of one slice, on the pairs (head[i], data[i]) without building them.
// A total is (does the stretch hold a head, its value since the last head); the exclusive form folds `init`
// in at every head, so its running value through i is the inclusive scan seeded with init, and element i's
// output is the running value through i − 1 (init at a head). The walk reads only data[i] for element i.
template <bool Exclusive, class InputIt, class FlagIt, class OutputIt, class T, class AssociativeOp>
struct segmented_scan_loops {
  using pair = thrust::tuple<bool, T>;
  static constexpr bool vectorizable =
      can_scan_avx512_v<T, AssociativeOp, InputIt, OutputIt> && can_read_heads_avx512_v<FlagIt>;

  InputIt data;
  FlagIt flags;
  OutputIt output;
  T init;
  AssociativeOp op;
  bool stream_output;  // write with streaming stores (dpt/cpu/streaming_store.hpp)
  scan_walk walk;      // a vector at a time only where `vectorizable` (dpt/cpu/scan_avx512.hpp)

  // A head restarts the running value from the head's element.
  T restart(const T& x) const { return Exclusive ? static_cast<T>(op(init, x)) : x; }

  // As for the scan (dpt/cpu/scan.hpp): only the one-element walk is slow enough to hide the next slice's fetch.
  bool prefetches_next_slice() const { return walk == scan_walk::one_element; }
  no_scratch make_scratch(std::ptrdiff_t /*slice_length*/) const { return {}; }

  // Only the stretch after the slice's last head matters: look for that head from the end (a short search
  // over the flags, usually within one segment), then fold from it. Without a head, fold the whole slice.

  pair reduce(no_scratch&, std::ptrdiff_t begin, std::ptrdiff_t end) const {
    const auto in = data;
    const auto heads = flags;
    std::ptrdiff_t last_head = end - 1;
    while (last_head > begin && !static_cast<bool>(heads[last_head])) --last_head;
    const bool any_head = last_head == 0 || static_cast<bool>(heads[last_head]);
    const T first = in[last_head];
    T running = any_head ? restart(first) : first;
    for (std::ptrdiff_t i = last_head + 1; i < end; ++i) running = static_cast<T>(op(running, T(in[i])));
    return {any_head, running};
  }

  void prefetch(std::ptrdiff_t i) const {
    prefetch_elements(data + i, walk_chunk);
    prefetch_elements(flags + i, walk_chunk);
  }

  // `base` is never null: element 0 is a head, so whatever seeds the first slice is cut off.
  pair scan(no_scratch&, std::ptrdiff_t begin, std::ptrdiff_t end, const pair* base, index_range ahead) const {
    return with_output_store<OutputIt>(stream_output, [&](auto store) {
      const auto in = data;
      const auto heads = flags;
      const auto out = output;
      T running = thrust::get<1>(*base);
      const auto step = [&](std::ptrdiff_t i, bool head) {
        const T x = in[i];  // read before writing: the inclusive form's output may alias its input
        if constexpr (Exclusive) store(out, i, head ? init : running);
        // heads come at no predictable place: compute both candidates, then select (no branch to mispredict)
        const T continued = static_cast<T>(op(running, x));
        running = head ? restart(x) : continued;
        if constexpr (!Exclusive) store(out, i, running);
      };
      if (begin == 0 && begin < end) step(begin++, true);  // the first element starts a segment, flagged or not
      const auto prefetch_ahead = [this](std::ptrdiff_t a) { prefetch(a); };
      const auto flagged_step = [&](std::ptrdiff_t i) { step(i, static_cast<bool>(heads[i])); };
#if DPT_HAVE_AVX512 && DPT_HAVE_STREAMING_STORES
      if constexpr (vectorizable) {
        if (walk == scan_walk::avx512) {
          walk_avx512<Exclusive, true>(store, in, heads, out, begin, end, running, init, flagged_step);
          return pair{true, running};
        }
      }
#endif
      walk_prefetching(begin, end, ahead, prefetch_ahead, flagged_step);
      return pair{true, running};  // element 0 is a head, so every prefix holds one
    });
  }
};

// The segmented scan through dpt's multicore recipe: the scan of (flag, value) pairs, slice by slice. The
// inclusive form's output may be its input.
template <bool Exclusive, class T, class DerivedPolicy, class InputIt, class FlagIt, class OutputIt,
          class AssociativeOp>
OutputIt segmented_scan(const thrust::detail::execution_policy_base<DerivedPolicy>& exec, InputIt first,
                        std::ptrdiff_t n, FlagIt head_flags, OutputIt result, T init, AssociativeOp op,
                        const tuning& tune = {}) {
  using loops_t = segmented_scan_loops<Exclusive, thrust::try_unwrap_contiguous_iterator_t<InputIt>,
                                       thrust::try_unwrap_contiguous_iterator_t<FlagIt>,
                                       thrust::try_unwrap_contiguous_iterator_t<OutputIt>, T, AssociativeOp>;
  const loops_t loops{thrust::try_unwrap_contiguous_iterator(first),
                      thrust::try_unwrap_contiguous_iterator(head_flags),
                      thrust::try_unwrap_contiguous_iterator(result),
                      init,
                      op,
                      should_stream<thrust::try_unwrap_contiguous_iterator_t<OutputIt>>(n),
                      tune.walk.value_or(fastest_scan_walk<loops_t::vectorizable>())};
  // segmented scan = one scan of (flag, value) pairs, each core walking its slice from its base
  run_slice_scan(
      exec, n, loops, std::optional(thrust::tuple<bool, T>(true, init)), head_flag_op<T, AssociativeOp>{op},
      tune.slices.value_or(slice_sizes::for_element_bytes(sizeof(T) + sizeof(::cuda::std::iter_value_t<FlagIt>))));
  return result + n;
}

}  // namespace dpt::cpu
