// The Matrix Market reader and writer: what they accept, and a line-numbered error for every kind of bad file.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <limits>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include <unistd.h>

#include "test_support/error_of.hpp"
#include "app_support/errors.hpp"
#include "test_support/matrix_dir.hpp"
#include "app_support/matrix_market.hpp"

namespace {

using dpt::mtx::parse_matrix;
using dpt::mtx::parse_vector;

using dpt::test::error_of;

struct bad_file {
  const char* what;
  const char* text;
  int line;
  const char* message;  // a part of the message after "FILE:LINE: "
};

}  // namespace

TEST_CASE("Matrix Market matrices: every malformed file is an error naming file and line",
          "[spmv][matrix_market]" DPT_BACKEND_TAG) {
  const auto bad = GENERATE(values<bad_file>({
      {"empty file", "", 1, "empty file"},
      {"no header", "3 3 1\n1 1 1\n", 1, "expected the header"},
      {"comment before the header", "% hi\n%%MatrixMarket matrix coordinate real general\n1 1 0\n", 1,
       "expected the header"},
      {"header missing the symmetry", "%%MatrixMarket matrix coordinate real\n1 1 0\n", 1, "expected the header"},
      {"header with an extra word", "%%MatrixMarket matrix coordinate real general extra\n1 1 0\n", 1,
       "'extra' after the header"},
      {"object other than matrix", "%%MatrixMarket vector coordinate real general\n1 1 0\n", 1, "object 'vector'"},
      {"unknown format", "%%MatrixMarket matrix sparse real general\n1 1 0\n", 1, "format 'sparse'"},
      {"complex field", "%%MatrixMarket matrix coordinate complex general\n1 1 0\n", 1, "complex matrices"},
      {"hermitian symmetry", "%%MatrixMarket matrix coordinate real hermitian\n1 1 0\n", 1, "hermitian"},
      {"unknown field", "%%MatrixMarket matrix coordinate quaternion general\n1 1 0\n", 1, "field 'quaternion'"},
      {"unknown symmetry", "%%MatrixMarket matrix coordinate real diagonal\n1 1 0\n", 1, "symmetry 'diagonal'"},
      {"skew-symmetric pattern", "%%MatrixMarket matrix coordinate pattern skew-symmetric\n1 1 0\n", 1,
       "pattern matrix cannot be skew-symmetric"},
      {"array where a matrix is expected", "%%MatrixMarket matrix array real general\n1 1\n1\n", 1,
       "expected a coordinate"},
      {"no size line", "%%MatrixMarket matrix coordinate real general\n% only comments\n\n", 3,
       "missing the size line"},
      {"size line not numeric", "%%MatrixMarket matrix coordinate real general\n% c\n3 x 2\n", 3,
       "'x' is not an integer"},
      {"size line too short", "%%MatrixMarket matrix coordinate real general\n3 3\n", 2, "size line: expected"},
      {"size line too long", "%%MatrixMarket matrix coordinate real general\n3 3 1 9\n1 1 1\n", 2,
       "size line: unexpected '9'"},
      {"negative size", "%%MatrixMarket matrix coordinate real general\n-3 3 0\n", 2, "is negative"},
      {"size out of range", "%%MatrixMarket matrix coordinate real general\n99999999999999999999 3 0\n", 2,
       "out of range"},
      {"row count beyond any CSR array",
       "%%MatrixMarket matrix coordinate real general\n9223372036854775807 9223372036854775807 0\n", 2,
       "row count '9223372036854775807' is too large"},
      {"column count beyond any CSR array", "%%MatrixMarket matrix coordinate real general\n3 1152921504606846975 0\n",
       2, "column count '1152921504606846975' is too large (at most 1152921504606846974"},
      {"entry count beyond any CSR array",
       "%%MatrixMarket matrix coordinate pattern general\n3 3 4611686018427387904\n", 2,
       "entry count '4611686018427387904' is too large"},
      {"non-square symmetric", "%%MatrixMarket matrix coordinate real symmetric\n3 4 0\n", 2, "must be square"},
      {"too few entries", "%%MatrixMarket matrix coordinate real general\n3 3 3\n1 1 1\n2 2 2\n", 4,
       "ends after 2 of the 3 entries declared on line 2"},
      {"too few entries, blank lines at the end", "%%MatrixMarket matrix coordinate real general\n3 3 2\n1 1 1\n\n\n",
       5, "ends after 1 of the 2"},
      {"too many entries", "%%MatrixMarket matrix coordinate real general\n3 3 1\n1 1 1\n% c\n2 2 2\n", 5,
       "more entries than the 1 declared on line 2"},
      {"row index 0", "%%MatrixMarket matrix coordinate real general\n3 3 2\n1 1 1\n0 1 1\n", 4,
       "row index is 0; Matrix Market indices start at 1"},
      {"column index 0", "%%MatrixMarket matrix coordinate real general\n3 3 1\n1 0 1\n", 3, "column index is 0"},
      {"row index too large", "%%MatrixMarket matrix coordinate real general\n3 4 1\n4 1 1\n", 3,
       "row index '4' is out of range 1..3"},
      {"column index too large", "%%MatrixMarket matrix coordinate real general\n3 4 1\n1 5 1\n", 3,
       "column index '5' is out of range 1..4"},
      {"negative index", "%%MatrixMarket matrix coordinate real general\n3 3 1\n-1 1 1\n", 3,
       "row index '-1' is out of range"},
      {"index not a number", "%%MatrixMarket matrix coordinate real general\n3 3 1\n1 a 1\n", 3,
       "column index 'a' is not an integer"},
      {"fractional index", "%%MatrixMarket matrix coordinate real general\n3 3 1\n1.5 1 1\n", 3,
       "row index '1.5' is not an integer"},
      {"missing column", "%%MatrixMarket matrix coordinate pattern general\n3 3 1\n1\n", 3, "missing column index"},
      {"value not a number", "%%MatrixMarket matrix coordinate real general\n3 3 1\n1 1 abc\n", 3,
       "value 'abc' is not a number"},
      {"value with trailing letters", "%%MatrixMarket matrix coordinate real general\n3 3 1\n1 1 2.5x\n", 3,
       "value '2.5x' is not a number"},
      {"missing value", "%%MatrixMarket matrix coordinate real general\n3 3 1\n1 1\n", 3, "missing value"},
      {"integer field with a fraction", "%%MatrixMarket matrix coordinate integer general\n3 3 1\n1 1 2.5\n", 3,
       "value '2.5' is not an integer"},
      {"integer value a double cannot hold",
       "%%MatrixMarket matrix coordinate integer general\n3 3 1\n1 1 9007199254740993\n", 3, "beyond 2^53"},
      {"trailing garbage", "%%MatrixMarket matrix coordinate real general\n3 3 1\n1 1 2.0 junk\n", 3,
       "unexpected 'junk' after the entry"},
      {"pattern entry with a value", "%%MatrixMarket matrix coordinate pattern general\n3 3 1\n1 1 2.0\n", 3,
       "unexpected '2.0'"},
      {"NaN value", "%%MatrixMarket matrix coordinate real general\n3 3 2\n1 1 1\n2 2 nan\n", 4, "not finite"},
      {"infinite value", "%%MatrixMarket matrix coordinate real general\n3 3 1\n1 1 -inf\n", 3, "not finite"},
      {"value overflowing a double", "%%MatrixMarket matrix coordinate real general\n3 3 1\n1 1 1e999\n", 3,
       "overflows a double"},
      {"non-zero skew diagonal", "%%MatrixMarket matrix coordinate real skew-symmetric\n3 3 2\n2 1 1\n2 2 4\n", 4,
       "diagonal entry of a skew-symmetric matrix is not 0"},
      {"error after CRLF lines", "%%MatrixMarket matrix coordinate real general\r\n3 3 2\r\n1 1 1\r\n1 9 1\r\n", 4,
       "out of range 1..3"},
  }));
  INFO(bad.what);
  const auto message = error_of([&] { parse_matrix(bad.text, "bad.mtx"); });
  const auto prefix = "bad.mtx:" + std::to_string(bad.line) + ": ";
  CHECK(message.substr(0, prefix.size()) == prefix);
  CHECK_THAT(message, Catch::Contains(bad.message));
}

