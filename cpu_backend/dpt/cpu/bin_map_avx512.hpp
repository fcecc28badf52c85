// dpt/cpu/bin_map_avx512.hpp — the histogram's map step, the bins of a vector of values at a time.
//
//   values = [0.1, 0.7, NaN, 0.9, 1.4, 0.35]      K = 4 bins over [0, 1]
//   ids    = [0,   2,   6,   3,   5,   1]         (slots K = 4 below, 5 above, 6 NaN)
//
// numpy_bin_index (dpt/histogram_bins.hpp) maps one value at a time: three branches for the dropped values, a
// guess, and the guess's edges, each i·step + lo with its product kept apart from the addition. That is 7–10
// times the time to copy the value on this project's CPU (docs/benchmarks.md, sort). For float values (16 lanes)
// with float or double bounds and double values (8 lanes) with double bounds, on a CPU with AVX-512 (checked at run
// time), the map here runs the same recipe on a vector:
//
//   dropped   NaN, below edge 0 or above edge K: three compares, each a mask of lanes
//   guess     g = ⌊(x − lo)·scale⌋ in double, K − 1 for K or more (numpy_bin_index's fast guess)
//   confirm   edge g ≤ x and, unless g = K − 1, x < edge g + 1: then g is NumPy's bin (numpy_bin_index says why)
//
// The edges are computed as the scalar ones are: g·step rounded to nearest on its own (an instruction with its
// rounding written in, which no compiler fuses with the addition), then + lo, in the bounds' type, then rounded to
// the values' type. A lane whose guess is not
// confirmed — a value within an ulp or so of an edge, rare — goes through numpy_bin_index itself, so every id is
// numpy_bin_index's. dpt/cpu/histogram_bins.hpp runs it across the cores.
#pragma once

#include <cstddef>
#include <type_traits>

#include <dpt/config.hpp>
#include <dpt/cpu/cpu_features.hpp>
#include <dpt/histogram_bins.hpp>

namespace dpt::cpu {

// The value and bound types with a vector map: float values with float or double bounds (NumPy's float32 data with
// its own range, or with a range of Python floats), double values with double bounds.
template <class Value, class Bound>
inline constexpr bool has_bin_lanes_v = (std::is_same_v<Value, float> &&
                                         (std::is_same_v<Bound, float> || std::is_same_v<Bound, double>)) ||
                                        (std::is_same_v<Value, double> && std::is_same_v<Bound, double>);

// Whether map_bins_avx512 takes values through InputIt, ids through OutputIt, mapped by BinIndex (the CPU may
// still lack AVX-512): raw pointers to the values and to int ids, and types with a vector map.
template <class InputIt, class OutputIt, class BinIndex>
inline constexpr bool can_map_bins_avx512_v = false;

template <class T, class Bound>
inline constexpr bool can_map_bins_avx512_v<T*, int*, numpy_bin_index<std::remove_cv_t<T>, Bound>> =
    DPT_HAVE_AVX512&& has_bin_lanes_v<std::remove_cv_t<T>, Bound>;

#if DPT_HAVE_AVX512

// Masks of every lane, for the maskz forms of intrinsics: GCC 12's unmasked forms start from _mm512_undefined_*()
// and warn that it may be used uninitialized.
inline constexpr __mmask16 every_lane = 0xffff;
inline constexpr __mmask8 every_half_lane = 0xff, every_quarter_lane = 0xf;
inline constexpr int round_to_nearest = _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC;

// What the map needs of a vector of values compared with edges in Bound: a vector, masks of its lanes as 16 bits,
// and bin ids in the low lanes of an __m512i.
template <class Value, class Bound>
struct bin_lanes;

template <>
struct bin_lanes<float, float> {
  static constexpr int count = 16;
  using vector = __m512;
  DPT_TARGET_AVX512 static vector load(const float* p) { return _mm512_loadu_ps(p); }
  DPT_TARGET_AVX512 static vector broadcast(float x) { return _mm512_set1_ps(x); }
  DPT_TARGET_AVX512 static vector subtract(vector a, vector b) { return _mm512_sub_ps(a, b); }
  template <int Predicate>
  DPT_TARGET_AVX512 static __mmask16 compare(__mmask16 lanes, vector a, vector b) {
    return _mm512_mask_cmp_ps_mask(lanes, a, b, Predicate);
  }
  // ⌊offset·scale⌋ (in double, eight lanes per half) where below `bins`, else last_bin
  DPT_TARGET_AVX512 static __m512i guesses(vector offset, __m512d scale, __m512d bins, __m512i last_bin) {
    const __m512d low = _mm512_mul_pd(widen<0>(offset), scale), high = _mm512_mul_pd(widen<1>(offset), scale);
    const __mmask16 below_bins = static_cast<__mmask16>(_mm512_cmp_pd_mask(low, bins, _CMP_LT_OQ) |
                                                        (_mm512_cmp_pd_mask(high, bins, _CMP_LT_OQ) << 8));
    const __m512i floors = _mm512_maskz_inserti64x4(
        every_half_lane, _mm512_castsi256_si512(_mm512_maskz_cvttpd_epi32(every_half_lane, low)),
        _mm512_maskz_cvttpd_epi32(every_half_lane, high), 1);
    return _mm512_mask_blend_epi32(below_bins, last_bin, floors);
  }
  // edge b of each lane: b·step rounded to nearest by itself, + lo
  DPT_TARGET_AVX512 static vector edges(__m512i bin, float step, float lo) {
    return _mm512_add_ps(_mm512_maskz_mul_round_ps(every_lane, _mm512_maskz_cvtepi32_ps(every_lane, bin),
                                                   _mm512_set1_ps(step), round_to_nearest),
                         _mm512_set1_ps(lo));
  }
  DPT_TARGET_AVX512 static void store(int* p, __m512i ids) { _mm512_storeu_si512(p, ids); }

