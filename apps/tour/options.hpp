// dpt-tour's command line: it takes no options but --help, parsed by CLI11 (app_support/command_line.hpp, included by
// options.cpp only) like every app's, so an argument is an input_error (exit status 2).
#pragma once

#include <optional>
#include <string>

namespace dpt::app {

struct tour_options {};

// The --help text.
std::string tour_usage();

// The options of a command line; nothing when it asks for --help (the caller prints tour_usage()).
std::optional<tour_options> parse_tour_options(int argc, const char* const argv[]);

}  // namespace dpt::app
