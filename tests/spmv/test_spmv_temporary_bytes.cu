// What one product, plan or conversion costs: the bytes it takes through a counting allocator against
// dpt::spmv_temporary_bytes, spmv_by_row_ids_temporary_bytes, make_spmv_plan_temporary_bytes,
// planned_spmv_temporary_bytes and coo_to_csr_temporary_bytes
// (test_support/counting_allocator.hpp), the calls after the first through a dpt::context, which must allocate
// nothing, and the Thrust calls and host reads each makes against the budget its header states
// (test_support/counting_policy.hpp).
#include <catch2/catch.hpp>

#include <cstddef>
#include <cstdint>
#include <thrust/device_vector.h>
#include <thrust/host_vector.h>

#include <dpt/coo_to_csr.hpp>
#include <dpt/spmv.hpp>
#include <dpt/spmv_plan.hpp>
#include "test_support/counting_allocator.hpp"
#include "test_support/counting_policy.hpp"

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

// n triplets scattered over n / 2 + 1 rows and a few columns, unsorted, with repeats; and room for their CSR form.
template <class Index>
struct triplets_and_csr {
  explicit triplets_and_csr(std::ptrdiff_t n)
      : rows(n / 2 + 1), coo_values(n, 1.0f), offsets(rows + 1), columns(n), values(n) {
    thrust::host_vector<Index> row_ids(n), column_ids(n);
    for (std::ptrdiff_t k = 0; k < n; ++k) {
      row_ids[k] = static_cast<Index>(k * 7919 % rows);
      column_ids[k] = static_cast<Index>(k % 13);
    }
    coo_rows = row_ids;
    coo_cols = column_ids;
  }
  std::ptrdiff_t rows;
  thrust::device_vector<Index> coo_rows, coo_cols;
  thrust::device_vector<float> coo_values;
  thrust::device_vector<Index> offsets, columns;
  thrust::device_vector<float> values;
};

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
    check_scratch([&](const auto& policy) { dpt::make_spmv_plan(policy, A); },
                  dpt::make_spmv_plan_temporary_bytes<Index>(rows, nnz));
    const auto plan = dpt::make_spmv_plan(thrust::device, A);
    CHECK(static_cast<std::size_t>(plan.row_ids.size() + plan.nonempty_rows.size()) * sizeof(Index) <=
          dpt::spmv_plan_bytes<Index>(rows, nnz));
    check_scratch([&](const auto& policy) { dpt::spmv(policy, plan, A, x.data(), y.data()); },
                  dpt::planned_spmv_temporary_bytes<Index, double>(rows, nnz));
  }
}

TEMPLATE_TEST_CASE(
    "coo_to_csr_temporary_bytes bounds what the conversion takes from its policy, and a context serves it again",
    "[spmv][temporary_bytes][context]" DPT_BACKEND_TAG, std::int32_t, std::int64_t) {
  using Index = TestType;
  for (const std::ptrdiff_t n : dpt::test::temporary_bytes_sizes) {
    CAPTURE(n);
    triplets_and_csr<Index> t(n);
    check_scratch(
        [&](const auto& policy) {
          dpt::coo_to_csr(policy, t.coo_rows.begin(), t.coo_rows.end(), t.coo_cols.begin(), t.coo_values.begin(),
                          t.rows, t.offsets.begin(), t.columns.begin(), t.values.begin());
        },
        dpt::coo_to_csr_temporary_bytes<Index, float>(n));
  }
}

