// dpt/cpu/system.hpp — which execution policies the CPU backend runs, and on how many cores.
//
// The lecture headers (dpt/scan.hpp, dpt/compact.hpp, …) hand a call to this backend when its policy belongs to a
// multicore CPU device system, OpenMP or TBB: `if constexpr (dpt::cpu::handles_v<Policy>)`. CUDA and the serial
// CPP system keep the Thrust composition.
#pragma once

#include <algorithm>
#include <cstddef>
#include <thread>
#include <type_traits>
#include <thrust/execution_policy.h>
#include <thrust/system/omp/detail/execution_policy.h>
#include <thrust/system/tbb/detail/execution_policy.h>

#include <dpt/config.hpp>

#if defined(_OPENMP)
#  include <omp.h>
#endif
#if THRUST_DEVICE_SYSTEM == THRUST_DEVICE_SYSTEM_TBB
#  include <tbb/task_arena.h>
#endif

namespace dpt::cpu {

template <class DerivedPolicy>
inline constexpr bool is_omp_policy_v =
    std::is_base_of_v<thrust::system::omp::detail::execution_policy<DerivedPolicy>, DerivedPolicy>;
template <class DerivedPolicy>
inline constexpr bool is_tbb_policy_v =
    std::is_base_of_v<thrust::system::tbb::detail::execution_policy<DerivedPolicy>, DerivedPolicy>;

// True for the policies this backend runs: those of the OpenMP and TBB device systems, on the host's cores.
template <class DerivedPolicy>
inline constexpr bool handles_v = is_omp_policy_v<DerivedPolicy> || is_tbb_policy_v<DerivedPolicy>;

// True when this build's device system is one this backend runs (thrust::device is an OpenMP or TBB policy): what
// the algorithms' *_temporary_bytes queries describe.
inline constexpr bool handles_device_system_v = handles_v<std::decay_t<decltype(thrust::device)>>;

// How many cores the policy's system will run a parallel loop on.
template <class DerivedPolicy>
std::ptrdiff_t worker_count() {
#if defined(_OPENMP)
  if constexpr (is_omp_policy_v<DerivedPolicy>) {
    return omp_get_max_threads();
  }
#endif
#if THRUST_DEVICE_SYSTEM == THRUST_DEVICE_SYSTEM_TBB
  if constexpr (is_tbb_policy_v<DerivedPolicy>) {
    return tbb::this_task_arena::max_concurrency();
  }
#endif
  return std::max(1u, std::thread::hardware_concurrency());
}

}  // namespace dpt::cpu
