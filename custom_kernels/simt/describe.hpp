// simt/describe.hpp — how the runner's messages name program points, masks and sets of threads or lanes.
// Internal to dpt::simt.
#pragma once

#include "simt/simt.hpp"

#include <string>
#include <vector>

namespace simt::internal {

// "__syncthreads() at file.cu:12".
std::string where(const detail::site& s);
// "0x0000ffff".
std::string hex(unsigned mask);
// "lane 3" or "lanes 1-31", "threads 0, 2, 5-7": a noun and a set of thread or lane numbers, compactly.
std::string some(const char* noun, const std::vector<unsigned>& ids);
// The lanes set in a warp mask, in increasing order.
std::vector<unsigned> lanes_of(unsigned mask);

}  // namespace simt::internal
