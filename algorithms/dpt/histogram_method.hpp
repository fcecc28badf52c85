// dpt/histogram_method.hpp — the ways dpt::histogram can count (dpt/histogram.hpp describes each), their names,
// and which of them this build's device system has; light enough for code that only chooses a method.
//
//   histogram_method_name(histogram_method::upper_bound)  →  "upper_bound"
//   histogram_method_available(histogram_method::cub)      →  true on the CUDA device system only
#pragma once

#include <dpt/config.hpp>

namespace dpt {

enum class histogram_method { sort, upper_bound, reduce_by_key, atomic, privatized, cub };

// The method's name as an identifier ("upper_bound"), for test output and benchmark names.
constexpr const char* histogram_method_name(histogram_method method) noexcept {
  switch (method) {
    case histogram_method::sort:
      return "sort";
    case histogram_method::upper_bound:
      return "upper_bound";
    case histogram_method::reduce_by_key:
      return "reduce_by_key";
    case histogram_method::atomic:
      return "atomic";
    case histogram_method::privatized:
      return "privatized";
    default:
      return "cub";
  }
}

// False only for `cub` on a CPU device system, where there is no CUB.
constexpr bool histogram_method_available(histogram_method method) noexcept {
#if DPT_CUDA_DEVICE_SYSTEM
  (void)method;
  return true;
#else
  return method != histogram_method::cub;
#endif
}

}  // namespace dpt
