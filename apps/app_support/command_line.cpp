#include "app_support/command_line.hpp"

namespace dpt::app {

CLI::Option* add_value_option(CLI::App& app, const std::string& name, std::string& value) {
  // TakeLast lets CLI11 keep every occurrence; parse_command_line then refuses a second one in dpt's words
  return app.add_option("--" + name, value)->multi_option_policy(CLI::MultiOptionPolicy::TakeLast);
}

CLI::Option* add_flag_option(CLI::App& app, const std::string& name, bool& set) {
  return app.add_flag("--" + name, set);
}

bool given(const CLI::App& app, const std::string& name) {
  return app.count("--" + name) > 0;
}

namespace {

bool is_long_option(const std::string& arg) {
  return arg.size() > 2 && arg.compare(0, 2, "--") == 0;
}

// What CLI11 accepts and dpt's rules refuse, checked in argv's order before CLI11 parses: a separate value that is
// the next option (CLI11 reads `--out --check` as --out=--check, and `--x --out y` as --x without a value), a
// missing or empty value (`--out=`, `--out ""`), and a value given to a flag (CLI11 reads `--check=` as --check).
void check_values(const CLI::App& app, int argc, const char* const argv[]) {
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--") return;  // the rest are positionals
    if (!is_long_option(arg)) continue;
    const auto equals = arg.find('=');
    const bool inline_value = equals != std::string::npos;
    const std::string name = arg.substr(2, inline_value ? equals - 2 : std::string::npos);
    const CLI::Option* option = app.get_option_no_throw("--" + name);
    if (option == nullptr) continue;  // an unknown option: parse_command_line names it after CLI11 has parsed
    if (option->get_expected_max() == 0) {
      if (inline_value) throw input_error("option --" + name + " takes no value");
      continue;
    }
    std::string value;
    if (inline_value) {
      value = arg.substr(equals + 1);
    } else {
      if (i + 1 >= argc) throw input_error("option --" + name + " needs a value");
      value = argv[++i];
      // `--out --check` lost the output's name, and would otherwise write a file called "--check"
      if (is_long_option(value)) {
        throw input_error("option --" + name + " needs a value, not the option " + quote_token(value) + " (write --" +
                          name + "=VALUE for a value that starts with --)");
      }
    }
    // `--out=` or `--out ""` is a mistake, never a request to do without the option
    if (value.empty()) throw input_error("option --" + name + " needs a value");
  }
}

}  // namespace

std::vector<std::string> parse_command_line(command_line& app, int argc, const char* const argv[]) {
  check_values(app, argc, argv);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    throw input_error(std::string(e.what()) + " (try --help)");
  }
  std::vector<std::string> positionals;
  bool after_marker = false;
  for (const auto& arg : app.remaining()) {
    if (!after_marker && arg == "--") {
      after_marker = true;
      continue;
    }
    if (!after_marker && is_long_option(arg)) {
      throw input_error("unknown option " + arg.substr(0, arg.find('=')) + " (try --help)");
    }
    positionals.push_back(arg);
  }
  // a second value would silently replace the first, which may be the one the user meant
  for (const CLI::Option* option : app.get_options()) {
    if (option->count() > 1) throw input_error("option " + option->get_name() + " is given twice");
  }
  return positionals;
}

}  // namespace dpt::app
