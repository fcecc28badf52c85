// One worked example of the lecture: what the library computed next to what the slide shows.
#pragma once

#include <sstream>
#include <string>
#include <vector>

namespace dpt::tour {

struct example {
  std::string title;     // the lecture step, e.g. "inclusive scan (+)"
  std::string input;     // the slide's input, as printed on the slide
  std::string computed;  // what dpt computed on this build's device system
  std::string expected;  // the slide's answer
  bool matches() const { return computed == expected; }
};

struct chapter {
  std::string name;
  std::vector<example> examples;
};

// "[1, 2, 3]" — the lecture's notation for a sequence.
template <class Range>
std::string show(const Range& values) {
  std::ostringstream os;
  os << '[';
  bool first = true;
  for (const auto& v : values) {
    os << (first ? "" : ", ") << v;
    first = false;
  }
  os << ']';
  return os.str();
}

// Every chapter of the tour, in lecture order. Each chapter lives in its own source file.
std::vector<chapter> all_chapters();

chapter basics_chapter();
chapter spmv_chapter();
chapter scan_kernels_chapter();
chapter grid_chapter();
chapter histogram_chapter();

}  // namespace dpt::tour
