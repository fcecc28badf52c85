// Runs the Catch2 tests of this executable with the command line's options (tests/test_support/catch_session.cpp).
#pragma once

namespace dpt::test {

int run_catch_session(int argc, char* argv[]);

}  // namespace dpt::test
