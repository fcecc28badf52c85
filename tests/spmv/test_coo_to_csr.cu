// dpt::coo_to_csr and dpt::expand_symmetric against an ordered std::map of (row, col) → summed value.
#include <catch2/catch.hpp>

#include <cstdint>
#include <random>
#include <stdexcept>
#include <thrust/device_vector.h>
#include <thrust/host_vector.h>
#include <vector>

#include <dpt/coo_to_csr.hpp>
#include "spmv/reference.hpp"
#include "test_support/random_inputs.hpp"

namespace {

struct triplets {
  std::int64_t rows = 0, cols = 0;
  std::vector<std::int64_t> row, col;
  std::vector<double> value;
};

// n triplets in random order; with few distinct positions most of them repeat. Values are small integers, so
// every sum is exact whatever order the device adds them in. lower_triangle: only i ≥ j, as symmetric files.
triplets random_triplets(std::size_t n, std::int64_t rows, std::int64_t cols, bool lower_triangle, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_int_distribution<std::int64_t> row(0, rows - 1), col(0, cols - 1);
  std::uniform_int_distribution<int> value(-8, 8);
  triplets t{rows, cols, {}, {}, {}};
  for (std::size_t k = 0; k < n; ++k) {
    auto i = row(rng), j = col(rng);
    if (lower_triangle && i < j) std::swap(i, j);
    t.row.push_back(i);
    t.col.push_back(j);
    t.value.push_back(value(rng));
  }
  return t;
}

struct csr_arrays {
  std::vector<std::int64_t> offsets, columns;
  std::vector<double> values;
  bool operator==(const csr_arrays& o) const {
    return offsets == o.offsets && columns == o.columns && values == o.values;
  }
};

// CSR read off the ordered map: rows in order, columns ascending, one entry per position.
csr_arrays csr_from_map(const dpt::test::sparse_map& entries, std::int64_t rows) {
  csr_arrays csr{std::vector<std::int64_t>(static_cast<std::size_t>(rows) + 1, 0), {}, {}};
  for (const auto& [position, value] : entries) {
    ++csr.offsets[static_cast<std::size_t>(position.first) + 1];
    csr.columns.push_back(position.second);
    csr.values.push_back(value);
  }
  for (std::size_t r = 0; r < static_cast<std::size_t>(rows); ++r) csr.offsets[r + 1] += csr.offsets[r];
  return csr;
}

template <class Index>
csr_arrays device_coo_to_csr(const triplets& t, dpt::mtx::symmetry kind) {
  thrust::device_vector<Index> rows(t.row.begin(), t.row.end()), cols(t.col.begin(), t.col.end());
  thrust::device_vector<double> values(t.value.begin(), t.value.end());
  if (kind != dpt::mtx::symmetry::general) {
    const auto n = t.row.size();
    thrust::device_vector<Index> all_rows(2 * n), all_cols(2 * n);
    thrust::device_vector<double> all_values(2 * n);
    const auto rule =
        kind == dpt::mtx::symmetry::symmetric ? dpt::mirror_rule::symmetric : dpt::mirror_rule::skew_symmetric;
    const auto written = dpt::expand_symmetric(thrust::device, rows.begin(), rows.end(), cols.begin(), values.begin(),
                                               rule, all_rows.begin(), all_cols.begin(), all_values.begin());
    std::size_t off_diagonal = 0;
    for (std::size_t k = 0; k < n; ++k) off_diagonal += t.row[k] != t.col[k];
    CHECK(written == static_cast<std::ptrdiff_t>(n + off_diagonal));
    all_rows.resize(static_cast<std::size_t>(written));
    all_cols.resize(static_cast<std::size_t>(written));
    all_values.resize(static_cast<std::size_t>(written));
    rows.swap(all_rows);
    cols.swap(all_cols);
    values.swap(all_values);
  }
  thrust::device_vector<Index> offsets(static_cast<std::size_t>(t.rows) + 1, Index(-1)), columns(rows.size());
  thrust::device_vector<double> summed(rows.size());
  const auto nnz = dpt::coo_to_csr(thrust::device, rows.begin(), rows.end(), cols.begin(), values.begin(), t.rows,
                                   offsets.begin(), columns.begin(), summed.begin());
  const thrust::host_vector<Index> h_offsets = offsets, h_columns(columns.begin(), columns.begin() + nnz);
  const thrust::host_vector<double> h_values(summed.begin(), summed.begin() + nnz);
  return {std::vector<std::int64_t>(h_offsets.begin(), h_offsets.end()),
          std::vector<std::int64_t>(h_columns.begin(), h_columns.end()),
          std::vector<double>(h_values.begin(), h_values.end())};
}

}  // namespace

