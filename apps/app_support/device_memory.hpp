// Which memory this build's device arrays live in, for require_memory (memory.hpp): the GPU's, with
// cudaMemGetInfo's free bytes, under the CUDA device system (which needs a GPU, see below); the host's under OMP,
// TBB and CPP. Include it from `.cu` files only (it depends on the translation unit's device system).
#pragma once

#include <cstddef>
#include <stdexcept>
#include <string>

#include <dpt/config.hpp>
#include "app_support/memory.hpp"
#if DPT_CUDA_DEVICE_SYSTEM
#  include <dpt/detail/cuda_check.hpp>
#endif

namespace dpt::app {

// Every app asks before its first device allocation, so a CUDA build on a machine without a GPU (or without a
// driver) ends there, with exit status 1 and one line that says so: "PROGRAM: error: no CUDA device (…)". The app
// tests skip on exactly that line, and only on it: any other CUDA error is a failure.
inline device_memory this_builds_device_memory() {
#if DPT_CUDA_DEVICE_SYSTEM
  const std::string why = dpt::detail::why_no_cuda_device();
  if (!why.empty()) throw std::runtime_error("no CUDA device (" + why + "); this build of dpt runs its work on a GPU");
  std::size_t free_bytes = 0, total_bytes = 0;
  dpt::detail::cuda_check(cudaMemGetInfo(&free_bytes, &total_bytes), "cudaMemGetInfo");
  return {false, static_cast<double>(free_bytes)};
#else
  return {true, 0};
#endif
}

}  // namespace dpt::app
