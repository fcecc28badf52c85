// dpt::spmv_temporary_bytes, spmv_by_row_ids_temporary_bytes and coo_to_csr_temporary_bytes against what the calls
// take through a counting allocator (test_support/counting_allocator.hpp), and the calls after the first through a
// dpt::context, which must allocate nothing.
#include <catch2/catch.hpp>

#include <cstddef>
#include <cstdint>
#include <thrust/device_vector.h>
#include <thrust/host_vector.h>

#include <dpt/coo_to_csr.hpp>
#include <dpt/spmv.hpp>
#include "test_support/counting_allocator.hpp"

namespace {

using dpt::test::check_scratch;

// n rows, the even ones with two entries and the odd ones empty: the row-id composition's largest case, a
// (row, sum) pair per non-empty row.
template <class Index>
thrust::device_vector<Index> half_empty_row_offsets(std::ptrdiff_t rows) {
  thrust::host_vector<Index> offsets(rows + 1);
  for (std::ptrdiff_t r = 0; r <= rows; ++r) offsets[r] = static_cast<Index>((r + 1) / 2 * 2);
  return offsets;
}

}  // namespace

TEMPLATE_TEST_CASE("the spmv queries bound what the products take from their policy, and a context serves it again",
                   "[spmv][temporary_bytes][context]" DPT_BACKEND_TAG, std::int32_t, std::int64_t) {
  using Index = TestType;
  for (const std::ptrdiff_t rows : dpt::test::temporary_bytes_sizes) {
    CAPTURE(rows);
    const thrust::device_vector<Index> offsets = half_empty_row_offsets<Index>(rows);
    const auto nnz = static_cast<std::ptrdiff_t>(offsets.back());
    const thrust::device_vector<Index> columns(nnz, Index(0));
    const thrust::device_vector<double> values(nnz, 1.0), x(1, 2.0);
    thrust::device_vector<double> y(rows);
    const auto A = dpt::make_csr_view(offsets.data(), columns.data(), values.data(), rows, 1, nnz);
    check_scratch([&](const auto& policy) { dpt::spmv(policy, A, x.data(), y.data()); },
                  dpt::spmv_temporary_bytes<Index, double>(rows, nnz));
    check_scratch([&](const auto& policy) { dpt::spmv_by_row_ids(policy, A, x.data(), y.data()); },
                  dpt::spmv_by_row_ids_temporary_bytes<Index, double>(rows, nnz));
  }
}

TEMPLATE_TEST_CASE(
    "coo_to_csr_temporary_bytes bounds what the conversion takes from its policy, and a context serves it again",
    "[spmv][temporary_bytes][context]" DPT_BACKEND_TAG, std::int32_t, std::int64_t) {
  using Index = TestType;
  for (const std::ptrdiff_t n : dpt::test::temporary_bytes_sizes) {
    CAPTURE(n);
    // rows scattered over n / 2 + 1 rows, a few columns: unsorted, with repeats
    const std::ptrdiff_t rows = n / 2 + 1;
    thrust::host_vector<Index> row_ids(n), column_ids(n);
    for (std::ptrdiff_t k = 0; k < n; ++k) {
      row_ids[k] = static_cast<Index>(k * 7919 % rows);
      column_ids[k] = static_cast<Index>(k % 13);
    }
    const thrust::device_vector<Index> coo_rows = row_ids, coo_cols = column_ids;
    const thrust::device_vector<float> coo_values(n, 1.0f);
    thrust::device_vector<Index> offsets(rows + 1), columns(n);
    thrust::device_vector<float> values(n);
    check_scratch(
        [&](const auto& policy) {
          dpt::coo_to_csr(policy, coo_rows.begin(), coo_rows.end(), coo_cols.begin(), coo_values.begin(), rows,
                          offsets.begin(), columns.begin(), values.begin());
        },
        dpt::coo_to_csr_temporary_bytes<Index, float>(n));
  }
}
