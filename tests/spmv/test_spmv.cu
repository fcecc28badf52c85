// dpt::spmv (with and without a plan), spmv_by_row_ids and spmv_row_per_thread against a sequential CSR loop, on random
// matrices of awkward shapes and on every real matrix in data/matrices, for float and double values and 32- and 64-bit
// indices.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdint>
#include <map>
#include <random>
#include <string>
#include <thrust/count.h>
#include <thrust/device_vector.h>
#include <thrust/execution_policy.h>
#include <thrust/host_vector.h>
#include <thrust/sequence.h>
#include <utility>
#include <vector>

#include <dpt/spmv.hpp>
#include <dpt/spmv_plan.hpp>
#include "spmv/reference.hpp"
#include "app_support/device_csr.hpp"
#include "test_support/matrix_dir.hpp"
#include "test_support/random_inputs.hpp"
#include "app_support/matrix_market.hpp"
#include "test_support/sliced_cpu_policy.hpp"
#include "test_support/to_std.hpp"

namespace {

struct host_csr {
  std::int64_t rows = 0, cols = 0;
  std::vector<std::int64_t> offsets{0}, columns;
  std::vector<double> values;
};

struct shape {
  const char* name;
  std::int64_t rows, cols;
  int mean_row_length;                // 0: no entries at all
  double empty_row_fraction;          // > 0 also empties the last two rows
  bool empty_columns;                 // only every third column is used
  std::int64_t first_row_length = 0;  // > 0: row 0 has this many entries (one long row among short ones)
};

// ±m/16 for m uniform in 1..16: never zero, so that every term of a row counts, and every product is a multiple of
// 2^-8 below 1 in magnitude. A row's partial sums, in whatever order they are formed, are then multiples of 2^-8
// no larger than the row's Σ|a||x|: exact in float while that stays below 2^16 (exact_in_float checks it), so
// float and double results must equal the reference exactly, and a lost or wrong term always shows.
double exact_value(std::mt19937_64& rng) {
  std::uniform_int_distribution<int> numerator(1, 16);
  std::bernoulli_distribution negative(0.5);
  const double v = numerator(rng) / 16.0;
  return negative(rng) ? -v : v;
}

host_csr random_csr(const shape& s, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::bernoulli_distribution empty(s.empty_row_fraction);
  std::uniform_int_distribution<int> length(1, 2 * std::max(s.mean_row_length, 1) - 1);
  std::uniform_int_distribution<std::int64_t> column(0, std::max<std::int64_t>(s.cols - 1, 0));
  host_csr A;
  A.rows = s.rows;
  A.cols = s.cols;
  for (std::int64_t r = 0; r < s.rows; ++r) {
    const bool is_empty =
        s.cols == 0 || s.mean_row_length == 0 || empty(rng) || (s.empty_row_fraction > 0 && r >= s.rows - 2);
    const std::int64_t n = is_empty ? 0 : (r == 0 && s.first_row_length > 0) ? s.first_row_length : length(rng);
    for (std::int64_t k = 0; k < n; ++k) {
      const auto c = column(rng);
      A.columns.push_back(s.empty_columns ? c / 3 * 3 : c);
      A.values.push_back(exact_value(rng));
    }
    A.offsets.push_back(static_cast<std::int64_t>(A.values.size()));
  }
  return A;
}

// The sequential reference: one dot product per row, in double.
dpt::test::reference_product reference_spmv(const host_csr& A, const std::vector<double>& x) {
  dpt::test::reference_product ref{std::vector<double>(static_cast<std::size_t>(A.rows)),
                                   std::vector<double>(static_cast<std::size_t>(A.rows)),
                                   std::vector<std::int64_t>(static_cast<std::size_t>(A.rows))};
  for (std::size_t r = 0; r < static_cast<std::size_t>(A.rows); ++r) {
    for (auto k = static_cast<std::size_t>(A.offsets[r]); k < static_cast<std::size_t>(A.offsets[r + 1]); ++k) {
      const double term = A.values[k] * x[static_cast<std::size_t>(A.columns[k])];
      ref.y[r] += term;
      ref.magnitude[r] += std::fabs(term);
    }
    ref.terms[r] = A.offsets[r + 1] - A.offsets[r];
  }
  return ref;
}

template <class T>
std::vector<double> to_double(const thrust::device_vector<T>& d) {
  const thrust::host_vector<T> h = d;
  return std::vector<double>(h.begin(), h.end());
}

// y from every dpt variant: dpt::spmv (on OMP and TBB the multicore flat form), the Thrust composition it runs
// on CUDA and CPP, one task per row, and dpt::spmv with the matrix's plan. y starts as 7777 everywhere, so a row that a
// variant forgets to write shows.
struct both_results {
  std::vector<double> lecture, composition, row_per_thread, planned;
};

template <class Index, class Value, class View>
both_results run_both(const View& A, const std::vector<double>& x_host) {
  const thrust::device_vector<Value> x(x_host.begin(), x_host.end());
  thrust::device_vector<Value> y(static_cast<std::size_t>(A.rows), Value(7777));
  both_results results;
  const auto run = [&](std::vector<double>& result, auto variant) {
    thrust::fill(y.begin(), y.end(), Value(7777));
    const auto end = variant(thrust::device, A, x.data(), y.data());
    REQUIRE(end - y.data() == A.rows);
    result = to_double(y);
  };
  run(results.lecture, [](auto&&... args) { return dpt::spmv(args...); });
  run(results.composition, [](auto&&... args) { return dpt::spmv_by_row_ids(args...); });
  run(results.row_per_thread, [](auto&&... args) { return dpt::spmv_row_per_thread(args...); });
  const auto plan = dpt::make_spmv_plan(thrust::device, A);
  run(results.planned, [&plan](const auto& policy, auto&&... args) { return dpt::spmv(policy, plan, args...); });
  return results;
}

template <class Index, class Value>
both_results run_both(const host_csr& A, const std::vector<double>& x) {
  const thrust::device_vector<Index> offsets(A.offsets.begin(), A.offsets.end()),
      columns(A.columns.begin(), A.columns.end());
  const thrust::device_vector<Value> values(A.values.begin(), A.values.end());
  const auto view = dpt::make_csr_view(offsets.data(), columns.data(), values.data(), A.rows, A.cols,
                                       static_cast<std::ptrdiff_t>(A.values.size()));
  return run_both<Index, Value>(view, x);
}

// Every row of a matrix and x from exact_value sums exactly in float: Σ|a||x| · 2^8 < 2^24.
bool exact_in_float(const dpt::test::reference_product& ref) {
  return std::all_of(ref.magnitude.begin(), ref.magnitude.end(), [](double m) { return m < 65536; });
}

// y must equal the reference row for row (for inputs from exact_value, whose sums do not round).
void check_rows_exactly(const std::vector<double>& y, const dpt::test::reference_product& ref) {
  REQUIRE(exact_in_float(ref));
  REQUIRE(y.size() == ref.y.size());
  int reported = 0;
  for (std::size_t r = 0; r < y.size(); ++r) {
    if (y[r] != ref.y[r] && reported++ < 5) {
      FAIL_CHECK("row " << r << ": computed " << y[r] << ", exact " << ref.y[r] << " (" << ref.terms[r] << " terms)");
    }
  }
  CHECK(reported == 0);
}

// y within rounding of the reference row for row (for the real matrices' values, which round in float).
template <class Value>
void check_rows(const std::vector<double>& y, const dpt::test::reference_product& ref) {
  REQUIRE(y.size() == ref.y.size());
  int reported = 0;
  for (std::size_t r = 0; r < y.size(); ++r) {
    if (!dpt::test::within_rounding<Value>(y[r], r, ref) && reported++ < 5) {
      FAIL_CHECK("row " << r << ": computed " << y[r] << ", reference " << ref.y[r] << " (" << ref.terms[r]
                        << " terms)");
    }
  }
  CHECK(reported == 0);
}

std::vector<double> random_x(std::int64_t n, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<double> x(static_cast<std::size_t>(n));
  for (auto& v : x) v = exact_value(rng);
  return x;
}

}  // namespace

