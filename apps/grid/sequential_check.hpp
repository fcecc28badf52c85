// dpt-grid --check's references: each particle's cell by a sequential loop, and neighbour counts by brute force,
// both in the run's precision (Real) so that they agree with the data-parallel answers to the last bit.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <random>
#include <vector>

#include <dpt/grid.hpp>
#include <dpt/grid_neighbors.hpp>
#include "grid/particles.hpp"

namespace dpt::app {

// How many particles' cells (particle_cell, in input order) differ from a sequential loop's.
template <int Dim, class Real, class Index>
std::ptrdiff_t count_wrong_cells(const dpt::uniform_grid<Dim, Real>& grid, const particle_source& p,
                                 const std::vector<Index>& particle_cell) {
  std::ptrdiff_t wrong = 0;
  for (std::size_t i = 0; i < p.size(); ++i) {
    std::int64_t cell = 0, stride = 1;
    for (int a = 0; a < Dim; ++a) {
      const Real x = static_cast<Real>(p.axis[a][i]);
      const Real t = (x - grid.lower[a]) / (grid.upper[a] - grid.lower[a]) * Real(grid.cells[a]);
      const auto k = static_cast<std::int64_t>(std::clamp<Real>(std::floor(t), 0, Real(grid.cells[a] - 1)));
      cell += k * stride;
      stride *= grid.cells[a];
    }
    wrong += cell != static_cast<std::int64_t>(particle_cell[i]);
  }
  return wrong;
}

struct sampled_check {
  std::ptrdiff_t checked = 0, wrong = 0;
};

// Neighbour counts (in input order) against brute force: every particle against all others up to 20000
// particles, else a seeded random sample of particles costing as much (20000² distance tests).
template <int Dim, class Real, class Index>
sampled_check check_neighbor_counts(const particle_source& p, Real radius, const std::vector<Index>& counts) {
  const auto n = static_cast<std::ptrdiff_t>(p.size());
  if (n == 0) return {};
  const std::ptrdiff_t budget = 20000LL * 20000LL;
  const std::ptrdiff_t samples = n <= 20000 ? n : std::max<std::ptrdiff_t>(1, budget / n);
  std::mt19937_64 rng(12345);
  std::uniform_int_distribution<std::ptrdiff_t> pick(0, n - 1);
  sampled_check result{samples, 0};
  for (std::ptrdiff_t s = 0; s < samples; ++s) {
    const std::ptrdiff_t i = samples == n ? s : pick(rng);
    Real here[Dim];
    for (int a = 0; a < Dim; ++a) here[a] = static_cast<Real>(p.axis[a][i]);
    Index count = 0;
    for (std::ptrdiff_t j = 0; j < n; ++j) {
      if (j == i) continue;
      Real there[Dim];
      for (int a = 0; a < Dim; ++a) there[a] = static_cast<Real>(p.axis[a][j]);
      // distance <= R as the query decides it: in Real, from the Real positions
      count += dpt::within_radius(here, there, radius);
    }
    result.wrong += count != counts[i];
  }
  return result;
}

}  // namespace dpt::app
