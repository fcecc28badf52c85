// dpt-grid's command line: the options a run takes, parsed by CLI11 (app_support/command_line.hpp, included by
// options.cpp only) and checked against each other. A bad option is an input_error naming it (exit status 2), e.g.
// "--dims must be AxB or AxBxC (got 4)".
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace dpt::app {

struct grid_options {
  std::string input_path, generate;  // exactly one of them is set
  long long n = 0;                   // with --generate
  std::uint64_t seed = 1;
  std::vector<int> dims;                      // cells along each axis; 2 or 3 of them
  std::optional<std::vector<double>> domain;  // lower then upper, dims.size() each
  bool clamp = false, check = false, single_precision = false;
  std::optional<double> radius;
  std::vector<int> solutions;  // the lecture's solutions 1..5 to run besides solution 5's stages
  std::string cells_out, neighbors_out, png_out;
};

// The --help text.
extern const char* const grid_usage;

// The options of a command line, checked; nothing when it asks for --help (the caller prints grid_usage).
std::optional<grid_options> parse_grid_options(int argc, const char* const argv[]);

}  // namespace dpt::app
