#include "app_support/matrix_market.hpp"

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <stdexcept>

#include "app_support/errors.hpp"

namespace dpt::mtx {

using dpt::app::quote_token;

const char* name(field f) {
  switch (f) {
    case field::real:
      return "real";
    case field::integer:
      return "integer";
    default:
      return "pattern";
  }
}

const char* name(symmetry s) {
  switch (s) {
    case symmetry::general:
      return "general";
    case symmetry::symmetric:
      return "symmetric";
    default:
      return "skew-symmetric";
  }
}

namespace {

bool is_space(char c) {
  return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f';
}

// The next whitespace-separated token of `rest`, removed from it; empty when there is none.
std::string_view next_token(std::string_view& rest) {
  std::size_t begin = 0;
  while (begin < rest.size() && is_space(rest[begin])) ++begin;
  std::size_t end = begin;
  while (end < rest.size() && !is_space(rest[end])) ++end;
  const auto token = rest.substr(begin, end - begin);
  rest.remove_prefix(end);
  return token;
}

bool equals_ignoring_case(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i) {
    const auto lower = [](char c) { return (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c; };
    if (lower(a[i]) != lower(b[i])) return false;
  }
  return true;
}

// Walks the text line by line, counting lines (1-based) for error messages. Lines end at '\n'; a '\r'
// before it (CRLF) is whitespace like any other.
class line_reader {
 public:
  line_reader(std::string_view text, const std::string& file) : text_(text), file_(file) {}

  // The next line, without its '\n'; false at the end of the text.
  bool next(std::string_view& line) {
    if (position_ >= text_.size()) return false;
    const auto* begin = text_.data() + position_;
    const auto* newline = static_cast<const char*>(std::memchr(begin, '\n', text_.size() - position_));
    const std::size_t length = newline ? static_cast<std::size_t>(newline - begin) : text_.size() - position_;
    line = std::string_view(begin, length);
    position_ += length + 1;
    ++line_;
    return true;
  }

  // The next line that is neither blank nor a % comment; false at the end of the text.
  bool next_content(std::string_view& line) {
    while (next(line)) {
      std::string_view rest = line;
      const auto first = next_token(rest);
      if (!first.empty() && first.front() != '%') return true;
    }
    return false;
  }

  long long line_number() const { return line_; }
  std::size_t bytes_left() const { return position_ < text_.size() ? text_.size() - position_ : 0; }
  app::input_error error(const std::string& message) const { return app::file_error(file_, line_, message); }

