// dpt/scan.hpp — inclusive and exclusive scan that use every core on the CPU device systems.
//
//   data                  = [3, 8, 4, 6, 3, 9, 2, 8]
//   inclusive_scan(+)     → [3, 11, 15, 21, 24, 33, 35, 43]
//   exclusive_scan(+, 0)  → [0, 3, 11, 15, 21, 24, 33, 35]
//
// Any associative operator works; it need not be commutative. On CUDA and CPP the calls are
// thrust::inclusive_scan / thrust::exclusive_scan. Thrust's OpenMP scan runs on one core, so OpenMP
// and TBB policies go to dpt's CPU backend (dpt/cpu/scan.hpp): the lecture's "each core scans its slice, then
// adds its base".
#pragma once

#include <cstddef>
#include <cuda/std/functional>
#include <cuda/std/iterator>
#include <thrust/scan.h>

#include <dpt/config.hpp>
#include <dpt/cpu/scan.hpp>
#include <dpt/detail/primitive_scratch.hpp>

namespace dpt {

// result[i] = first[0] ⊕ … ⊕ first[i]. Returns the end of the output. The output may be the input. Per call (both
// scans) on CUDA and CPP: one Thrust scan, no host read.
template <class DerivedPolicy, class InputIt, class OutputIt, class AssociativeOp = ::cuda::std::plus<>>
OutputIt inclusive_scan(const thrust::detail::execution_policy_base<DerivedPolicy>& exec, InputIt first, InputIt last,
                        OutputIt result, AssociativeOp op = {}) {
  if constexpr (cpu::handles_v<DerivedPolicy>) {
    using T = ::cuda::std::iter_value_t<InputIt>;
    // each core scans its slice, then adds its base
    return cpu::scan<false>(exec, first, last, result, T{}, op);
  } else {
    // one scan on the device system (CUB's single-pass scan on CUDA, a loop on CPP)
    return thrust::inclusive_scan(exec, first, last, result, op);
  }
}

// result[i] = init ⊕ first[0] ⊕ … ⊕ first[i−1]. Returns the end of the output. The output may be the input.
template <class DerivedPolicy, class InputIt, class OutputIt, class T, class AssociativeOp = ::cuda::std::plus<>>
OutputIt exclusive_scan(const thrust::detail::execution_policy_base<DerivedPolicy>& exec, InputIt first, InputIt last,
                        OutputIt result, T init, AssociativeOp op = {}) {
  if constexpr (cpu::handles_v<DerivedPolicy>) {
    // each core scans its slice, then adds its base
    return cpu::scan<true>(exec, first, last, result, init, op);
  } else {
    // one scan on the device system (CUB's single-pass scan on CUDA, a loop on CPP)
    return thrust::exclusive_scan(exec, first, last, result, init, op);
  }
}

// An upper bound on the bytes inclusive_scan and exclusive_scan of n elements of type T take through
// thrust::device's policy, on this build's device system: Thrust's scan scratch on CUDA
// (dpt/detail/primitive_scratch.hpp), nothing on the CPU systems.
template <class T>
std::size_t scan_temporary_bytes(std::ptrdiff_t n) {
  return cpu::handles_device_system_v ? 0 : detail::scan_scratch_bytes<T>(n);
}

}  // namespace dpt
