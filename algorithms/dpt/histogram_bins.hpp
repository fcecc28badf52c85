// dpt/histogram_bins.hpp — which of K equal-width bins over [lo, hi] a value falls in, exactly as
// numpy.histogram(a, bins=K, range=(lo, hi)) decides it in NumPy 2.x (numpy/lib/_histograms_impl.py; checked
// against NumPy 2.4.6).
//
//   K = 4 over [0, 1]: edges 0, 0.25, 0.5, 0.75, 1
//   0 → 0,  0.25 → 1 (a value on an inner edge opens the next bin),  0.999 → 3,  1 → 3 (the last bin is closed)
//   −0.1 → below,  1.1 → above,  ±Inf → below/above,  NaN → nan
//
// NumPy's rules, mirrored step by step:
//   * The edges are np.linspace(lo, hi, K + 1): edge[i] = i·step + lo with step = (hi − lo) / K, each operation
//     rounded separately in the arithmetic of the bounds, and edge[K] = hi exactly. The bounds' arithmetic is
//     float64 for a range given as Python floats, and the data's own type for the data's min and max: NumPy 2
//     (NEP 50) keeps np.float32 bounds in float32 inside linspace.
//   * Values are compared with the edges in NumPy's "bin type": float32 for float32 data (the bounds are
//     Python floats, which NumPy treats as weakly typed), float64 for everything else (integers included).
//     The edges are rounded to that type.
//   * A value is kept when edge[0] <= x <= edge[K]. Its bin is first guessed as ⌊((x − lo) / (hi − lo))·K⌋
//     (K − 1 when that gives K), x − lo rounded in the bin type and the rest in the wider of the bin type and
//     the bounds' type, then moved down by one if x < edge[bin] and up by one if x ≥ edge[bin + 1] (unless bin is
//     the last): one step, so a value on an edge lands where the edges say whenever the guess is at most one
//     bin off, and elsewhere where that one step leaves it. The guess is further off where the edges are
//     uneven by whole bins, in ranges a few subnormals wide: 0, 1, …, 7 times 5e-324 in 5 bins have edges
//     0 1 2 3 4 7 (times 5e-324), and 4·5e-324, guessed in bin 2, steps only to bin 3 ([1 1 1 2 3]).
//   * An empty range, lo == hi, is widened to [lo − 0.5, hi + 0.5] in the arithmetic of the bounds, whether
//     the caller gave it or took it from the data (np.histogram([1.0], 2, range=(1, 1)) has edges 0.5, 1, 1.5).
//   * Errors: K < 1; bounds that are not finite; lo > hi; an empty range that widening leaves empty (|v| so
//     large that v ± 0.5 == v, e.g. 1e20); a width hi − lo that overflows; and edges that are not strictly
//     increasing (too many bins for the precision of the range). NumPy 2 refuses the last three with "Too many
//     bins for data range" (a width that overflows gives it NaN and Inf edges; with K = 1 it fails with an
//     IndexError on values whose distance from lo overflows, and counts the others in its one bin; dpt refuses
//     every K).
//
// NumPy 1.24 differs, and dpt follows NumPy 2: it computes linspace in float64 even for float32 bounds (so
// float32 data without a range gets float64 edges rounded to float32, and an empty float32 range is widened in
// float64), and it refuses no edges: bins with collapsed edges get counts that follow no rule (three doubles 1 ulp
// apart in 5 bins: [0 1 0 1 1]), and a range that stays empty or overflows fails with an IndexError.
#pragma once

#include <climits>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <stdexcept>
#include <string>
#include <type_traits>

#include <dpt/config.hpp>
#include <dpt/detail/rounding.hpp>