#define DPT_SPMV_TYPES                                                                                    \
  (std::pair<double, std::int32_t>), (std::pair<float, std::int32_t>), (std::pair<double, std::int64_t>), \
      (std::pair<float, std::int64_t>)

TEMPLATE_TEST_CASE("spmv computes the lecture's example", "[spmv]" DPT_BACKEND_TAG, DPT_SPMV_TYPES) {
  using Value = typename TestType::first_type;
  using Index = typename TestType::second_type;
  host_csr A;
  A.rows = A.cols = 4;
  A.offsets = {0, 2, 3, 4, 7};
  A.columns = {0, 2, 1, 2, 1, 2, 3};
  A.values = {3, 1, 2, 4, 2, 6, 8};
  const auto y = run_both<Index, Value>(A, {1, 2, 3, 4});
  CHECK(y.lecture == std::vector<double>{6, 4, 12, 54});
  CHECK(y.composition == std::vector<double>{6, 4, 12, 54});
  CHECK(y.row_per_thread == std::vector<double>{6, 4, 12, 54});
  CHECK(y.planned == std::vector<double>{6, 4, 12, 54});
}

// A policy whose dpt::spmv is the Thrust composition, which a plan serves: the GPU itself on CUDA, the serial
// system on the CPU builds (their device vectors are host memory).
#if DPT_CUDA_DEVICE_SYSTEM
const auto& composition_policy = thrust::device;
#else
const auto& composition_policy = thrust::cpp::par;
#endif

