// dpt-histogram --check's reference, and test_histogram's: NumPy 2's histogram counted one value at a time, as
// numpy/lib/_histograms_impl.py counts, with edges this file computes itself from NumPy's algorithm — the data's
// min and max (or the range given), np.linspace, the bin type — and not from dpt's bins or dpt's bin formula; and
// the comparison of an answer with it.
//
//   values 0.1 0.7 0.3 0.9 0.35 0.6 1.4, 4 bins over [0, 1]: edges 0 0.25 0.5 0.75 1
//     →  counts 1 2 2 1, one value above the range
//   an answer 1 2 1 2 first differs in bin 2, [0.5, 0.75): 1 value where the sequential count has 2
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <optional>
#include <ostream>
#include <stdexcept>
#include <sstream>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include <dpt/histogram_bins.hpp>

namespace dpt::app {

// A histogram and the values it dropped, as NumPy drops them.
struct histogram_counts {
  std::vector<unsigned long long> counts;
  unsigned long long below = 0, above = 0, nan = 0;
  unsigned long long dropped() const { return below + above + nan; }
  bool operator==(const histogram_counts& o) const {
    return counts == o.counts && below == o.below && above == o.above && nan == o.nan;
  }
  bool operator!=(const histogram_counts& o) const { return !(*this == o); }
};

inline std::ostream& operator<<(std::ostream& os, const histogram_counts& h) {
  os << "counts [";
  for (std::size_t i = 0; i < h.counts.size(); ++i) os << (i ? ", " : "") << h.counts[i];
  return os << "] below " << h.below << " above " << h.above << " nan " << h.nan;
}

// NumPy's bin type, which values are compared with the edges in: float32 for float32 data, float64 for the rest.
template <class Value>
using numpy_bin_type = std::conditional_t<std::is_same_v<Value, float>, float, double>;

// NumPy's empty range: [v, v] becomes [v − 0.5, v + 0.5], in Bound.
template <class Bound>
std::pair<Bound, Bound> numpy_outer_edges(Bound first, Bound last) {
  if (first == last) return {first - Bound(0.5), last + Bound(0.5)};
  return {first, last};
}

// np.histogram_bin_edges for bounds `first` and `last` of type Bound (double: Python floats; float: np.float32
// scalars), as NumPy 2 computes them: an empty range widened (numpy_outer_edges); np.linspace(first, last, k + 1) in
// Bound, i.e. i·((last − first) / k) + first with each operation rounded, the last edge `last`; each edge rounded to
// BinType. Throws std::invalid_argument, as NumPy 2 does, when the edges are not strictly increasing.
template <class BinType, class Bound>
std::vector<BinType> numpy_linspace_edges(Bound first, Bound last, int k) {
  std::tie(first, last) = numpy_outer_edges(first, last);
  const Bound step = (last - first) / static_cast<Bound>(k);
  std::vector<BinType> edges(k + 1);
  for (int i = 0; i < k; ++i) {
    const Bound offset = static_cast<Bound>(i) * step;
    edges[i] = static_cast<BinType>(static_cast<Bound>(offset + first));
  }
  edges[k] = static_cast<BinType>(last);
  if (std::adjacent_find(edges.begin(), edges.end(), [](BinType a, BinType b) { return a >= b; }) != edges.end()) {
    throw std::invalid_argument("Too many bins for data range. Cannot create " + std::to_string(k) +
                                " finite-sized bins.");
  }
  return edges;
}

// f(first, last) for the bounds of np.histogram(values, bins=k, range=range) in NumPy 2: a range given is a pair
// of Python floats; without one the bounds are 0 and 1 for no values, else the data's min and max in the data's
// type (float32 data keeps float32 bounds, integers become float64). The values must be finite when no range is
// given.
template <class Value, class F>
auto with_numpy_bounds(const std::vector<Value>& values, const std::optional<std::pair<double, double>>& range, F f) {
  if (range) return f(range->first, range->second);
  if (values.empty()) return f(0.0, 1.0);
  const auto [min, max] = std::minmax_element(values.begin(), values.end());
  return f(static_cast<numpy_bin_type<Value>>(*min), static_cast<numpy_bin_type<Value>>(*max));
}

// The edges of np.histogram(values, bins=k, range=range) in NumPy 2 (with_numpy_bounds, numpy_linspace_edges).
template <class Value>
std::vector<numpy_bin_type<Value>> numpy_bin_edges(const std::vector<Value>& values, int k,
                                                   const std::optional<std::pair<double, double>>& range) {
  return with_numpy_bounds(values, range, [k](auto first, auto last) {
    return numpy_linspace_edges<numpy_bin_type<Value>>(first, last, k);
  });
}

// np.histogram(values, bins=k, range=(first, last)) in NumPy 2 with bounds of type Bound, value by value as NumPy
// 2's equal-bins fast path counts: NaN, values below the first edge (−Inf too) and above the last (+Inf too)
// apart; the others guessed in bin ⌊((x − first) / (last − first))·k⌋ (x − first in the bin type, the rest in the
// wider of the bin type and Bound; k − 1 for k), then moved one bin down if below the guessed bin's lower edge, or
// one bin up if on or above its upper edge (except from the last bin). One step only: where the guess is further
// off, as in ranges a few subnormals wide, NumPy's count is not the edges' alone.
template <class Value, class Bound>
histogram_counts sequential_histogram(const std::vector<Value>& values, Bound first, Bound last, int k) {
  using bin_type = numpy_bin_type<Value>;
  using guess_type = std::common_type_t<bin_type, Bound>;
  const auto edges = numpy_linspace_edges<bin_type>(first, last, k);
  std::tie(first, last) = numpy_outer_edges(first, last);
  histogram_counts h;
  h.counts.assign(k, 0);
  for (const Value v : values) {
    const auto x = static_cast<bin_type>(v);
    if (std::isnan(x)) {
      ++h.nan;
    } else if (x < edges[0]) {
      ++h.below;
    } else if (x > edges[k]) {
      ++h.above;
    } else {
      // NumPy's first guess, in NumPy's types (k − 1 for k), then one step by the edges, and no more
      const auto offset = static_cast<guess_type>(x - static_cast<bin_type>(first));
      const guess_type guess = offset / static_cast<guess_type>(last - first) * static_cast<guess_type>(k);
      int bin = guess < k ? static_cast<int>(guess) : k - 1;
      if (x < edges[bin]) {
        --bin;
      } else if (bin != k - 1 && x >= edges[bin + 1]) {
        ++bin;
      }
      ++h.counts[bin];
    }
  }
  return h;
}

// np.histogram(values, bins=k, range=range) in NumPy 2 (with_numpy_bounds).
template <class Value>
histogram_counts sequential_histogram(const std::vector<Value>& values, int k,
                                      const std::optional<std::pair<double, double>>& range) {
  return with_numpy_bounds(values, range,
                           [&](auto first, auto last) { return sequential_histogram(values, first, last, k); });
}

// np.histogram(values, bins=bins.count, range=(bins.lo, bins.hi)) with the bounds of type Bound.
template <class Value, class Bound>
histogram_counts sequential_histogram(const std::vector<Value>& values, const dpt::even_bins<Bound>& bins) {
  return sequential_histogram(values, bins.lo, bins.hi, bins.count);
}

// Where `got` first differs from `expected`, in words ("bin 2, [0.5, 0.75): 1 value where the sequential count
// has 2", "NaN: 0 values where method sort has 1"; `expected_name` names the reference); empty when they agree.
// Bins first (named by their `edges`), then the values below, above and NaN.
template <class Edge>
std::string first_difference(const histogram_counts& got, const histogram_counts& expected,
                             const std::vector<Edge>& edges,
                             const std::string& expected_name = "the sequential count") {
  std::ostringstream os;
  os.precision(9);
  const auto values = [](unsigned long long n) { return std::to_string(n) + (n == 1 ? " value" : " values"); };
  if (got.counts.size() != expected.counts.size()) {
    os << got.counts.size() << " bins where " << expected_name << " has " << expected.counts.size();
    return os.str();
  }
  const int k = static_cast<int>(expected.counts.size());
  for (int b = 0; b < k; ++b) {
    if (got.counts[b] != expected.counts[b]) {
      os << "bin " << b << ", [" << edges[b] << ", " << edges[b + 1] << (b + 1 == k ? "]" : ")") << ": "
         << values(got.counts[b]) << " where " << expected_name << " has " << expected.counts[b];
      return os.str();
    }
  }
  const struct {
    const char* what;
    unsigned long long got, expected;
  } dropped[] = {{"below the range", got.below, expected.below},
                 {"above the range", got.above, expected.above},
                 {"NaN", got.nan, expected.nan}};
  for (const auto& d : dropped) {
    if (d.got != d.expected) {
      return std::string(d.what) + ": " + values(d.got) + " where " + expected_name + " has " +
             std::to_string(d.expected);
    }
  }
  return "";
}

}  // namespace dpt::app
