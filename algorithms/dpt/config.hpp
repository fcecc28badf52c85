// dpt/config.hpp — the one place where dpt adapts to the compiler and to Thrust's device system.
//
// The same source compiles with nvcc (device system CUDA) and with a host compiler (OMP, TBB, CPP). Two questions
// follow, each answered here once:
//   which device system?  DPT_CUDA_DEVICE_SYSTEM (1 on CUDA, else 0) for code that differs on a GPU build:
//                         apps, tests and benchmarks that time, allocate or compare with CUB there. (Algorithms
//                         choose by their policy instead: dpt::cpu::handles_v, dpt/cpu/system.hpp.)
//   is nvcc compiling?    DPT_HOST_DEVICE, `__host__ __device__` under nvcc and nothing elsewhere, on the functors
//                         Thrust calls on the device; and the custom kernels' launch
//                         (custom_kernels/dpt/kernels/cuda.hpp), which must also work when a CUDA build compiles a
//                         .cpp file with the host compiler.
// DPT_ALWAYS_INLINE marks the small helpers of dpt's CPU loops (dpt/cpu/slice_scan.hpp) whose loop bodies are
// lambdas: if such a helper were called out of line, the running value the lambda captures would live in memory
// and every element would pay a store-to-load round trip.
#pragma once

#include <thrust/execution_policy.h>

#if defined(__CUDACC__)
#  define DPT_HOST_DEVICE __host__ __device__
#else
#  define DPT_HOST_DEVICE
#endif

#if THRUST_DEVICE_SYSTEM == THRUST_DEVICE_SYSTEM_CUDA
#  define DPT_CUDA_DEVICE_SYSTEM 1
#else
#  define DPT_CUDA_DEVICE_SYSTEM 0
#endif

#if defined(__GNUC__) || defined(__clang__)
#  define DPT_ALWAYS_INLINE __attribute__((always_inline)) inline
#else
#  define DPT_ALWAYS_INLINE inline
#endif

namespace dpt {

// The name of the Thrust device system this translation unit was built for: "cuda", "omp", "tbb" or "cpp".
constexpr const char* device_system_name() noexcept {
#if DPT_CUDA_DEVICE_SYSTEM
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