TEST_CASE("the row-id composition and its plan refuse more rows than the column index type can count",
          "[spmv]" DPT_BACKEND_TAG) {
  // one entry, 2, in column 0 of every row; short columns count up to 32767 rows
  const std::ptrdiff_t rows = GENERATE(32767, 32768);
  CAPTURE(rows);
  thrust::device_vector<std::int32_t> offsets(rows + 1);
  thrust::sequence(offsets.begin(), offsets.end());
  const thrust::device_vector<short> columns(rows, 0);
  const thrust::device_vector<double> values(rows, 2.0), x(1, 3.0);
  thrust::device_vector<double> y(rows, -1.0);
  const auto A = dpt::make_csr_view(offsets.begin(), columns.begin(), values.begin(), rows, 1, rows);
  const auto compose = [&] { dpt::spmv_by_row_ids(thrust::device, A, x.begin(), y.begin()); };
  const auto plan = [&] { return dpt::make_spmv_plan(composition_policy, A); };
  if (rows == 32767) {
    compose();
    CHECK(thrust::count(y.begin(), y.end(), 6.0) == rows);
    CHECK(plan().row_ids.size() == static_cast<std::size_t>(rows));
  } else {
    const char* refusal = "spmv: 32768 rows are more than the column index type can count (it holds the row ids)";
    CHECK_THROWS_WITH(compose(), refusal);
    CHECK_THROWS_WITH(plan(), refusal);
  }
}

TEMPLATE_TEST_CASE("spmv matches the sequential reference on random matrices", "[spmv]" DPT_BACKEND_TAG,
                   DPT_SPMV_TYPES) {
  using Value = typename TestType::first_type;
  using Index = typename TestType::second_type;
  const auto s = GENERATE(values<shape>({
      {"0 x 0", 0, 0, 3, 0, false},
      {"no rows", 0, 5, 3, 0, false},
      {"no columns", 5, 0, 3, 0, false},
      {"no entries", 97, 31, 0, 0, false},
      {"1 x 1", 1, 1, 1, 0, false},
      {"one row", 1, 1009, 300, 0, false},
      {"one column", 1009, 1, 1, 0, false},
      {"empty rows (the last two too) and empty columns", 1009, 997, 5, 0.3, true},
      {"almost every row empty", 65537, 31, 2, 0.99, false},
      {"tall", 65537, 31, 3, 0, false},
      {"wide", 31, 65537, 2000, 0.1, true},
      {"one long row among short ones", 1009, 100003, 2, 0.1, false, 100003},
      {"large", 100003, 100003, 10, 0.01, false},
  }));
  INFO(s.name);
  const auto A = random_csr(s, 17 + static_cast<std::uint64_t>(s.rows));
  const auto x = random_x(s.cols, 5);
  const auto ref = reference_spmv(A, x);
  // the four forms checked in one pass (as sections, each would rebuild the matrix and run all four again)
  const auto y = run_both<Index, Value>(A, x);
  for (const auto& [form, result] :
       {std::pair{"dpt::spmv, the lecture's flat form", &y.lecture},
        std::pair{"the Thrust composition: gather, map, row ids, reduce_by_key", &y.composition},
        std::pair{"one task per row", &y.row_per_thread}, std::pair{"dpt::spmv with the matrix's plan", &y.planned}}) {
    INFO(form);
    check_rows_exactly(*result, ref);
  }
}

