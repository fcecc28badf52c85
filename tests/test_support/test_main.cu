// Catch2's runner for every dpt test executable. In CUDA builds a test of device code reports "skipped: no
// device" (ctest's exit code 77) on a machine without a GPU or without a driver, and fails on any other error
// from counting the devices; a test built with DPT_TEST_RUNS_ON_HOST (the SIMT runner's kernels, which run on
// the CPU) runs anyway. Catch2 itself is compiled once, apart (tests/test_support/catch_session.cpp).
#include <cstdio>
#include <thrust/execution_policy.h>

#include <dpt/config.hpp>
#include "test_support/catch_session.hpp"

#if DPT_CUDA_DEVICE_SYSTEM
#  include <exception>
#  include <string>

#  include <dpt/detail/cuda_check.hpp>
#endif

int main(int argc, char* argv[]) {
#if DPT_CUDA_DEVICE_SYSTEM && !defined(DPT_TEST_RUNS_ON_HOST)
  try {
    const std::string why = dpt::detail::why_no_cuda_device();
    if (!why.empty()) {
      std::printf("skipped: no device (%s)\n", why.c_str());
      return 77;  // ctest's SKIP_RETURN_CODE for dpt tests
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "error: %s\n", e.what());
    return 1;
  }
#endif
  return dpt::test::run_catch_session(argc, argv);
}
