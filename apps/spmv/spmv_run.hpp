// What dpt-spmv's two forms share — one process (main.cu) and a row block per MPI rank (across_ranks.hpp): reading
// x, refusing products that overflow, the memory a run needs, and rank 0's ending: the check against the sequential
// reference and the --out file. Include it from spmv/main.cu only (it instantiates dpt's device algorithms).
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <limits>
#include <optional>
#include <random>
#include <utility>
#include <string>
#include <vector>

#include <dpt/config.hpp>
#include <dpt/coo_to_csr.hpp>
#include <dpt/spmv.hpp>
#include <dpt/spmv_plan.hpp>
#include "spmv/options.hpp"
#include "spmv/spmv_check.hpp"
#include "app_support/device_csr.hpp"
#include "app_support/errors.hpp"
#include "app_support/matrix_market.hpp"
#include "app_support/memory.hpp"
#include "app_support/output_file.hpp"

namespace dpt::app {

// The scratch dpt's device algorithms report they take from their policy for the stored entries of m, with the
// index and value types run picks: dpt::coo_to_csr's while converting; in the timed runs the matrix's plan and
// what making it or a planned dpt::spmv takes (a symmetric matrix's CSR form holds up to twice its stored entries).
struct device_scratch {
  double conversion, product;
};

template <class Index, class Value>
device_scratch device_scratch_of(const dpt::mtx::coo_matrix& m) {
  const auto entries = static_cast<std::ptrdiff_t>(m.stored_entries());
  const auto nnz = m.kind == dpt::mtx::symmetry::general ? entries : 2 * entries;
  const std::size_t product =
      dpt::spmv_plan_bytes<Index>(m.rows, nnz) + std::max(dpt::make_spmv_plan_temporary_bytes<Index>(m.rows, nnz),
                                                          dpt::planned_spmv_temporary_bytes<Index, Value>(m.rows, nnz));
  return {static_cast<double>(dpt::coo_to_csr_temporary_bytes<Index, Value>(entries)), static_cast<double>(product)};
}

inline device_scratch device_scratch_of(const spmv_options& opt, const dpt::mtx::coo_matrix& m) {
  const bool narrow = dpt::app::index_type_fits<std::int32_t>(m);
  if (opt.single_precision) {
    return narrow ? device_scratch_of<std::int32_t, float>(m) : device_scratch_of<std::int64_t, float>(m);
  }
  return narrow ? device_scratch_of<std::int32_t, double>(m) : device_scratch_of<std::int64_t, double>(m);
}

// What dpt-spmv holds at once, beyond the matrix it has read, phase by phase: R rows, C columns, E stored entries,
// I and V bytes per index and value, and the algorithms' scratch as they report it. A size line may declare
// 10^9 rows over one entry; these let require_memory refuse that before anything is allocated.
inline std::vector<dpt::app::memory_need> spmv_memory_needs(const spmv_options& opt, const dpt::mtx::coo_matrix& m) {
  const double I = dpt::app::index_type_fits<std::int32_t>(m) ? 4 : 8, V = opt.single_precision ? 4 : 8;
  const double R = static_cast<double>(m.rows), C = static_cast<double>(m.cols);
  const double E = static_cast<double>(m.stored_entries());
  const device_scratch scratch = device_scratch_of(opt, m);
  const double x_host = 8 * C, offsets = (R + 1) * I, y_host = R * (V + 8);  // y back as computed, and in double
  const double csr_x_y = offsets + (C + R) * V;  // the timed runs: row offsets, x, y and the product's scratch
  const dpt::app::memory_need runs{x_host + y_host, csr_x_y + scratch.product};
  std::vector<dpt::app::memory_need> needs{
      {x_host + 16 * R, 0},  // refuse_overflow: each row's positive and negative sums
      // to_device_csr: the entries as COO and as CSR, row offsets, the conversion's scratch
      {x_host, E * (3 * I + 2 * V) + offsets + scratch.conversion},
      runs};
  if (opt.check) needs.push_back({runs.host_bytes + 40 * E + 48 * R, csr_x_y});  // + reference_spmv
  return needs;
}

// "A.mtx (3 x 3, 7 stored entries)", for messages about the matrix as a whole.
inline std::string matrix_description(const spmv_options& opt, const dpt::mtx::coo_matrix& m) {
  return opt.matrix_path + " (" + std::to_string(m.rows) + " x " + std::to_string(m.cols) + ", " +
         std::to_string(m.stored_entries()) + (m.stored_entries() == 1 ? " stored entry)" : " stored entries)");
}

inline std::vector<double> make_x(const spmv_options& opt, std::int64_t cols, const dpt::mtx::storage& storage) {
  if (!opt.x_path.empty()) return dpt::mtx::read_vector(opt.x_path, cols, storage);
  std::vector<double> x(static_cast<std::size_t>(cols), 1.0);
  if (opt.x_random) {
    std::mt19937_64 rng(opt.seed);
    std::uniform_real_distribution<double> uniform(-1.0, 1.0);
    for (auto& v : x) v = uniform(rng);
  }
  return x;
}

// Float mode stores A and x as float: a value beyond float's range is an error on its line, not an infinity.
inline const dpt::mtx::storage float_values{std::numeric_limits<float>::max(), "float (use --precision double)"};

// Refuses a product whose rows can overflow Value. A row's terms a_ij·x_j reach y_i in whatever order the
// backend (or the duplicate summing of coo_to_csr) adds them, so a row is safe only while no set of its terms
// sums past Value's range: while its positive terms, and its negative ones, each sum to a finite Value. Summed
// in double, where a sum (or a product) past double's range is an infinity, refused as well.
template <class Value>
void refuse_overflow(const dpt::mtx::coo_matrix& m, const std::vector<double>& x, const std::string& path) {
  const auto rows = static_cast<std::size_t>(m.rows);
  std::vector<double> positive(rows, 0), negative(rows, 0);
  const auto add = [&](std::int64_t i, std::int64_t j, double a) {
    // the factors as the product sees them: rounded to Value
    const double term = static_cast<double>(static_cast<Value>(a)) * static_cast<Value>(x[static_cast<std::size_t>(j)]);
    (term > 0 ? positive : negative)[static_cast<std::size_t>(i)] += std::fabs(term);
  };
  for (std::size_t k = 0; k < m.values.size(); ++k) {
    const auto i = m.row_indices[k], j = m.column_indices[k];
    add(i, j, m.values[k]);
    if (m.kind != dpt::mtx::symmetry::general && i != j)
      add(j, i, m.kind == dpt::mtx::symmetry::symmetric ? m.values[k] : -m.values[k]);
  }
  for (std::size_t r = 0; r < rows; ++r) {
    const bool up = positive[r] >= negative[r];
    const double worst = up ? positive[r] : negative[r];
    if (std::isfinite(static_cast<Value>(worst))) continue;
    char sum[48];  // "to 6e+38", or "past 1.8e+308" when double overflowed too
    std::snprintf(sum, sizeof sum, "%s %s%.3g", std::isfinite(worst) ? "to" : "past", up ? "" : "-",
                  std::isfinite(worst) ? worst : std::numeric_limits<double>::max());
    throw input_error(path + ": row " + std::to_string(r + 1) + " of y = A*x overflows " +
                      (sizeof(Value) == 4 ? "float" : "double") + ": its " + (up ? "positive" : "negative") +
                      " terms a_ij*x_j sum " + sum + (sizeof(Value) == 4 ? " (use --precision double)" : ""));
  }
}

// The first entry of y that is not finite: an overflow refuse_overflow let through, the terms' sums fitting
// and their rounded sum not (at the very edge of the range). Refused as bad input too, before --check or
// --out see it.
inline void refuse_non_finite(const std::vector<double>& y, const std::string& path, const std::string& what) {
  const auto bad = std::find_if(y.begin(), y.end(), [](double v) { return !std::isfinite(v); });
  if (bad != y.end())
    throw input_error(path + ": row " + std::to_string(bad - y.begin() + 1) + " of y = A*x overflows " + what);
}

// Rank 0's ending of a run, whatever computed y: non-finite rows refused, then --check against the sequential
// double CSR loop, printed; returns whether y passed (true without --check) and leaves the reference in `kept`, for
// more checks. The caller writes --out (write_y) and then throws check_failure if a check failed.
template <class Value>
bool check_y(const spmv_options& opt, const dpt::mtx::coo_matrix& m, const std::vector<double>& x,
             const std::vector<double>& y, std::optional<spmv_reference>* kept = nullptr) {
  const std::string rounded =
      sizeof(Value) == 4 ? "float once rounded (use --precision double)" : "double once rounded";
  refuse_non_finite(y, opt.matrix_path, rounded);
  if (!opt.check) return true;
  auto reference = reference_spmv(m, x);
  refuse_non_finite(reference.y, opt.matrix_path, "double in the sequential reference");
  const auto verdict = check_against_reference<Value>(reference, y);
  std::printf("  check:       max relative error %.3e vs a sequential double CSR loop; worst error/bound %.3e: %s\n",
              verdict.max_relative_error, verdict.worst_ratio, verdict.worst_ratio <= 1 ? "ok" : "FAILED");
  if (kept) *kept = std::move(reference);
  return verdict.worst_ratio <= 1;
}

// --out, all of it or nothing: y as a Matrix Market array.
inline void write_y(const spmv_options& opt, const std::vector<double>& y, std::optional<output_file>& out) {
  if (!out) return;
  dpt::mtx::write_vector(out->stream(), y.data(), y.size(), "y = A*x by dpt-spmv for " + opt.matrix_path);
  out->commit();
  std::printf("  wrote:       %s\n", opt.out_path.c_str());
}

}  // namespace dpt::app