TEMPLATE_TEST_CASE("a plan made once serves every product of its matrix, and refuses another matrix",
                   "[spmv][plan]" DPT_BACKEND_TAG, DPT_SPMV_TYPES) {
  using Value = typename TestType::first_type;
  using Index = typename TestType::second_type;
  const auto s = GENERATE(values<shape>({
      {"no empty rows", 1009, 997, 5, 0, false},
      {"empty rows (the last two too)", 1009, 997, 5, 0.3, true},
      {"almost every row empty", 4099, 31, 2, 0.99, false},
      {"no entries", 97, 31, 0, 0, false},
  }));
  INFO(s.name);
  const auto A = random_csr(s, 41 + static_cast<std::uint64_t>(s.rows));
  // what the plan must know: the row of every entry and the rows that have entries
  std::vector<Index> row_ids, nonempty_rows;
  for (std::int64_t r = 0; r < A.rows; ++r) {
    row_ids.insert(row_ids.end(), static_cast<std::size_t>(A.offsets[r + 1] - A.offsets[r]), static_cast<Index>(r));
    if (A.offsets[r + 1] > A.offsets[r]) nonempty_rows.push_back(static_cast<Index>(r));
  }
  const bool has_empty_rows = static_cast<std::int64_t>(nonempty_rows.size()) < A.rows && !row_ids.empty();
  const thrust::device_vector<Index> offsets(A.offsets.begin(), A.offsets.end()),
      columns(A.columns.begin(), A.columns.end());
  const thrust::device_vector<Value> values(A.values.begin(), A.values.end());
  const auto view = dpt::make_csr_view(offsets.data(), columns.data(), values.data(), A.rows, A.cols,
                                       static_cast<std::ptrdiff_t>(A.values.size()));
  const auto plan = dpt::make_spmv_plan(composition_policy, view);

  SECTION("the plan holds the row ids and the rows that have entries") {
    CHECK(plan.has_row_ids);
    CHECK(plan.has_empty_rows == has_empty_rows);
    CHECK(dpt::test::to_std(plan.row_ids) == row_ids);
    if (has_empty_rows) CHECK(dpt::test::to_std(plan.nonempty_rows) == nonempty_rows);
  }
  SECTION("three vectors x through one plan, each product right") {
    for (const std::uint64_t seed : {1, 2, 3}) {
      const auto x_double = random_x(A.cols, seed);
      const thrust::device_vector<Value> x(x_double.begin(), x_double.end());
      thrust::device_vector<Value> y(static_cast<std::size_t>(A.rows), Value(7777));
      CHECK(dpt::spmv(composition_policy, plan, view, x.data(), y.data()) == y.data() + A.rows);
      check_rows_exactly(to_double(y), reference_spmv(A, x_double));
    }
  }
  SECTION("a matrix of another shape is refused") {
    const thrust::device_vector<Value> x(static_cast<std::size_t>(A.cols), Value(1));
    thrust::device_vector<Value> y(static_cast<std::size_t>(A.rows));
    auto other = view;
    --other.rows;
    CHECK_THROWS_WITH(dpt::spmv(composition_policy, plan, other, x.data(), y.data()),
                      "spmv: the plan was made for a matrix of another shape");
  }
  SECTION("a plan made for OpenMP or TBB, which holds nothing, is refused by a policy that needs row ids") {
    const auto device_plan = dpt::make_spmv_plan(thrust::device, view);
    CHECK(device_plan.has_row_ids == !dpt::cpu::handles_device_system_v);
    if (!device_plan.has_row_ids) {
      const thrust::device_vector<Value> x(static_cast<std::size_t>(A.cols), Value(1));
      thrust::device_vector<Value> y(static_cast<std::size_t>(A.rows));
      CHECK_THROWS_WITH(dpt::spmv(composition_policy, device_plan, view, x.data(), y.data()),
                        "spmv: the plan was made for a policy that needs no row ids (OpenMP or TBB)");
    }
  }
}

