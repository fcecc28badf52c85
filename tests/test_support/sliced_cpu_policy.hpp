// The policy on which tests drive dpt's multicore CPU recipe (dpt/cpu/slice_scan.hpp) directly, with
// slices far shorter than a cache so that tiny inputs still make long chains of slices and short last
// slices. On CPU device systems it is the device policy (all cores); in a CUDA build the same host code runs
// on thrust::host.
#pragma once

#include <cstddef>
#include <thrust/execution_policy.h>
#include <vector>

#include <dpt/config.hpp>
#include <dpt/cpu/scan_avx512.hpp>
#include <dpt/cpu/slice_scan.hpp>
#include <dpt/cpu/tuning.hpp>

namespace dpt::test {

#if DPT_CUDA_DEVICE_SYSTEM
inline constexpr const auto& sliced_cpu_policy = thrust::host;
#else
inline constexpr const auto& sliced_cpu_policy = thrust::device;
#endif

// Slice lengths that exercise one-element slices, odd lengths and a few long ones.
inline const std::vector<std::ptrdiff_t> tiny_slice_lengths{1, 2, 3, 7, 64, 1000};

// Every input, however small, is sliced.
inline dpt::cpu::slice_sizes tiny_slices(std::ptrdiff_t slice_length) {
  return {slice_length, 0};
}

// Every way this CPU has of walking a slice of an integer sum scan (dpt/cpu/scan_avx512.hpp).
inline std::vector<dpt::cpu::scan_walk> available_scan_walks() {
  std::vector<dpt::cpu::scan_walk> walks{dpt::cpu::scan_walk::one_element};
  if (dpt::cpu::cpu_has_avx512()) walks.push_back(dpt::cpu::scan_walk::avx512);
  return walks;
}

inline const char* name(dpt::cpu::scan_walk walk) {
  return walk == dpt::cpu::scan_walk::avx512 ? "avx512" : "one element";
}

// Slicings for walk tests: short slices (chains of hand-offs, vectors cut at slice ends) and, with
// slice_length 0, the library's own sizes (small inputs are then one long walk on the calling thread).
inline dpt::cpu::slice_sizes walk_test_slices(std::ptrdiff_t slice_length, std::size_t element_bytes) {
  return slice_length > 0 ? tiny_slices(slice_length) : dpt::cpu::slice_sizes::for_element_bytes(element_bytes);
}

}  // namespace dpt::test
