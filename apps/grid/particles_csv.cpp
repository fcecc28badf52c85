#include "grid/particles_csv.hpp"

#include <fstream>

#include "app_support/numbers.hpp"
#include "app_support/errors.hpp"

namespace dpt::app {
namespace {

std::string trim(const std::string& s) {
  const auto first = s.find_first_not_of(" \t\r");
  if (first == std::string::npos) return "";
  return s.substr(first, s.find_last_not_of(" \t\r") - first + 1);
}

std::vector<std::string> split_fields(const std::string& line) {
  std::vector<std::string> fields;
  std::string::size_type start = 0;
  while (true) {
    const auto comma = line.find(',', start);
    fields.push_back(trim(line.substr(start, comma == std::string::npos ? std::string::npos : comma - start)));
    if (comma == std::string::npos) return fields;
    start = comma + 1;
  }
}

}  // namespace

particle_table read_particles_csv(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw input_error(path + ": cannot open for reading");
  particle_table table;
  std::string line;
  long long line_number = 0;
  while (std::getline(in, line)) {
    ++line_number;
    if (trim(line).empty()) continue;
    const auto fields = split_fields(line);
    if (table.dimensions == 0) {
      if (fields == std::vector<std::string>{"x", "y"}) {
        table.dimensions = 2;
      } else if (fields == std::vector<std::string>{"x", "y", "z"}) {
        table.dimensions = 3;
      } else {
        throw file_error(path, line_number, "expected the header 'x,y' or 'x,y,z', got " + quote_token(trim(line)));
      }
      continue;
    }
    if (static_cast<int>(fields.size()) != table.dimensions) {
      throw file_error(path, line_number,
                       "expected " + std::to_string(table.dimensions) + " comma-separated numbers, got " +
                           std::to_string(fields.size()) + " fields");
    }
    for (int a = 0; a < table.dimensions; ++a) {
      try {
        table.axis[a].push_back(parse_double(fields[a], std::string(1, "xyz"[a])));
      } catch (const input_error& e) {
        throw file_error(path, line_number, e.what());
      }
    }
    table.line_numbers.push_back(line_number);
  }
  if (in.bad()) throw input_error(path + ": read error");
  if (table.dimensions == 0)
    throw file_error(path, line_number + 1, "empty file: expected the header 'x,y' or 'x,y,z'");
  return table;
}

}  // namespace dpt::app