namespace {

// The facts that data/matrices/SOURCES.md lists for each file (checked there with SciPy).
struct data_matrix {
  const char* file;
  std::int64_t rows, cols, stored, expanded, empty_rows;
};

// A file of data/matrices read and mirrored into the reference's ordered map once per run: the test case below
// runs once per section and value type, and reading bcsstk33's 300,321 entries eight times dominated the
// sanitizer build's test time.
struct read_matrix_and_reference {
  dpt::mtx::coo_matrix matrix;
  dpt::test::sparse_map entries;
};

const read_matrix_and_reference& read_once(const std::string& file) {
  static std::map<std::string, read_matrix_and_reference> read;
  auto found = read.find(file);
  if (found == read.end()) {
    auto m = dpt::mtx::read_matrix(dpt::test::matrix_dir() + "/" + file);
    auto entries = dpt::test::reference_matrix(m);
    found = read.emplace(file, read_matrix_and_reference{std::move(m), std::move(entries)}).first;
  }
  return found->second;
}

}  // namespace

TEMPLATE_TEST_CASE("spmv matches the sequential reference on every matrix in data/matrices",
                   "[spmv][data]" DPT_BACKEND_TAG, DPT_SPMV_TYPES) {
  using Value = typename TestType::first_type;
  using Index = typename TestType::second_type;
  // every matrix, except those beyond the sanitizer build's size cap there (luxembourg_osm, bcsstk33)
  const auto tested_here = [](const data_matrix& matrix) {
    return !dpt::test::sanitized_build || matrix.expanded <= static_cast<std::int64_t>(dpt::test::sanitized_size_cap);
  };
  const auto expected = GENERATE_COPY(filter(tested_here, values<data_matrix>({
                                                              {"1138_bus.mtx", 1138, 1138, 2596, 4054, 0},
                                                              {"bcsstk01.mtx", 48, 48, 224, 400, 0},
                                                              {"west0067.mtx", 67, 67, 294, 294, 0},
                                                              {"lp_ship04l.mtx", 402, 2166, 6380, 6380, 42},
                                                              {"karate.mtx", 34, 34, 78, 156, 0},
                                                              {"curtis54.mtx", 54, 54, 291, 291, 0},
                                                              {"ca-GrQc.mtx", 5242, 5242, 14496, 28980, 0},
                                                              {"jazz.mtx", 198, 198, 2742, 5484, 0},
                                                              {"luxembourg_osm.mtx", 114599, 114599, 119666, 239332, 0},
                                                              {"bcsstk33.mtx", 8738, 8738, 300321, 591904, 0},
                                                          })));
  INFO(expected.file);
  const auto& [m, entries] = read_once(expected.file);
  CHECK(m.rows == expected.rows);
  CHECK(m.cols == expected.cols);
  CHECK(m.stored_entries() == expected.stored);

  const auto A = dpt::app::to_device_csr<Index, Value>(m);
  CHECK(A.nnz() == expected.expanded);
  REQUIRE(static_cast<std::int64_t>(entries.size()) == A.nnz());

  SECTION("the CSR structure equals the mirrored, ordered entries") {
    const thrust::host_vector<Index> offsets = A.row_offsets, columns = A.column_indices;
    const thrust::host_vector<Value> values = A.values;
    std::vector<std::int64_t> empty_rows;
    for (std::int64_t r = 0; r < m.rows; ++r) {
      if (offsets[r] == offsets[r + 1]) empty_rows.push_back(r + 1);  // 1-based, as SOURCES.md lists them
    }
    CHECK(static_cast<std::int64_t>(empty_rows.size()) == expected.empty_rows);
    if (std::string(expected.file) == "lp_ship04l.mtx") {
      CHECK(empty_rows == std::vector<std::int64_t>{7,   9,   10,  11,  12,  18,  20,  21,  22,  23,  71,
                                                    82,  119, 120, 128, 139, 143, 144, 157, 168, 205, 206,
                                                    214, 225, 229, 230, 243, 254, 291, 292, 300, 311, 315,
                                                    316, 329, 340, 377, 378, 386, 397, 401, 402});
    }
    std::size_t k = 0;
    bool same = offsets[0] == 0;
    for (const auto& [position, value] : entries) {
      same = same && offsets[position.first] <= static_cast<Index>(k) &&
             static_cast<Index>(k) < offsets[position.first + 1] && columns[k] == position.second &&
             values[k] == static_cast<Value>(value);
      ++k;
    }
    CHECK(same);
  }
  SECTION("y = A x for random x, and for x = 1 (exact for these integer-valued sums)") {
    const auto x = random_x(m.cols, 23);
    const auto ref = dpt::test::reference_spmv(entries, m.rows, x);
    const auto y = run_both<Index, Value>(A.view(), x);
    check_rows<Value>(y.lecture, ref);
    check_rows<Value>(y.composition, ref);
    check_rows<Value>(y.row_per_thread, ref);
    check_rows<Value>(y.planned, ref);
    if (m.value_field != dpt::mtx::field::real) {
      const std::vector<double> ones(static_cast<std::size_t>(m.cols), 1.0);
      const auto exact = dpt::test::reference_spmv(entries, m.rows, ones);
      CHECK(run_both<Index, Value>(A.view(), ones).lecture == exact.y);
    }
    if (std::string(expected.file) == "lp_ship04l.mtx") {
      CHECK(y.lecture[400] == 0);
      CHECK(y.lecture[401] == 0);
    }
  }
}

