// dpt-histogram's bars in the terminal.
#include "histogram/histogram_bars.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>

namespace dpt::app {

namespace {

// "▉▉▉▍": a bar of `eighths` eighths of a character cell, in Unicode block elements.
std::string bar(long long eighths) {
  static const char* const partial[] = {"", "▏", "▎", "▍", "▌", "▋", "▊", "▉"};
  std::string s;
  for (long long i = 0; i < eighths / 8; ++i) s += "█";
  return s + partial[eighths % 8];
}

}  // namespace

void print_histogram_bars(const std::vector<unsigned long long>& counts, double lo, double hi) {
  constexpr long long max_rows = 40, bar_cells = 50;
  const auto bins = static_cast<long long>(counts.size());
  const long long rows = std::min(bins, max_rows);
  std::vector<unsigned long long> row_counts(rows, 0);
  for (long long b = 0; b < bins; ++b) row_counts[b * rows / bins] += counts[b];
  if (rows < bins) std::printf("(%lld bins shown as %lld rows; each row sums neighbouring bins)\n", bins, rows);
  const unsigned long long tallest =
      std::max<unsigned long long>(1, *std::max_element(row_counts.begin(), row_counts.end()));
  for (long long r = 0; r < rows; ++r) {
    // the row covers bins [first, last]; label it with their outer edges
    const long long first = (r * bins + rows - 1) / rows, last = ((r + 1) * bins + rows - 1) / rows - 1;
    const double from = lo + (hi - lo) * first / bins, to = last + 1 == bins ? hi : lo + (hi - lo) * (last + 1) / bins;
    const auto eighths = static_cast<long long>(std::llround(8.0 * bar_cells * row_counts[r] / tallest));
    char label[64];
    std::snprintf(label, sizeof label, "[%.4g, %.4g%s", from, to, last + 1 == bins ? "]" : ")");
    std::printf("%-24s %12llu %s\n", label, row_counts[r], bar(eighths).c_str());
  }
}

}  // namespace dpt::app
