// The policy on which tests drive dpt's multicore CPU recipe (dpt/detail/slice_scan.hpp) directly, with
// slices far shorter than a cache so that tiny inputs still make long chains of slices and short last
// slices. On CPU device systems it is the device policy (all cores); in a CUDA build the same host code runs
// on thrust::host.
#pragma once

#include <cstddef>
#include <thrust/execution_policy.h>
#include <vector>

#include <dpt/detail/slice_scan.hpp>

namespace dpt::test {

#if THRUST_DEVICE_SYSTEM == THRUST_DEVICE_SYSTEM_CUDA
inline constexpr const auto& sliced_cpu_policy = thrust::host;
#else
inline constexpr const auto& sliced_cpu_policy = thrust::device;
#endif

// Slice lengths that exercise one-element slices, odd lengths and a few long ones.
inline const std::vector<std::ptrdiff_t> tiny_slice_lengths{1, 2, 3, 7, 64, 1000};

// Every input, however small, is sliced.
inline dpt::detail::slice_sizes tiny_slices(std::ptrdiff_t slice_length) {
  return {slice_length, 0};
}

}  // namespace dpt::test