 protected:
  // lanes 8·Half … 8·Half + 7 of x, widened to double
  template <int Half>
  DPT_TARGET_AVX512 static __m512d widen(vector x) {
    const __m256d half = _mm512_maskz_extractf64x4_pd(every_quarter_lane, _mm512_castps_pd(x), Half);
    return _mm512_maskz_cvtps_pd(every_half_lane, _mm256_castpd_ps(half));
  }
};

template <>
struct bin_lanes<double, double> {
  static constexpr int count = 8;
  using vector = __m512d;
  DPT_TARGET_AVX512 static vector load(const double* p) { return _mm512_loadu_pd(p); }
  DPT_TARGET_AVX512 static vector broadcast(double x) { return _mm512_set1_pd(x); }
  DPT_TARGET_AVX512 static vector subtract(vector a, vector b) { return _mm512_sub_pd(a, b); }
  template <int Predicate>
  DPT_TARGET_AVX512 static __mmask16 compare(__mmask16 lanes, vector a, vector b) {
    return _mm512_mask_cmp_pd_mask(static_cast<__mmask8>(lanes), a, b, Predicate);
  }
  DPT_TARGET_AVX512 static __m512i guesses(vector offset, __m512d scale, __m512d bins, __m512i last_bin) {
    const __m512d products = _mm512_mul_pd(offset, scale);
    const __mmask16 below_bins = _mm512_cmp_pd_mask(products, bins, _CMP_LT_OQ);
    const __m512i floors = _mm512_maskz_inserti64x4(every_quarter_lane, _mm512_setzero_si512(),
                                                    _mm512_maskz_cvttpd_epi32(every_half_lane, products), 0);
    return _mm512_mask_blend_epi32(below_bins, last_bin, floors);
  }
  DPT_TARGET_AVX512 static vector edges(__m512i bin, double step, double lo) { return edges_of_half<0>(bin, step, lo); }
  // the edges of the bins in lanes 8·Half … 8·Half + 7 of `bin`, in double
  template <int Half>
  DPT_TARGET_AVX512 static __m512d edges_of_half(__m512i bin, double step, double lo) {
    const __m512d b =
        _mm512_maskz_cvtepi32_pd(every_half_lane, _mm512_maskz_extracti64x4_epi64(every_quarter_lane, bin, Half));
    return _mm512_add_pd(_mm512_maskz_mul_round_pd(every_half_lane, b, _mm512_set1_pd(step), round_to_nearest),
                         _mm512_set1_pd(lo));
  }
  DPT_TARGET_AVX512 static void store(int* p, __m512i ids) {
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(p), _mm512_maskz_extracti64x4_epi64(every_quarter_lane, ids, 0));
  }
};

