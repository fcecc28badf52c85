// The tests that compare a file built with -mfma -ffp-contract=fast (tests/CMakeLists.txt sets
// DPT_TEST_FMA_BUILD where it builds one) with the ordinary build: that file runs only on CPUs with FMA.
#pragma once

#include <catch2/catch.hpp>

namespace dpt::test {

// Whether the FMA-built file can run here; warns in the calling test when it cannot. True where no file is
// built that way (the comparison is then of two ordinary builds, and still must hold).
inline bool fma_build_runs_here() {
#if DPT_TEST_FMA_BUILD
  if (!__builtin_cpu_supports("fma")) {
    WARN("this CPU has no FMA: the fused build cannot run");
    return false;
  }
#endif
  return true;
}

}  // namespace dpt::test
