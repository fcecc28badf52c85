// dpt/cpu/scan_avx512.hpp — the integer sum scans' walk, a whole vector (16 int32 or 8 int64) per step.
//
// The CPU scans of dpt/cpu/scan.hpp and dpt/cpu/segmented_scan.hpp walk a slice with a running value, one element
// after another: each element waits for the one before it, a cycle or two, which leaves a core little time
// to keep memory busy (docs/benchmarks.md, scan). For sums of 4- or 8-byte
// integers on a CPU with AVX-512, the walk here scans a vector in registers in log2(lanes) steps — the
// lecture's tree scan, with lanes for processors — and then adds the running value:
//
//   x                       = [3,  8,  4,  6,  3,  9,  2,  8]
//   add the lane 1 before   → [3, 11, 12, 10,  9, 12, 11, 10]
//   add the lane 2 before   → [3, 11, 15, 21, 21, 22, 20, 22]
//   add the lane 4 before   → [3, 11, 15, 21, 24, 33, 35, 43]
//   add the running value (the sum before the vector) to every lane; the last lane is the next running value
//
// The segmented form adds across a step only in lanes with no head flag within that step's reach, since a
// head cuts off everything before it. "A head within reach" is a bit mask that widens with each step, and
// the running value reaches only the lanes with no head at or before them. Integer sums are exact in any
// order, so the results equal the one-element walk's; other types and operators keep that walk.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <cuda/std/functional>
#include <functional>
#include <type_traits>

#include <dpt/config.hpp>
#include <dpt/cpu/cpu_features.hpp>
#include <dpt/cpu/streaming_store.hpp>

