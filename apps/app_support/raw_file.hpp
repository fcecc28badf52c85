// Raw little-endian binary files, read as numpy.fromfile reads what ndarray.tofile wrote: the whole file as
// elements of one type, no header (this program runs on little-endian hosts, as x86-64 and Arm Linux are). A
// file that is not a whole number of records is an input_error naming the file, so an app exits with status 2.
//
//   read_raw_file<float>("v.f32", "float32 values")                           12 bytes → 3 floats
//   read_raw_file<double>("p.f64", "particles of 2 float64 coordinates", 2)   40 bytes → input_error:
//     "p.f64: 40 bytes is not a whole number of particles of 2 float64 coordinates (16 bytes each)"
#pragma once

#include <cstddef>
#include <cstring>
#include <fstream>
#include <ios>
#include <iterator>
#include <string>
#include <vector>

#include "app_support/errors.hpp"

namespace dpt::app {

inline bool ends_with(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

// The file's elements of type T; `records` names what every `elements_per_record` of them make, for messages.
template <class T>
std::vector<T> read_raw_file(const std::string& path, const std::string& records, std::size_t elements_per_record = 1) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw input_error(path + ": cannot open for reading");
  std::vector<char> bytes;
  try {
    bytes.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  } catch (const std::ios_base::failure&) {  // libstdc++'s filebuf throws where a read fails (a directory)
    throw input_error(path + ": read error");
  }
  if (in.bad()) throw input_error(path + ": read error");
  const std::size_t record_bytes = sizeof(T) * elements_per_record;
  if (bytes.size() % record_bytes != 0) {
    throw input_error(path + ": " + std::to_string(bytes.size()) + " bytes is not a whole number of " + records + " (" +
                      std::to_string(record_bytes) + " bytes each)");
  }
  std::vector<T> values(bytes.size() / sizeof(T));
  if (!values.empty()) std::memcpy(values.data(), bytes.data(), bytes.size());
  return values;
}

}  // namespace dpt::app
