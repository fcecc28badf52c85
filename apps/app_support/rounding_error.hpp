// γ_n = n·u / (1 − n·u), the classic bound on the relative error of n rounded operations with unit roundoff u
// (Higham, Accuracy and Stability of Numerical Algorithms, §3.1): a sum or dot product of n terms, added in any
// order, is within γ_(n−1)(u)·Σ|term| of the exact one. Infinite once n·u reaches 1 (no bound).
//
//   rounding_gamma(3, 2^-53) ≈ 3.33e-16;   rounding_gamma(2^24, 2^-24) = ∞
#pragma once

#include <limits>

namespace dpt::app {

inline double rounding_gamma(double n, double unit_roundoff) {
  const double nu = n * unit_roundoff;
  return nu < 1 ? nu / (1 - nu) : std::numeric_limits<double>::infinity();
}

}  // namespace dpt::app
