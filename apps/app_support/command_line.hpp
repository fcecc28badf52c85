// The dpt apps' command lines, parsed by CLI11 (Debian's libcli11-dev) under the rules every app promises: options
// are long (`--name value` or `--name=value`, `--flag`); an unknown option, an option given twice, a missing or empty
// value, a value given to a flag, and a separate value that is the next option (`--out --check` lost the output's
// name) are input_errors, so each is one line and exit status 2. Options keep their values as text: each app reads
// its numbers with parse_int_in / parse_double (app_support/numbers.hpp), which take the whole token in decimal and
// name the option in their messages. --help is an app's own flag, and its usage text its own (CLI11's is not used).
//
// CLI11 is included by .cpp files only (each app's options.cpp): nvcc never sees it.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include <CLI/CLI.hpp>

#include "app_support/numbers.hpp"

namespace dpt::app {

// A CLI::App for a dpt app: without CLI11's -h/--help and usage text (each app declares --help and prints its own
// usage), and keeping unknown options and positionals for parse_command_line to name in dpt's words.
class command_line : public CLI::App {
 public:
  explicit command_line(std::string program) : CLI::App("", std::move(program)) {
    set_help_flag();
    allow_extras();
  }
};

// An option `--NAME` (NAME without the dashes) that takes one value, stored in `value` when given.
CLI::Option* add_value_option(CLI::App& app, const std::string& name, std::string& value);

// An option `--NAME` that takes no value; `set` becomes true when given.
CLI::Option* add_flag_option(CLI::App& app, const std::string& name, bool& set);

// Whether `--NAME` was given.
bool given(const CLI::App& app, const std::string& name);

// Parses argv[1..argc) into `app`'s options by the rules above and returns the positional arguments, in order (an
// argument that does not start with --, or any after a lone --). Throws input_error for what the rules refuse.
std::vector<std::string> parse_command_line(command_line& app, int argc, const char* const argv[]);

}  // namespace dpt::app
