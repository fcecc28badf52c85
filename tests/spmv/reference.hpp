// Host references for the SpMV tests: a sparse matrix as an ordered map from (row, col) to value — built
// one triplet at a time, mirrored and summed by the obvious loop — and y = A·x from it, in double.
#pragma once

#include <cmath>
#include <cstdint>
#include <limits>
#include <map>
#include <utility>
#include <vector>

#include "app_support/matrix_market.hpp"

namespace dpt::test {

using sparse_map = std::map<std::pair<std::int64_t, std::int64_t>, double>;

// Every stored triplet, plus (j, i, ±v) for off-diagonal entries of symmetric files; repeats summed.
inline sparse_map reference_matrix(const std::vector<std::int64_t>& rows, const std::vector<std::int64_t>& cols,
                                   const std::vector<double>& values, dpt::mtx::symmetry kind) {
  sparse_map entries;
  for (std::size_t k = 0; k < values.size(); ++k) {
    entries[{rows[k], cols[k]}] += values[k];
    if (kind != dpt::mtx::symmetry::general && rows[k] != cols[k]) {
      entries[{cols[k], rows[k]}] += kind == dpt::mtx::symmetry::symmetric ? values[k] : -values[k];
    }
  }
  return entries;
}

inline sparse_map reference_matrix(const dpt::mtx::coo_matrix& m) {
  return reference_matrix(m.row_indices, m.column_indices, m.values, m.kind);
}

// y = A·x in double, and per row Σ|a||x| and the number of terms, for error bounds.
struct reference_product {
  std::vector<double> y, magnitude;
  std::vector<std::int64_t> terms;
};

inline reference_product reference_spmv(const sparse_map& entries, std::int64_t rows, const std::vector<double>& x) {
  reference_product ref{std::vector<double>(static_cast<std::size_t>(rows)),
                        std::vector<double>(static_cast<std::size_t>(rows)),
                        std::vector<std::int64_t>(static_cast<std::size_t>(rows))};
  for (const auto& [position, value] : entries) {
    const auto r = static_cast<std::size_t>(position.first);
    const double xv = x[static_cast<std::size_t>(position.second)];
    ref.y[r] += value * xv;
    ref.magnitude[r] += std::fabs(value) * std::fabs(xv);
    ++ref.terms[r];
  }
  return ref;
}

// |computed − y| ≤ (γ_(terms+2) in Value + γ_terms in double)·Σ|a||x| for this row, γ_m = m·u / (1 − m·u) with u
// the unit roundoff: any order of summing `terms` products of A and x rounded to Value (Higham, Accuracy and
// Stability of Numerical Algorithms, §3.1), plus the double reference's own error.
template <class Value>
bool within_rounding(double computed, std::size_t row, const reference_product& ref) {
  const auto gamma = [](double m, double u) { return m * u / (1 - m * u); };
  const double terms = static_cast<double>(ref.terms[row]);
  const double u_value = static_cast<double>(std::numeric_limits<Value>::epsilon()) / 2;
  const double u_double = std::numeric_limits<double>::epsilon() / 2;
  const double bound = (gamma(terms + 2, u_value) + gamma(terms, u_double)) * ref.magnitude[row];
  return std::fabs(computed - ref.y[row]) <= bound;
}

}  // namespace dpt::test
