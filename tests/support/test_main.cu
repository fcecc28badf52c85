// Catch2's runner for every dpt test executable. In CUDA builds a test of device code reports "skipped: no
// device" (ctest's exit code 77) on a machine without a GPU; a test built with DPT_TEST_RUNS_ON_HOST (the SIMT
// runner's kernels, which run on the CPU) runs anyway.
#define CATCH_CONFIG_RUNNER
#include <catch2/catch.hpp>

#include <cstdio>
#include <thrust/execution_policy.h>

#if THRUST_DEVICE_SYSTEM == THRUST_DEVICE_SYSTEM_CUDA
#  include <cuda_runtime_api.h>
#endif

int main(int argc, char* argv[]) {
#if THRUST_DEVICE_SYSTEM == THRUST_DEVICE_SYSTEM_CUDA && !defined(DPT_TEST_RUNS_ON_HOST)
  int devices = 0;
  if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
    std::puts("skipped: no device");
    return 77;  // ctest's SKIP_RETURN_CODE for dpt tests
  }
#endif
  return Catch::Session().run(argc, argv);
}
