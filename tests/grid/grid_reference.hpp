// Host references for the grid tests: seeded particles, and the grid and the neighbours computed the plain
// sequential way (a loop over particles, and all pairs).
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <thrust/device_vector.h>
#include <thrust/host_vector.h>
#include <vector>

#include <dpt/grid.hpp>
#include "test_support/to_std.hpp"

namespace dpt::test {

enum class spread { uniform, clustered };

// Particles as a structure of arrays on the host; coordinate a of particle i is axis[a][i].
template <int Dim, class Real>
struct host_particles {
  std::vector<Real> axis[Dim];
  std::size_t size() const { return axis[0].size(); }
};

// n particles in the unit box: uniform, or in a few tight Gaussian clusters (many per cell, many empty cells).
template <int Dim, class Real>
host_particles<Dim, Real> random_particles(std::size_t n, std::uint64_t seed, spread how = spread::uniform) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  std::normal_distribution<double> jitter(0.0, 0.03);
  double centres[4][Dim];
  for (auto& centre : centres)
    for (auto& c : centre) c = unit(rng);
  host_particles<Dim, Real> p;
  for (auto& a : p.axis) a.resize(n);
  for (std::size_t i = 0; i < n; ++i) {
    const auto& centre = centres[i % 4];
    for (int a = 0; a < Dim; ++a) {
      const double x = how == spread::uniform ? unit(rng) : std::clamp(centre[a] + jitter(rng), 0.0, 1.0);
      p.axis[a][i] = static_cast<Real>(x);
    }
  }
  return p;
}

// The same particles in device memory.
template <int Dim, class Real>
struct device_particles {
  thrust::device_vector<Real> axis[Dim];
  explicit device_particles(const host_particles<Dim, Real>& p) {
    // construct rather than assign: Thrust 3.0.1's assign from an empty host range takes &*first of a null
    // iterator, which UBSan (asan preset) reports
    for (int a = 0; a < Dim; ++a) axis[a] = thrust::device_vector<Real>(p.axis[a].begin(), p.axis[a].end());
  }
  auto positions() const {
    using it = typename thrust::device_vector<Real>::const_iterator;
    dpt::soa_positions<Dim, it> pos;
    for (int a = 0; a < Dim; ++a) pos.axis[a] = axis[a].begin();
    return pos;
  }
  std::ptrdiff_t size() const { return static_cast<std::ptrdiff_t>(axis[0].size()); }
};

template <int Dim, class Real>
dpt::uniform_grid<Dim, Real> unit_grid(const std::vector<int>& cells) {
  dpt::uniform_grid<Dim, Real> grid;
  for (int a = 0; a < Dim; ++a) {
    grid.lower[a] = 0;
    grid.upper[a] = 1;
    grid.cells[a] = cells[a];
  }
  return grid;
}

// The cell of every particle, one at a time: floor of the position in cell units, the upper edge (and, when
// clamping, anything beyond the box) in the nearest cell. Assumes finite positions.
template <int Dim, class Real>
std::vector<std::int64_t> reference_cells(const dpt::uniform_grid<Dim, Real>& grid,
                                          const host_particles<Dim, Real>& p) {
  std::vector<std::int64_t> cells(p.size());
  for (std::size_t i = 0; i < p.size(); ++i) {
    std::int64_t cell = 0, stride = 1;
    for (int a = 0; a < Dim; ++a) {
      const Real t = (p.axis[a][i] - grid.lower[a]) / (grid.upper[a] - grid.lower[a]) * Real(grid.cells[a]);
      const auto k = static_cast<std::int64_t>(std::clamp<Real>(std::floor(t), 0, Real(grid.cells[a] - 1)));
      cell += k * stride;
      stride *= grid.cells[a];
    }
    cells[i] = cell;
  }
  return cells;
}

// The first particle whose cell is not where exact arithmetic puts it, or -1. reference_cells and the library map a
// position in Real arithmetic with one formula; this checks that formula from outside: in long double, each axis's
// cell k must satisfy k ≤ t < k + 1 for t = (x − lower) / (upper − lower) · cells, give or take a few rounding
// errors of Real at an edge (the upper edge and, when clamping, anything beyond the box in the nearest cell).
template <int Dim, class Real>
std::int64_t first_cell_off_exact(const dpt::uniform_grid<Dim, Real>& grid, const host_particles<Dim, Real>& p,
                                  const std::vector<std::int64_t>& cells) {
  for (std::size_t i = 0; i < p.size(); ++i) {
    std::int64_t rest = cells[i];
    for (int a = 0; a < Dim; ++a) {
      const std::int64_t k = rest % grid.cells[a];
      rest /= grid.cells[a];
      const long double t = (static_cast<long double>(p.axis[a][i]) - grid.lower[a]) /
                            (static_cast<long double>(grid.upper[a]) - grid.lower[a]) * grid.cells[a];
      const long double slack = 8 * std::numeric_limits<Real>::epsilon() * std::max<long double>(1, std::fabs(t));
      const bool low_ok = k == 0 ? true : t >= k - slack;
      const bool high_ok = k == grid.cells[a] - 1 ? true : t < k + 1 + slack;
      if (!low_ok || !high_ok) return static_cast<std::int64_t>(i);
    }
  }
  return -1;
}

// For every cell, its particles in ascending order.
inline std::vector<std::vector<std::int64_t>> reference_lists(const std::vector<std::int64_t>& cells,
                                                              std::int64_t cell_count) {
  std::vector<std::vector<std::int64_t>> lists(cell_count);
  for (std::size_t i = 0; i < cells.size(); ++i) lists[cells[i]].push_back(static_cast<std::int64_t>(i));
  return lists;
}

// The particles other than i within distance ≤ radius of particle i, ascending. Distance as dpt::within_radius
// defines it: Σ (q_a − p_a)² ≤ radius², each operation in Real.
template <int Dim, class Real>
std::vector<std::int64_t> brute_force_neighbors_of(const host_particles<Dim, Real>& p, std::size_t i, Real radius) {
  std::vector<std::int64_t> neighbors;
  for (std::size_t j = 0; j < p.size(); ++j) {
    if (j == i) continue;
    Real d2 = 0;
    for (int a = 0; a < Dim; ++a) {
      const Real d = p.axis[a][j] - p.axis[a][i];
      d2 += d * d;
    }
    if (d2 <= radius * radius) neighbors.push_back(static_cast<std::int64_t>(j));
  }
  return neighbors;
}

// All pairs: for every particle, the others within distance ≤ radius, ascending.
template <int Dim, class Real>
std::vector<std::vector<std::int64_t>> brute_force_neighbors(const host_particles<Dim, Real>& p, Real radius) {
  std::vector<std::vector<std::int64_t>> neighbors(p.size());
  for (std::size_t i = 0; i < p.size(); ++i) neighbors[i] = brute_force_neighbors_of(p, i, radius);
  return neighbors;
}

}  // namespace dpt::test
