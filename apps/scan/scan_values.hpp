// dpt-scan's input: values of type T (i32, i64, f32, f64) read from a text file, one per line, or a raw
// little-endian file named for its type (.i32, .i64, .f32, .f64), or generated from a seed. A bad value is an
// input_error naming the file and line, e.g. "v.txt:3: '1e40' is out of the range of f32", or the element of a raw
// file: "v.f32: element 2 is not a finite f32 value (nan)".
#pragma once

#include <cmath>
#include <cstdint>
#include <optional>
#include <fstream>
#include <iomanip>
#include <ostream>
#include <limits>
#include <random>
#include <sstream>
#include <string>
#include <type_traits>
#include <vector>

#include "app_support/numbers.hpp"
#include "app_support/errors.hpp"
#include "app_support/raw_file.hpp"

namespace dpt::app {

template <class T>
const char* type_name() {
  if constexpr (std::is_integral_v<T>) return sizeof(T) == 4 ? "i32" : "i64";
  return sizeof(T) == 4 ? "f32" : "f64";
}

// The type a raw file's name gives its values ("f32" for v.f32), or nullopt for a text file.
inline std::optional<std::string> raw_value_type(const std::string& path) {
  for (const char* type : {"i32", "i64", "f32", "f64"}) {
    if (ends_with(path, std::string(".") + type)) return type;
  }
  return std::nullopt;
}

// The values to scan, and for a text file the line each came from (errors about element i name its line).
template <class T>
struct input_values {
  std::vector<T> values;
  std::string path;              // empty for generated values
  std::vector<long long> lines;  // lines[i]: the line of values[i] (text files only)

  input_error error_at(std::size_t i, const std::string& message) const {
    if (path.empty()) return input_error(message);
    return lines.empty() ? input_error(path + ": " + message) : file_error(path, lines[i], message);
  }
};

// One value of type T from a whole token, or an input_error naming the file and line.
template <class T>
T parse_value(const std::string& token, const std::string& file, long long line) {
  if constexpr (std::is_integral_v<T>) {
    std::istringstream in(token);
    long long value = 0;
    in >> value;
    if (!in || !in.eof() || value < std::numeric_limits<T>::min() || value > std::numeric_limits<T>::max())
      throw file_error(file, line, quote_token(token) + " is not a valid " + (sizeof(T) == 4 ? "i32" : "i64"));
    return static_cast<T>(value);
  } else {
    double value = 0;
    const std::string out_of_range = quote_token(token) + " is out of the range of " + type_name<T>();
    switch (read_double(token, value)) {
      case double_token::not_a_number:
        throw file_error(file, line, quote_token(token) + " is not a number");
      case double_token::overflows:
        throw file_error(file, line, out_of_range);
      case double_token::number:
        break;
    }
    if (!std::isfinite(value))
      throw file_error(file, line, quote_token(token) + " is not a finite " + type_name<T>() + " value");
    // Judged after rounding to T: 3.40282347e+38, the 9 digits --out writes for FLT_MAX, lies above FLT_MAX
    // as a double but rounds to it, so it must read back.
    if (!std::isfinite(static_cast<T>(value))) throw file_error(file, line, out_of_range);
    return static_cast<T>(value);
  }
}

// A raw file's values; every float must be finite, as in a text file.
template <class T>
input_values<T> read_raw_values(const std::string& path) {
  input_values<T> in{read_raw_file<T>(path, std::string(type_name<T>()) + " values"), path, {}};
  if constexpr (std::is_floating_point_v<T>) {
    for (std::size_t i = 0; i < in.values.size(); ++i) {
      if (!std::isfinite(in.values[i])) {
        throw in.error_at(i, "element " + std::to_string(i) + " is not a finite " + type_name<T>() + " value (" +
                                 (std::isnan(in.values[i]) ? "nan"
                                  : in.values[i] > 0       ? "inf"
                                                           : "-inf") +
                                 ")");
      }
    }
  }
  return in;
}

// A file's values: raw if its name says so (raw_value_type), else text.
template <class T>
input_values<T> read_values(const std::string& path) {
  if (raw_value_type(path)) return read_raw_values<T>(path);
  std::ifstream file(path);
  if (!file) throw input_error(path + ": cannot open");
  input_values<T> in{{}, path, {}};
  std::string text;
  for (long long line = 1; std::getline(file, text); ++line) {
    std::istringstream fields(text);
    std::string token, extra;
    if (!(fields >> token)) continue;  // blank line
    if (fields >> extra) throw file_error(path, line, "expected one value per line");
    in.values.push_back(parse_value<T>(token, path, line));
    in.lines.push_back(line);
  }
  // getline stops at the end of the file and on a failed read alike (a directory opens, then fails to read)
  if (file.bad()) throw input_error(path + ": read error");
  return in;
}

// --out's text: one value per line, floats in the fewest digits that read back exactly (max_digits10).
template <class T>
void write_values(std::ostream& out, const std::vector<T>& values) {
  out << std::setprecision(std::numeric_limits<T>::max_digits10);
  for (const T& v : values) out << +v << '\n';
}

template <class T>
input_values<T> random_values(std::int64_t n, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<T> values(static_cast<std::size_t>(n));
  if constexpr (std::is_integral_v<T>) {
    std::uniform_int_distribution<int> dist(-1000, 1000);
    for (auto& v : values) v = static_cast<T>(dist(rng));
  } else {
    std::uniform_real_distribution<T> dist(-1, 1);
    for (auto& v : values) v = dist(rng);
  }
  return {std::move(values), "", {}};
}

}  // namespace dpt::app
