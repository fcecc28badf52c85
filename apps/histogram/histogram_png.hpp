// The histogram as a PNG bar chart: one bar per bin (neighbouring bins share a column when there are more bins
// than columns), a baseline, and labels for the range and the tallest bar. Written with Debian's libstb-dev
// (stb_image_write for the PNG, stb_easy_font for the labels).
#pragma once

#include <ostream>
#include <string>
#include <vector>

namespace dpt::app {

struct histogram_picture {
  std::vector<unsigned long long> counts;  // bin 0 first
  double lo = 0, hi = 1;                   // the range the bins cover
  std::string title;                       // a line of text above the bars (ASCII)
};

// Writes a 1024×512 PNG; throws std::runtime_error if encoding fails.
void write_histogram_png(std::ostream& out, const histogram_picture& picture);

}  // namespace dpt::app
