// Catch2's implementation, compiled once per build and shared by both runners (tests/test_support/test_main.cu), whose
// own translation units hold only main(). CATCH_CONFIG_RUNNER compiles the implementation without a main.
#define CATCH_CONFIG_RUNNER
#include <catch2/catch.hpp>

#include "test_support/catch_session.hpp"

int dpt::test::run_catch_session(int argc, char* argv[]) {
  return Catch::Session().run(argc, argv);
}
