// dpt/grid.hpp — put particles into a uniform grid: the lecture's data-parallel (sort-based) solution.
//
// N-body codes look for the neighbours of a particle only in the cells around it, so they first build a
// uniform grid: for every cell, the list of particles inside it. The lecture builds it in three steps, each a
// data-parallel primitive and none needing a lock:
//
//   4×4 grid over [0,4]², cells numbered row-major with x fastest (cell = x + 4·y); six particles
//     0:(2.5,1.5)  1:(0.5,0.5)  2:(3.5,3.5)  3:(2.2,1.8)  4:(0.7,3.2)  5:(1.2,0.4)
//
//        y=3 │ 12 │ 13 │ 14 │ 15 │     1. map:      cell      = [6, 0, 15, 6, 12, 1]
//        y=2 │  8 │  9 │ 10 │ 11 │     2. sort:     cells     = [0, 1, 6, 6, 12, 15]   (sort_by_key; the
//        y=1 │  4 │  5 │  6 │  7 │                  particles = [1, 5, 0, 3, 4, 2]     particle ids ride along)
//        y=0 │  0 │  1 │  2 │  3 │     3. boundary: cell  0: [0,1)   cell  1: [1,2)   cell 6: [2,4)
//              x=0  x=1  x=2  x=3                   cell 12: [4,5)   cell 15: [5,6)   every other cell: [0,0)
//
// Cell c holds particles[cell_start[c] .. cell_end[c]). An EMPTY cell has cell_start = cell_end = 0, the
// zero-length range [0, 0): loops over a cell's range need no special case, and the count end − start is 0.
// The two arrays have one entry per cell, so memory and the initial fill are O(cells) — 10^7 cells cost
// 80 MB of offsets even for a handful of particles. That is the price of O(1) lookup of any cell.
//
// Step 3 is the lecture's: particle slot i compares its cell with slot i − 1's; where they differ, a cell
// starts at i and the previous one ends at i; the first slot starts its cell and the last ends its cell.
// Each entry is written by exactly one slot, so no synchronisation is needed. The alternative — a vectorised
// lower_bound / upper_bound of every cell id (a counting iterator) in the sorted cells — fills empty cells
// with meaningful positions too, but costs O(cells · log n) binary searches with scattered reads; boundary
// detection is one coalesced O(n) pass plus an O(cells) fill, and it is the lecture's step.
//
// Positions are a structure of arrays (x[], y[], z[]). Every coordinate must be finite. A particle outside the
// domain [lower, upper] (both ends included; the upper edge belongs to the last cell, as in NumPy's histogram)
// is an error unless the caller asks to clamp it into the nearest cell. Errors are dpt::grid_position_error
// (a std::invalid_argument) naming the first offending particle; a bad grid is a std::invalid_argument.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cuda/std/array>
#include <cuda/std/cmath>
#include <cuda/std/iterator>
#include <cuda/std/limits>
#include <cuda/std/type_traits>
#include <sstream>
#include <stdexcept>
#include <string>
#include <thrust/fill.h>
#include <thrust/find.h>
#include <thrust/for_each.h>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/sequence.h>
#include <thrust/transform.h>

#include <dpt/config.hpp>
#include <dpt/detail/primitive_scratch.hpp>
#include <dpt/detail/temporary_array.hpp>
#include <dpt/sort.hpp>

namespace dpt {

// A uniform grid over the box [lower, upper], with cells[a] cells along axis a (x = 0, y = 1, z = 2).
template <int Dim, class Real>
struct uniform_grid {
  static_assert(Dim == 2 || Dim == 3, "dpt grids are 2-D or 3-D");
  ::cuda::std::array<Real, Dim> lower{};
  ::cuda::std::array<Real, Dim> upper{};
  ::cuda::std::array<int, Dim> cells{};

  DPT_HOST_DEVICE Real cell_size(int axis) const { return (upper[axis] - lower[axis]) / Real(cells[axis]); }

  // The cell along `axis` that holds coordinate x: the floor of t = (x − lower) / (upper − lower) · cells,
  // computed in Real and clamped into [0, cells − 1], so the upper edge (and, when clamping, anything beyond
  // the box) falls into the nearest cell and no rounding can give a cell outside the grid; a NaN t, which a
  // valid grid and a finite x never give, lands in cell 0. Each step rounds monotonically, so the cell never
  // decreases as x grows (the neighbour query relies on that).
  // The clamp is two selects (maxsd/minsd on x86), not branches: on random positions a branch on "is t past the
  // last cell" is mispredicted for a good share of particles.
  DPT_HOST_DEVICE int cell_index(int axis, Real x) const {
    const Real t = (x - lower[axis]) / (upper[axis] - lower[axis]) * Real(cells[axis]);
    const Real last = Real(cells[axis] - 1);
    Real clamped = t > Real(0) ? t : Real(0);  // NaN → 0
    clamped = clamped < last ? clamped : last;
    return static_cast<int>(clamped);
  }

