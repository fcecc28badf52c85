// dpt/cpu/cpu_features.hpp — which vector instructions the CPU paths may use, decided at run time.
//
// dpt is compiled for the baseline of its target (x86-64: SSE2), so that one binary runs everywhere. A few
// inner loops (the compaction's gather, the integer scans' walks) have a second version compiled for AVX-512
// Foundation with DPT_TARGET_AVX512; callers take it only when cpu_has_avx512() says this CPU runs it.
#pragma once

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__)) && !defined(__CUDACC__)
#  include <immintrin.h>
#  define DPT_HAVE_AVX512 1
#  define DPT_TARGET_AVX512 __attribute__((target("avx512f")))
#else
#  define DPT_HAVE_AVX512 0
#endif

namespace dpt::cpu {

// Whether this CPU runs AVX-512 Foundation instructions (and dpt was built with the versions that use them);
// asked once.
inline bool cpu_has_avx512() {
#if DPT_HAVE_AVX512
  static const bool has = __builtin_cpu_supports("avx512f");
  return has;
#else
  return false;
#endif
}

}  // namespace dpt::cpu
