// A small command-line parser for the dpt apps: `--name value`, `--name=value`, `--flag` and positionals.
// Unknown or repeated options, missing or empty values (a separate value may not start with --: that is the next
// option) and malformed numbers are input_errors, so they exit with status 2.
#pragma once

#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "support/errors.hpp"

namespace dpt::app {

class cli {
 public:
  // `options` take a value; `flags` do not. Names are given without the leading dashes.
  cli(int argc, char* argv[], const std::set<std::string>& options, const std::set<std::string>& flags);

  bool has(const std::string& name) const;  // option given, or flag set
  std::optional<std::string> get(const std::string& name) const;
  std::string get_or(const std::string& name, const std::string& fallback) const;
  const std::vector<std::string>& positionals() const { return positionals_; }

  // Numbers with the option's name in the error message; the whole token must parse, without white space.
  long long get_int(const std::string& name, long long fallback, long long min, long long max) const;
  double get_double(const std::string& name, double fallback) const;

 private:
  std::map<std::string, std::string> values_;
  std::vector<std::string> positionals_;
};

// Parses a whole token as a number, or throws input_error naming `what`. A number too large for the type is out
// of range; a double too small to be normal is kept (a subnormal, or 0), as strtod rounds it.
long long parse_int(const std::string& token, const std::string& what);
double parse_double(const std::string& token, const std::string& what);

// How a whole token reads as a double, by those rules, for callers that word their own errors (with a file and a
// line): `value` is set when the token is a number; "1e309" is a number that overflows, "1e-310" a subnormal that
// is kept, "inf" and "nan" are numbers (callers that want finite values check them); hexadecimal ("0x10", "0x1p3") is
// not a number.
enum class double_token { number, not_a_number, overflows };
double_token read_double(const std::string& token, double& value);

}  // namespace dpt::app
