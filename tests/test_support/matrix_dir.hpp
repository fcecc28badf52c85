// The folder of the real matrices, data/matrices: $DPT_MATRIX_DIR where it is set, else the one in the source tree
// the test was built from. scripts/gpu-check sets it, since a build packed on one machine and unpacked on another
// (scripts/gpu_build_pack.sh) names a source tree that is not there.
#pragma once

#include <cstdlib>
#include <string>

namespace dpt::test {

inline std::string matrix_dir() {
  const char* dir = std::getenv("DPT_MATRIX_DIR");
  return dir && *dir ? std::string(dir) : std::string(DPT_DEFAULT_MATRIX_DIR);
}

}  // namespace dpt::test
