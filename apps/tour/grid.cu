// Tour chapter: the lecture's particle grid. Six particles in a 4×4 grid over [0,4]², put into cells with the
// sort-based solution (map, sort, boundary detection), the lock-based solutions giving the same cell lists,
// and each particle's neighbours within radius 1. Expected values worked by hand (see dpt/grid.hpp).
#include <thrust/device_vector.h>
#include <thrust/host_vector.h>
#include <vector>

#include <dpt/grid.hpp>
#include <dpt/grid_neighbors.hpp>
#include <dpt/grid_solutions.hpp>
#include "tour/example.hpp"
#include "tour/to_host.hpp"

namespace dpt::tour {

chapter grid_chapter() {
  const std::vector<double> x{2.5, 0.5, 3.5, 2.2, 0.7, 1.2}, y{1.5, 0.5, 3.5, 1.8, 3.2, 0.4};
  const thrust::device_vector<double> d_x(x.begin(), x.end()), d_y(y.begin(), y.end());
  const auto positions = dpt::make_positions(d_x.cbegin(), d_y.cbegin());
  const dpt::uniform_grid<2, double> grid{{0, 0}, {4, 4}, {4, 4}};
  const std::ptrdiff_t n = 6;
  const std::string input = "x=" + show(x) + " y=" + show(y) + ", 4x4 cells over [0,4]^2, cell = x + 4y";
  chapter ch{"particles in a uniform grid", {}};

  thrust::device_vector<int> cells(n), particles(n), cell_start(16), cell_end(16);
  // step 1, map: each particle's cell
  dpt::map_particles_to_cells(thrust::device, grid, positions, n, cells.begin());
  ch.examples.push_back({"map: the cell of each particle", input, show(to_host(cells)), "[6, 0, 15, 6, 12, 1]"});

  // step 2, sort by cell; the particle ids ride along
  dpt::sort_particles_by_cell(thrust::device, cells.begin(), cells.end(), particles.begin());
  ch.examples.push_back({"sort_by_key (cell, particle)", "cells [6, 0, 15, 6, 12, 1], particles [0 .. 5]",
                         show(to_host(cells)) + " " + show(to_host(particles)),
                         "[0, 1, 6, 6, 12, 15] [1, 5, 0, 3, 4, 2]"});

  // step 3, boundary detection: where cell[i] differs from cell[i-1], a cell starts and the previous one ends
  dpt::find_cell_boundaries(thrust::device, cells.begin(), cells.end(), 16, cell_start.begin(), cell_end.begin());
  ch.examples.push_back({"boundaries: cell_start / cell_end (empty cells [0, 0))", "sorted cells [0, 1, 6, 6, 12, 15]",
                         show(to_host(cell_start)) + " / " + show(to_host(cell_end)),
                         "[0, 1, 0, 0, 0, 0, 2, 0, 0, 0, 0, 0, 4, 0, 0, 5] / "
                         "[1, 2, 0, 0, 0, 0, 4, 0, 0, 0, 0, 0, 5, 0, 0, 6]"});

  // the lecture's solution 2, a lock per cell, gives the same lists once each is in ascending order
  thrust::device_vector<int> offsets(17), ids(n);
  dpt::bin_particles_lock_per_cell(thrust::device, grid, positions, n, offsets.begin(), ids.begin());
  dpt::sort_within_cells(thrust::device, offsets.begin(), 16, ids.begin(), ids.end());
  ch.examples.push_back({"solution 2 (lock per cell): offsets / ids", input,
                         show(to_host(offsets)) + " / " + show(to_host(ids)),
                         "[0, 1, 2, 2, 2, 2, 2, 4, 4, 4, 4, 4, 4, 5, 5, 5, 6] / [1, 5, 0, 3, 4, 2]"});

  // neighbours within R = 1, visiting only the 3×3 cells around each particle
  const dpt::sorted_grid<decltype(cells.begin()), decltype(particles.begin()), decltype(cell_start.begin())> sorted{
      cells.begin(), particles.begin(), n, cell_start.begin(), cell_end.begin()};
  thrust::device_vector<int> counts(n);
  dpt::count_neighbors(thrust::device, grid, positions, sorted, 1.0, counts.begin());
  ch.examples.push_back(
      {"neighbours within R = 1 (0-3 are 0.42 apart, 1-5 0.71)", input, show(to_host(counts)), "[1, 1, 0, 1, 0, 1]"});
  return ch;
}

}  // namespace dpt::tour