  // The number of cells, for a grid that validate_grid accepts (the product of the axes then fits the cell ids).
  std::int64_t cell_count() const {
    std::int64_t count = 1;
    for (int a = 0; a < Dim; ++a) count *= cells[a];
    return count;
  }
};

// Particle positions as a structure of arrays: axis[0] holds every x, axis[1] every y (and axis[2] every z).
template <int Dim, class CoordIt>
struct soa_positions {
  CoordIt axis[Dim];
};

template <class CoordIt>
soa_positions<2, CoordIt> make_positions(CoordIt x, CoordIt y) {
  return {{x, y}};
}

template <class CoordIt>
soa_positions<3, CoordIt> make_positions(CoordIt x, CoordIt y, CoordIt z) {
  return {{x, y, z}};
}

// What happens to a particle outside the grid's domain.
enum class out_of_domain { error, clamp };

// A particle without a cell: a NaN or infinite coordinate, or outside the domain (when not clamping).
struct grid_position_error : std::invalid_argument {
  grid_position_error(const std::string& what, std::ptrdiff_t particle_index)
      : std::invalid_argument(what), particle(particle_index) {}
  std::ptrdiff_t particle;  // the lowest-numbered offending particle
};

namespace detail {

// The cell id a particle gets when it has none; never a valid cell (validate_grid keeps cell counts below it).
template <class Cell>
DPT_HOST_DEVICE constexpr Cell no_cell() {
  return ::cuda::std::numeric_limits<Cell>::max();
}

// The name of a coordinate type, for error messages.
template <class Real>
const char* real_name() {
  if (::cuda::std::is_same<Real, float>::value) return "float";
  if (::cuda::std::is_same<Real, double>::value) return "double";
  return "its coordinate type";
}

template <int Dim, class Real>
std::string show_box(const uniform_grid<Dim, Real>& grid) {
  std::ostringstream os;
  os.precision(::cuda::std::numeric_limits<Real>::max_digits10);
  for (int a = 0; a < Dim; ++a) os << (a ? " x " : "") << '[' << grid.lower[a] << ", " << grid.upper[a] << ']';
  return os.str();
}

// Throws std::invalid_argument unless the grid has at least one cell per axis and no more than Real counts
// exactly (2^24 for float: past it, cells − 1 rounds to cells in float and cell_index's clamp would let the upper
// edge into a cell past the grid), a finite box of positive width whose width upper − lower is finite in Real
// too, and fewer cells than Cell can number (one value is reserved for "no cell").
template <class Cell, int Dim, class Real>
void validate_grid(const uniform_grid<Dim, Real>& grid) {
  static_assert(::cuda::std::numeric_limits<Cell>::is_integer, "cell ids must be integers");
  constexpr int digits = ::cuda::std::numeric_limits<Real>::digits;
  constexpr double exact_cells = static_cast<double>(1LL << (digits < 62 ? digits : 62));  // 2^24 for float
  double cells = 1;
  for (int a = 0; a < Dim; ++a) {
    if (grid.cells[a] < 1) throw std::invalid_argument("grid: every axis needs at least one cell");
    if (grid.cells[a] > exact_cells) {
      throw std::invalid_argument("grid: " + std::to_string(grid.cells[a]) + " cells along " + "xyz"[a] +
                                  " are more than " + real_name<Real>() + " counts exactly (at most " +
                                  std::to_string(static_cast<long long>(exact_cells)) + ")");
    }
    if (!(::cuda::std::isfinite(grid.lower[a]) && ::cuda::std::isfinite(grid.upper[a]) &&
          grid.lower[a] < grid.upper[a])) {
      throw std::invalid_argument("grid: the domain " + show_box(grid) + " must be finite with lower < upper");
    }
    if (!::cuda::std::isfinite(grid.upper[a] - grid.lower[a])) {
      throw std::invalid_argument("grid: the domain " + show_box(grid) + " is too wide: upper - lower along " +
                                  "xyz"[a] + " overflows " + real_name<Real>());
    }
    cells *= grid.cells[a];
  }
  if (cells >= static_cast<double>(::cuda::std::numeric_limits<Cell>::max())) {
    std::string dims;
    for (int a = 0; a < Dim; ++a) dims += (a ? " x " : "") + std::to_string(grid.cells[a]);
    throw std::invalid_argument("grid: " + dims + " cells are too many for its cell id type (fewer than " +
                                std::to_string(::cuda::std::numeric_limits<Cell>::max()) + ")");
  }
}

}  // namespace detail

// The cell of particle i, row-major with x fastest: x + cells_x · (y + cells_y · z). Particles without a cell
// get detail::no_cell<Cell>().
template <class Cell, int Dim, class Real, class CoordIt>
struct particle_cell {
  uniform_grid<Dim, Real> grid;
  soa_positions<Dim, CoordIt> positions;
  out_of_domain outside = out_of_domain::error;

