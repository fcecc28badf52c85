// dpt/cpu/compact_block.hpp — the CPU compaction's inner loop: gather a range's kept elements, in order.
//
//   range = [3, 8, 4, 6, 3, 9, 2, 8]      keep even
//   kept    [8, 4, 6, 2, 8]               returns 5
//
// The CPU compaction of dpt/cpu/compact.hpp gathers each slice's kept elements into a buffer this way. The
// predicate's answers may follow no pattern (random data keeps about every other element, unpredictably), so
// neither way below branches on them:
//
// - compact_two_lanes, on any CPU: every element is written at the next free place, which advances past kept
//   elements only, so a dropped element is overwritten by the next kept one. Blocks are cut in two halves,
//   two lanes with independent counts, so that the core advances both at once.
// - compact_avx512, on x86-64 CPUs with AVX-512 (checked at run time), for raw pointers to 4- or 8-byte
//   trivially copyable elements: the predicate runs on a vector's worth of elements at a time (the compiler
//   vectorises simple predicates), and one instruction (vpcompressd/q) packs the kept lanes together. About a
//   cycle per 16 int32 elements, where the two-lane walk takes about one per element.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cuda/std/iterator>
#include <type_traits>
#include <utility>

#include <dpt/config.hpp>
#include <dpt/cpu/cpu_features.hpp>

namespace dpt::cpu {

// Elements per block of the two-lane walk: a block and what it keeps stay in the L1 cache.
inline constexpr std::ptrdiff_t compact_block_length = 512;
// Room the gathering may write past the kept elements (compact_avx512 stores whole vectors): a buffer for the
// kept elements of n elements needs n + compact_slack elements.
inline constexpr std::ptrdiff_t compact_slack = 16;

// The element type of InputIt: its value type, not what dereferencing gives (a proxy such as
// std::vector<bool>'s bit reference refers to the input; a buffer of them would hold no values).
template <class InputIt>
using element_t = ::cuda::std::iter_value_t<InputIt>;

// The largest element gathered in a buffer: a block's buffer lives on the stack (compact_block_length +
// compact_slack elements, and half a block more in compact_two_lanes), where 528 elements of 16 KiB would
// overflow a thread's stack; larger elements are written straight to the output instead.
inline constexpr std::size_t max_buffered_element_bytes = 64;

// Whether kept elements can be gathered in a buffer.
template <class InputIt>
inline constexpr bool can_buffer_kept_v =
    std::is_default_constructible_v<element_t<InputIt>>&& std::is_copy_assignable_v<element_t<InputIt>> &&
    sizeof(element_t<InputIt>) <= max_buffered_element_bytes;

// Writes the kept elements among in[first, last) to kept[0, count), in order, and returns count; kept has
// room for last − first + compact_slack elements.
template <class InputIt, class Predicate>
DPT_ALWAYS_INLINE std::ptrdiff_t compact_two_lanes(InputIt in, std::ptrdiff_t first, std::ptrdiff_t last,
                                                   Predicate keep, element_t<InputIt>* kept) {
  using T = element_t<InputIt>;
  constexpr std::ptrdiff_t lane_length = compact_block_length / 2;
  std::ptrdiff_t count = 0, i = first;
  for (; i + compact_block_length <= last; i += compact_block_length) {
    T lane1[lane_length];
    std::ptrdiff_t count0 = count, count1 = 0;
    for (std::ptrdiff_t j = 0; j < lane_length; ++j) {
      const T x0 = in[i + j], x1 = in[i + lane_length + j];
      kept[count0] = x0;
      lane1[count1] = x1;
      count0 += keep(x0) ? 1 : 0;
      count1 += keep(x1) ? 1 : 0;
    }
    count = std::copy(lane1, lane1 + count1, kept + count0) - kept;
  }
  for (; i < last; ++i) {
    const T x = in[i];
    kept[count] = x;
    count += keep(x) ? 1 : 0;
  }
  return count;
}

// Whether compact_avx512 takes `InputIt`'s elements (the CPU may still lack AVX-512).
template <class InputIt>
inline constexpr bool can_compact_avx512_v = false;

#if DPT_HAVE_AVX512

template <class T>
inline constexpr bool can_compact_avx512_v<T*> = std::is_trivially_copyable_v<std::remove_cv_t<T>> &&
                                                 (sizeof(T) == 4 || sizeof(T) == 8);

// The same contract as compact_two_lanes, for in = a raw pointer (can_compact_avx512_v). Call only when
// cpu_has_avx512(). The predicate is inlined here and compiled for AVX-512 too.
template <class T, class Predicate>
DPT_TARGET_AVX512 std::ptrdiff_t compact_avx512(const T* in, std::ptrdiff_t first, std::ptrdiff_t last, Predicate keep,
                                                std::remove_cv_t<T>* kept) {
  using lane_bits = std::conditional_t<sizeof(T) == 4, std::uint32_t, std::uint64_t>;
  constexpr std::ptrdiff_t lanes = 64 / sizeof(T);
  static_assert(lanes <= compact_slack);
  std::ptrdiff_t count = 0, i = first;
  for (; i + lanes <= last; i += lanes) {
    const T* const vector = in + i;
    // map: the predicate's answers as all-ones or all-zeros lanes, then as a mask of the kept lanes
    alignas(64) lane_bits answers[lanes];
    for (std::ptrdiff_t j = 0; j < lanes; ++j) answers[j] = keep(vector[j]) ? ~lane_bits(0) : lane_bits(0);
    const __m512i flags = _mm512_load_si512(answers);
    const __m512i values = _mm512_loadu_si512(vector);
    // pack the kept lanes to the front and append them (a whole vector is stored; the next one overwrites)
    if constexpr (sizeof(T) == 4) {
      const __mmask16 mask = _mm512_test_epi32_mask(flags, flags);
      _mm512_storeu_si512(kept + count, _mm512_maskz_compress_epi32(mask, values));
      count += __builtin_popcount(mask);
    } else {
      const __mmask8 mask = _mm512_test_epi64_mask(flags, flags);
      _mm512_storeu_si512(kept + count, _mm512_maskz_compress_epi64(mask, values));
      count += __builtin_popcount(mask);
    }
  }
  for (; i < last; ++i) {
    kept[count] = in[i];
    count += keep(in[i]) ? 1 : 0;
  }
  return count;
}

#endif

// How a compaction gathers its kept elements.
enum class compact_walk { two_lanes, avx512 };

// The fastest way for `InputIt` on this CPU.
template <class InputIt>
compact_walk fastest_compact_walk() {
  return can_compact_avx512_v<InputIt> && cpu_has_avx512() ? compact_walk::avx512 : compact_walk::two_lanes;
}

// Gathers the kept elements of in[first, last) with `walk` (avx512 only where can_compact_avx512_v) into
// kept, which has room for last − first + compact_slack elements; returns how many.
template <class InputIt, class Predicate>
DPT_ALWAYS_INLINE std::ptrdiff_t compact_into(compact_walk walk, InputIt in, std::ptrdiff_t first, std::ptrdiff_t last,
                                              Predicate keep, element_t<InputIt>* kept) {
#if DPT_HAVE_AVX512
  if constexpr (can_compact_avx512_v<InputIt>) {
    if (walk == compact_walk::avx512) return compact_avx512(in, first, last, keep, kept);
  }
#endif
  (void)walk;
  return compact_two_lanes(in, first, last, keep, kept);
}

}  // namespace dpt::cpu
