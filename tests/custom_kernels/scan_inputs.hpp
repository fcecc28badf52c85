// The operators, seeded inputs and sequential reference scan that the custom-kernel tests share: the host SIMT runner's
// (test_custom_kernels.cpp) and the GPU comparison with CUB (test_vs_cub.cu).
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <type_traits>
#include <vector>

#include <dpt/kernels/cuda.hpp>
#include "test_support/operators.hpp"
#include "test_support/random_inputs.hpp"

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

// n seeded multiples of 2^-fraction_bits, their numerators uniform in [-max_numerator, max_numerator]: fractions
// that a whole-number or 32-bit sum gets wrong. A scan forms only sums of consecutive inputs, with or without
// its initial value in front (its operator is associative, not commutative: the affine tests hold it to that),
// and each of those is exact in T when the numerators' prefix sums, widened by |init|, span less than 2^digits.
// That is checked here, so that a test may compare with a sequential sum exactly, whatever order the scan adds in.
template <class T>
std::vector<T> exact_fractions(std::size_t n, std::uint64_t seed, std::int64_t max_numerator, int fraction_bits,
                               T init) {
  static_assert(std::is_floating_point_v<T>);
  const auto numerators = random_values<std::int64_t>(n, seed, -max_numerator, max_numerator);
  const long double scale = static_cast<long double>(std::int64_t{1} << fraction_bits);
  std::int64_t prefix = 0, lowest = 0, highest = 0;
  std::vector<T> values(n);
  for (std::size_t i = 0; i < n; ++i) {
    prefix += numerators[i];
    lowest = std::min(lowest, prefix);
    highest = std::max(highest, prefix);
    values[i] = static_cast<T>(static_cast<long double>(numerators[i]) / scale);
  }
  const long double span =
      static_cast<long double>(highest - lowest) + std::fabs(static_cast<long double>(init)) * scale;
  if (!(span < static_cast<long double>(std::int64_t{1} << std::numeric_limits<T>::digits)))
    throw std::logic_error("exact_fractions: these sums would round; choose smaller numerators");
  return values;
}

// The scan tests' inputs, chosen so that a narrower type sums them wrong while every sum stays exact, and every
// comparison can be exact: int32 values in ±1000; int64 values in ±10^11, whose partial sums leave the int32
// range at once and stay below 2^63 for 2^26 of them; float values in 1/64ths below ±2, and double values in
// 2^-16ths below ±2^20 (36-bit numerators, past float's 24), which exact_fractions checks; random affine maps.
template <class T>
std::vector<T> exact_scan_inputs(std::size_t n, std::uint64_t seed, T init) {
  if constexpr (std::is_same_v<T, float>) {
    return exact_fractions<T>(n, seed, 127, 6, init);
  } else if constexpr (std::is_same_v<T, double>) {
    return exact_fractions<T>(n, seed, std::int64_t{1} << 36, 16, init);
  } else if constexpr (std::is_same_v<T, std::int64_t>) {
    return random_values<T>(n, seed, -100'000'000'000, 100'000'000'000);
  } else {
    return scan_inputs<T>(n, seed, -1000, 1000, true);
  }
}

// The references' own operator, never the kernels': a + b for numbers, dpt::test::compose for affine maps.
template <class T>
T reference_combine(const T& a, const T& b) {
  if constexpr (std::is_same_v<T, affine>)
    return compose{}(a, b);
  else
    return static_cast<T>(a + b);
}

// The sequential scan of every `segment` inputs on its own (of all of them when segment is 0), one element after
// another; an exclusive scan starts each segment from init.
template <class T>
std::vector<T> reference_scan(const std::vector<T>& in, bool exclusive, const T& init, std::size_t segment = 0) {
  std::vector<T> out(in.size());
  T running = init;
  for (std::size_t i = 0; i < in.size(); ++i) {
    const bool first = segment == 0 ? i == 0 : i % segment == 0;
    if (exclusive) {
      if (first) running = init;
      out[i] = running;
      running = reference_combine(running, in[i]);
    } else {
      running = first ? in[i] : reference_combine(running, in[i]);
      out[i] = running;
    }
  }
  return out;
}

}  // namespace dpt::test