  // Every axis is mapped, even after a bad coordinate (cell_index clamps anything, NaN included), and the verdict is
  // one select at the end, its tests joined by & rather than &&: no branch for a CPU to mispredict or a warp to
  // diverge on. With early returns and && GCC branches here, which makes the map step an order of magnitude slower
  // on random particles (docs/benchmarks.md, grid).
  DPT_HOST_DEVICE Cell operator()(std::ptrdiff_t i) const {
    Cell cell = 0, stride = 1;
    bool has_cell = true;
    for (int a = 0; a < Dim; ++a) {
      const Real x = positions.axis[a][i];
      const bool inside = (grid.lower[a] <= x) & (x <= grid.upper[a]);  // false for NaN
      has_cell &= ::cuda::std::isfinite(x) & (inside | (outside == out_of_domain::clamp));
      cell += static_cast<Cell>(grid.cell_index(a, x)) * stride;
      stride *= static_cast<Cell>(grid.cells[a]);
    }
    return has_cell ? cell : detail::no_cell<Cell>();
  }
};

template <class Cell, int Dim, class Real, class CoordIt>
particle_cell<Cell, Dim, Real, CoordIt> make_particle_cell(const uniform_grid<Dim, Real>& grid,
                                                           soa_positions<Dim, CoordIt> positions,
                                                           out_of_domain outside) {
  return {grid, positions, outside};
}

namespace detail {

// Throws grid_position_error for the first particle whose cell (in [cells, cells + n)) is no_cell.
template <class DerivedPolicy, class CellIt, int Dim, class Real, class CoordIt>
void throw_if_without_cell(const thrust::detail::execution_policy_base<DerivedPolicy>& exec, CellIt cells,
                           std::ptrdiff_t n, const uniform_grid<Dim, Real>& grid,
                           soa_positions<Dim, CoordIt> positions) {
  using cell_type = ::cuda::std::iter_value_t<CellIt>;
  // find the first particle that got no cell
  const auto first_bad = thrust::find(exec, cells, cells + n, no_cell<cell_type>());
  const auto particle = static_cast<std::ptrdiff_t>(first_bad - cells);
  if (particle == n) return;
  std::ostringstream os;
  os.precision(::cuda::std::numeric_limits<Real>::max_digits10);
  bool finite = true;
  os << "particle " << particle << " at (";
  for (int a = 0; a < Dim; ++a) {
    const Real x = read_element(positions.axis[a] + particle);
    finite = finite && ::cuda::std::isfinite(x);
    os << (a ? ", " : "") << x;
  }
  os << ") " << (finite ? "lies outside the grid's domain " + show_box(grid) : std::string("is not finite"));
  throw grid_position_error(os.str(), particle);
}

// Lecture step 3 for one slot of the sorted cells: where the cell changes, one cell starts and the one
// before ends. The first slot starts its cell, the last one ends its cell.
template <class CellIt, class StartIt, class EndIt>
struct mark_cell_boundary {
  CellIt sorted_cells;
  StartIt cell_start;
  EndIt cell_end;
  std::ptrdiff_t n;

