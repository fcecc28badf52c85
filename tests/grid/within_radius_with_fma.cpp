// dpt::within_radius (dpt/grid_neighbors.hpp) built as a caller's build may build it: on x86-64 GCC,
// tests/CMakeLists.txt compiles this file with -mfma -ffp-contract=fast, so GCC contracts d·d + sum into one FMA
// wherever the code lets it. test_grid.cu calls it only on CPUs with FMA and compares it with its own build.
#include <dpt/grid_neighbors.hpp>

namespace dpt::test {

bool within_radius_built_with_fma(const double (&p)[3], const double (&q)[3], double radius) {
  return dpt::within_radius(p, q, radius);
}

bool within_radius_built_with_fma(const float (&p)[2], const float (&q)[2], float radius) {
  return dpt::within_radius(p, q, radius);
}

}  // namespace dpt::test
