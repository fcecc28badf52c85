// dpt/grid_neighbors.hpp — every particle's neighbours within radius R, found through the grid.
//
// The grid exists for this query: the particles within distance R of p lie in p's cell or the cells around it
// (3×3 in 2-D, 3×3×3 in 3-D) as long as no cell is narrower than R. One task per particle visits those cells
// only, instead of all n particles.
//
//   particles (the 4×4 grid over [0,4]² of dpt/grid.hpp), R = 1:
//     0:(2.5,1.5) 1:(0.5,0.5) 2:(3.5,3.5) 3:(2.2,1.8) 4:(0.7,3.2) 5:(1.2,0.4)
//   count_neighbors → [1, 1, 0, 1, 0, 1]             0–3 are 0.42 apart, 1–5 are 0.71 apart
//   neighbor lists  → offsets [0, 1, 2, 2, 3, 3, 4]  (exclusive scan of the counts, total last)
//                     lists   [3, 5, 0, 1]           particle p's neighbours: lists[offsets[p] .. offsets[p+1])
//
// "Within R" means distance ≤ R, computed as Σ dx² ≤ R²; a particle is not its own neighbour. Results are in
// input order. The lists need no atomics: count per particle, exclusive scan of the counts to give each
// particle its own output range, then a second pass fills the ranges. Within a list, neighbours come in the
// order the cells are visited.
//
// Errors (std::invalid_argument): R not finite or R ≤ 0; R larger than the cell size along some axis, because
// a neighbour could then lie beyond the adjacent cells.
#pragma once

#include <cstddef>
#include <cuda/std/cmath>
#include <cuda/std/iterator>
#include <sstream>
#include <stdexcept>
#include <thrust/fill.h>
#include <thrust/for_each.h>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/iterator/permutation_iterator.h>
#include <thrust/scan.h>
#include <thrust/transform.h>

#include <dpt/config.hpp>
#include <dpt/scan.hpp>
#include <dpt/detail/temporary_array.hpp>
#include <dpt/grid.hpp>

namespace dpt {

// Throws std::invalid_argument unless 0 < radius ≤ every cell side (what the neighbour query needs).
template <int Dim, class Real>
void validate_neighbor_radius(const uniform_grid<Dim, Real>& grid, Real radius) {
  if (!(::cuda::std::isfinite(radius) && radius > Real(0))) {
    std::ostringstream os;
    os << "neighbour radius must be finite and > 0 (got " << radius << ")";
    throw std::invalid_argument(os.str());
  }
  for (int a = 0; a < Dim; ++a) {
    if (grid.cell_size(a) < radius) {
      std::ostringstream os;
      os << "neighbour radius " << radius << " exceeds the cell size " << grid.cell_size(a) << " along axis "
         << "xyz"[a] << ": neighbours could lie beyond the adjacent cells (use fewer cells or a smaller radius)";
      throw std::invalid_argument(os.str());
    }
  }
}

namespace detail {

// Visits every other particle within distance R of the particle in sorted slot `slot`, looking only in the
// cells adjacent to its own (its own included).
template <int Dim, class Real, class CoordIt, class CellIt, class ParticleIt, class OffsetIt>
struct neighbor_finder {
  uniform_grid<Dim, Real> grid;
  soa_positions<Dim, CoordIt> positions;
  sorted_grid<CellIt, ParticleIt, OffsetIt> sorted;
  Real radius_squared;