TEST_CASE("Matrix Market vectors: every malformed file is an error naming file and line",
          "[spmv][matrix_market]" DPT_BACKEND_TAG) {
  const auto bad = GENERATE(values<bad_file>({
      {"coordinate where a vector is expected", "%%MatrixMarket matrix coordinate real general\n1 1 0\n", 1,
       "expected an array file"},
      {"symmetric array", "%%MatrixMarket matrix array real symmetric\n2 2\n1\n2\n3\n", 1, "must be 'general'"},
      {"pattern array", "%%MatrixMarket matrix array pattern general\n2 1\n", 1, "cannot have the pattern field"},
      {"two columns", "%%MatrixMarket matrix array real general\n2 2\n1\n2\n3\n4\n", 2, "expected one column"},
      {"size line with three numbers", "%%MatrixMarket matrix array real general\n2 1 2\n1\n2\n", 2,
       "size line: unexpected '2'"},
      {"wrong length", "%%MatrixMarket matrix array real general\n% x\n3 1\n1\n2\n3\n", 3,
       "the vector has 3 entries, expected 4"},
      {"too few values", "%%MatrixMarket matrix array real general\n4 1\n1\n2\n3\n", 5, "ends after 3 of the 4"},
      {"too many values", "%%MatrixMarket matrix array real general\n4 1\n1\n2\n3\n4\n5\n", 7, "more entries"},
      {"two values on a line", "%%MatrixMarket matrix array real general\n4 1\n1 2\n3\n4\n5\n", 3,
       "unexpected '2' after the value"},
      {"value not a number", "%%MatrixMarket matrix array real general\n4 1\n1\n2\n--3\n4\n", 5, "not a number"},
      {"NaN value", "%%MatrixMarket matrix array real general\n4 1\n1\n2\n3\nNaN\n", 6, "not finite"},
      {"length beyond any vector", "%%MatrixMarket matrix array real general\n2305843009213693952 1\n1\n", 2,
       "row count '2305843009213693952' is too large"},
  }));
  INFO(bad.what);
  const auto message = error_of([&] { parse_vector(bad.text, "x.mtx", 4); });
  const auto prefix = "x.mtx:" + std::to_string(bad.line) + ": ";
  CHECK(message.substr(0, prefix.size()) == prefix);
  CHECK_THAT(message, Catch::Contains(bad.message));
}

