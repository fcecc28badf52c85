// dpt-spmv --check's reference: y = A·x by a sequential double-precision CSR loop, with what each row's
// rounding-error bound needs, and the comparison of an answer ŷ with it (≤ 1 of the bound in every row passes).
//
//   A = [[2, 0], [1, 3]] (general), x = [1, 1]  →  y = [2, 4], Σ|a||x| = [2, 4], terms = [1, 2]
//   ŷ = [2, 4 + 1e-3] in double                 →  worst error/bound ≫ 1: the check fails
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <vector>

#include "app_support/matrix_market.hpp"
#include "app_support/rounding_error.hpp"

namespace dpt::app {

// The reference: every stored entry (and its mirror image) placed into rows by a sequential counting sort,
// then one double-precision dot product per row. Also returns, per row, what the error bound needs.
struct spmv_reference {
  std::vector<double> y;               // A·x in double
  std::vector<double> magnitude;       // Σ |a_k|·|x_k| over the row
  std::vector<double> largest_factor;  // max over the row of max(|a_k|, |x_k|)
  std::vector<std::int64_t> terms;     // entries in the row before duplicates are summed
};

inline spmv_reference reference_spmv(const dpt::mtx::coo_matrix& m, const std::vector<double>& x) {
  struct entry {
    std::int64_t row, col;
    double value;
  };
  std::vector<entry> entries;
  for (std::size_t k = 0; k < m.values.size(); ++k) {
    const auto i = m.row_indices[k], j = m.column_indices[k];
    entries.push_back({i, j, m.values[k]});
    if (m.kind != dpt::mtx::symmetry::general && i != j) {
      entries.push_back({j, i, m.kind == dpt::mtx::symmetry::symmetric ? m.values[k] : -m.values[k]});
    }
  }
  const auto rows = static_cast<std::size_t>(m.rows);
  std::vector<std::int64_t> offsets(rows + 1, 0);
  for (const auto& e : entries) ++offsets[static_cast<std::size_t>(e.row) + 1];
  for (std::size_t r = 0; r < rows; ++r) offsets[r + 1] += offsets[r];
  std::vector<std::int64_t> cols(entries.size()), next(offsets.begin(), offsets.end() - 1);
  std::vector<double> values(entries.size());
  for (const auto& e : entries) {
    const auto k = static_cast<std::size_t>(next[static_cast<std::size_t>(e.row)]++);
    cols[k] = e.col;
    values[k] = e.value;
  }
  spmv_reference ref{std::vector<double>(rows), std::vector<double>(rows), std::vector<double>(rows),
                     std::vector<std::int64_t>(rows)};
  for (std::size_t r = 0; r < rows; ++r) {
    for (auto k = static_cast<std::size_t>(offsets[r]); k < static_cast<std::size_t>(offsets[r + 1]); ++k) {
      const double a = values[k], xk = x[static_cast<std::size_t>(cols[k])];
      ref.y[r] += a * xk;
      ref.magnitude[r] += std::fabs(a) * std::fabs(xk);
      ref.largest_factor[r] = std::max({ref.largest_factor[r], std::fabs(a), std::fabs(xk)});
    }
    ref.terms[r] = offsets[r + 1] - offsets[r];
  }
  return ref;
}

struct spmv_check_result {
  double max_relative_error = 0;  // max |ŷ − y| / |y| over rows with y ≠ 0
  double worst_ratio = 0;         // max |ŷ − y| / bound over all rows: ≤ 1 passes
};

// Why the bound holds. Row i's m_i terms a_k·x_k reach ŷ_i through at most m_i + 2 roundings in the working
// precision (unit roundoff u): a_k and x_k converted to Value (exact for double), one multiplication, and
// m_i − 1 additions — duplicates summed by coo_to_csr, then the row's segmented sum — in whatever order the
// backend chooses. So |ŷ_i − y_i| ≤ γ_{m_i+2}(u)·Σ|a_k||x_k| (Higham, Accuracy and Stability of Numerical
// Algorithms, §3.1). The reference itself is computed in double and is off by at most γ_{m_i}(u_double) times
// the same sum, which is added. Underflow is the exception to relative bounds: each conversion, product or
// addition that lands below the smallest normal number may lose up to the smallest subnormal spacing
// absolutely, scaled by at most the row's largest factor — a term m_i·denorm_min·(2 + largest) covers it.
// Finally ×1.01 absorbs the rounding in computing Σ|a||x| and the bound itself in double.
template <class Value>
spmv_check_result check_against_reference(const spmv_reference& ref, const std::vector<double>& y) {
  const double u = std::numeric_limits<Value>::epsilon() / 2, u_double = std::numeric_limits<double>::epsilon() / 2;
  const double tiny = std::numeric_limits<Value>::denorm_min();
  spmv_check_result result;
  for (std::size_t r = 0; r < y.size(); ++r) {
    const double error = std::fabs(y[r] - ref.y[r]);
    const auto m = ref.terms[r];
    const double bound =
        1.01 * ((rounding_gamma(static_cast<double>(m + 2), u) + rounding_gamma(static_cast<double>(m), u_double)) *
                    ref.magnitude[r] +
                static_cast<double>(m) * tiny * (2 + ref.largest_factor[r]));
    const double ratio = error == 0 ? 0 : (bound > 0 ? error / bound : std::numeric_limits<double>::infinity());
    result.worst_ratio =
        std::max(result.worst_ratio, std::isnan(ratio) ? std::numeric_limits<double>::infinity() : ratio);
    if (ref.y[r] != 0) result.max_relative_error = std::max(result.max_relative_error, error / std::fabs(ref.y[r]));
  }
  return result;
}

}  // namespace dpt::app
