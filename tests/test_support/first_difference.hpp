// Where two sequences first differ, as text: a failed CHECK on a long output then names one element
// instead of printing millions.
#pragma once

#include <cstddef>
#include <sstream>
#include <string>
#include <type_traits>
#include <vector>

namespace dpt::test {

// An element as text: numbers as numbers (a char as its code), anything else by its own operator<<.
template <class T>
void print_element(std::ostream& out, const T& x) {
  if constexpr (std::is_arithmetic_v<T>) {
    out << +x;
  } else {
    out << x;
  }
}

// "equal", "size 5, expected 6", or "element 17: 4, expected 5".
template <class T>
std::string first_difference(const std::vector<T>& got, const std::vector<T>& expected) {
  std::ostringstream out;
  if (got.size() != expected.size()) {
    out << "size " << got.size() << ", expected " << expected.size();
    return out.str();
  }
  for (std::size_t i = 0; i < got.size(); ++i) {
    if (!(got[i] == expected[i])) {
      out << "element " << i << ": ";
      print_element(out, got[i]);
      out << ", expected ";
      print_element(out, expected[i]);
      return out.str();
    }
  }
  return "equal";
}

}  // namespace dpt::test