TEST_CASE("Matrix Market values beyond the caller's storage type are an error on their line",
          "[spmv][matrix_market]" DPT_BACKEND_TAG) {
  using dpt::mtx::as_float;
  SECTION("a matrix entry that a float cannot hold") {
    const char* text = "%%MatrixMarket matrix coordinate real general\n3 3 2\n1 1 3e38\n% c\n2 2 -4e38\n";
    CHECK(parse_matrix(text, "a.mtx").values == std::vector<double>{3e38, -4e38});  // fine as doubles
    CHECK(error_of([&] { parse_matrix(text, "a.mtx", as_float); }) == "a.mtx:5: value '-4e38' overflows a float");
  }
  SECTION("a vector entry that a float cannot hold") {
    const char* text = "%%MatrixMarket matrix array real general\n2 1\n1e39\n2\n";
    CHECK(error_of([&] { parse_vector(text, "x.mtx", 2, as_float); }) == "x.mtx:3: value '1e39' overflows a float");
  }
  SECTION("float's largest value itself is accepted") {
    const char* text = "%%MatrixMarket matrix array real general\n1 1\n3.4028234663852886e38\n";
    CHECK(parse_vector(text, "x.mtx", 1, as_float) == std::vector<double>{3.4028234663852886e38});
  }
  SECTION("values above float's largest that round to it are accepted; those that round to infinity are not") {
    // FLT_MAX printed with 9 digits (FLT_DECIMAL_DIG) is above FLT_MAX as a double, and so is everything below
    // the midpoint 2^128 - 2^103 between FLT_MAX and the next power of two; the midpoint rounds to infinity
    // (ties to even).
    const char* text =
        "%%MatrixMarket matrix array real general\n3 1\n3.40282347e+38\n-3.40282347E38\n"
        "3.4028235677973362e38\n";
    const auto v = parse_vector(text, "x.mtx", 3, as_float);
    CHECK(static_cast<float>(v[0]) == std::numeric_limits<float>::max());
    CHECK(static_cast<float>(v[1]) == -std::numeric_limits<float>::max());
    CHECK(static_cast<float>(v[2]) == std::numeric_limits<float>::max());
    CHECK(error_of([&] {
            parse_matrix("%%MatrixMarket matrix coordinate real general\n1 1 1\n1 1 3.4028235677973366e38\n", "a.mtx",
                         as_float);
          }) == "a.mtx:3: value '3.4028235677973366e38' overflows a float");
  }
}

