// dpt-scan's command line: the options a run takes, parsed by CLI11 (app_support/command_line.hpp, included by
// options.cpp only) and checked against each other. A bad option is an input_error naming it (exit status 2), e.g.
// "--input excludes --n and --seed".
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace dpt::app {

struct scan_options {
  std::int64_t n = 1 << 20;
  std::uint64_t seed = 1;
  std::string input, type = "i32", out;
  std::vector<std::string> impls;  // in the order they run; the first one's result is written
  bool exclusive = false, check = false;
};

// The --help text.
extern const char* const scan_usage;

// The options of a command line, checked; nothing when it asks for --help (the caller prints scan_usage).
std::optional<scan_options> parse_scan_options(int argc, const char* const argv[]);

}  // namespace dpt::app
