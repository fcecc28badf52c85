// dpt/detail/cuda_check.hpp — every CUDA runtime call and kernel launch in dpt::algorithms goes through these,
// so a failure becomes a thrust::system_error naming the call instead of a silently wrong result.
// Only meaningful when Thrust's device system is CUDA; include it under that condition.
#pragma once

#include <cuda_runtime_api.h>
#include <thrust/system/cuda/error.h>
#include <thrust/system_error.h>

namespace dpt::detail {

inline void cuda_check(cudaError_t status, const char* what) {
  if (status != cudaSuccess) throw thrust::system_error(status, thrust::cuda_category(), what);
}

// After a <<<…>>> launch: a bad configuration shows up at once; in debug builds the stream is also
// synchronised so that a fault inside the kernel is reported at this launch, not at some later call.
inline void cuda_check_launch(cudaStream_t stream, const char* kernel) {
  cuda_check(cudaGetLastError(), kernel);
#ifndef NDEBUG
  cuda_check(cudaStreamSynchronize(stream), kernel);
#else
  (void)stream;
#endif
}

}  // namespace dpt::detail
