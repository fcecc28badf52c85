// dpt/grid_neighbors.hpp — every particle's neighbours within radius R, found through the grid.
//
// The grid exists for this query: the particles within distance R of p lie in the cells that the box
// p ± R overlaps, which is p's cell and the ones around it (3×3 in 2-D, 3×3×3 in 3-D) when no cell is narrower
// than R. One task per particle visits those cells only, instead of all n particles.
//
//   particles (the 4×4 grid over [0,4]² of dpt/grid.hpp), R = 1:
//     0:(2.5,1.5) 1:(0.5,0.5) 2:(3.5,3.5) 3:(2.2,1.8) 4:(0.7,3.2) 5:(1.2,0.4)
//   count_neighbors → [1, 1, 0, 1, 0, 1]             0–3 are 0.42 apart, 1–5 are 0.71 apart
//   neighbor lists  → offsets [0, 1, 2, 2, 3, 3, 4]  (exclusive scan of the counts, total last)
//                     lists   [3, 5, 0, 1]           particle p's neighbours: lists[offsets[p] .. offsets[p+1])
//
// "Within R" means distance ≤ R as within_radius computes it: in the coordinates' type Real, Σ (q_a − p_a)² ≤
// R², every operation rounded once; a particle is not its own neighbour. Results are in input order. The lists
// need no atomics: count per particle, exclusive scan of the counts to give each particle its own output range,
// then a second pass fills the ranges. Within a list, neighbours come in the order the cells are visited.
//
// Which cells, exactly. A cell computed in Real can disagree with the exact one by rounding (a particle a few ulps
// below an edge may land in the cell above it), so "the adjacent cells of p's cell" can miss a neighbour two cells
// away. Instead, along each axis the query visits the cells from cell_index(p_a − reach) to cell_index(p_a + reach),
// with reach = R · (1 + 4ε) (ε: Real's machine epsilon) and p_a ± reach rounded in Real. Why that misses nothing:
// with u = ε/2 and R² a normal number, Σ d_a² ≤ R² in Real bounds every rounded |d_a| by R · (1 + 2u), hence the
// exact |q_a − p_a| by R · (1 + 5u) < reach. Rounding to nearest never carries a value past a representable number
// such as q_a, so p_a − reach rounds to at most q_a and p_a + reach to at least q_a; cell_index never decreases as
// its argument grows (dpt/grid.hpp), so q's cell lies in the visited range. R need not be below the cell side for
// that; the limit only keeps the range short: p's cell and its neighbours, 3 cells per axis, plus whatever rounding
// adds at the ends.
//
// Errors (std::invalid_argument): R not finite or R ≤ 0; R larger than the cell size along some axis, beyond
// rounding (the query is meant to visit only the cells next to p's; largest_neighbor_radius); R whose square
// overflows or is not a normal number in Real (the argument above needs R² normal; with R² = ∞ every pair would
// be within R).
#pragma once

#include <charconv>
#include <cmath>
#include <cstddef>
#include <cuda/std/cmath>
#include <cuda/std/iterator>
#include <cuda/std/limits>
#include <stdexcept>
#include <string>
#include <thrust/fill.h>
#include <thrust/for_each.h>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/iterator/permutation_iterator.h>
#include <thrust/scan.h>
#include <thrust/transform.h>

#include <dpt/config.hpp>
#include <dpt/scan.hpp>
#include <dpt/detail/rounding.hpp>
#include <dpt/detail/temporary_array.hpp>
#include <dpt/grid.hpp>

