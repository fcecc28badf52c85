// Matrix Market files (https://math.nist.gov/MatrixMarket/formats.html): sparse matrices in `coordinate`
// format and dense vectors in `array` format, read and written on the host.
//
//   %%MatrixMarket matrix coordinate real general      ← header: object, format, field, symmetry
//   % a comment                                        ← any number of % lines (and blank lines)
//   4 4 7                                              ← size line: rows, columns, stored entries
//   1 1 3.0                                            ← one entry per line: row, column (1-based), value
//   ...
//
// Supported: `coordinate` × real | integer | pattern × general | symmetric | skew-symmetric (pattern is never
// skew-symmetric), and `array` real | integer general with one column (a dense vector). Complex and hermitian
// files are rejected with a clear message. Every error is an app::input_error "FILE:LINE: what is wrong":
// bad header, bad size line, too few or too many entries, an index that is 0 or out of range, a token that is
// not a number, trailing tokens, values that are NaN, infinite or overflow a double (or the caller's storage
// type), sizes beyond largest_size. CRLF line ends, blank lines and % comments anywhere are accepted.
//
// The reader keeps the entries as stored: symmetric files keep one triangle, duplicates stay duplicates.
// (The format stores the lower triangle of a symmetric matrix; an entry above the diagonal is accepted and
// mirrored like any other, as SciPy does.)
// dpt::expand_symmetric and dpt::coo_to_csr (algorithms/) mirror the triangle and sum duplicates on the
// device, as SciPy's mmread + tocsr does.
//
// This file and matrix_market.cpp need only the C++17 standard library (and errors.hpp), so the libFuzzer
// target (tests/fuzz) compiles them alone with clang.
#pragma once

#include <cstddef>
#include <cstdint>
#include <limits>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

namespace dpt::mtx {

enum class field { real, integer, pattern };
enum class symmetry { general, symmetric, skew_symmetric };

const char* name(field f);
const char* name(symmetry s);

// A sparse matrix as the file stores it: entry k is (row_indices[k], column_indices[k], values[k]), 0-based.
// Pattern files get value 1 for every entry. For symmetric and skew-symmetric files the mirrored entries
// are implied, not stored; a skew-symmetric file's diagonal entries are all zero.
struct coo_matrix {
  std::int64_t rows = 0, cols = 0;
  field value_field = field::real;
  symmetry kind = symmetry::general;
  std::vector<std::int64_t> row_indices, column_indices;
  std::vector<double> values;

  std::int64_t stored_entries() const { return static_cast<std::int64_t>(values.size()); }
};

// The type the caller will store values in. Values are parsed as doubles; one that would become infinite in the
// type is an error on its line rather than an infinity later. With float's largest value, that is a value that
// static_cast<float> makes infinite (3.40282347e+38 rounds to FLT_MAX and is accepted); with any other, a value
// whose magnitude exceeds `largest`.
struct storage {
  double largest;
  const char* name;  // in the error message: "value '1e39' overflows a NAME"
};
inline constexpr storage as_double{std::numeric_limits<double>::max(), "double"};
inline constexpr storage as_float{std::numeric_limits<float>::max(), "float"};

// The largest row, column or entry count a size line may declare: one less than the most 64-bit elements a
// std::vector can hold (PTRDIFF_MAX / 8), so that the rows + 1 row offsets of a CSR matrix, its indices and
// x and y can all be sized, in either index type dpt-spmv uses (int32 or int64). A larger count is an error on
// the size line. A count within it may still be more than memory holds: dpt-spmv's require_memory (memory.hpp)
// refuses that before it allocates, and run_app reports an allocation that fails anyway as "not enough memory".
inline constexpr std::int64_t largest_size = std::numeric_limits<std::ptrdiff_t>::max() / 8 - 1;

// Parses the text of a coordinate file. `file_name` is used in error messages only.
coo_matrix parse_matrix(std::string_view text, const std::string& file_name, const storage& type = as_double);

// Parses the text of an array file with one column. With expected_length ≥ 0, a different length is an
// error on the size line.
std::vector<double> parse_vector(std::string_view text, const std::string& file_name, std::int64_t expected_length = -1,
                                 const storage& type = as_double);

// The same, reading the whole file first (one read into one buffer: fast, and no iostreams on the hot path).
coo_matrix read_matrix(const std::string& path, const storage& type = as_double);
std::vector<double> read_vector(const std::string& path, std::int64_t expected_length = -1,
                                const storage& type = as_double);

// Writes a dense vector as `matrix array real general`, one value per line with 17 significant digits (enough
// for every double to read back exactly). NaN and infinity have no Matrix Market spelling: std::domain_error.
// A comment is written as one % line, its control characters (a newline in a file name) replaced by '?'.
void write_vector(std::ostream& out, const double* values, std::size_t n, const std::string& comment = "");

// Writes a coordinate matrix with the header its field and symmetry say, 1-based, 17 significant digits.
void write_matrix(std::ostream& out, const coo_matrix& matrix, const std::string& comment = "");

}  // namespace dpt::mtx
