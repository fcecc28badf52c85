// A CSR matrix in device memory, built from a Matrix Market file's entries by dpt's data-parallel conversion:
// mirror the stored triangle of a symmetric file (dpt::expand_symmetric), then sort, sum duplicates and find
// the row offsets (dpt::coo_to_csr). Used by dpt-spmv, the tests and the benchmarks. Include it from `.cu`
// files only (it instantiates Thrust algorithms on the device system).
#pragma once

#include <cstdint>
#include <limits>
#include <stdexcept>
#include <string>
#include <thrust/device_vector.h>
#include <thrust/execution_policy.h>
#include <vector>

#include <dpt/coo_to_csr.hpp>
#include <dpt/spmv.hpp>
#include "app_support/matrix_market.hpp"

namespace dpt::app {

template <class Index, class Value>
struct device_csr {
  std::int64_t rows = 0, cols = 0;
  thrust::device_vector<Index> row_offsets, column_indices;
  thrust::device_vector<Value> values;

  std::int64_t nnz() const { return static_cast<std::int64_t>(values.size()); }
  auto view() const {
    return dpt::make_csr_view(row_offsets.data(), column_indices.data(), values.data(), rows, cols, nnz());
  }
};

// True when Index can hold every row, column and (expanded) entry count of m.
template <class Index>
bool index_type_fits(const mtx::coo_matrix& m) {
  const auto most_entries = m.kind == mtx::symmetry::general ? m.stored_entries() : 2 * m.stored_entries();
  const auto limit = static_cast<std::int64_t>(std::numeric_limits<Index>::max());
  return m.rows < limit && m.cols < limit && most_entries <= limit;
}

// Mirrors symmetric storage and sums duplicate entries on the device. Values are converted to Value on the
// host first (the caller decides whether a float conversion is acceptable). Throws std::length_error if Index
// is too narrow for the matrix.
template <class Index, class Value>
device_csr<Index, Value> to_device_csr(const mtx::coo_matrix& m) {
  if (!index_type_fits<Index>(m)) throw std::length_error("the matrix is too large for its index type");
  const auto stored = static_cast<std::size_t>(m.stored_entries());
  const auto capacity = m.kind == mtx::symmetry::general ? stored : 2 * stored;
  thrust::device_vector<Index> rows(capacity), cols(capacity);
  thrust::device_vector<Value> values(capacity);
  if (stored > 0) {  // Thrust's host-to-device copy takes a reference to the first element, even of none
    const std::vector<Index> host_rows(m.row_indices.begin(), m.row_indices.end()),
        host_cols(m.column_indices.begin(), m.column_indices.end());
    const std::vector<Value> host_values(m.values.begin(), m.values.end());
    thrust::copy(host_rows.begin(), host_rows.end(), rows.begin());
    thrust::copy(host_cols.begin(), host_cols.end(), cols.begin());
    thrust::copy(host_values.begin(), host_values.end(), values.begin());
  }
  std::ptrdiff_t entries = static_cast<std::ptrdiff_t>(stored);
  if (m.kind != mtx::symmetry::general) {
    thrust::device_vector<Index> all_rows(capacity), all_cols(capacity);
    thrust::device_vector<Value> all_values(capacity);
    const auto rule =
        m.kind == mtx::symmetry::symmetric ? dpt::mirror_rule::symmetric : dpt::mirror_rule::skew_symmetric;
    entries = dpt::expand_symmetric(thrust::device, rows.begin(), rows.begin() + entries, cols.begin(), values.begin(),
                                    rule, all_rows.begin(), all_cols.begin(), all_values.begin());
    rows.swap(all_rows);
    cols.swap(all_cols);
    values.swap(all_values);
  }
  device_csr<Index, Value> csr;
  csr.rows = m.rows;
  csr.cols = m.cols;
  csr.row_offsets.resize(static_cast<std::size_t>(m.rows) + 1);
  csr.column_indices.resize(static_cast<std::size_t>(entries));
  csr.values.resize(static_cast<std::size_t>(entries));
  const auto nnz = dpt::coo_to_csr(thrust::device, rows.begin(), rows.begin() + entries, cols.begin(), values.begin(),
                                   m.rows, csr.row_offsets.begin(), csr.column_indices.begin(), csr.values.begin());
  csr.column_indices.resize(static_cast<std::size_t>(nnz));
  csr.values.resize(static_cast<std::size_t>(nnz));
  return csr;
}

}  // namespace dpt::app
