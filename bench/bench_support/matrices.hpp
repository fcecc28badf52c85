// The benchmarks' sparse matrices, in host memory as CSR with int32 indices and double values: the real matrices of
// data/matrices (symmetric files mirrored, each row's columns in order) and generated ones — the 2-D (5-point) and
// 3-D (7-point) Poisson stencils, whose rows are all alike, and a power-law matrix whose row lengths vary wildly.
// Used by bench_spmv (one process) and bench_mpi_spmv (across MPI ranks).
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "app_support/matrix_market.hpp"

namespace dpt::bench {

struct host_csr {
  std::int64_t rows = 0, cols = 0;
  std::vector<int> offsets{0}, columns;
  std::vector<double> values;
  std::int64_t nnz() const { return static_cast<std::int64_t>(values.size()); }
  void add(int column, double value) {
    columns.push_back(column);
    values.push_back(value);
  }
  void end_row() {
    offsets.push_back(static_cast<int>(values.size()));
    ++rows;
  }
};

// The k×k 5-point or k×k×k 7-point Laplacian.
inline host_csr poisson(int k, int dims) {
  host_csr a;
  const std::int64_t n = dims == 2 ? std::int64_t{k} * k : std::int64_t{k} * k * k;
  a.cols = n;
  a.columns.reserve(n * (2 * dims + 1));
  a.values.reserve(n * (2 * dims + 1));
  for (std::int64_t r = 0; r < n; ++r) {
    const std::int64_t i = r % k, j = (r / k) % k, l = r / (std::int64_t{k} * k);
    const std::int64_t plane = std::int64_t{k} * k;
    if (dims == 3 && l > 0) a.add(int(r - plane), -1);
    if (j > 0) a.add(int(r - k), -1);
    if (i > 0) a.add(int(r - 1), -1);
    a.add(int(r), 2.0 * dims);
    if (i + 1 < k) a.add(int(r + 1), -1);
    if (j + 1 < k) a.add(int(r + k), -1);
    if (dims == 3 && l + 1 < k) a.add(int(r + plane), -1);
    a.end_row();
  }
  return a;
}

// Row lengths from a Pareto distribution (alpha 1.5: most rows short, a few with thousands of entries),
// columns uniform. Each row's columns are sorted and distinct, the CSR that cuSPARSE assumes (a column drawn twice
// in a row is kept once).
inline host_csr power_law(std::int64_t target_nnz) {
  const std::int64_t rows = std::max<std::int64_t>(1, target_nnz / 8);
  host_csr a;
  a.cols = rows;
  std::mt19937_64 rng(5);
  std::uniform_real_distribution<double> u(0.0, 1.0);
  std::uniform_int_distribution<int> column(0, int(rows - 1));
  const double alpha = 1.5, smallest = 8.0 * (alpha - 1) / alpha;  // mean 8 before the cap
  for (std::int64_t r = 0; r < rows; ++r) {
    const double length = smallest / std::pow(1.0 - u(rng), 1.0 / alpha);
    const auto entries = std::min<std::int64_t>(rows, std::int64_t(length));
    std::vector<int> row(static_cast<std::size_t>(entries));
    for (auto& c : row) c = column(rng);
    std::sort(row.begin(), row.end());
    row.erase(std::unique(row.begin(), row.end()), row.end());
    for (const int c : row) a.add(c, 1.0 + u(rng));
    a.end_row();
  }
  return a;
}

// A Matrix Market file as CSR, with the implied mirror entries of symmetric files made explicit.
inline host_csr from_file(const std::string& path) {
  const auto coo = dpt::mtx::read_matrix(path);
  const bool mirrored = coo.kind != dpt::mtx::symmetry::general;
  const double mirror_sign = coo.kind == dpt::mtx::symmetry::skew_symmetric ? -1.0 : 1.0;
  std::vector<std::vector<std::pair<int, double>>> rows(coo.rows);
  for (std::int64_t e = 0; e < coo.stored_entries(); ++e) {
    const auto r = coo.row_indices[e], c = coo.column_indices[e];
    rows[r].emplace_back(int(c), coo.values[e]);
    if (mirrored && r != c) rows[c].emplace_back(int(r), mirror_sign * coo.values[e]);
  }
  host_csr a;
  a.cols = coo.cols;
  for (auto& row : rows) {
    std::sort(row.begin(), row.end());
    for (const auto& [c, v] : row) a.add(c, v);
    a.end_row();
  }
  return a;
}

inline std::string millions(std::int64_t nnz) {
  return std::to_string((nnz + 500000) / 1000000) + "M";
}

}  // namespace dpt::bench
