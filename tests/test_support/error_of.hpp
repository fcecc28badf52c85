// The message of the input_error (bad input, exit status 2 in an app) that a call throws, so that a test can
// compare the whole message: error_of([] { parse_dims("4x0"); }) == "--dims: every axis needs 1 to 2^30 cells …".
#pragma once

#include <functional>
#include <string>

#include "app_support/errors.hpp"

namespace dpt::test {

// The message of the input_error that `body` throws, or "no error".
inline std::string error_of(const std::function<void()>& body) {
  try {
    body();
  } catch (const dpt::app::input_error& e) {
    return e.what();
  }
  return "no error";
}

}  // namespace dpt::test
