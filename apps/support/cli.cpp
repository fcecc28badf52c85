#include "support/cli.hpp"

#include <cerrno>
#include <cctype>
#include <cmath>
#include <cstdlib>

namespace dpt::app {

cli::cli(int argc, char* argv[], const std::set<std::string>& options, const std::set<std::string>& flags) {
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg.size() < 3 || arg.compare(0, 2, "--") != 0) {
      positionals_.push_back(arg);
      continue;
    }
    std::string name = arg.substr(2), value;
    const auto equals = name.find('=');
    const bool inline_value = equals != std::string::npos;
    if (inline_value) {
      value = name.substr(equals + 1);
      name.resize(equals);
    }
    if (!flags.count(name) && !options.count(name)) throw input_error("unknown option --" + name + " (try --help)");
    // a second value would silently replace the first, which may be the one the user meant
    if (values_.count(name)) throw input_error("option --" + name + " is given twice");
    if (flags.count(name)) {
      if (inline_value) throw input_error("option --" + name + " takes no value");
      values_[name] = "";
      continue;
    }
    if (!inline_value) {
      if (i + 1 >= argc) throw input_error("option --" + name + " needs a value");
      value = argv[++i];
      // `--out --check` lost the output's name, and would otherwise write a file called "--check"
      if (value.size() > 2 && value.compare(0, 2, "--") == 0) {
        throw input_error("option --" + name + " needs a value, not the option " + quote_token(value) + " (write --" +
                          name + "=VALUE for a value that starts with --)");
      }
    }
    // `--out=` or `--out ""` is a mistake, never a request to do without the option
    if (value.empty()) throw input_error("option --" + name + " needs a value");
    values_[name] = value;
  }
}

bool cli::has(const std::string& name) const {
  return values_.count(name) != 0;
}

std::optional<std::string> cli::get(const std::string& name) const {
  const auto it = values_.find(name);
  if (it == values_.end()) return std::nullopt;
  return it->second;
}

std::string cli::get_or(const std::string& name, const std::string& fallback) const {
  return get(name).value_or(fallback);
}

long long cli::get_int(const std::string& name, long long fallback, long long min, long long max) const {
  const auto value = get(name);
  if (!value) return fallback;
  const long long parsed = parse_int(*value, "--" + name);
  if (parsed < min || parsed > max) {
    throw input_error("--" + name + " must be between " + std::to_string(min) + " and " + std::to_string(max) +
                      " (got " + *value + ")");
  }
  return parsed;
}

double cli::get_double(const std::string& name, double fallback) const {
  const auto value = get(name);
  return value ? parse_double(*value, "--" + name) : fallback;
}

namespace {

// Whether strto* read all of `token`: not stopped early (by a NUL byte inside it, say) and not started late
// (strto* skip leading white space, which a number in a file or an option must not have).
bool read_whole(const std::string& token, const char* end) {
  return !token.empty() && !std::isspace(static_cast<unsigned char>(token.front())) &&
         end == token.c_str() + token.size();
}

}  // namespace

long long parse_int(const std::string& token, const std::string& what) {
  errno = 0;
  char* end = nullptr;
  const long long value = std::strtoll(token.c_str(), &end, 10);
  if (!read_whole(token, end)) throw input_error(what + ": " + quote_token(token) + " is not an integer");
  if (errno == ERANGE) throw input_error(what + ": " + quote_token(token) + " is out of range");
  return value;
}

double_token read_double(const std::string& token, double& value) {
  errno = 0;
  char* end = nullptr;
  value = std::strtod(token.c_str(), &end);
  // Decimal only: strtod also reads hexadecimal ("0x10"), which dpt's other readers (Matrix Market's numbers,
  // integers in base 10) and NumPy's loadtxt refuse.
  if (!read_whole(token, end) || token.find_first_of("xX") != std::string::npos) return double_token::not_a_number;
  // strtod reports ERANGE both for overflow, returning ±HUGE_VAL, and for underflow, returning a subnormal or
  // zero: only overflow loses the value (1e-310 is a subnormal double, 1e-400 rounds to 0, as it should)
  if (errno == ERANGE && (value == HUGE_VAL || value == -HUGE_VAL)) return double_token::overflows;
  return double_token::number;
}

double parse_double(const std::string& token, const std::string& what) {
  double value = 0;
  switch (read_double(token, value)) {
    case double_token::not_a_number:
      throw input_error(what + ": " + quote_token(token) + " is not a number");
    case double_token::overflows:
      throw input_error(what + ": " + quote_token(token) + " is out of range");
    case double_token::number:
      break;
  }
  return value;
}

}  // namespace dpt::app
