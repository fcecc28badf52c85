// What one build_grid costs: the bytes it takes through a counting allocator against
// dpt::build_grid_temporary_bytes (test_support/counting_allocator.hpp), the calls after the first through a
// dpt::context, which must allocate nothing, and its Thrust calls and host reads against the budget grid.hpp states
// (test_support/counting_policy.hpp).
#include <catch2/catch.hpp>

#include <cstddef>
#include <cstdint>
#include <thrust/device_vector.h>
#include <thrust/host_vector.h>

#include <dpt/grid.hpp>
#include "test_support/counting_allocator.hpp"
#include "test_support/counting_policy.hpp"

namespace {

// n particles spread over the unit square, and room for the grid build_grid makes of them.
struct particles_and_grid {
  particles_and_grid(const dpt::uniform_grid<2, float>& grid, std::ptrdiff_t n)
      : cells(n), particles(n), start(grid.cell_count()), end(grid.cell_count()) {
    thrust::host_vector<float> host_x(n), host_y(n);
    for (std::ptrdiff_t i = 0; i < n; ++i) {
      host_x[i] = static_cast<float>(i * 7919 % 1000) / 1000;
      host_y[i] = static_cast<float>(i * 104729 % 997) / 997;
    }
    x = host_x;
    y = host_y;
  }
  thrust::device_vector<float> x, y;
  thrust::device_vector<std::uint32_t> cells, particles, start, end;
};

}  // namespace

TEST_CASE("build_grid_temporary_bytes bounds what build_grid takes from its policy, and a context serves it again",
          "[grid][temporary_bytes][context]" DPT_BACKEND_TAG) {
  const dpt::uniform_grid<2, float> grid{{0, 0}, {1, 1}, {64, 64}};
  for (const std::ptrdiff_t n : dpt::test::temporary_bytes_sizes) {
    CAPTURE(n);
    particles_and_grid p(grid, n);
    dpt::test::check_scratch(
        [&](const auto& policy) {
          dpt::build_grid(policy, grid, dpt::make_positions(p.x.begin(), p.y.begin()), n, p.cells.begin(),
                          p.particles.begin(), p.start.begin(), p.end.begin());
        },
        dpt::build_grid_temporary_bytes<std::uint32_t, std::uint32_t>(n));
  }
}

TEST_CASE("build_grid stays within its budget of Thrust calls and host reads", "[grid][budget]" DPT_BACKEND_TAG) {
  using dpt::test::counted;
  const dpt::uniform_grid<2, float> grid{{0, 0}, {1, 1}, {64, 64}};
  for (const std::ptrdiff_t n : dpt::test::temporary_bytes_sizes) {
    CAPTURE(n);
    particles_and_grid p(grid, n);
    // map to cells, find a particle without one (read), number the particles, sort by cell, zero the starts and
    // the ends, mark the boundaries
    dpt::test::check_budget("build_grid", dpt::test::calls_of([&](auto policy) {
                              dpt::build_grid(policy, grid, dpt::make_positions(counted(p.x), counted(p.y)), n,
                                              counted(p.cells), counted(p.particles), counted(p.start), counted(p.end));
                            }),
                            {7, 1});
  }
}
