// dpt-histogram --check's reference, and test_histogram's: NumPy's histogram counted one value at a time, by
// binary search over NumPy's edges — not by dpt's bin formula — and the comparison of an answer with it.
//
//   values 0.1 0.7 0.3 0.9 0.35 0.6 1.4, 4 bins over [0, 1]: edges 0 0.25 0.5 0.75 1
//     →  counts 1 2 2 1, one value above the range
//   an answer 1 2 1 2 first differs in bin 2, [0.5, 0.75): 1 value where the sequential count has 2
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <ostream>
#include <sstream>
#include <string>
#include <type_traits>
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

// NumPy's edges: np.linspace(lo, hi, K + 1), i·step + lo in the bounds' arithmetic, the last edge hi, each rounded
// to the type values are compared in (float for float data, double for everything else, as NumPy's bin type).
template <class Compare, class Bound>
std::vector<Compare> numpy_edges(const dpt::even_bins<Bound>& bins) {
  const int k = bins.count;
  const Bound step = (bins.hi - bins.lo) / static_cast<Bound>(k);
  std::vector<Compare> edges(k + 1);
  for (int i = 0; i < k; ++i) {
    const Bound offset = static_cast<Bound>(i) * step;
    edges[i] = static_cast<Compare>(static_cast<Bound>(offset + bins.lo));
  }
  edges[k] = static_cast<Compare>(bins.hi);
  return edges;
}

// Each value's bin is the one whose half-open interval [edge i, edge i+1) holds it, found by binary search; the
// last bin also takes hi. NaN, values below edge 0 (−Inf too) and above edge K (+Inf too) are counted apart.
// `bins` must have lo < hi: an empty range is widened first (dpt::widen_empty_range), as dpt::histogram does.
template <class Value, class Bound>
histogram_counts sequential_histogram(const std::vector<Value>& values, const dpt::even_bins<Bound>& bins) {
  using compare_type = std::conditional_t<std::is_same_v<Value, float>, float, double>;
  const std::vector<compare_type> edges = numpy_edges<compare_type>(bins);
  const int k = bins.count;
  histogram_counts h;
  h.counts.assign(k, 0);
  for (const Value v : values) {
    const auto x = static_cast<compare_type>(v);
    if (std::isnan(static_cast<double>(x))) {
      ++h.nan;
    } else if (x < edges[0]) {
      ++h.below;
    } else if (x > edges[k]) {
      ++h.above;
    } else if (x == edges[k]) {
      ++h.counts[k - 1];
    } else {
      ++h.counts[std::upper_bound(edges.begin(), edges.end(), x) - edges.begin() - 1];
    }
  }
  return h;
}

// Where `got` first differs from `expected`, in words ("bin 2, [0.5, 0.75): 1 value where the sequential count
// has 2", "NaN: 0 values where method sort has 1"; `expected_name` names the reference); empty when they agree.
// Bins first, then the values below, above and NaN.
template <class Bound>
std::string first_difference(const histogram_counts& got, const histogram_counts& expected,
                             const dpt::even_bins<Bound>& bins,
                             const std::string& expected_name = "the sequential count") {
  std::ostringstream os;
  os.precision(9);
  const auto values = [](unsigned long long n) { return std::to_string(n) + (n == 1 ? " value" : " values"); };
  if (got.counts.size() != expected.counts.size()) {
    os << got.counts.size() << " bins where " << expected_name << " has " << expected.counts.size();
    return os.str();
  }
  const std::vector<double> edges = numpy_edges<double>(bins);
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