TEST_CASE("Matrix Market files are read as stored", "[spmv][matrix_market]" DPT_BACKEND_TAG) {
  SECTION("a general real file with CRLF, blank lines, comments, signs and exponents") {
    const char* text =
        "%%MatrixMarket Matrix Coordinate Real General\r\n% the lecture's matrix\r\n\r\n  4 4 7  \r\n"
        "1 1 3\r\n1 3 +1.0\r\n% a comment between entries\r\n2 2 2e0\r\n\r\n3 3 0.4E1\r\n4 2 2.\r\n4 3 6\r\n"
        "\t4 4 .8e1";  // no newline at the end
    const auto m = parse_matrix(text, "lecture.mtx");
    CHECK(m.rows == 4);
    CHECK(m.cols == 4);
    CHECK(m.value_field == dpt::mtx::field::real);
    CHECK(m.kind == dpt::mtx::symmetry::general);
    CHECK(m.row_indices == std::vector<std::int64_t>{0, 0, 1, 2, 3, 3, 3});
    CHECK(m.column_indices == std::vector<std::int64_t>{0, 2, 1, 2, 1, 2, 3});
    CHECK(m.values == std::vector<double>{3, 1, 2, 4, 2, 6, 8});
  }
  SECTION("a symmetric pattern file keeps its triangle and gets values 1") {
    const auto m = parse_matrix("%%MatrixMarket matrix coordinate pattern symmetric\n3 3 3\n1 1\n2 1\n3 2\n", "p");
    CHECK(m.kind == dpt::mtx::symmetry::symmetric);
    CHECK(m.value_field == dpt::mtx::field::pattern);
    CHECK(m.row_indices == std::vector<std::int64_t>{0, 1, 2});
    CHECK(m.column_indices == std::vector<std::int64_t>{0, 0, 1});
    CHECK(m.values == std::vector<double>{1, 1, 1});
  }
  SECTION("an integer skew-symmetric file with an explicit zero diagonal and a duplicate") {
    const auto m = parse_matrix(
        "%%MatrixMarket matrix coordinate integer skew-symmetric\n3 3 4\n2 1 -7\n2 2 0\n3 1 5\n3 1 5\n", "s");
    CHECK(m.kind == dpt::mtx::symmetry::skew_symmetric);
    CHECK(m.values == std::vector<double>{-7, 0, 5, 5});
  }
  SECTION("empty shapes: 0 x 0 and no entries") {
    const auto empty = parse_matrix("%%MatrixMarket matrix coordinate real general\n0 0 0\n", "e");
    CHECK(empty.rows == 0);
    CHECK(empty.stored_entries() == 0);
    const auto no_entries = parse_matrix("%%MatrixMarket matrix coordinate real general\n5 7 0\n\n", "e");
    CHECK(no_entries.cols == 7);
    CHECK(no_entries.stored_entries() == 0);
  }
  SECTION("a vector, integer or real, with tiny values that underflow to subnormals") {
    CHECK(parse_vector("%%MatrixMarket matrix array integer general\n3 1\n1\n-2\n3\n", "v") ==
          std::vector<double>{1, -2, 3});
    const auto v = parse_vector("%%MatrixMarket matrix array real general\n2 1\n1e-310\n-2.5e-3\n", "v");
    CHECK(v[0] > 0);
    CHECK(v[0] < std::numeric_limits<double>::min());
    CHECK(v[1] == -2.5e-3);
  }
  SECTION("a real file from data/matrices") {
    const auto m = dpt::mtx::read_matrix(dpt::test::matrix_dir() + "/west0067.mtx");
    CHECK(m.rows == 67);
    CHECK(m.stored_entries() == 294);
  }
  SECTION("data/matrices where DPT_MATRIX_DIR says, as for a build unpacked on another machine") {
    const auto dir = std::filesystem::temp_directory_path() / ("dpt_matrix_dir_" + std::to_string(::getpid()));
    std::filesystem::create_directories(dir);
    std::ofstream(dir / "west0067.mtx") << "%%MatrixMarket matrix coordinate real general\n2 2 1\n1 1 5\n";
    const std::string saved = std::getenv("DPT_MATRIX_DIR") ? std::getenv("DPT_MATRIX_DIR") : "";
    ::setenv("DPT_MATRIX_DIR", dir.c_str(), 1);
    const auto m = dpt::mtx::read_matrix(dpt::test::matrix_dir() + "/west0067.mtx");
    saved.empty() ? ::unsetenv("DPT_MATRIX_DIR") : ::setenv("DPT_MATRIX_DIR", saved.c_str(), 1);
    std::filesystem::remove_all(dir);
    CHECK(m.rows == 2);
    CHECK(m.stored_entries() == 1);
  }
  SECTION("a missing file") {
    CHECK_THAT(error_of([] { dpt::mtx::read_matrix("/nonexistent/a.mtx"); }),
               Catch::StartsWith("/nonexistent/a.mtx: cannot open"));
  }
}