  DPT_HOST_DEVICE void operator()(std::ptrdiff_t i) const {
    using offset_type = ::cuda::std::iter_value_t<StartIt>;
    const auto cell = sorted_cells[i];
    if (i == 0) {
      cell_start[cell] = offset_type(0);
    } else {
      const auto previous = sorted_cells[i - 1];
      if (previous != cell) {
        cell_start[cell] = static_cast<offset_type>(i);
        cell_end[previous] = static_cast<offset_type>(i);
      }
    }
    if (i == n - 1) cell_end[cell] = static_cast<offset_type>(n);
  }
};

}  // namespace detail

// Step 1 (map): writes the cell of each of the n particles to cells_out. Throws grid_position_error for a
// particle with a NaN or infinite coordinate, or outside the domain unless `outside` is clamp; throws
// std::invalid_argument for a bad grid.
template <class DerivedPolicy, int Dim, class Real, class CoordIt, class CellIt>
void map_particles_to_cells(const thrust::detail::execution_policy_base<DerivedPolicy>& exec,
                            const uniform_grid<Dim, Real>& grid, soa_positions<Dim, CoordIt> positions,
                            std::ptrdiff_t n, CellIt cells_out, out_of_domain outside = out_of_domain::error) {
  using cell_type = ::cuda::std::iter_value_t<CellIt>;
  detail::validate_grid<cell_type>(grid);
  // map: each particle's cell, computed independently of all others
  thrust::transform(exec, thrust::make_counting_iterator<std::ptrdiff_t>(0),
                    thrust::make_counting_iterator<std::ptrdiff_t>(n), cells_out,
                    make_particle_cell<cell_type>(grid, positions, outside));
  detail::throw_if_without_cell(exec, cells_out, n, grid, positions);
}

// Step 2 (sort): sorts the cells in [cells_first, cells_last) and writes the matching particle ids to
// particles_out. The sort is stable, so the particles of one cell stay in ascending id order.
template <class DerivedPolicy, class CellIt, class ParticleIt>
void sort_particles_by_cell(const thrust::detail::execution_policy_base<DerivedPolicy>& exec, CellIt cells_first,
                            CellIt cells_last, ParticleIt particles_out) {
  using particle_type = ::cuda::std::iter_value_t<ParticleIt>;
  const auto n = thrust::distance(cells_first, cells_last);
  // number the particles 0, 1, …, n − 1
  thrust::sequence(exec, particles_out, particles_out + n, particle_type(0));
  // sort to bring equal cells together; the particle ids ride along
  dpt::stable_sort_by_key(exec, cells_first, cells_last, particles_out);
}

// Step 3 (boundary detection): from the sorted cells, writes every cell's range [cell_start, cell_end) in the
// sorted order; cell_start and cell_end have cell_count entries. Empty cells get [0, 0).
template <class DerivedPolicy, class CellIt, class StartIt, class EndIt>
void find_cell_boundaries(const thrust::detail::execution_policy_base<DerivedPolicy>& exec, CellIt sorted_first,
                          CellIt sorted_last, std::int64_t cell_count, StartIt cell_start, EndIt cell_end) {
  using offset_type = ::cuda::std::iter_value_t<StartIt>;
  const auto n = static_cast<std::ptrdiff_t>(thrust::distance(sorted_first, sorted_last));
  // every cell starts out empty: [0, 0)
  thrust::fill_n(exec, cell_start, cell_count, offset_type(0));
  thrust::fill_n(exec, cell_end, cell_count, offset_type(0));
  // find where each cell starts and ends: compare each sorted cell with the one before it
  thrust::for_each_n(exec, thrust::make_counting_iterator<std::ptrdiff_t>(0), n,
                     detail::mark_cell_boundary<CellIt, StartIt, EndIt>{sorted_first, cell_start, cell_end, n});
}

// The grid built by build_grid: the particles in cell order, and each cell's range in that order.
template <class CellIt, class ParticleIt, class OffsetIt>
struct sorted_grid {
  CellIt cells;          // n: the cell of each slot, ascending
  ParticleIt particles;  // n: the particle in each slot; cell c holds particles[cell_start[c] .. cell_end[c])
  std::ptrdiff_t size;   // n, the number of particles
  OffsetIt cell_start;   // one per cell; [0, 0) for an empty cell
  OffsetIt cell_end;
};

// All three steps. Output capacity: sorted_cells and sorted_particles n, cell_start and cell_end
// grid.cell_count(). Errors as map_particles_to_cells. Per call: 7 Thrust calls, one of them a host read (the map's
// search for a particle without a cell).
template <class DerivedPolicy, int Dim, class Real, class CoordIt, class CellIt, class ParticleIt, class OffsetIt>
sorted_grid<CellIt, ParticleIt, OffsetIt> build_grid(const thrust::detail::execution_policy_base<DerivedPolicy>& exec,
                                                     const uniform_grid<Dim, Real>& grid,
                                                     soa_positions<Dim, CoordIt> positions, std::ptrdiff_t n,
                                                     CellIt sorted_cells, ParticleIt sorted_particles,
                                                     OffsetIt cell_start, OffsetIt cell_end,
                                                     out_of_domain outside = out_of_domain::error) {
  map_particles_to_cells(exec, grid, positions, n, sorted_cells, outside);
  sort_particles_by_cell(exec, sorted_cells, sorted_cells + n, sorted_particles);
  find_cell_boundaries(exec, sorted_cells, sorted_cells + n, grid.cell_count(), cell_start, cell_end);
  return {sorted_cells, sorted_particles, n, cell_start, cell_end};
}

// An upper bound on the bytes build_grid (or its three steps in turn) takes through its policy for n particles
// with cells of type Cell and particle ids of type Particle, Thrust's own scratch included, on this build's
// device system (dpt/detail/primitive_scratch.hpp says how each primitive's share is bounded): the map's search
// for a particle without a cell, then the sort's.
template <class Cell, class Particle>
std::size_t build_grid_temporary_bytes(std::ptrdiff_t n) {
  return std::max(detail::reduction_scratch_bytes(n), dpt::sort_temporary_bytes<Cell, Particle>(n));
}

}  // namespace dpt