namespace dpt {

namespace detail {

// d_x² + d_y² (+ d_z²), d_a = q_a − p_a, in that order, every product rounded on its own
// (dpt/detail/rounding.hpp).
template <int Dim, class Real>
DPT_HOST_DEVICE Real squared_distance(const Real (&p)[Dim], const Real (&q)[Dim]) {
  Real sum = 0;
  for (int a = 0; a < Dim; ++a) {
    const Real d = q[a] - p[a];
    sum += multiply_rn(d, d);
  }
  return sum;
}

}  // namespace detail

// Whether q lies within distance `radius` of p, as every dpt neighbour query decides it: in Real, d_a = q_a −
// p_a, then d_x² + d_y² (+ d_z²) summed in that order and compared with radius², every product rounded on its
// own (never fused into an fma), so that a host loop calling this agrees with the query on any device. The
// answer is the same for (p, q) as for (q, p).
template <int Dim, class Real>
DPT_HOST_DEVICE bool within_radius(const Real (&p)[Dim], const Real (&q)[Dim], Real radius) {
  return detail::squared_distance(p, q) <= detail::multiply_rn(radius, radius);
}

namespace detail {

// The shortest decimal that reads back as x in Real ("0.1", not "0.10000000000000001"): error messages must tell
// apart numbers an ulp apart, and show the ones a user typed as typed.
template <class Real>
std::string shortest(Real x) {
  char text[32];
  return std::string(text, std::to_chars(text, text + sizeof text, x).ptr);
}

}  // namespace detail

// The largest neighbour radius the query takes along `axis`: the cell side (upper − lower) / cells as Real computes
// it, rounded up by 4 ulps. A radius meant to be the side exactly, R = (U − L) / cells for the decimals L, U, R a
// user typed, lands within that when the box holds 0 (L ≤ 0 ≤ U, no cancellation): its Real value and the side
// each come from the exact quotient through roundings of relative size u = ε/2 at most — R's own, and for the
// side L's and U's (together at most u of |L| + |U| = U − L), the subtraction's and the division's — so R ≤ side ·
// (1 + u) / (1 − u)³ < side · (1 + 5u) < side + 5 ulps (an ulp of side exceeds u · side), and a Real below that
// is at most the 4th Real above side. Any larger R too would be correct, as the query's cell range holds every
// neighbour for any R (the top of this file); the limit keeps that range at the cells next to p's own.
template <int Dim, class Real>
Real largest_neighbor_radius(const uniform_grid<Dim, Real>& grid, int axis) {
  Real largest = grid.cell_size(axis);
  for (int ulp = 0; ulp < 4; ++ulp) largest = std::nextafter(largest, std::numeric_limits<Real>::infinity());
  return largest;
}

// Throws std::invalid_argument unless 0 < radius ≤ largest_neighbor_radius along every axis and radius² is a
// finite normal number in Real (what the neighbour query needs).
template <int Dim, class Real>
void validate_neighbor_radius(const uniform_grid<Dim, Real>& grid, Real radius) {
  using detail::shortest;
  const auto fail = [](const std::string& message) { throw std::invalid_argument(message); };
  if (!(::cuda::std::isfinite(radius) && radius > Real(0)))
    fail("neighbour radius must be finite and > 0 (got " + shortest(radius) + ")");
  for (int a = 0; a < Dim; ++a) {
    if (radius > largest_neighbor_radius(grid, a)) {
      fail("neighbour radius " + shortest(radius) + " exceeds the cell size " + shortest(grid.cell_size(a)) +
           " along axis " + "xyz"[a] + ", (" + shortest(grid.upper[a]) + " - " + shortest(grid.lower[a]) + ") / " +
           std::to_string(grid.cells[a]) + " in " + detail::real_name<Real>() +
           ", by more than rounding: the radius may be at most " + shortest(largest_neighbor_radius(grid, a)) +
           ", that size rounded up by 4 ulps (the query visits only the cells next to a particle's own; use fewer "
           "cells or a smaller radius)");
    }
  }
  const Real squared = radius * radius;
  if (!::cuda::std::isfinite(squared))
    fail("neighbour radius " + shortest(radius) + " is too large: its square overflows " + detail::real_name<Real>());
  if (squared < ::cuda::std::numeric_limits<Real>::min()) {
    fail("neighbour radius " + shortest(radius) + " is too small: its square underflows " + detail::real_name<Real>() +
         " (the radius must be at least " + shortest(::cuda::std::sqrt(::cuda::std::numeric_limits<Real>::min())) +
         ")");
  }
}

namespace detail {

// Visits every other particle within distance R of the particle in sorted slot `slot`, looking only in the
// cells that its box ± reach overlaps (see the top of this file).
template <int Dim, class Real, class CoordIt, class CellIt, class ParticleIt, class OffsetIt>
struct neighbor_finder {
  uniform_grid<Dim, Real> grid;
  soa_positions<Dim, CoordIt> positions;
  sorted_grid<CellIt, ParticleIt, OffsetIt> sorted;
  Real radius_squared;  // rounded as within_radius rounds it
  Real reach;           // radius · (1 + 4ε): how far from p, along each axis, a neighbour can be

