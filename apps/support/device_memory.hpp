// Which memory this build's device arrays live in, for require_memory (memory.hpp): the GPU's, with
// cudaMemGetInfo's free bytes, under the CUDA device system; the host's under OMP, TBB and CPP. Include it from
// `.cu` files only (it depends on the translation unit's device system).
#pragma once

#include <cstddef>

#include <dpt/config.hpp>
#include "support/memory.hpp"
#if THRUST_DEVICE_SYSTEM == THRUST_DEVICE_SYSTEM_CUDA
#  include <dpt/detail/cuda_check.hpp>
#endif

namespace dpt::app {

inline device_memory this_builds_device_memory() {
#if THRUST_DEVICE_SYSTEM == THRUST_DEVICE_SYSTEM_CUDA
  std::size_t free_bytes = 0, total_bytes = 0;
  dpt::detail::cuda_check(cudaMemGetInfo(&free_bytes, &total_bytes), "cudaMemGetInfo");
  return {false, static_cast<double>(free_bytes)};
#else
  return {true, 0};
#endif
}

}  // namespace dpt::app