TEMPLATE_TEST_CASE("spmv, spmv_row_per_thread and coo_to_csr stay within their budgets of Thrust calls and host reads",
                   "[spmv][budget]" DPT_BACKEND_TAG, std::int32_t, std::int64_t) {
  using Index = TestType;
  using dpt::test::calls_of;
  using dpt::test::check_budget;
  using dpt::test::counted;
  using dpt::test::primitive_calls;
  for (const std::ptrdiff_t rows : dpt::test::temporary_bytes_sizes) {
    CAPTURE(rows);
    for (const bool empty_rows : {false, true}) {
      CAPTURE(empty_rows);
      // every row with two entries, or the odd rows empty
      thrust::host_vector<Index> host_offsets(rows + 1);
      for (std::ptrdiff_t r = 0; r <= rows; ++r)
        host_offsets[r] = static_cast<Index>(empty_rows ? (r + 1) / 2 * 2 : 2 * r);
      const thrust::device_vector<Index> offsets = host_offsets;
      const auto nnz = static_cast<std::ptrdiff_t>(host_offsets.back());
      const thrust::device_vector<Index> columns(nnz, Index(0));
      const thrust::device_vector<double> values(nnz, 1.0), x(1, 2.0);
      thrust::device_vector<double> y(rows);
      const auto A = dpt::make_csr_view(counted(offsets), counted(columns), counted(values), rows, 1, nnz);
      // no rows: nothing; no entries: y = 0; otherwise fill, scatter and scan the row ids, ask whether any row is
      // empty (read), reduce by row (read), and with empty rows zero y and scatter the non-empty rows' sums into it
      bool has_empty_rows = false;
      for (std::ptrdiff_t r = 0; r < rows; ++r)
        has_empty_rows = has_empty_rows || host_offsets[r] == host_offsets[r + 1];
      const primitive_calls row_ids_budget = rows == 0        ? primitive_calls{0, 0}
                                             : nnz == 0       ? primitive_calls{1, 0}
                                             : has_empty_rows ? primitive_calls{7, 2}
                                                              : primitive_calls{5, 2};
      check_budget("spmv_by_row_ids",
                   calls_of([&](auto policy) { dpt::spmv_by_row_ids(policy, A, counted(x), counted(y)); }),
                   row_ids_budget);
      check_budget("spmv", calls_of([&](auto policy) { dpt::spmv(policy, A, counted(x), counted(y)); }),
                   row_ids_budget);
      // a plan: fill, scatter and scan the row ids, ask whether a row is empty (read), and with empty rows list
      // the rows that have entries (reduce_by_key, read)
      const primitive_calls plan_budget = rows == 0 || nnz == 0 ? primitive_calls{0, 0}
                                          : has_empty_rows      ? primitive_calls{5, 2}
                                                                : primitive_calls{4, 1};
      check_budget("make_spmv_plan", calls_of([&](auto policy) { dpt::make_spmv_plan(policy, A); }), plan_budget);
      // a product with it: the reduction, and with empty rows a zeroed y first. The reduction is
      // thrust::reduce_by_key on CPP (its run count read), CUB's ReduceByKey on CUDA (not a Thrust call, nothing
      // read back)
      const primitive_calls reduction = DPT_CUDA_DEVICE_SYSTEM ? primitive_calls{0, 0} : primitive_calls{1, 1};
      const primitive_calls planned_budget = rows == 0  ? primitive_calls{0, 0}
                                             : nnz == 0 ? primitive_calls{1, 0}
                                             : has_empty_rows
                                                 ? primitive_calls{reduction.calls + 1, reduction.host_reads}
                                                 : reduction;
      const auto plan = dpt::make_spmv_plan(dpt::test::counting_policy{}, A);
      check_budget("spmv with a plan",
                   calls_of([&](auto policy) { dpt::spmv(policy, plan, A, counted(x), counted(y)); }), planned_budget);
      // one transform over the rows
      check_budget("spmv_row_per_thread",
                   calls_of([&](auto policy) { dpt::spmv_row_per_thread(policy, A, counted(x), counted(y)); }), {1, 0});
    }
  }
  for (const std::ptrdiff_t n : dpt::test::temporary_bytes_sizes) {
    CAPTURE(n);
    triplets_and_csr<Index> t(n);
    // copy, sort, reduce the repeats (read: how many distinct entries), search the row starts
    check_budget("coo_to_csr", calls_of([&](auto policy) {
                   dpt::coo_to_csr(policy, counted(t.coo_rows), counted(t.coo_rows) + n, counted(t.coo_cols),
                                   counted(t.coo_values), t.rows, counted(t.offsets), counted(t.columns),
                                   counted(t.values));
                 }),
                 {4, 1});
  }
}
