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

namespace dpt::app {

// Bad input or bad usage: exit status 2.
struct input_error : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// "FILE:LINE: message", the form every reader uses for errors inside a file.
inline input_error file_error(const std::string& file, long long line, const std::string& message) {
  return input_error(file + ":" + std::to_string(line) + ": " + message);
}

// A check that failed (--check found a wrong answer): exit status 1.
struct check_failure : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// A message as the one line the contract promises: a control character (a newline in a file name, say)
// becomes '?'.
inline std::string one_line(const char* message) {
  std::string line(message);
  for (auto& c : line) {
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) c = '?';
  }
  return line;
}

// Runs an app's body and maps what it throws to the exit-status contract above.
template <class Body>
int run_app(const char* program, Body&& body) {
  try {
    return body();
  } catch (const input_error& e) {
    std::fprintf(stderr, "%s: error: %s\n", program, one_line(e.what()).c_str());
    return 2;
  } catch (const check_failure& e) {
    std::fprintf(stderr, "%s: check failed: %s\n", program, one_line(e.what()).c_str());
    return 1;
  } catch (const std::bad_alloc&) {
    // An allocation failed (Thrust's device allocations throw a std::bad_alloc too). Exit status 1, not 2: the
    // input was well formed, it only needs more memory than this machine or device has; the same command may
    // succeed elsewhere. The readers reject sizes that no allocation could ever satisfy as bad input (exit 2), and
    // require_memory (memory.hpp) refuses, with exit status 1 too, an input known not to fit before it allocates.
    std::fprintf(stderr, "%s: error: not enough memory for this input (an allocation failed)\n", program);
    return 1;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "%s: error: %s\n", program, one_line(e.what()).c_str());
    return 1;
  }
}

}  // namespace dpt::app
