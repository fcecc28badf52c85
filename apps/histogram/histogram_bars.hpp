// dpt-histogram's picture in the terminal: one bar per bin (neighbouring bins summed when there are more than
// 40), drawn in eighths of a character cell with Unicode block elements.
//
//   counts 28 24 over [0, 0.5]  →  [0, 0.25)          28 ██████████████████████████████████████████████████
//                                  [0.25, 0.5]        24 ██████████████████████████████████████████▉
#pragma once

#include <vector>

namespace dpt::app {

// Prints the bars of `counts`, K bins over [lo, hi], to stdout, each row labelled with its bins' outer edges.
void print_histogram_bars(const std::vector<unsigned long long>& counts, double lo, double hi);

}  // namespace dpt::app
