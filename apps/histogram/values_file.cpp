#include "histogram/values_file.hpp"

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>

#include "support/cli.hpp"
#include "support/errors.hpp"

namespace dpt::app {
namespace {

bool ends_with(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

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
        throw file_error(path, line_number, "'" + token + "' is not a number");
      case double_token::overflows:
        throw file_error(path, line_number, "'" + token + "' is out of the range of a double");
      case double_token::number:
        break;
    }
    values.push_back(value);
  }
  if (in.bad()) throw input_error(path + ": read error");
  return values;
}

// Raw little-endian elements of type T (this program runs on little-endian hosts, as x86-64 and Arm Linux are).
template <class T>
std::vector<T> read_binary(const std::string& path, const char* type_name) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw input_error(path + ": cannot open for reading");
  const std::vector<char> bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (in.bad()) throw input_error(path + ": read error");
  if (bytes.size() % sizeof(T) != 0) {
    throw input_error(path + ": " + std::to_string(bytes.size()) + " bytes is not a whole number of " + type_name +
                      " values (" + std::to_string(sizeof(T)) + " bytes each)");
  }
  std::vector<T> values(bytes.size() / sizeof(T));
  if (!values.empty()) std::memcpy(values.data(), bytes.data(), bytes.size());
  return values;
}

}  // namespace

value_array read_values(const std::string& path) {
  if (ends_with(path, ".f32")) return read_binary<float>(path, "float32");
  if (ends_with(path, ".f64")) return read_binary<double>(path, "float64");
  if (ends_with(path, ".u8")) return read_binary<std::uint8_t>(path, "uint8");
  return read_text(path);
}

}  // namespace dpt::app