TEMPLATE_TEST_CASE("a matrix with no stored entries becomes an empty CSR of its shape, whatever its symmetry",
                   "[spmv]" DPT_BACKEND_TAG, DPT_SPMV_TYPES) {
  using Value = typename TestType::first_type;
  using Index = typename TestType::second_type;
  dpt::mtx::coo_matrix m;
  m.kind = GENERATE(dpt::mtx::symmetry::general, dpt::mtx::symmetry::symmetric, dpt::mtx::symmetry::skew_symmetric);
  m.rows = GENERATE(0, 1, 3);
  m.cols = m.rows;
  const auto A = dpt::app::to_device_csr<Index, Value>(m);  // copies nothing: ASan and UBSan see no null reference
  CHECK(A.nnz() == 0);
  const thrust::host_vector<Index> offsets = A.row_offsets;
  CHECK(std::vector<Index>(offsets.begin(), offsets.end()) ==
        std::vector<Index>(static_cast<std::size_t>(m.rows) + 1, 0));
  const auto y = run_both<Index, Value>(A.view(), std::vector<double>(static_cast<std::size_t>(m.cols), 1.0));
  const std::vector<double> zeros(static_cast<std::size_t>(m.rows), 0.0);
  CHECK(y.lecture == zeros);
  CHECK(y.composition == zeros);
  CHECK(y.row_per_thread == zeros);
  CHECK(y.planned == zeros);
}

