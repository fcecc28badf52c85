// dpt/detail/cuda_check.hpp — every CUDA runtime call and kernel launch in dpt::algorithms goes through these,
// so a failure becomes a thrust::system_error naming the call instead of a silently wrong result.
// Only meaningful when Thrust's device system is CUDA; include it under that condition.
#pragma once

#include <cuda_runtime_api.h>
#include <string>
#include <thrust/execution_policy.h>
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

// The stream an execution policy runs on (thrust::cuda::par.on(s) carries one; thrust::device the default).
template <class DerivedPolicy>
cudaStream_t stream_of(const thrust::detail::execution_policy_base<DerivedPolicy>& exec) {
  return thrust::cuda_cub::stream(thrust::detail::derived_cast(thrust::detail::strip_const(exec)));
}

// Why this process cannot run CUDA work, or "" when it can. A machine without a GPU or without a driver (one
// that compiles dpt's CUDA build but cannot run it) is a reason; any other failure to count the devices, say a
// driver that does not match the runtime, is an error and throws.
inline std::string why_no_cuda_device() {
  int devices = 0;
  const cudaError_t status = cudaGetDeviceCount(&devices);
  if (status == cudaErrorNoDevice || status == cudaErrorInsufficientDriver || status == cudaErrorStubLibrary) {
    return std::string(cudaGetErrorName(status)) + ": " + cudaGetErrorString(status);
  }
  cuda_check(status, "cudaGetDeviceCount");
  return devices == 0 ? "no CUDA device" : "";
}

}  // namespace dpt::detail
