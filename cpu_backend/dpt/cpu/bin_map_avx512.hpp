// dpt/cpu/bin_map_avx512.hpp — the histogram's map step, the bins of 16 float values at a time.
//
//   values = [0.1, 0.7, NaN, 0.9, 1.4, 0.35]      K = 4 bins over [0, 1]
//   ids    = [0,   2,   6,   3,   5,   1]         (slots K = 4 below, 5 above, 6 NaN)
//
// numpy_bin_index (dpt/histogram_bins.hpp) maps one value at a time: three branches for the dropped values, a
// guess, and the guess's edges, each i·step + lo with its product kept apart from the addition. That is about
// 10 times the time to copy the value on this project's CPU (docs/benchmarks.md, histogram). For float values
// with float bounds on a CPU with AVX-512 (checked at run time), the map here runs the same recipe on 16 lanes:
//
//   dropped   NaN, below edge 0 or above edge K: three compares, each a mask of lanes
//   guess     g = ⌊(x − lo)·scale⌋ in double, K − 1 for K or more (numpy_bin_index's fast guess)
//   confirm   edge g ≤ x and, unless g = K − 1, x < edge g + 1: then g is NumPy's bin (numpy_bin_index says why)
//
// The edges are computed as the scalar ones are: float(g)·step rounded to nearest on its own (an instruction
// with its rounding written in, which no compiler fuses with the addition), then + lo. A lane whose guess is
// not confirmed — a value within an ulp or so of an edge, rare — goes through numpy_bin_index itself, so every
// id is numpy_bin_index's. dpt/cpu/histogram_bins.hpp runs it across the cores.
#pragma once

#include <cstddef>
#include <type_traits>

#include <dpt/config.hpp>
#include <dpt/cpu/cpu_features.hpp>
#include <dpt/histogram_bins.hpp>