TEMPLATE_TEST_CASE("coo_to_csr sorts, sums repeated positions and finds row starts",
                   "[spmv][coo_to_csr]" DPT_BACKEND_TAG, std::int32_t, std::int64_t) {
  const auto n = GENERATE(from_range(dpt::test::interesting_sizes));
  // few positions (almost all repeats), a square root's worth, and many (few repeats, many empty rows)
  const auto extent = GENERATE(as<std::int64_t>{}, 3, 1000, 100003);
  CAPTURE(n, extent);
  const auto t = random_triplets(n, extent, extent + 2, false, 3 + n);
  const auto expected =
      csr_from_map(dpt::test::reference_matrix(t.row, t.col, t.value, dpt::mtx::symmetry::general), t.rows);
  CHECK(device_coo_to_csr<TestType>(t, dpt::mtx::symmetry::general) == expected);
}

TEMPLATE_TEST_CASE("expand_symmetric mirrors each off-diagonal entry once", "[spmv][coo_to_csr]" DPT_BACKEND_TAG,
                   std::int32_t, std::int64_t) {
  const auto n = GENERATE(as<std::size_t>{}, 0, 1, 2, 97, 1009, 65537);
  const auto extent = GENERATE(as<std::int64_t>{}, 1, 5, 1009);
  CAPTURE(n, extent);
  auto t = random_triplets(n, extent, extent, true, 11 + n);
  SECTION("symmetric: a(j, i) = a(i, j), the diagonal not doubled") {
    const auto expected =
        csr_from_map(dpt::test::reference_matrix(t.row, t.col, t.value, dpt::mtx::symmetry::symmetric), t.rows);
    CHECK(device_coo_to_csr<TestType>(t, dpt::mtx::symmetry::symmetric) == expected);
  }
  SECTION("skew-symmetric: a(j, i) = -a(i, j), with a zero diagonal") {
    for (std::size_t k = 0; k < n; ++k) {
      if (t.row[k] == t.col[k]) t.value[k] = 0;
    }
    const auto expected =
        csr_from_map(dpt::test::reference_matrix(t.row, t.col, t.value, dpt::mtx::symmetry::skew_symmetric), t.rows);
    CHECK(device_coo_to_csr<TestType>(t, dpt::mtx::symmetry::skew_symmetric) == expected);
  }
}

TEST_CASE("expand_symmetric mirrors a million stored entries", "[spmv][coo_to_csr][large]" DPT_BACKEND_TAG) {
  const std::size_t n = 1000003;
  const auto t = random_triplets(n, 100003, 100003, true, 17);
  const auto expected =
      csr_from_map(dpt::test::reference_matrix(t.row, t.col, t.value, dpt::mtx::symmetry::symmetric), t.rows);
  CHECK(device_coo_to_csr<std::int64_t>(t, dpt::mtx::symmetry::symmetric) == expected);
}

TEST_CASE("expand_symmetric rejects a skew-symmetric matrix with a non-zero diagonal",
          "[spmv][coo_to_csr]" DPT_BACKEND_TAG) {
  const std::vector<int> rows{1, 2, 2}, cols{0, 2, 1};
  const std::vector<double> values{5, 3, -1};
  const thrust::device_vector<int> d_rows(rows.begin(), rows.end()), d_cols(cols.begin(), cols.end());
  const thrust::device_vector<double> d_values(values.begin(), values.end());
  thrust::device_vector<int> out_rows(6), out_cols(6);
  thrust::device_vector<double> out_values(6);
  CHECK_THROWS_AS(
      dpt::expand_symmetric(thrust::device, d_rows.begin(), d_rows.end(), d_cols.begin(), d_values.begin(),
                            dpt::mirror_rule::skew_symmetric, out_rows.begin(), out_cols.begin(), out_values.begin()),
      std::invalid_argument);
}

TEST_CASE("coo_to_csr of no entries gives all-zero row offsets", "[spmv][coo_to_csr]" DPT_BACKEND_TAG) {
  const auto rows = GENERATE(as<std::int64_t>{}, 0, 1, 5);
  triplets t;
  t.rows = rows;
  t.cols = 3;
  const auto csr = device_coo_to_csr<int>(t, dpt::mtx::symmetry::general);
  CHECK(csr.offsets == std::vector<std::int64_t>(static_cast<std::size_t>(rows) + 1, 0));
  CHECK(csr.columns.empty());
}