namespace dpt {

// K equal-width bins over [lo, hi], the last one closed. Bound is the arithmetic the edges are computed in:
// double for a range given by hand (NumPy's Python floats), or the data's own type when the range is the
// data's min and max (NumPy 2 computes np.linspace(a.min(), a.max(), …) in the data's type).
template <class Bound = double>
struct even_bins {
  static_assert(std::is_same_v<Bound, float> || std::is_same_v<Bound, double>, "bounds are float or double");
  int count = 1;
  Bound lo = 0, hi = 1;
};
template <class Bound>
even_bins(int, Bound, Bound) -> even_bins<Bound>;

namespace detail {

// x in the fewest significant digits that read back as x: 1e+20, 0.1, 1.0000000000000002.
template <class Real>
std::string number_text(Real x) {
  char text[32];
  for (int digits = 1;; ++digits) {
    std::snprintf(text, sizeof text, "%.*g", digits, static_cast<double>(x));
    if (digits >= 17 || static_cast<Real>(std::strtod(text, nullptr)) == x) return text;
  }
}

// [lo, hi] for a message, each bound as number_text writes it.
template <class Real>
std::string range_text(Real lo, Real hi) {
  return "[" + number_text(lo) + ", " + number_text(hi) + "]";
}

// a·b + c with both roundings, never fused into one FMA (dpt/detail/rounding.hpp): NumPy multiplies and adds in
// two numpy operations, and a fused edge would move by an ulp.
template <class Real>
DPT_HOST_DEVICE Real multiply_then_add(Real a, Real b, Real c) {
  return multiply_rn(a, b) + c;
}

}  // namespace detail

// The map step of every histogram method, public for callers who want the bin ids themselves.
// Maps a value to its bin 0 … K−1, or to one of three extra slots for the values NumPy drops:
// K (below lo, including −Inf), K + 1 (above hi, including +Inf) and K + 2 (NaN). Every histogram method
// counts K + 3 slots, so the dropped values are counted by the same pass that counts the bins.
template <class Value, class Bound>
struct numpy_bin_index {
  static_assert(std::is_arithmetic_v<Value> && !std::is_same_v<Value, long double>,
                "histogram values are integers, float or double");
  // NumPy's bin type: float32 data stays float32, everything else is compared as float64.
  using compare_type = std::conditional_t<std::is_same_v<Value, float>, float, double>;
  // The type of NumPy's first guess: the bin type divided by hi − lo in the bounds' type.
  using guess_type = std::common_type_t<compare_type, Bound>;

  int bins;
  Bound lo, hi, step;
  guess_type width;    // hi − lo, NumPy's divisor
  double guess_scale;  // K / (hi − lo) for the fast guess; 0 where only NumPy's division will do

  DPT_HOST_DEVICE int below_slot() const { return bins; }
  DPT_HOST_DEVICE int above_slot() const { return bins + 1; }
  DPT_HOST_DEVICE int nan_slot() const { return bins + 2; }

  // np.linspace(lo, hi, K + 1)[i], rounded to the bin type.
  DPT_HOST_DEVICE compare_type edge(int i) const {
    return i == bins ? static_cast<compare_type>(hi)
                     : static_cast<compare_type>(detail::multiply_then_add(static_cast<Bound>(i), step, lo));
  }

  // The bin guessed from g ≈ ((x − lo) / (hi − lo))·K: ⌊g⌋, and K − 1 for K or more (NumPy fails with an
  // IndexError past K, which only float32 values in a range finer than float32 can reach).
  DPT_HOST_DEVICE int guess_bin(double g) const { return g < bins ? static_cast<int>(g) : bins - 1; }

  // NumPy's one step from a guessed bin: down if x is below its lower edge, up if x is on or above its upper one.
  DPT_HOST_DEVICE int step_once(compare_type x, int bin) const {
    if (x < edge(bin)) return bin - 1;
    if (bin != bins - 1 && x >= edge(bin + 1)) return bin + 1;
    return bin;
  }

