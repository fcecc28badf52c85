#include "histogram/values_file.hpp"

#include <cmath>
#include <cstdlib>
#include <fstream>

#include "app_support/numbers.hpp"
#include "app_support/errors.hpp"
#include "app_support/raw_file.hpp"

namespace dpt::app {
namespace {

std::string trimmed(const std::string& line) {
  const auto first = line.find_first_not_of(" \t\r");
  if (first == std::string::npos) return "";
  const auto last = line.find_last_not_of(" \t\r");
  return line.substr(first, last - first + 1);
}

std::vector<double> read_text(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw input_error(path + ": cannot open for reading");
  std::vector<double> values;
  std::string line;
  long long line_number = 0;
  while (std::getline(in, line)) {
    ++line_number;
    const std::string token = trimmed(line);
    if (token.empty()) continue;
    double value = 0;
    switch (read_double(token, value)) {
      case double_token::not_a_number:
        throw file_error(path, line_number, quote_token(token) + " is not a number");
      case double_token::overflows:
        throw file_error(path, line_number, quote_token(token) + " is out of the range of a double");
      case double_token::number:
        break;
    }
    values.push_back(value);
  }
  if (in.bad()) throw input_error(path + ": read error");
  return values;
}

}  // namespace

value_array read_values(const std::string& path) {
  if (ends_with(path, ".f32")) return read_raw_file<float>(path, "float32 values");
  if (ends_with(path, ".f64")) return read_raw_file<double>(path, "float64 values");
  if (ends_with(path, ".u8")) return read_raw_file<std::uint8_t>(path, "uint8 values");
  return read_text(path);
}

}  // namespace dpt::app
