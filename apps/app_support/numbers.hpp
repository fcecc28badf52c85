// Numbers in dpt's inputs, options and files alike: decimal, the whole token, and an error that names what was
// being read. The command line itself is parsed by CLI11 (app_support/command_line.hpp); its options keep their values
// as text, which these read.
#pragma once

#include <string>

#include "app_support/errors.hpp"

namespace dpt::app {

// Parses a whole token as a number, or throws input_error naming `what`. A number too large for the type is out
// of range; a double too small to be normal is kept (a subnormal, or 0), as strtod rounds it.
long long parse_int(const std::string& token, const std::string& what);
double parse_double(const std::string& token, const std::string& what);

// parse_int, and an input_error unless the number is in [min, max]: "--n must be between 0 and 10 (got 11)".
long long parse_int_in(const std::string& token, const std::string& what, long long min, long long max);

// How a whole token reads as a double, by those rules, for callers that word their own errors (with a file and a
// line): `value` is set when the token is a number; "1e309" is a number that overflows, "1e-310" a subnormal that
// is kept, "inf" and "nan" are numbers (callers that want finite values check them); hexadecimal ("0x10", "0x1p3") is
// not a number.
enum class double_token { number, not_a_number, overflows };
double_token read_double(const std::string& token, double& value);

}  // namespace dpt::app
