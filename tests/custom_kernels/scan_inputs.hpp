// The operators and seeded inputs that the custom-kernel tests share: the host SIMT runner's
// (test_custom_kernels.cpp) and the GPU comparison with CUB (test_vs_cub.cu).
#pragma once

#include <cstddef>
#include <cstdint>
#include <type_traits>
#include <vector>

#include <dpt/kernels/cuda.hpp>
#include "support/operators.hpp"
#include "support/random_inputs.hpp"

namespace dpt::test {

// Sums as the operator for numbers; composition of affine maps, which does not commute, for `affine`.
template <class T>
struct scan_op {
  using type = dpt::kernels::sum;
};
template <>
struct scan_op<affine> {
  using type = compose;
};
template <class T>
using scan_op_t = typename scan_op<T>::type;

// The exclusive scans' initial value: the map 3x + 7 for `affine`, `number` for numbers.
template <class T>
T scan_initial_value(int number) {
  if constexpr (std::is_same_v<T, affine>) {
    return affine{3, 7};
  } else {
    return T(number);
  }
}

// n seeded inputs: random affine maps for `affine`; otherwise numbers drawn uniformly from [lo, hi], whole
// numbers when T is an integer or `whole` is set (small whole floats keep every partial sum exact).
template <class T>
std::vector<T> scan_inputs(std::size_t n, std::uint64_t seed, int lo, int hi, bool whole) {
  if constexpr (std::is_same_v<T, affine>) {
    return random_affine_maps(n, seed);
  } else if constexpr (std::is_floating_point_v<T>) {
    if (whole) {
      const auto ints = random_values<int>(n, seed, lo, hi);
      return std::vector<T>(ints.begin(), ints.end());
    }
    return random_values<T>(n, seed, T(lo), T(hi));
  } else {
    return random_values<T>(n, seed, T(lo), T(hi));
  }
}

}  // namespace dpt::test