  template <class Visit>
  DPT_HOST_DEVICE void for_each_neighbor(std::ptrdiff_t slot, Visit&& visit) const {
    const auto p = static_cast<std::ptrdiff_t>(sorted.particles[slot]);
    Real here[Dim];
    int cell_coord[Dim];
    auto cell = static_cast<std::int64_t>(sorted.cells[slot]);
    for (int a = 0; a < Dim; ++a) {
      here[a] = positions.axis[a][p];
      cell_coord[a] = static_cast<int>(cell % grid.cells[a]);
      cell /= grid.cells[a];
    }
    // the 3^Dim cells around this one: digit a (base 3) of `visited` is the step −1, 0 or +1 along axis a
    for (int visited = 0, total = Dim == 2 ? 9 : 27; visited < total; ++visited) {
      std::int64_t neighbor_cell = 0, stride = 1;
      bool inside = true;
      int offset = visited;
      for (int a = 0; a < Dim; ++a) {
        const int k = cell_coord[a] + offset % 3 - 1;
        offset /= 3;
        inside = inside && 0 <= k && k < grid.cells[a];
        neighbor_cell += k * stride;
        stride *= grid.cells[a];
      }
      if (!inside) continue;
      const auto end = static_cast<std::ptrdiff_t>(sorted.cell_end[neighbor_cell]);
      for (auto j = static_cast<std::ptrdiff_t>(sorted.cell_start[neighbor_cell]); j < end; ++j) {
        const auto q = static_cast<std::ptrdiff_t>(sorted.particles[j]);
        if (q == p) continue;
        Real distance_squared = 0;
        for (int a = 0; a < Dim; ++a) {
          const Real d = Real(positions.axis[a][q]) - here[a];
          distance_squared += d * d;
        }
        if (distance_squared <= radius_squared) visit(q);
      }
    }
  }
};

template <class Finder>
struct count_in_radius {
  Finder finder;
  DPT_HOST_DEVICE std::ptrdiff_t operator()(std::ptrdiff_t slot) const {
    std::ptrdiff_t count = 0;
    finder.for_each_neighbor(slot, [&count](std::ptrdiff_t) { ++count; });
    return count;
  }
};

template <class Finder, class OffsetIt, class NeighborIt>
struct fill_in_radius {
  Finder finder;
  OffsetIt offsets;  // input order
  NeighborIt neighbors;
  DPT_HOST_DEVICE void operator()(std::ptrdiff_t slot) const {
    using neighbor_type = ::cuda::std::iter_value_t<NeighborIt>;
    auto out = static_cast<std::ptrdiff_t>(offsets[finder.sorted.particles[slot]]);
    const NeighborIt neighbors_out = neighbors;
    finder.for_each_neighbor(
        slot, [&out, neighbors_out](std::ptrdiff_t q) { neighbors_out[out++] = static_cast<neighbor_type>(q); });
  }
};

template <int Dim, class Real, class CoordIt, class CellIt, class ParticleIt, class OffsetIt>
neighbor_finder<Dim, Real, CoordIt, CellIt, ParticleIt, OffsetIt> make_neighbor_finder(
    const uniform_grid<Dim, Real>& grid, soa_positions<Dim, CoordIt> positions,
    const sorted_grid<CellIt, ParticleIt, OffsetIt>& sorted, Real radius) {
  validate_neighbor_radius(grid, radius);
  return {grid, positions, sorted, radius * radius};
}

}  // namespace detail

// Writes to counts_out[p] how many other particles lie within distance `radius` of particle p (input order).
// `sorted` is what build_grid returned for the same grid and positions.
template <class DerivedPolicy, int Dim, class Real, class CoordIt, class CellIt, class ParticleIt, class OffsetIt,
          class CountIt>
void count_neighbors(const thrust::detail::execution_policy_base<DerivedPolicy>& exec,
                     const uniform_grid<Dim, Real>& grid, soa_positions<Dim, CoordIt> positions,
                     const sorted_grid<CellIt, ParticleIt, OffsetIt>& sorted, Real radius, CountIt counts_out) {
  const auto finder = detail::make_neighbor_finder(grid, positions, sorted, radius);
  // map over the particles in cell order (neighbouring slots read the same cells), scattering each count
  // back to its particle's input position
  thrust::transform(exec, thrust::make_counting_iterator<std::ptrdiff_t>(0),
                    thrust::make_counting_iterator<std::ptrdiff_t>(sorted.size),
                    thrust::make_permutation_iterator(counts_out, sorted.particles),
                    detail::count_in_radius<decltype(finder)>{finder});
}

// First pass of the neighbour lists: offsets_out (n + 1 entries) gets the exclusive scan of the neighbour
// counts, so particle p's list will be neighbors[offsets[p] .. offsets[p+1]). Returns the total, offsets[n].
template <class DerivedPolicy, int Dim, class Real, class CoordIt, class CellIt, class ParticleIt, class OffsetIt,
          class ListOffsetIt>
std::ptrdiff_t neighbor_list_offsets(const thrust::detail::execution_policy_base<DerivedPolicy>& exec,
                                     const uniform_grid<Dim, Real>& grid, soa_positions<Dim, CoordIt> positions,
                                     const sorted_grid<CellIt, ParticleIt, OffsetIt>& sorted, Real radius,
                                     ListOffsetIt offsets_out) {
  using offset_type = ::cuda::std::iter_value_t<ListOffsetIt>;
  const auto n = sorted.size;
  // count each particle's neighbours; a zero after the last count becomes the total after the scan
  count_neighbors(exec, grid, positions, sorted, radius, offsets_out);
  thrust::fill_n(exec, offsets_out + n, 1, offset_type(0));
  // exclusive scan of the counts: where each particle's list starts
  dpt::exclusive_scan(exec, offsets_out, offsets_out + n + 1, offsets_out, offset_type(0));
  return static_cast<std::ptrdiff_t>(detail::read_element(offsets_out + n));
}

// Second pass: fills every particle's list at the offsets from neighbor_list_offsets (capacity: their total).
template <class DerivedPolicy, int Dim, class Real, class CoordIt, class CellIt, class ParticleIt, class OffsetIt,
          class ListOffsetIt, class NeighborIt>
void fill_neighbor_lists(const thrust::detail::execution_policy_base<DerivedPolicy>& exec,
                         const uniform_grid<Dim, Real>& grid, soa_positions<Dim, CoordIt> positions,
                         const sorted_grid<CellIt, ParticleIt, OffsetIt>& sorted, Real radius, ListOffsetIt offsets,
                         NeighborIt neighbors_out) {
  const auto finder = detail::make_neighbor_finder(grid, positions, sorted, radius);
  // fill: each particle writes its own range, found by the scan, so no two writers meet
  thrust::for_each_n(
      exec, thrust::make_counting_iterator<std::ptrdiff_t>(0), sorted.size,
      detail::fill_in_radius<decltype(finder), ListOffsetIt, NeighborIt>{finder, offsets, neighbors_out});
}

}  // namespace dpt
