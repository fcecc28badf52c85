// Errors an app reports to its user, and the one place that turns them into a message and an exit code.
//
// Contract shared by every dpt app: bad input (a malformed file, a bad option, a value out of range) prints one
// line, "PROGRAM: error: FILE:LINE: what is wrong", and exits with status 2, leaving no output file behind.
#pragma once

#include <cstdio>
#include <exception>
#include <new>
#include <stdexcept>
#include <string>
#include <string_view>

namespace dpt::app {

// A message as the one line the contract promises: a control character (a newline in a file name, a NUL byte
// that would end the message early) becomes '?'.
inline std::string one_line(std::string line) {
  for (auto& c : line) {
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) c = '?';
  }
  return line;
}

// A token from the input as it may appear in a message: quoted, at most 40 characters, and every byte that is not
// printable ASCII shown as '?'.
inline std::string quote_token(std::string_view token) {
  std::string out = "'";
  for (std::size_t i = 0; i < token.size() && i < 40; ++i) {
    const auto c = static_cast<unsigned char>(token[i]);
    out += (c < 0x20 || c >= 0x7f) ? '?' : static_cast<char>(c);
  }
  return out + (token.size() > 40 ? "...'" : "'");
}

// Bad input or bad usage: exit status 2. The message is made one line as it is built, so that no byte of it is
// lost (what() is a C string).
struct input_error : std::runtime_error {
  explicit input_error(const std::string& message) : std::runtime_error(one_line(message)) {}
};

// "FILE:LINE: message", the form every reader uses for errors inside a file.
inline input_error file_error(const std::string& file, long long line, const std::string& message) {
  return input_error(file + ":" + std::to_string(line) + ": " + message);
}

// A check that failed (--check found a wrong answer): exit status 1.
struct check_failure : std::runtime_error {
  explicit check_failure(const std::string& message) : std::runtime_error(one_line(message)) {}
};

// False on the ranks of a distributed run other than rank 0, which alone prints the run's one line
// (app_support/ranks.hpp).
inline bool prints_errors = true;

// Runs an app's body and maps what it throws to the exit-status contract above.
template <class Body>
int run_app(const char* program, Body&& body) {
  const auto report = [program](const char* what, const std::string& message) {
    if (prints_errors) std::fprintf(stderr, "%s: %s: %s\n", program, what, one_line(message).c_str());
  };
  try {
    return body();
  } catch (const input_error& e) {
    report("error", e.what());
    return 2;
  } catch (const check_failure& e) {
    report("check failed", e.what());
    return 1;
  } catch (const std::bad_alloc&) {
    // An allocation failed (Thrust's device allocations throw a std::bad_alloc too). Exit status 1, not 2: the
    // input was well formed, it only needs more memory than this machine or device has; the same command may
    // succeed elsewhere. The readers reject sizes that no allocation could ever satisfy as bad input (exit 2), and
    // require_memory (memory.hpp) refuses, with exit status 1 too, an input known not to fit before it allocates.
    report("error", "not enough memory for this input (an allocation failed)");
    return 1;
  } catch (const std::exception& e) {
    report("error", e.what());
    return 1;
  }
}

}  // namespace dpt::app