// Float values with edges worked out in double, then rounded to float: the float lanes' steps, and each half's
// edges in double.
template <>
struct bin_lanes<float, double> : bin_lanes<float, float> {
  DPT_TARGET_AVX512 static vector edges(__m512i bin, double step, double lo) {
    const __m256d low = _mm256_castps_pd(
        _mm512_maskz_cvtpd_ps(every_half_lane, bin_lanes<double, double>::edges_of_half<0>(bin, step, lo)));
    const __m256d high = _mm256_castps_pd(
        _mm512_maskz_cvtpd_ps(every_half_lane, bin_lanes<double, double>::edges_of_half<1>(bin, step, lo)));
    const __m512d low_only = _mm512_maskz_insertf64x4(every_quarter_lane, _mm512_setzero_pd(), low, 0);
    return _mm512_castpd_ps(_mm512_maskz_insertf64x4(every_half_lane, low_only, high, 1));
  }
};

// ids[i] = bin_of(values[i]) for i in [0, n), a vector of values per step. Call only when cpu_has_avx512().
template <class Value, class Bound>
DPT_TARGET_AVX512 void map_bins_avx512(const Value* values, std::ptrdiff_t n,
                                       const numpy_bin_index<Value, Bound>& bin_of, int* ids) {
  using lanes = bin_lanes<Value, Bound>;
  using vector = typename lanes::vector;
  constexpr __mmask16 all = static_cast<__mmask16>((1u << lanes::count) - 1);
  std::ptrdiff_t i = 0;
  if (bin_of.guess_scale != 0) {
    const vector first_edge = lanes::broadcast(bin_of.edge(0)), last_edge = lanes::broadcast(bin_of.edge(bin_of.bins));
    // x − lo in the values' type, as numpy_bin_index subtracts
    const vector lo = lanes::broadcast(static_cast<Value>(bin_of.lo));
    const __m512d scale = _mm512_set1_pd(bin_of.guess_scale), bin_count = _mm512_set1_pd(bin_of.bins);
    const __m512i last_bin = _mm512_set1_epi32(bin_of.bins - 1), one = _mm512_set1_epi32(1);
    const __m512i below_slot = _mm512_set1_epi32(bin_of.below_slot()),
                  above_slot = _mm512_set1_epi32(bin_of.above_slot()), nan_slot = _mm512_set1_epi32(bin_of.nan_slot());
    for (; i + lanes::count <= n; i += lanes::count) {
      const vector x = lanes::load(values + i);
      // dropped: NaN, below the first edge, above the last
      const __mmask16 nan = lanes::template compare<_CMP_UNORD_Q>(all, x, x);
      const __mmask16 below = lanes::template compare<_CMP_LT_OQ>(all, x, first_edge);
      const __mmask16 above = lanes::template compare<_CMP_GT_OQ>(all, x, last_edge);
      // guess: ⌊(x − lo)·scale⌋ in double; K − 1 where it is K or more
      const __m512i guess = lanes::guesses(lanes::subtract(x, lo), scale, bin_count, last_bin);
      // confirm: edge g ≤ x, and x < edge g + 1 unless g is the last bin
      const __mmask16 not_last = static_cast<__mmask16>(all & ~_mm512_cmpeq_epi32_mask(guess, last_bin));
      const __mmask16 under = lanes::template compare<_CMP_LT_OQ>(all, x, lanes::edges(guess, bin_of.step, bin_of.lo));
      const __mmask16 over = lanes::template compare<_CMP_GE_OQ>(
          not_last, x, lanes::edges(_mm512_add_epi32(guess, one), bin_of.step, bin_of.lo));
      const __mmask16 dropped = nan | below | above;
      const __mmask16 unsure = static_cast<__mmask16>((under | over) & ~dropped);
      __m512i id = _mm512_mask_mov_epi32(guess, below, below_slot);
      id = _mm512_mask_mov_epi32(id, above, above_slot);
      id = _mm512_mask_mov_epi32(id, nan, nan_slot);
      lanes::store(ids + i, id);
      // the guesses not confirmed: NumPy's own steps, one value at a time
      for (unsigned unsure_lanes = unsure; unsure_lanes != 0; unsure_lanes &= unsure_lanes - 1) {
        const int lane = __builtin_ctz(unsure_lanes);
        ids[i + lane] = bin_of(values[i + lane]);
      }
    }
  }
  for (; i < n; ++i) ids[i] = bin_of(values[i]);
}

#endif

}  // namespace dpt::cpu
