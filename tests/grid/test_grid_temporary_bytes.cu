// dpt::build_grid_temporary_bytes against what build_grid takes through a counting allocator
// (test_support/counting_allocator.hpp), and the calls after the first through a dpt::context, which must
// allocate nothing.
#include <catch2/catch.hpp>

#include <cstddef>
#include <cstdint>
#include <thrust/device_vector.h>
#include <thrust/host_vector.h>

#include <dpt/grid.hpp>
#include "test_support/counting_allocator.hpp"

TEST_CASE("build_grid_temporary_bytes bounds what build_grid takes from its policy, and a context serves it again",
          "[grid][temporary_bytes][context]" DPT_BACKEND_TAG) {
  const dpt::uniform_grid<2, float> grid{{0, 0}, {1, 1}, {64, 64}};
  for (const std::ptrdiff_t n : dpt::test::temporary_bytes_sizes) {
    CAPTURE(n);
    thrust::host_vector<float> host_x(n), host_y(n);
    for (std::ptrdiff_t i = 0; i < n; ++i) {
      host_x[i] = static_cast<float>(i * 7919 % 1000) / 1000;
      host_y[i] = static_cast<float>(i * 104729 % 997) / 997;
    }
    const thrust::device_vector<float> x = host_x, y = host_y;
    thrust::device_vector<std::uint32_t> cells(n), particles(n), start(grid.cell_count()), end(grid.cell_count());
    dpt::test::check_scratch(
        [&](const auto& policy) {
          dpt::build_grid(policy, grid, dpt::make_positions(x.begin(), y.begin()), n, cells.begin(), particles.begin(),
                          start.begin(), end.begin());
        },
        dpt::build_grid_temporary_bytes<std::uint32_t, std::uint32_t>(n));
  }
}