TEST_CASE("Matrix Market output reads back exactly", "[spmv][matrix_market]" DPT_BACKEND_TAG) {
  std::mt19937_64 rng(7);
  std::uniform_real_distribution<double> uniform(-1e6, 1e6);
  SECTION("a vector, with 17 significant digits") {
    const auto n = GENERATE(0, 1, 97);
    std::vector<double> values(static_cast<std::size_t>(n));
    for (auto& v : values) v = uniform(rng) / 3;
    if (n > 0) values[0] = std::numeric_limits<double>::denorm_min();
    std::ostringstream out;
    dpt::mtx::write_vector(out, values.data(), values.size(), "test");
    CHECK(parse_vector(out.str(), "written") == values);
  }
  SECTION("a coordinate matrix") {
    dpt::mtx::coo_matrix m;
    m.rows = 40;
    m.cols = 30;
    std::uniform_int_distribution<std::int64_t> row(0, 39), col(0, 29);
    for (int k = 0; k < 200; ++k) {
      m.row_indices.push_back(row(rng));
      m.column_indices.push_back(col(rng));
      m.values.push_back(uniform(rng) / 7);
    }
    std::ostringstream out;
    dpt::mtx::write_matrix(out, m);
    const auto back = parse_matrix(out.str(), "written");
    CHECK(back.rows == m.rows);
    CHECK(back.cols == m.cols);
    CHECK(back.row_indices == m.row_indices);
    CHECK(back.column_indices == m.column_indices);
    CHECK(back.values == m.values);
  }
  SECTION("a comment with control characters stays one comment line") {
    const std::vector<double> values{6, 4};
    std::ostringstream out;
    dpt::mtx::write_vector(out, values.data(), values.size(), "y for new\nline.mtx\r\x7f\t\xc3\xa9");
    CHECK(out.str() == "%%MatrixMarket matrix array real general\n% y for new?line.mtx???\xc3\xa9\n2 1\n6\n4\n");
    CHECK(parse_vector(out.str(), "written") == values);
    dpt::mtx::coo_matrix m;
    m.rows = m.cols = 1;
    m.row_indices = m.column_indices = {0};
    m.values = {2};
    std::ostringstream matrix_out;
    dpt::mtx::write_matrix(matrix_out, m, "from\n2 2 2");
    CHECK(parse_matrix(matrix_out.str(), "written").values == m.values);
  }
  SECTION("non-finite values are refused, not written") {
    const std::vector<double> values{1, std::nan("")};
    std::ostringstream out;
    CHECK_THROWS_AS(dpt::mtx::write_vector(out, values.data(), values.size()), std::domain_error);
  }
}