namespace dpt::cpu {

// Whether map_bins_avx512 takes values through InputIt, ids through OutputIt, mapped by BinIndex (the CPU may
// still lack AVX-512): raw pointers to float values and int ids, float values with float bounds.
template <class InputIt, class OutputIt, class BinIndex>
inline constexpr bool can_map_bins_avx512_v = DPT_HAVE_AVX512&& std::is_pointer_v<InputIt>&&
    std::is_same_v<std::remove_cv_t<std::remove_pointer_t<InputIt>>, float>&& std::is_same_v<OutputIt, int*>&&
        std::is_same_v<BinIndex, numpy_bin_index<float, float>>;

#if DPT_HAVE_AVX512

// Masks of every lane, for the maskz forms of intrinsics: GCC 12's unmasked forms start from _mm512_undefined_*()
// and warn that it may be used uninitialized.
inline constexpr __mmask16 every_lane = 0xffff;
inline constexpr __mmask8 every_half_lane = 0xff, every_quarter_lane = 0xf;

// Lanes 8·Half … 8·Half + 7 of x, widened to double.
template <int Half>
DPT_TARGET_AVX512 inline __m512d widen_half(__m512 x) {
  const __m256d half = _mm512_maskz_extractf64x4_pd(every_quarter_lane, _mm512_castps_pd(x), Half);
  return _mm512_maskz_cvtps_pd(every_half_lane, _mm256_castpd_ps(half));
}

// Edge b of every lane: float(b)·step, rounded to nearest by itself, + lo (numpy_bin_index::edge for b < K).
DPT_TARGET_AVX512 inline __m512 edges_avx512(__m512i bin, __m512 step, __m512 lo) {
  return _mm512_add_ps(_mm512_maskz_mul_round_ps(every_lane, _mm512_maskz_cvtepi32_ps(every_lane, bin), step,
                                                 _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC),
                       lo);
}

// ids[i] = bin_of(values[i]) for i in [0, n), 16 values per step. Call only when cpu_has_avx512().
DPT_TARGET_AVX512 inline void map_bins_avx512(const float* values, std::ptrdiff_t n,
                                              const numpy_bin_index<float, float>& bin_of, int* ids) {
  std::ptrdiff_t i = 0;
  if (bin_of.guess_scale != 0) {
    const __m512 first_edge = _mm512_set1_ps(bin_of.edge(0)), last_edge = _mm512_set1_ps(bin_of.edge(bin_of.bins));
    const __m512 lo = _mm512_set1_ps(bin_of.lo), step = _mm512_set1_ps(bin_of.step);
    const __m512d scale = _mm512_set1_pd(bin_of.guess_scale), bin_count = _mm512_set1_pd(bin_of.bins);
    const __m512i last_bin = _mm512_set1_epi32(bin_of.bins - 1), one = _mm512_set1_epi32(1);
    const __m512i below_slot = _mm512_set1_epi32(bin_of.below_slot()),
                  above_slot = _mm512_set1_epi32(bin_of.above_slot()), nan_slot = _mm512_set1_epi32(bin_of.nan_slot());
    for (; i + 16 <= n; i += 16) {
      const __m512 x = _mm512_loadu_ps(values + i);
      // dropped: NaN, below the first edge, above the last
      const __mmask16 nan = _mm512_cmp_ps_mask(x, x, _CMP_UNORD_Q);
      const __mmask16 below = _mm512_cmp_ps_mask(x, first_edge, _CMP_LT_OQ);
      const __mmask16 above = _mm512_cmp_ps_mask(x, last_edge, _CMP_GT_OQ);
      // guess: ⌊(x − lo)·scale⌋ in double, eight lanes per half; K − 1 where it is K or more
      const __m512 offset = _mm512_sub_ps(x, lo);
      const __m512d low_half = _mm512_mul_pd(widen_half<0>(offset), scale);
      const __m512d high_half = _mm512_mul_pd(widen_half<1>(offset), scale);
      const __mmask16 below_k = static_cast<__mmask16>(_mm512_cmp_pd_mask(low_half, bin_count, _CMP_LT_OQ) |
                                                       (_mm512_cmp_pd_mask(high_half, bin_count, _CMP_LT_OQ) << 8));
      const __m512i floors = _mm512_maskz_inserti64x4(
          every_half_lane, _mm512_castsi256_si512(_mm512_maskz_cvttpd_epi32(every_half_lane, low_half)),
          _mm512_maskz_cvttpd_epi32(every_half_lane, high_half), 1);
      const __m512i guess = _mm512_mask_blend_epi32(below_k, last_bin, floors);
      // confirm: edge g ≤ x, and x < edge g + 1 unless g is the last bin
      const __mmask16 last = _mm512_cmpeq_epi32_mask(guess, last_bin);
      const __mmask16 under = _mm512_cmp_ps_mask(x, edges_avx512(guess, step, lo), _CMP_LT_OQ);
      const __mmask16 over = _mm512_mask_cmp_ps_mask(static_cast<__mmask16>(~last), x,
                                                     edges_avx512(_mm512_add_epi32(guess, one), step, lo), _CMP_GE_OQ);
      const __mmask16 dropped = nan | below | above;
      const __mmask16 unsure = static_cast<__mmask16>((under | over) & ~dropped);
      __m512i id = _mm512_mask_mov_epi32(guess, below, below_slot);
      id = _mm512_mask_mov_epi32(id, above, above_slot);
      id = _mm512_mask_mov_epi32(id, nan, nan_slot);
      _mm512_storeu_si512(ids + i, id);
      // the guesses not confirmed: NumPy's own steps, one value at a time
      for (unsigned lanes = unsure; lanes != 0; lanes &= lanes - 1) {
        const int lane = __builtin_ctz(lanes);
        ids[i + lane] = bin_of(values[i + lane]);
      }
    }
  }
  for (; i < n; ++i) ids[i] = bin_of(values[i]);
}

#endif

}  // namespace dpt::cpu
