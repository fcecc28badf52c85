// dpt-spmv --check's reference and its rounding-error bound, beside the app they serve: the reference reproduces
// hand-worked products of every symmetry with repeated entries, y summed in another order (in float or double)
// passes, and a y off by a small fraction of a row's Σ|a||x|, or NaN, fails.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <vector>

#include "spmv/spmv_check.hpp"
#include "test_support/matrix_dir.hpp"
#include "app_support/matrix_market.hpp"

namespace {

using dpt::mtx::coo_matrix;
using dpt::mtx::symmetry;

coo_matrix matrix(std::int64_t rows, symmetry kind, std::vector<std::int64_t> r, std::vector<std::int64_t> c,
                  std::vector<double> v) {
  coo_matrix m;
  m.rows = m.cols = rows;
  m.kind = kind;
  m.row_indices = std::move(r);
  m.column_indices = std::move(c);
  m.values = std::move(v);
  return m;
}

// y = A·x in Value, each row's terms added last to first (the reference adds them first to last, in double).
template <class Value>
std::vector<double> backwards_spmv(const coo_matrix& m, const std::vector<double>& x) {
  std::vector<std::vector<Value>> terms(static_cast<std::size_t>(m.rows));
  for (std::size_t k = 0; k < m.values.size(); ++k) {
    const auto i = static_cast<std::size_t>(m.row_indices[k]), j = static_cast<std::size_t>(m.column_indices[k]);
    const auto a = static_cast<Value>(m.values[k]);
    terms[i].push_back(a * static_cast<Value>(x[j]));
    if (m.kind != symmetry::general && i != j) {
      terms[j].push_back((m.kind == symmetry::symmetric ? a : -a) * static_cast<Value>(x[i]));
    }
  }
  std::vector<double> y;
  for (const auto& row : terms) {
    Value sum = 0;
    for (auto t = row.rbegin(); t != row.rend(); ++t) sum += *t;
    y.push_back(sum);
  }
  return y;
}

// A general matrix with 0 to 60 entries per row (empty rows and repeated entries included), values in [-1, 1].
coo_matrix random_matrix(std::int64_t rows, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_int_distribution<std::int64_t> count(0, 60), column(0, rows - 1);
  std::uniform_real_distribution<double> value(-1, 1);
  coo_matrix m = matrix(rows, symmetry::general, {}, {}, {});
  for (std::int64_t i = 0; i < rows; ++i) {
    for (auto k = count(rng); k > 0; --k) {
      m.row_indices.push_back(i);
      m.column_indices.push_back(column(rng));
      m.values.push_back(value(rng));
    }
  }
  return m;
}

std::vector<double> random_x(std::int64_t n, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> value(-1, 1);
  std::vector<double> x(static_cast<std::size_t>(n));
  for (auto& v : x) v = value(rng);
  return x;
}

}  // namespace

TEST_CASE("dpt-spmv's reference reproduces hand-worked products of every symmetry", "[spmv][app]") {
  SECTION("general, with a repeated entry summed: [[2, 0], [1, 1 + 2]] · [1, 1]") {
    const auto ref =
        dpt::app::reference_spmv(matrix(2, symmetry::general, {0, 1, 1, 1}, {0, 0, 1, 1}, {2, 1, 1, 2}), {1, 1});
    CHECK(ref.y == std::vector<double>{2, 4});
    CHECK(ref.magnitude == std::vector<double>{2, 4});
    CHECK(ref.terms == std::vector<std::int64_t>{1, 3});
  }
  SECTION("symmetric, the lower triangle mirrored: [[4, 1, 0], [1, 0, -2], [0, -2, 0]] · [1, 2, 3]") {
    const auto ref =
        dpt::app::reference_spmv(matrix(3, symmetry::symmetric, {0, 1, 2}, {0, 0, 1}, {4, 1, -2}), {1, 2, 3});
    CHECK(ref.y == std::vector<double>{6, -5, -4});
    CHECK(ref.magnitude == std::vector<double>{6, 7, 4});
    CHECK(ref.largest_factor == std::vector<double>{4, 3, 2});
    CHECK(ref.terms == std::vector<std::int64_t>{2, 2, 1});
  }
  SECTION("skew-symmetric, the mirror negated: [[0, -5], [5, 0]] · [1, 2]") {
    const auto ref = dpt::app::reference_spmv(matrix(2, symmetry::skew_symmetric, {1}, {0}, {5}), {1, 2});
    CHECK(ref.y == std::vector<double>{-10, 5});
    CHECK(ref.terms == std::vector<std::int64_t>{1, 1});
  }
}

TEMPLATE_TEST_CASE("dpt-spmv's check passes y summed in another order and fails a y off by more than its bound",
                   "[spmv][app]", float, double) {
  using Value = TestType;
  const bool real = GENERATE(false, true);
  const coo_matrix m =
      real ? dpt::mtx::read_matrix(dpt::test::matrix_dir() + "/bcsstk33.mtx") : random_matrix(5003, 17);
  const auto x = random_x(m.cols, 23);
  CAPTURE(real);
  const auto ref = dpt::app::reference_spmv(m, x);
  auto y = backwards_spmv<Value>(m, x);
  const auto passed = dpt::app::check_against_reference<Value>(ref, y);
  CHECK(passed.worst_ratio <= 1);
  CHECK(passed.max_relative_error < (sizeof(Value) == 4 ? 1e-2 : 1e-10));
  CHECK(dpt::app::check_against_reference<Value>(ref, ref.y).worst_ratio == 0);

  SECTION("a row off by 1% of its sum of magnitudes fails") {
    std::size_t row = 0;
    while (ref.magnitude[row] == 0) ++row;
    y[row] = ref.y[row] + 0.01 * ref.magnitude[row];
    CHECK(dpt::app::check_against_reference<Value>(ref, y).worst_ratio > 1);
  }
  SECTION("an empty row that is not zero fails") {
    if (!real) {  // the random matrix has empty rows; bcsstk33 has none
      std::size_t row = 0;
      while (ref.terms[row] != 0) ++row;
      y[row] = std::numeric_limits<Value>::denorm_min();
      CHECK(dpt::app::check_against_reference<Value>(ref, y).worst_ratio == std::numeric_limits<double>::infinity());
    }
  }
  SECTION("a NaN fails") {
    y[y.size() / 2] = std::numeric_limits<double>::quiet_NaN();
    CHECK(dpt::app::check_against_reference<Value>(ref, y).worst_ratio == std::numeric_limits<double>::infinity());
  }
}
