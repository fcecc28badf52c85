// dpt/cpu/scan.hpp — dpt::inclusive_scan and dpt::exclusive_scan on OpenMP and TBB.
//
// Thrust's OpenMP scan runs on one core, and its TBB scan stays well below copy bandwidth on few
// cores (docs/benchmarks.md). This is the lecture's two-processor recipe instead (dpt/cpu/slice_scan.hpp) — each
// core sums a slice, the sums become bases, and each core scans its slice from its base — over cache-sized
// slices, so that memory sees one read and one write per element, as in a copy. Any associative operator works;
// it need not be commutative. Sums of 4- and 8-byte integers walk their slices a vector at a time on CPUs with
// AVX-512 (dpt/cpu/scan_avx512.hpp).
#pragma once

#include <cstddef>
#include <optional>
#include <thrust/distance.h>
#include <thrust/type_traits/unwrap_contiguous_iterator.h>

#include <dpt/config.hpp>
#include <dpt/cpu/scan_avx512.hpp>
#include <dpt/cpu/slice_scan.hpp>
#include <dpt/cpu/streaming_store.hpp>
#include <dpt/cpu/tuning.hpp>

namespace dpt::cpu {

// The scan's reduce and walk of one slice (see dpt/cpu/slice_scan.hpp). They work on local copies of the
// iterators and the operator: stores through `output` could otherwise (as far as the compiler knows) change
// the members, which would then be reloaded at every element.
template <bool Exclusive, class InputIt, class OutputIt, class T, class AssociativeOp>
struct scan_loops {
  static constexpr bool vectorizable = can_scan_avx512_v<T, AssociativeOp, InputIt, OutputIt>;

  InputIt input;
  OutputIt output;
  AssociativeOp op;
  bool stream_output;  // write with streaming stores (dpt/cpu/streaming_store.hpp)
  scan_walk walk;      // a vector at a time only where `vectorizable` (dpt/cpu/scan_avx512.hpp)

  // Only the one-element walk is slow enough to hide the next slice's fetch; the vector walk is faster without
  // the prefetch (docs/benchmarks.md, scan).
  bool prefetches_next_slice() const { return walk == scan_walk::one_element; }
  no_scratch make_scratch(std::ptrdiff_t /*slice_length*/) const { return {}; }

  // input[i] ⊕ … ⊕ input[end − 1]; the slice is not empty.

  T reduce(no_scratch&, std::ptrdiff_t i, std::ptrdiff_t end) const {
    const auto in = input;
    const auto f = op;
    T sum = in[i];
    for (++i; i < end; ++i) sum = static_cast<T>(f(sum, in[i]));
    return sum;
  }

  void prefetch(std::ptrdiff_t i) const { prefetch_elements(input + i, walk_chunk); }

  // Scans input[begin, end) into output from *base (nullptr only for the first slice of an inclusive scan),
  // prefetching `ahead`; returns the running value after the slice.
  T scan(no_scratch&, std::ptrdiff_t begin, std::ptrdiff_t end, const T* base, index_range ahead) const {
    return with_output_store<OutputIt>(stream_output, [&](auto store) {
      const auto in = input;
      const auto out = output;
      const auto f = op;
      T running = base ? *base : T(in[begin]);
      if (!Exclusive && !base) store(out, begin++, running);
      const auto prefetch_ahead = [this](std::ptrdiff_t a) { prefetch(a); };
      const auto step = [&](std::ptrdiff_t i) {
        const T x = in[i];  // read before writing: the output may alias the input
        if constexpr (Exclusive) store(out, i, running);
        running = static_cast<T>(f(running, x));
        if constexpr (!Exclusive) store(out, i, running);
      };
#if DPT_HAVE_AVX512 && DPT_HAVE_STREAMING_STORES
      if constexpr (vectorizable) {
        if (walk == scan_walk::avx512) {
          walk_avx512<Exclusive, false>(store, in, static_cast<const char*>(nullptr), out, begin, end, running, T{},
                                        step);
          return running;
        }
      }
#endif
      walk_prefetching(begin, end, ahead, prefetch_ahead, step);
      return running;
    });
  }
};

// The lecture's "each core scans its slice, then adds its base" (dpt/cpu/slice_scan.hpp). `init` seeds
// an exclusive scan; an inclusive scan ignores it and starts from its first element. The output may be the input.
template <bool Exclusive, class T, class DerivedPolicy, class InputIt, class OutputIt, class AssociativeOp>
OutputIt scan(const thrust::detail::execution_policy_base<DerivedPolicy>& exec, InputIt first, InputIt last,
              OutputIt result, T init, AssociativeOp op, const tuning& tune = {}) {
  using loops_t = scan_loops<Exclusive, thrust::try_unwrap_contiguous_iterator_t<InputIt>,
                             thrust::try_unwrap_contiguous_iterator_t<OutputIt>, T, AssociativeOp>;
  const auto n = static_cast<std::ptrdiff_t>(thrust::distance(first, last));
  const loops_t loops{thrust::try_unwrap_contiguous_iterator(first), thrust::try_unwrap_contiguous_iterator(result), op,
                      should_stream<thrust::try_unwrap_contiguous_iterator_t<OutputIt>>(n),
                      tune.walk.value_or(fastest_scan_walk<loops_t::vectorizable>())};
  const auto seed = Exclusive ? std::optional<T>(init) : std::nullopt;
  run_slice_scan(exec, n, loops, seed, op, tune.slices.value_or(slice_sizes::for_element_bytes(sizeof(T))));
  return result + n;
}

}  // namespace dpt::cpu