namespace dpt::cpu {

// How a CPU scan walks a slice: one element after another (any type, any operator) or a vector at a time.
enum class scan_walk { one_element, avx512 };

template <class Op, class T>
inline constexpr bool is_plus_v = std::is_same_v<Op, ::cuda::std::plus<>> || std::is_same_v<Op, ::cuda::std::plus<T>> ||
                                  std::is_same_v<Op, std::plus<>> || std::is_same_v<Op, std::plus<T>>;

// Whether `It` is a raw pointer to (possibly const) T.
template <class It, class T>
inline constexpr bool is_pointer_to_v =
    std::is_pointer_v<It>&& std::is_same_v<std::remove_cv_t<std::remove_pointer_t<It>>, T>;

// Whether the vector walk takes a sum scan of T from InputIt to OutputIt (the CPU may still lack AVX-512).
template <class T, class AssociativeOp, class InputIt, class OutputIt>
inline constexpr bool can_scan_avx512_v =
    DPT_HAVE_AVX512&& DPT_HAVE_STREAMING_STORES&& is_plus_v<AssociativeOp, T>&& std::is_integral_v<T> &&
    !std::is_same_v<T, bool> && (sizeof(T) == 4 || sizeof(T) == 8) && is_pointer_to_v<InputIt, T> &&
    std::is_same_v<OutputIt, T*>;

// Whether the segmented vector walk reads head flags through FlagIt: a raw pointer to 1- or 4-byte integers
// (bool included); any non-zero flag is a head.
template <class FlagIt>
inline constexpr bool can_read_heads_avx512_v =
    std::is_pointer_v<FlagIt>&& std::is_integral_v<std::remove_cv_t<std::remove_pointer_t<FlagIt>>> &&
    (sizeof(std::remove_pointer_t<FlagIt>) == 1 || sizeof(std::remove_pointer_t<FlagIt>) == 4);

// The fastest walk this CPU has for a scan that the vector walk can take (`vectorizable`).
template <bool Vectorizable>
scan_walk fastest_scan_walk() {
  return Vectorizable && cpu_has_avx512() ? scan_walk::avx512 : scan_walk::one_element;
}

#if DPT_HAVE_AVX512 && DPT_HAVE_STREAMING_STORES

// The lane operations, for 4-byte lanes (16 per vector) and 8-byte lanes (8 per vector).
template <std::size_t LaneBytes>
struct avx512_lanes;

template <>
struct avx512_lanes<4> {
  static constexpr int count = 16;
  using mask = __mmask16;
  // every lane (the masked forms below spell out every lane: the unmasked ones start from an undefined vector,
  // which GCC 12 reports as uninitialised)
  static constexpr mask all = 0xFFFF;
  // a + b in the lanes of `where`, a elsewhere
  DPT_TARGET_AVX512 static __m512i add(mask where, __m512i a, __m512i b) {
    return _mm512_mask_add_epi32(a, where, a, b);
  }
  // b in the lanes of `where`, a elsewhere
  DPT_TARGET_AVX512 static __m512i select(mask where, __m512i a, __m512i b) {
    return _mm512_mask_mov_epi32(a, where, b);
  }
  // lane j takes v[j − D]; the first D lanes take 0
  template <int D>
  DPT_TARGET_AVX512 static __m512i shift_up(__m512i v) {
    return _mm512_maskz_alignr_epi32(all, v, _mm512_setzero_si512(), count - D);
  }
  // lane j takes v[j − 1]; the first lane takes before's last lane
  DPT_TARGET_AVX512 static __m512i shift_in(__m512i v, __m512i before) {
    return _mm512_maskz_alignr_epi32(all, v, before, count - 1);
  }
  DPT_TARGET_AVX512 static __m512i broadcast_last(__m512i v) {
    return _mm512_maskz_permutexvar_epi32(all, _mm512_set1_epi32(count - 1), v);
  }
  template <class T>
  DPT_TARGET_AVX512 static __m512i broadcast(T x) {
    std::int32_t bits;
    std::memcpy(&bits, &x, sizeof bits);
    return _mm512_set1_epi32(bits);
  }
  // the lanes whose flag (of 1 or 4 bytes) is not zero
  template <class F>
  DPT_TARGET_AVX512 static mask nonzero(const F* flags) {
    if constexpr (sizeof(F) == 1) {
      const __m128i f = _mm_loadu_si128(reinterpret_cast<const __m128i*>(flags));
      return static_cast<mask>(~_mm_movemask_epi8(_mm_cmpeq_epi8(f, _mm_setzero_si128())));
    } else {
      const __m512i f = _mm512_loadu_si512(flags);
      return _mm512_test_epi32_mask(f, f);
    }
  }
};

template <>
struct avx512_lanes<8> {
  static constexpr int count = 8;
  using mask = __mmask8;
  static constexpr mask all = 0xFF;
  DPT_TARGET_AVX512 static __m512i add(mask where, __m512i a, __m512i b) {
    return _mm512_mask_add_epi64(a, where, a, b);
  }
  DPT_TARGET_AVX512 static __m512i select(mask where, __m512i a, __m512i b) {
    return _mm512_mask_mov_epi64(a, where, b);
  }
  template <int D>
  DPT_TARGET_AVX512 static __m512i shift_up(__m512i v) {
    return _mm512_maskz_alignr_epi64(all, v, _mm512_setzero_si512(), count - D);
  }
  DPT_TARGET_AVX512 static __m512i shift_in(__m512i v, __m512i before) {
    return _mm512_maskz_alignr_epi64(all, v, before, count - 1);
  }
  DPT_TARGET_AVX512 static __m512i broadcast_last(__m512i v) {
    return _mm512_maskz_permutexvar_epi64(all, _mm512_set1_epi64(count - 1), v);
  }
  template <class T>
  DPT_TARGET_AVX512 static __m512i broadcast(T x) {
    long long bits;
    std::memcpy(&bits, &x, sizeof bits);
    return _mm512_set1_epi64(bits);
  }
  template <class F>
  DPT_TARGET_AVX512 static mask nonzero(const F* flags) {
    if constexpr (sizeof(F) == 1) {
      const __m128i f = _mm_loadl_epi64(reinterpret_cast<const __m128i*>(flags));
      return static_cast<mask>(~_mm_movemask_epi8(_mm_cmpeq_epi8(f, _mm_setzero_si128())));
    } else {
      const __m512i f = _mm512_maskz_cvtepi32_epi64(all, _mm256_loadu_si256(reinterpret_cast<const __m256i*>(flags)));
      return _mm512_test_epi64_mask(f, f);
    }
  }
};

// The first lane of v, as a T of the lanes' size.
template <class T>
DPT_TARGET_AVX512 T first_lane(__m512i v) {
  alignas(64) T lanes[64 / sizeof(T)];
  _mm512_store_si512(lanes, v);
  return lanes[0];
}

// One step of the in-register scan: every lane adds the lane D before it, unless a head lies within reach
// (`cut`, which then widens by D).
template <int D, class Lanes>
DPT_TARGET_AVX512 DPT_ALWAYS_INLINE void sum_step(__m512i& x, typename Lanes::mask& cut) {
  x = Lanes::add(static_cast<typename Lanes::mask>(~cut), x, Lanes::template shift_up<D>(x));
  cut = static_cast<typename Lanes::mask>(cut | (cut << D));
}

// Scans `vectors` vectors' worth of elements from in + begin to out + begin (64-byte aligned when Streaming),
// from `running`, the sum before them. Segmented: `heads` are the head flags, and a head's segment starts from
// init plus its element. Exclusive: element i's output is the running value before it (init at a head).
// Returns the running value after the last element.
template <bool Exclusive, bool Segmented, bool Streaming, class T, class F>
DPT_TARGET_AVX512 T scan_vectors_avx512(const T* in, const F* heads, T* out, std::ptrdiff_t begin,
                                        std::ptrdiff_t vectors, T running, T init) {
  using lanes = avx512_lanes<sizeof(T)>;
  using mask = typename lanes::mask;
  __m512i carry = lanes::broadcast(running);  // the running value, in every lane
  const __m512i start = lanes::broadcast(init);
  for (std::ptrdiff_t i = begin; i < begin + vectors * lanes::count; i += lanes::count) {
    __m512i x = _mm512_loadu_si512(in + i);
    mask head = 0, cut = 0;  // the lanes with a head; those with a head within reach of the steps so far
    if constexpr (Segmented) {
      head = cut = lanes::nonzero(heads + i);
      if constexpr (Exclusive) x = lanes::add(head, x, start);  // every segment starts from init
    }
    // scan the vector in registers, log2(lanes) steps
    sum_step<1, lanes>(x, cut);
    sum_step<2, lanes>(x, cut);
    sum_step<4, lanes>(x, cut);
    if constexpr (lanes::count == 16) sum_step<8, lanes>(x, cut);
    // add the running value where no head came before
    x = lanes::add(static_cast<mask>(~cut), x, carry);
    __m512i result = x;
    if constexpr (Exclusive) {
      result = lanes::shift_in(x, carry);
      if constexpr (Segmented) result = lanes::select(head, result, start);
    }
    if constexpr (Streaming) {
      _mm512_stream_si512(reinterpret_cast<__m512i*>(out + i), result);
    } else {
      _mm512_storeu_si512(out + i, result);
    }
    carry = lanes::broadcast_last(x);
  }
  return first_lane<T>(carry);
}

// Walks [begin, end) of a sum scan with `running` carried through: `step(i)` (the one-element walk, which
// updates `running`) until out + i is 64-byte aligned, whole vectors with scan_vectors_avx512, then `step` for
// what is left. `Store` is the walk's store (dpt/cpu/streaming_store.hpp). It prefetches nothing: a vector
// walk is over too soon to hide the next slice's fetch (the loops' prefetches_next_slice() is false for it).
template <bool Exclusive, bool Segmented, class Store, class T, class F, class Step>
DPT_ALWAYS_INLINE void walk_avx512(Store, const T* in, const F* heads, T* out, std::ptrdiff_t begin, std::ptrdiff_t end,
                                   T& running, T init, Step step) {
  constexpr std::ptrdiff_t lanes = avx512_lanes<sizeof(T)>::count;
  std::ptrdiff_t i = begin;
  for (; i < end && reinterpret_cast<std::uintptr_t>(out + i) % 64 != 0; ++i) step(i);
  const std::ptrdiff_t vectors = (end - i) / lanes;
  constexpr bool streaming = std::is_same_v<Store, streaming_store>;
  running = scan_vectors_avx512<Exclusive, Segmented, streaming>(in, heads, out, i, vectors, running, init);
  for (i += vectors * lanes; i < end; ++i) step(i);
}

#endif

}  // namespace dpt::cpu
