// dpt/detail/rounding.hpp — products rounded on their own, never fused with the addition that follows.
//
// Some answers are defined by their roundings: NumPy's bin edges are i·step + lo with two roundings, and
// dpt::within_radius is Σ d_a² ≤ R² with every product rounded once. A fused multiply-add rounds a·b + c once,
// which can move an edge or flip a comparison by an ulp. Compilers fuse when they may:
//
//   nvcc, device code         a * b + c → fma(a, b, c) by default (--fmad=true)
//   GCC, GNU modes, -mfma     a * b + c → vfmadd (-ffp-contract=fast), even across statements
//
//   multiply_rn(a, b) + c     two roundings everywhere: the intrinsics on the device, an optimisation barrier
//                             on the host
#pragma once

#include <type_traits>

#include <dpt/config.hpp>

namespace dpt::detail {

// `value`, hidden from the host optimiser, which can then not fuse the product it came from into what follows.
template <class T>
inline T opaque(T value) {
#if defined(__GNUC__) && (defined(__x86_64__) || defined(__aarch64__))
  if constexpr (std::is_same_v<T, float> || std::is_same_v<T, double>) {
#  if defined(__x86_64__)
    asm("" : "+x"(value));
#  else
    asm("" : "+w"(value));
#  endif
    return value;
  } else
#endif
  {
    volatile T kept = value;
    return kept;
  }
}

// a · b rounded once, in a value that no later addition is fused with.
template <class Real>
DPT_HOST_DEVICE Real multiply_rn(Real a, Real b) {
#if defined(__CUDA_ARCH__)
  if constexpr (std::is_same_v<Real, float>) {
    return __fmul_rn(a, b);
  } else if constexpr (std::is_same_v<Real, double>) {
    return __dmul_rn(a, b);
  } else {
    return a * b;
  }
#else
  return opaque(a * b);
#endif
}

}  // namespace dpt::detail
