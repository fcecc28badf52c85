#include "app_support/numbers.hpp"

#include <cerrno>
#include <cctype>
#include <cmath>
#include <cstdlib>

namespace dpt::app {

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

long long parse_int_in(const std::string& token, const std::string& what, long long min, long long max) {
  const long long parsed = parse_int(token, what);
  if (parsed < min || parsed > max) {
    throw input_error(what + " must be between " + std::to_string(min) + " and " + std::to_string(max) + " (got " +
                      token + ")");
  }
  return parsed;
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