 private:
  std::string_view text_;
  const std::string& file_;
  std::size_t position_ = 0;
  long long line_ = 0;
};

// A whole token as a signed 64-bit integer (a leading '+' is allowed), or an error naming `what`.
std::int64_t parse_integer(std::string_view token, const line_reader& lines, const char* what) {
  if (token.size() > 1 && token.front() == '+' && token[1] != '-') token.remove_prefix(1);
  std::int64_t value = 0;
  const auto [end, status] = std::from_chars(token.data(), token.data() + token.size(), value);
  if (status == std::errc::result_out_of_range) {
    throw lines.error(std::string(what) + " " + quote_token(token) + " is out of range");
  }
  if (status != std::errc() || end != token.data() + token.size()) {
    throw lines.error(std::string(what) + " " + quote_token(token) + " is not an integer");
  }
  return value;
}

// A size on the size line: a non-negative integer no larger than largest_size.
std::int64_t parse_size(std::string_view token, const line_reader& lines, const char* what) {
  if (token.empty()) throw lines.error(std::string("size line: missing ") + what);
  const auto value = parse_integer(token, lines, what);
  if (value < 0) throw lines.error(std::string(what) + " " + quote_token(token) + " is negative");
  if (value > largest_size) {
    throw lines.error(std::string(what) + " " + quote_token(token) + " is too large (at most " +
                      std::to_string(largest_size) + "; no array of that many 64-bit indices can exist)");
  }
  return value;
}

// A 1-based index in 1..extent, returned 0-based.
std::int64_t parse_index(std::string_view token, const line_reader& lines, const char* what, std::int64_t extent) {
  if (token.empty()) throw lines.error(std::string("missing ") + what);
  const auto value = parse_integer(token, lines, what);
  if (value == 0) throw lines.error(std::string(what) + " is 0; Matrix Market indices start at 1");
  if (value < 1 || value > extent) {
    throw lines.error(std::string(what) + " " + quote_token(token) + " is out of range 1.." + std::to_string(extent));
  }
  return value - 1;
}

// A finite double. from_chars (no locale, no allocation) does the work; strtod is the fallback only for
// results too small to be normal, where from_chars reports "out of range" but the value is usable.
double parse_real(std::string_view token, const line_reader& lines) {
  if (token.empty()) throw lines.error("missing value");
  std::string_view digits = token;
  if (digits.size() > 1 && digits.front() == '+' && digits[1] != '-') digits.remove_prefix(1);
  double value = 0;
  const auto [end, status] = std::from_chars(digits.data(), digits.data() + digits.size(), value);
  if (status == std::errc::invalid_argument || end != digits.data() + digits.size()) {
    throw lines.error("value " + quote_token(token) + " is not a number");
  }
  if (status == std::errc::result_out_of_range) {
    const std::string copy(digits);
    value = std::strtod(copy.c_str(), nullptr);
    if (std::isinf(value)) throw lines.error("value " + quote_token(token) + " overflows a double");
  }
  if (!std::isfinite(value)) throw lines.error("value " + quote_token(token) + " is not finite (NaN or infinity)");
  return value;
}

double parse_number(std::string_view token, field value_field, const line_reader& lines);

// Whether `value` becomes infinite in the caller's storage type. For float's largest value that is the
// conversion the caller will make: a value above FLT_MAX that rounds to it (3.40282347e+38, FLT_MAX printed with
// 9 digits) is a float; one at or beyond the midpoint to 2^128 rounds to infinity. Any other `largest` is a
// plain bound on the magnitude (a double's never binds: values are finite doubles already).
bool overflows(double value, const storage& type) {
  if (type.largest == static_cast<double>(std::numeric_limits<float>::max())) {
    return std::isinf(static_cast<float>(value));
  }
  return std::fabs(value) > type.largest;
}

// A value of the file's field that the caller's storage type can hold.
double parse_value(std::string_view token, field value_field, const storage& type, const line_reader& lines) {
  const double value = parse_number(token, value_field, lines);
  if (overflows(value, type)) throw lines.error("value " + quote_token(token) + " overflows a " + type.name);
  return value;
}

double parse_number(std::string_view token, field value_field, const line_reader& lines) {
  if (value_field == field::integer) {
    if (token.empty()) throw lines.error("missing value");
    // values are kept as double, which holds every integer up to 2^53 exactly and no larger one
    constexpr std::int64_t exact_limit = std::int64_t{1} << 53;
    const auto value = parse_integer(token, lines, "value");
    if (value > exact_limit || value < -exact_limit) {
      throw lines.error("integer value " + quote_token(token) + " is beyond 2^53 and would not be exact as a double");
    }
    return static_cast<double>(value);
  }
  return parse_real(token, lines);
}

enum class format { coordinate, array };

struct header {
  format layout;
  field value_field;
  symmetry kind;
};

// Line 1: %%MatrixMarket matrix FORMAT FIELD SYMMETRY (keywords in any case).
header parse_header(line_reader& lines) {
  std::string_view line;
  lines.next(line);  // the text is not empty (check_not_empty), so there is a line 1
  std::string_view rest = line;
  const std::string expected = "expected the header '%%MatrixMarket matrix coordinate|array FIELD SYMMETRY'";
  if (!equals_ignoring_case(next_token(rest), "%%MatrixMarket")) throw lines.error(expected);
  const auto object = next_token(rest), layout = next_token(rest), value_field = next_token(rest),
             kind = next_token(rest), extra = next_token(rest);
  if (kind.empty()) throw lines.error(expected);
  if (!extra.empty()) throw lines.error("unexpected " + quote_token(extra) + " after the header");
  if (!equals_ignoring_case(object, "matrix")) {
    throw lines.error("object " + quote_token(object) + " is not supported (only 'matrix')");
  }
  header h{};
  if (equals_ignoring_case(layout, "coordinate")) {
    h.layout = format::coordinate;
  } else if (equals_ignoring_case(layout, "array")) {
    h.layout = format::array;
  } else {
    throw lines.error("format " + quote_token(layout) + " is neither 'coordinate' nor 'array'");
  }
  if (equals_ignoring_case(value_field, "real") || equals_ignoring_case(value_field, "double")) {
    h.value_field = field::real;
  } else if (equals_ignoring_case(value_field, "integer")) {
    h.value_field = field::integer;
  } else if (equals_ignoring_case(value_field, "pattern")) {
    h.value_field = field::pattern;
  } else if (equals_ignoring_case(value_field, "complex")) {
    throw lines.error("complex matrices are not supported (only real, integer and pattern)");
  } else {
    throw lines.error("field " + quote_token(value_field) + " is not one of real, integer, pattern");
  }
  if (equals_ignoring_case(kind, "general")) {
    h.kind = symmetry::general;
  } else if (equals_ignoring_case(kind, "symmetric")) {
    h.kind = symmetry::symmetric;
  } else if (equals_ignoring_case(kind, "skew-symmetric")) {
    h.kind = symmetry::skew_symmetric;
  } else if (equals_ignoring_case(kind, "hermitian")) {
    throw lines.error("hermitian matrices are not supported (they are complex)");
  } else {
    throw lines.error("symmetry " + quote_token(kind) + " is not one of general, symmetric, skew-symmetric");
  }
  if (h.value_field == field::pattern && h.kind == symmetry::skew_symmetric) {
    throw lines.error("a pattern matrix cannot be skew-symmetric");
  }
  if (h.layout == format::array && h.value_field == field::pattern) {
    throw lines.error("an array file cannot have the pattern field");
  }
  return h;
}

// The size line: the first content line after the header, with exactly `count` non-negative integers.
std::vector<std::int64_t> parse_size_line(line_reader& lines, int count, const char* shape) {
  std::string_view line;
  if (!lines.next_content(line)) throw lines.error(std::string("missing the size line '") + shape + "'");
  static const char* const names[] = {"row count", "column count", "entry count"};
  std::vector<std::int64_t> sizes;
  for (int i = 0; i < count; ++i) {
    const auto token = next_token(line);
    if (token.empty()) throw lines.error(std::string("size line: expected '") + shape + "'");
    sizes.push_back(parse_size(token, lines, names[i]));
  }
  const auto extra = next_token(line);
  if (!extra.empty()) {
    throw lines.error("size line: unexpected " + quote_token(extra) + " after '" + shape + "'");
  }
  return sizes;
}

void check_not_empty(std::string_view text, const std::string& file_name) {
  if (text.empty()) throw app::file_error(file_name, 1, "empty file; expected a %%MatrixMarket header");
}

// Entries to reserve room for: the declared count, but never more than the text could hold (each entry
// takes at least two bytes), so a lying size line cannot make the reader allocate without bound.
std::size_t plausible_entries(std::int64_t declared, std::size_t bytes_left) {
  return static_cast<std::size_t>(std::min<std::int64_t>(declared, static_cast<std::int64_t>(bytes_left / 2 + 1)));
}

}  // namespace

coo_matrix parse_matrix(std::string_view text, const std::string& file_name, const storage& type) {
  check_not_empty(text, file_name);
  line_reader lines(text, file_name);
  const header h = parse_header(lines);
  if (h.layout != format::coordinate) {
    throw lines.error("expected a coordinate (sparse) matrix, found an array (dense) file");
  }
  const auto sizes = parse_size_line(lines, 3, "ROWS COLUMNS ENTRIES");
  const long long size_line = lines.line_number();
  coo_matrix m;
  m.rows = sizes[0];
  m.cols = sizes[1];
  m.value_field = h.value_field;
  m.kind = h.kind;
  const std::int64_t declared = sizes[2];
  if (m.kind != symmetry::general && m.rows != m.cols) {
    throw lines.error(std::string("a ") + name(m.kind) + " matrix must be square, not " + std::to_string(m.rows) +
                      " x " + std::to_string(m.cols));
  }
  const auto capacity = plausible_entries(declared, lines.bytes_left());
  m.row_indices.reserve(capacity);
  m.column_indices.reserve(capacity);
  m.values.reserve(capacity);

  std::string_view line;
  while (lines.next_content(line)) {
    if (m.stored_entries() == declared) {
      throw lines.error("more entries than the " + std::to_string(declared) + " declared on line " +
                        std::to_string(size_line));
    }
    const auto row = parse_index(next_token(line), lines, "row index", m.rows);
    const auto column = parse_index(next_token(line), lines, "column index", m.cols);
    const double value =
        m.value_field == field::pattern ? 1.0 : parse_value(next_token(line), m.value_field, type, lines);
    const auto extra = next_token(line);
    if (!extra.empty()) throw lines.error("unexpected " + quote_token(extra) + " after the entry");
    if (m.kind == symmetry::skew_symmetric && row == column && value != 0) {
      throw lines.error("diagonal entry of a skew-symmetric matrix is not 0");
    }
    m.row_indices.push_back(row);
    m.column_indices.push_back(column);
    m.values.push_back(value);
  }
  if (m.stored_entries() < declared) {
    throw lines.error("the file ends after " + std::to_string(m.stored_entries()) + " of the " +
                      std::to_string(declared) + " entries declared on line " + std::to_string(size_line));
  }
  return m;
}

std::vector<double> parse_vector(std::string_view text, const std::string& file_name, std::int64_t expected_length,
                                 const storage& type) {
  check_not_empty(text, file_name);
  line_reader lines(text, file_name);
  const header h = parse_header(lines);
  if (h.layout != format::array) {
    throw lines.error("expected an array file (a dense vector), found a coordinate (sparse) matrix");
  }
  if (h.kind != symmetry::general)
    throw lines.error("a vector must be 'general', not '" + std::string(name(h.kind)) + "'");
  const auto sizes = parse_size_line(lines, 2, "ROWS COLUMNS");
  const long long size_line = lines.line_number();
  if (sizes[1] != 1) {
    throw lines.error("expected one column (a vector), found " + std::to_string(sizes[1]) + " columns");
  }
  const std::int64_t length = sizes[0];
  if (expected_length >= 0 && length != expected_length) {
    throw lines.error("the vector has " + std::to_string(length) + " entries, expected " +
                      std::to_string(expected_length));
  }
  std::vector<double> values;
  values.reserve(plausible_entries(length, lines.bytes_left()));
  std::string_view line;
  while (lines.next_content(line)) {
    if (static_cast<std::int64_t>(values.size()) == length) {
      throw lines.error("more entries than the " + std::to_string(length) + " declared on line " +
                        std::to_string(size_line));
    }
    values.push_back(parse_value(next_token(line), h.value_field, type, lines));
    const auto extra = next_token(line);
    if (!extra.empty()) throw lines.error("unexpected " + quote_token(extra) + " after the value");
  }
  if (static_cast<std::int64_t>(values.size()) < length) {
    throw lines.error("the file ends after " + std::to_string(values.size()) + " of the " + std::to_string(length) +
                      " entries declared on line " + std::to_string(size_line));
  }
  return values;
}

namespace {

std::string read_whole_file(const std::string& path) {
  std::FILE* file = std::fopen(path.c_str(), "rb");
  if (!file) throw app::input_error(path + ": cannot open: " + std::strerror(errno));
  std::string text;
  char buffer[1 << 16];
  std::size_t got;
  while ((got = std::fread(buffer, 1, sizeof buffer, file)) > 0) text.append(buffer, got);
  const bool failed = std::ferror(file) != 0;
  const int error = errno;
  std::fclose(file);
  if (failed) throw app::input_error(path + ": cannot read: " + std::strerror(error));
  return text;
}

// "% COMMENT\n", one line whatever the comment holds: a control character (a newline in a file name, say)
// becomes '?', so it can neither end the comment early nor turn the rest into a line the reader parses.
std::string comment_line(const std::string& comment) {
  std::string line = "% ";
  for (const char c : comment) {
    const auto byte = static_cast<unsigned char>(c);
    line += (byte < 0x20 || byte == 0x7f) ? '?' : c;
  }
  return line + "\n";
}

void append_number(std::string& out, double value) {
  char buffer[32];
  const int length = std::snprintf(buffer, sizeof buffer, "%.17g", value);
  out.append(buffer, static_cast<std::size_t>(length));
}

}  // namespace

coo_matrix read_matrix(const std::string& path, const storage& type) {
  return parse_matrix(read_whole_file(path), path, type);
}

std::vector<double> read_vector(const std::string& path, std::int64_t expected_length, const storage& type) {
  return parse_vector(read_whole_file(path), path, expected_length, type);
}

void write_vector(std::ostream& out, const double* values, std::size_t n, const std::string& comment) {
  std::string text = "%%MatrixMarket matrix array real general\n";
  if (!comment.empty()) text += comment_line(comment);
  text += std::to_string(n) + " 1\n";
  for (std::size_t i = 0; i < n; ++i) {
    if (!std::isfinite(values[i])) {
      throw std::domain_error("entry " + std::to_string(i + 1) + " is not finite; Matrix Market cannot store it");
    }
    append_number(text, values[i]);
    text += '\n';
  }
  out.write(text.data(), static_cast<std::streamsize>(text.size()));
}

void write_matrix(std::ostream& out, const coo_matrix& m, const std::string& comment) {
  std::string text = std::string("%%MatrixMarket matrix coordinate ") + name(m.value_field) + " " + name(m.kind) + "\n";
  if (!comment.empty()) text += comment_line(comment);
  text += std::to_string(m.rows) + " " + std::to_string(m.cols) + " " + std::to_string(m.stored_entries()) + "\n";
  for (std::size_t k = 0; k < m.values.size(); ++k) {
    text += std::to_string(m.row_indices[k] + 1) + " " + std::to_string(m.column_indices[k] + 1);
    if (m.value_field != field::pattern) {
      if (!std::isfinite(m.values[k])) {
        throw std::domain_error("entry " + std::to_string(k + 1) + " is not finite; Matrix Market cannot store it");
      }
      text += ' ';
      if (m.value_field == field::integer) {
        text += std::to_string(static_cast<long long>(m.values[k]));
      } else {
        append_number(text, m.values[k]);
      }
    }
    text += '\n';
  }
  out.write(text.data(), static_cast<std::streamsize>(text.size()));
}

}  // namespace dpt::mtx
