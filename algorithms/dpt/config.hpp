// dpt/config.hpp — the one place where dpt adapts to the compiler and to Thrust's device system.
//
// The same source compiles with nvcc (device system CUDA) and with a host compiler (OMP, TBB, CPP). Functors
// that Thrust calls on the device are marked DPT_HOST_DEVICE, which is `__host__ __device__` under nvcc and
// nothing elsewhere. DPT_ALWAYS_INLINE marks the small helpers of dpt's CPU loops (dpt/cpu/slice_scan.hpp)
// whose loop bodies are lambdas: if such a helper were called out of line, the running value the lambda
// captures would live in memory and every element would pay a store-to-load round trip.
#pragma once

#include <thrust/execution_policy.h>

#if defined(__CUDACC__)
#  define DPT_HOST_DEVICE __host__ __device__
#else
#  define DPT_HOST_DEVICE
#endif

#if defined(__GNUC__) || defined(__clang__)
#  define DPT_ALWAYS_INLINE __attribute__((always_inline)) inline
#else
#  define DPT_ALWAYS_INLINE inline
#endif

namespace dpt {

// The name of the Thrust device system this translation unit was built for: "cuda", "omp", "tbb" or "cpp".
constexpr const char* device_system_name() noexcept {
#if THRUST_DEVICE_SYSTEM == THRUST_DEVICE_SYSTEM_CUDA
  return "cuda";
#elif THRUST_DEVICE_SYSTEM == THRUST_DEVICE_SYSTEM_OMP
  return "omp";
#elif THRUST_DEVICE_SYSTEM == THRUST_DEVICE_SYSTEM_TBB
  return "tbb";
#else
  return "cpp";
#endif
}

}  // namespace dpt
