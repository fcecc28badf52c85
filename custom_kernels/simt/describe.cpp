// simt/describe.cpp — the wording shared by the runner's messages (describe.hpp).
#include "simt/describe.hpp"

#include <cstdio>
#include <sstream>

namespace simt::internal {

std::string where(const detail::site& s) {
  return std::string(s.what) + " at " + s.file + ":" + std::to_string(s.line);
}

std::string hex(unsigned mask) {
  char text[16];
  std::snprintf(text, sizeof text, "0x%08x", mask);
  return text;
}

namespace {

// "1-31" or "0, 2, 5-7".
std::string ranges(const std::vector<unsigned>& ids) {
  std::ostringstream os;
  for (std::size_t i = 0; i < ids.size();) {
    std::size_t j = i;
    while (j + 1 < ids.size() && ids[j + 1] == ids[j] + 1) ++j;
    os << (i ? ", " : "") << ids[i];
    if (j > i) os << '-' << ids[j];
    i = j + 1;
  }
  return os.str();
}

}  // namespace

std::string some(const char* noun, const std::vector<unsigned>& ids) {
  return std::string(noun) + (ids.size() == 1 ? " " : "s ") + ranges(ids);
}

std::vector<unsigned> lanes_of(unsigned mask) {
  std::vector<unsigned> lanes;
  for (unsigned l = 0; l < 32; ++l)
    if (mask >> l & 1u) lanes.push_back(l);
  return lanes;
}

}  // namespace simt::internal