  template <class Visit>
  DPT_HOST_DEVICE void for_each_neighbor(std::ptrdiff_t slot, Visit&& visit) const {
    const auto p = static_cast<std::ptrdiff_t>(sorted.particles[slot]);
    Real here[Dim];
    int first[Dim], last[Dim], k[Dim];
    for (int a = 0; a < Dim; ++a) {
      here[a] = positions.axis[a][p];
      first[a] = grid.cell_index(a, here[a] - reach);
      last[a] = grid.cell_index(a, here[a] + reach);
      k[a] = first[a];
    }
    // the cells from first to last along every axis, x fastest
    while (true) {
      std::int64_t cell = 0, stride = 1;
      for (int a = 0; a < Dim; ++a) {
        cell += k[a] * stride;
        stride *= grid.cells[a];
      }
      const auto end = static_cast<std::ptrdiff_t>(sorted.cell_end[cell]);
      for (auto j = static_cast<std::ptrdiff_t>(sorted.cell_start[cell]); j < end; ++j) {
        const auto q = static_cast<std::ptrdiff_t>(sorted.particles[j]);
        if (q == p) continue;
        Real there[Dim];
        for (int a = 0; a < Dim; ++a) there[a] = positions.axis[a][q];
        if (squared_distance(here, there) <= radius_squared) visit(q);  // within_radius(here, there, R)
      }
      int a = 0;
      while (a < Dim && k[a] == last[a]) {
        k[a] = first[a];
        ++a;
      }
      if (a == Dim) break;
      ++k[a];
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
  return {grid, positions, sorted, multiply_rn(radius, radius),
          radius * (Real(1) + 4 * ::cuda::std::numeric_limits<Real>::epsilon())};
}

}  // namespace detail

// Writes to counts_out[p] how many other particles lie within distance `radius` of particle p, for the particles in
// sorted slots [first_slot, last_slot) (counts_out in input order; its other entries are left as they are). `sorted`
// is what build_grid returned for the same grid and positions, or any grid whose cell ranges hold the particles of
// every cell a query visits: dpt::mpi::build_grid asks only for the particles it owns, whose slots are one run
// between its halo's.
template <class DerivedPolicy, int Dim, class Real, class CoordIt, class CellIt, class ParticleIt, class OffsetIt,
          class CountIt>
void count_neighbors(const thrust::detail::execution_policy_base<DerivedPolicy>& exec,
                     const uniform_grid<Dim, Real>& grid, soa_positions<Dim, CoordIt> positions,
                     const sorted_grid<CellIt, ParticleIt, OffsetIt>& sorted, Real radius, CountIt counts_out,
                     std::ptrdiff_t first_slot, std::ptrdiff_t last_slot) {
  const auto finder = detail::make_neighbor_finder(grid, positions, sorted, radius);
  // map over the particles in cell order (neighbouring slots read the same cells), scattering each count
  // back to its particle's input position
  thrust::transform(exec, thrust::make_counting_iterator<std::ptrdiff_t>(first_slot),
                    thrust::make_counting_iterator<std::ptrdiff_t>(last_slot),
                    thrust::make_permutation_iterator(counts_out, sorted.particles + first_slot),
                    detail::count_in_radius<decltype(finder)>{finder});
}

// Writes to counts_out[p] how many other particles lie within distance `radius` of particle p (input order).
// `sorted` is what build_grid returned for the same grid and positions.
template <class DerivedPolicy, int Dim, class Real, class CoordIt, class CellIt, class ParticleIt, class OffsetIt,
          class CountIt>
void count_neighbors(const thrust::detail::execution_policy_base<DerivedPolicy>& exec,
                     const uniform_grid<Dim, Real>& grid, soa_positions<Dim, CoordIt> positions,
                     const sorted_grid<CellIt, ParticleIt, OffsetIt>& sorted, Real radius, CountIt counts_out) {
  count_neighbors(exec, grid, positions, sorted, radius, counts_out, 0, sorted.size);
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