  // NumPy divides by hi − lo for every value; dpt multiplies by the scale K / (hi − lo), f = (x − lo)·scale, and
  // divides only where the step from ⌊f⌋ moves. That is NumPy's answer exactly:
  //   * ⌊f⌋ and NumPy's guess ⌊g⌋ differ by at most one (K − 1 for either when it is K or more). With t the exact
  //     (x − lo)·K / (hi − lo), x − lo as rounded in both, g = t(1 + a)(1 + b) and f = t(1 + c)(1 + d), where
  //     |a|, |b| ≤ u, the unit roundoff of guess_type, and |c|, |d| ≤ 2⁻⁵³ ≤ u while the scale is a normal
  //     double (make_numpy_bin_index drops the fast guess otherwise). So |f − g| ≤ 4.01·u·t, below 1 for
  //     t ≤ 2K when K ≤ 1 / (16u) (2²⁰ bins for float32 guesses, every int for float64; else the fast guess is
  //     dropped too); for t > 2K both are past K. An underflow, the one rounding without a relative bound, needs
  //     t < 2⁻⁹⁰, where both are 0.
  //   * If the step from ⌊f⌋ stays, x is in bin ⌊f⌋ (the edges rise, as dpt::histogram checks), and NumPy's step
  //     from one bin either side of it moves there.
  DPT_HOST_DEVICE int operator()(Value value) const {
    const auto x = static_cast<compare_type>(value);
    if (x != x) return nan_slot();
    if (x < edge(0)) return below_slot();
    if (x > edge(bins)) return above_slot();
    const auto offset = static_cast<guess_type>(x - static_cast<compare_type>(lo));
    if (guess_scale != 0) {
      const int guess = guess_bin(offset * guess_scale);
      const int bin = step_once(x, guess);
      if (bin == guess) return bin;
    }
    return step_once(x, guess_bin((offset / width) * static_cast<guess_type>(bins)));
  }
};

// NumPy's empty range: [v, v] becomes [v − 0.5, v + 0.5], rounded in the bounds' arithmetic; other bins as given.
template <class Bound>
even_bins<Bound> widen_empty_range(even_bins<Bound> spec) {
  if (spec.lo == spec.hi) {
    spec.lo = spec.lo - Bound(0.5);
    spec.hi = spec.hi + Bound(0.5);
  }
  return spec;
}

// Checks the bins as NumPy does (except for the edges' spacing, which dpt::histogram checks on the device),
// widens an empty range, and returns the mapping; throws std::invalid_argument for K < 1, bounds that are not
// finite, lo > hi, an empty range that widening leaves empty, or a width hi − lo that overflows.
template <class Value, class Bound>
numpy_bin_index<Value, Bound> make_numpy_bin_index(const even_bins<Bound>& given) {
  if (given.count < 1) {
    throw std::invalid_argument("histogram: the number of bins must be at least 1 (got " + std::to_string(given.count) +
                                ")");
  }
  if (given.count > INT_MAX - 3) throw std::invalid_argument("histogram: too many bins");
  const std::string given_range = detail::range_text(given.lo, given.hi);
  if (!std::isfinite(given.lo) || !std::isfinite(given.hi)) {
    throw std::invalid_argument("histogram: the range " + given_range + " is not finite");
  }
  if (given.lo > given.hi) throw std::invalid_argument("histogram: the range " + given_range + " needs lo <= hi");
  const even_bins<Bound> spec = widen_empty_range(given);
  if (!(spec.lo < spec.hi)) {
    throw std::invalid_argument("histogram: the range " + given_range +
                                " is empty, and widening it by 0.5 each way (as NumPy does) leaves it empty at this "
                                "magnitude, so its bins would have zero width (NumPy: too many bins for data range)");
  }
  const Bound width = spec.hi - spec.lo;
  if (!std::isfinite(width)) {
    throw std::invalid_argument("histogram: the range " + given_range + " is too wide: its width hi - lo overflows " +
                                (std::is_same_v<Bound, float> ? "float32" : "float64") +
                                ", so its bins have no finite width");
  }
  const Bound step = width / static_cast<Bound>(spec.count);
  using guess_type = typename numpy_bin_index<Value, Bound>::guess_type;
  // the fast guess is at most one bin from NumPy's for a normal scale and K ≤ 1 / (16u) (numpy_bin_index)
  const double scale = spec.count / static_cast<double>(static_cast<guess_type>(width));
  const bool close = std::isnormal(scale) && spec.count <= 0.125 / std::numeric_limits<guess_type>::epsilon();
  return {spec.count, spec.lo, spec.hi, step, static_cast<guess_type>(width), close ? scale : 0.0};
}

namespace detail {

// True when edge i + 1 is not above edge i: the range is too narrow for the precision of the bin type.
template <class BinIndex>
struct edge_not_increasing {
  BinIndex bin_of;
  DPT_HOST_DEVICE bool operator()(int i) const { return !(bin_of.edge(i) < bin_of.edge(i + 1)); }
};

}  // namespace detail
}  // namespace dpt
