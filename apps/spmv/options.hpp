// dpt-spmv's command line: the options a run takes, parsed by CLI11 (app_support/command_line.hpp, included by
// options.cpp only) and checked against each other. A bad option is an input_error naming it (exit status 2), e.g.
// "--repeat must be between 1 and 1000000 (got 0)".
#pragma once

#include <cstdint>
#include <optional>
#include <string>

namespace dpt::app {

struct spmv_options {
  std::string matrix_path, x_path, out_path;
  bool x_random = false, check = false, single_precision = false;
  std::uint64_t seed = 0;
  int repeat = 10;
};

// The --help text.
extern const char* const spmv_usage;

// The options of a command line, checked; nothing when it asks for --help (the caller prints spmv_usage).
std::optional<spmv_options> parse_spmv_options(int argc, const char* const argv[]);

}  // namespace dpt::app
