// dpt-histogram's command line: the options a run takes, parsed by CLI11 (app_support/command_line.hpp, included by
// options.cpp only) and checked against each other. A bad option is an input_error naming it (exit status 2), e.g.
// "--range needs LO <= HI (got '2:1')".
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <dpt/histogram_method.hpp>

namespace dpt::app {

// A method of dpt::histogram and its name on the command line.
struct method_option {
  dpt::histogram_method method;
  const char* name;
};

struct histogram_options {
  std::string input_path, generate;  // exactly one of them is set
  long long n = 0;                   // with --generate
  std::uint64_t seed = 1;
  int bins = 0;
  std::optional<std::pair<double, double>> range;  // LO, HI as given; default: the data's
  std::vector<method_option> methods;              // the first one's counts are printed and written
  bool check = false;
  std::string out_path, png_path;
};

// The --help text.
extern const char* const histogram_usage;

// The options of a command line, checked; nothing when it asks for --help (the caller prints histogram_usage).
std::optional<histogram_options> parse_histogram_options(int argc, const char* const argv[]);

}  // namespace dpt::app