TEMPLATE_TEST_CASE("the multicore flat spmv gives every row its sum however the slices cut the rows",
                   "[spmv][slices]" DPT_BACKEND_TAG, DPT_SPMV_TYPES) {
  using Value = typename TestType::first_type;
  using Index = typename TestType::second_type;
  const std::ptrdiff_t slice_length = GENERATE(from_range(dpt::test::tiny_slice_lengths));
  host_csr A;
  SECTION("empty rows first, between and last, rows of 1 to 3 entries") {
    A.rows = 7;
    A.cols = 5;
    A.offsets = {0, 0, 0, 3, 3, 4, 4, 4};
    A.columns = {0, 2, 4, 1};
    A.values = {1, 2, 3, 4};
  }
  SECTION("random shapes") {
    const auto s = GENERATE(values<shape>({
        {"no entries", 97, 31, 0, 0, false},
        {"1 x 1", 1, 1, 1, 0, false},
        {"one row", 1, 1009, 300, 0, false},
        {"empty rows (the last two too) and empty columns", 1009, 997, 5, 0.3, true},
        {"almost every row empty", 4099, 31, 2, 0.99, false},
        {"one long row among short ones", 1009, 3001, 2, 0.1, false, 3001},
    }));
    INFO(s.name);
    A = random_csr(s, 29 + static_cast<std::uint64_t>(s.rows));
  }
  CAPTURE(A.rows, A.values.size(), slice_length);
  const std::vector<Index> offsets(A.offsets.begin(), A.offsets.end()), columns(A.columns.begin(), A.columns.end());
  const std::vector<Value> values(A.values.begin(), A.values.end());
  const auto x_double = random_x(A.cols, 31);
  const std::vector<Value> x(x_double.begin(), x_double.end());
  std::vector<Value> y(static_cast<std::size_t>(A.rows), Value(7777));
  const auto view = dpt::make_csr_view(offsets.data(), columns.data(), values.data(), A.rows, A.cols,
                                       static_cast<std::ptrdiff_t>(values.size()));

  const auto end =
      dpt::cpu::spmv(dpt::test::sliced_cpu_policy, view, x.data(), y.data(), {dpt::test::tiny_slices(slice_length)});
  CHECK(end == y.data() + A.rows);
  check_rows_exactly(std::vector<double>(y.begin(), y.end()), reference_spmv(A, x_double));
}

// Each row's products a_k·x_k in Value, added one after another from 0: the sequential CSR loop, whose bits dpt's
// CPU form promises.
template <class Value>
std::vector<Value> sequential_rows(const host_csr& A, const std::vector<Value>& values, const std::vector<Value>& x) {
  std::vector<Value> y(static_cast<std::size_t>(A.rows));
  for (std::size_t r = 0; r < y.size(); ++r) {
    Value sum = 0;
    for (auto k = static_cast<std::size_t>(A.offsets[r]); k < static_cast<std::size_t>(A.offsets[r + 1]); ++k) {
      sum += values[k] * x[static_cast<std::size_t>(A.columns[k])];
    }
    y[r] = sum;
  }
  return y;
}

TEMPLATE_TEST_CASE("the multicore flat spmv adds each row's products in entry order, whatever the slices",
                   "[spmv][slices]" DPT_BACKEND_TAG, DPT_SPMV_TYPES) {
  using Value = typename TestType::first_type;
  using Index = typename TestType::second_type;
  // values and x that round (uniform in [-1, 1)): another order of the additions gives other bits
  const auto s = GENERATE(values<shape>({
      {"rows of 1 to 9 entries", 2003, 1009, 5, 0.1, false},
      {"one row of 3001 entries among short ones", 1009, 3001, 2, 0.1, false, 3001},
      {"one row only", 1, 4099, 4099, 0, false},
  }));
  const std::ptrdiff_t slice_length = GENERATE(1, 7, 64, 1000);
  CAPTURE(s.name, slice_length);
  host_csr A = random_csr(s, 41 + static_cast<std::uint64_t>(s.rows));
  std::mt19937_64 rng(43);
  std::uniform_real_distribution<double> uniform(-1.0, 1.0);
  for (auto& v : A.values) v = uniform(rng);
  const std::vector<Index> offsets(A.offsets.begin(), A.offsets.end()), columns(A.columns.begin(), A.columns.end());
  const std::vector<Value> values(A.values.begin(), A.values.end());
  std::vector<Value> x(static_cast<std::size_t>(A.cols));
  for (auto& v : x) v = static_cast<Value>(uniform(rng));
  const auto view = dpt::make_csr_view(offsets.data(), columns.data(), values.data(), A.rows, A.cols,
                                       static_cast<std::ptrdiff_t>(values.size()));

  std::vector<Value> y(static_cast<std::size_t>(A.rows), Value(7777));
  dpt::cpu::spmv(dpt::test::sliced_cpu_policy, view, x.data(), y.data(), {dpt::test::tiny_slices(slice_length)});
  const auto expected = sequential_rows(A, values, x);
  std::size_t differing = 0;
  for (std::size_t r = 0; r < y.size(); ++r) {
    if (y[r] != expected[r] && differing++ < 5)
      FAIL_CHECK("row " << r << ": " << std::hexfloat << y[r] << ", in order " << expected[r]);
  }
  CHECK(differing == 0);
}
