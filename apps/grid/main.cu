// dpt-grid — particles into a uniform 2-D or 3-D grid with the lecture's sort-based solution (map, sort,
// boundary detection), optionally the other four solutions for comparison, and the radius-R neighbour counts;
// timed per stage, checked against sequential references on request.
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <limits>
#include <memory>
#include <stdexcept>
#include <string>
#include <thrust/device_vector.h>
#include <thrust/execution_policy.h>
#include <thrust/host_vector.h>
#include <thrust/reduce.h>
#include <vector>

#include <dpt/config.hpp>
#include <dpt/context.hpp>
#include <dpt/grid.hpp>
#include <dpt/grid_neighbors.hpp>
#include <dpt/grid_solutions.hpp>
#include "grid/choose_grid.hpp"
#include "grid/grid_png.hpp"
#include "grid/options.hpp"
#include "grid/particles.hpp"
#include "grid/sequential_check.hpp"
#include "grid/grid_run.hpp"
#if DPT_WITH_MPI
#  include "grid/across_ranks.hpp"
#endif
#include "app_support/device_memory.hpp"
#include "app_support/errors.hpp"
#include "app_support/memory.hpp"
#include "app_support/output_file.hpp"
#include "app_support/timing.hpp"

namespace {

using dpt::app::grid_options;
using dpt::app::input_error;
using dpt::app::particle_source;
using dpt::app::time_ms;
using index_type = dpt::app::grid_index;
using dpt::app::check_against_references;
using dpt::app::grid_memory_needs;
using dpt::app::neighbor_radius;
using dpt::app::output_files;
using dpt::app::print_cell_counts;
using dpt::app::rejecting_bad_input;

template <class T>
std::vector<T> to_host(const thrust::device_vector<T>& d) {
  const thrust::host_vector<T> h = d;
  return std::vector<T>(h.begin(), h.end());
}

// The particles on the device, one array per axis (structure of arrays), and the positions view over them.
template <int Dim, class Real>
struct device_particles {
  thrust::device_vector<Real> axis[Dim];

  explicit device_particles(const particle_source& p) {
    for (int a = 0; a < Dim; ++a) axis[a] = thrust::device_vector<Real>(p.axis[a].begin(), p.axis[a].end());
  }
  auto positions() const {
    dpt::soa_positions<Dim, typename thrust::device_vector<Real>::const_iterator> view;
    for (int a = 0; a < Dim; ++a) view.axis[a] = axis[a].cbegin();
    return view;
  }
};

// Solution 5's arrays: the particles sorted by cell, and where each cell starts and ends; each stage timed.
struct cell_sorted_particles {
  using iterator = thrust::device_vector<index_type>::iterator;
  thrust::device_vector<index_type> cells, particles, start, end;
  double map_ms = 0, sort_ms = 0, boundary_ms = 0;

  dpt::sorted_grid<iterator, iterator, iterator> view() {
    return {cells.begin(), particles.begin(), static_cast<std::ptrdiff_t>(cells.size()), start.begin(), end.begin()};
  }
  // Each particle's cell, in input order (for --check and --png).
  std::vector<index_type> cell_of_each_particle() const {
    const auto cells_sorted = to_host(cells), particles_sorted = to_host(particles);
    std::vector<index_type> cell(cells_sorted.size());
    for (std::size_t k = 0; k < cell.size(); ++k) cell[particles_sorted[k]] = cells_sorted[k];
    return cell;
  }
};

// The lecture's solution 5, one stage at a time.
template <int Dim, class Real, class Positions>
cell_sorted_particles sort_into_cells(dpt::context& context, const dpt::uniform_grid<Dim, Real>& grid,
                                      Positions positions, const particle_source& source, dpt::out_of_domain outside) {
  const auto n = static_cast<std::ptrdiff_t>(source.size());
  cell_sorted_particles s{thrust::device_vector<index_type>(n), thrust::device_vector<index_type>(n),
                          thrust::device_vector<index_type>(grid.cell_count()),
                          thrust::device_vector<index_type>(grid.cell_count())};
  s.map_ms = rejecting_bad_input(source, [&] {
    return time_ms(
        [&] { dpt::map_particles_to_cells(context.policy(), grid, positions, n, s.cells.begin(), outside); });
  });
  s.sort_ms = time_ms(
      [&] { dpt::sort_particles_by_cell(context.policy(), s.cells.begin(), s.cells.end(), s.particles.begin()); });
  s.boundary_ms = time_ms([&] {
    dpt::find_cell_boundaries(context.policy(), s.cells.begin(), s.cells.end(), grid.cell_count(), s.start.begin(),
                              s.end.begin());
  });
  return s;
}

// The solutions of --solution, each timed and compared in canonical form with solution 5's cell lists; returns
// what differs.
template <int Dim, class Real, class Positions>
std::vector<std::string> compare_solutions(dpt::context& context, const grid_options& o,
                                           const dpt::uniform_grid<Dim, Real>& grid, Positions positions,
                                           const particle_source& source, dpt::out_of_domain outside) {
  std::vector<std::string> failures;
  if (o.solutions.empty()) return failures;
  const auto n = static_cast<std::ptrdiff_t>(source.size());
  const std::int64_t cell_count = grid.cell_count();
  std::printf("\nsolutions (cell -> particle lists):\n");
  thrust::device_vector<index_type> reference_offsets(cell_count + 1), reference_ids(n);
  rejecting_bad_input(source, [&] {
    dpt::bin_particles_sort(context.policy(), grid, positions, n, reference_offsets.begin(), reference_ids.begin(),
                            outside);
  });
  for (const int s : o.solutions) {
    const auto solution = static_cast<dpt::grid_solution>(s);
    if (solution == dpt::grid_solution::task_per_cell && static_cast<double>(cell_count) * n > 1e9) {
      std::printf("  %-26s skipped: %lld cells each scanning %td particles is over 10^9 steps\n", dpt::name(solution),
                  static_cast<long long>(cell_count), n);
      continue;
    }
    thrust::device_vector<index_type> offsets(cell_count + 1), ids(n);
    const double ms = rejecting_bad_input(source, [&] {
      return time_ms([&] {
        dpt::bin_particles(context.policy(), solution, grid, positions, n, offsets.begin(), ids.begin(), outside);
      });
    });
    dpt::sort_within_cells(context.policy(), offsets.begin(), cell_count, ids.begin(), ids.end());
    const bool same = offsets == reference_offsets && ids == reference_ids;
    std::printf("  %-26s %10.3f ms   %s\n", dpt::name(solution), ms,
                same ? "same cell lists as solution 5" : "DIFFERENT cell lists from solution 5");
    if (!same) failures.push_back(std::string("solution ") + dpt::name(solution) + " differs from solution 5");
  }
  return failures;
}

template <int Dim, class Real>
int run(const grid_options& o) {
  auto setup = dpt::app::prepare_run<Dim, Real>(o);
  const auto& source = setup.source;
  const auto& grid = setup.grid;
  const auto outside = setup.outside;
  const Real radius = setup.radius;
  auto& files = *setup.files;
  const std::ptrdiff_t n = static_cast<std::ptrdiff_t>(source.size());
  const std::int64_t cell_count = grid.cell_count();
  dpt::app::print_run_header(o, setup, "");

  const device_particles<Dim, Real> particles(source);
  dpt::context context;  // scratch kept from stage to stage; on CUDA the stages queue without waiting (time_ms waits)
  cell_sorted_particles sorted = sort_into_cells(context, grid, particles.positions(), source, outside);
  thrust::device_vector<index_type> neighbor_counts;
  double query_ms = 0;
  if (o.radius) {
    neighbor_counts.resize(n);
    query_ms = rejecting_bad_input(source, [&] {
      return time_ms([&] {
        dpt::count_neighbors(context.policy(), grid, particles.positions(), sorted.view(), radius,
                             neighbor_counts.begin());
      });
    });
  }

  const auto starts = to_host(sorted.start), ends = to_host(sorted.end);
  std::vector<index_type> counts(cell_count);
  for (std::int64_t c = 0; c < cell_count; ++c) counts[c] = ends[c] - starts[c];
  print_cell_counts(o.dims, counts);

  // Each stage's GB/s counts the bytes it cannot avoid moving: map reads every coordinate and writes a cell id,
  // sort reads and writes every (cell, particle) pair once, boundary reads every cell id and writes every cell's
  // start and end.
  const auto gbps = [](double bytes, double ms) { return ms > 0 ? bytes / (ms / 1000) / 1e9 : 0.0; };
  const double particles_n = static_cast<double>(n), index_bytes = sizeof(index_type);
  std::printf("\nstages (solution 5: map, sort, boundary detection%s):\n", o.radius ? "; neighbour query" : "");
  std::printf("  map       %10.3f ms %9.3f GB/s\n", sorted.map_ms,
              gbps(particles_n * (Dim * sizeof(Real) + index_bytes), sorted.map_ms));
  std::printf("  sort      %10.3f ms %9.3f GB/s\n", sorted.sort_ms,
              gbps(particles_n * 4 * index_bytes, sorted.sort_ms));
  std::printf("  boundary  %10.3f ms %9.3f GB/s\n", sorted.boundary_ms,
              gbps(particles_n * index_bytes + 2 * index_bytes * static_cast<double>(cell_count), sorted.boundary_ms));
  if (o.radius) {
    std::printf("  query     %10.3f ms   (radius %g; %.2f neighbours per particle)\n", query_ms, *o.radius,
                n ? thrust::reduce(thrust::device, neighbor_counts.begin(), neighbor_counts.end(), 0.0) / n : 0.0);
  }

  std::vector<std::string> failures = compare_solutions(context, o, grid, particles.positions(), source, outside);
  const std::vector<index_type> host_neighbor_counts = o.radius ? to_host(neighbor_counts) : std::vector<index_type>();
  const std::vector<index_type> particle_cell =
      o.check || files.png ? sorted.cell_of_each_particle() : std::vector<index_type>();
  if (o.check) check_against_references(o, grid, source, radius, particle_cell, host_neighbor_counts, failures);

  dpt::app::write_outputs(o, grid, source, counts, host_neighbor_counts, particle_cell, files);
  dpt::app::throw_if_failed(failures);
  files.commit();
  return 0;
}

// The run a command line asks for, at its dimension and precision.
int run(const grid_options& o) {
  const bool three_d = o.dims.size() == 3;
  if (o.single_precision) return three_d ? run<3, float>(o) : run<2, float>(o);
  return three_d ? run<3, double>(o) : run<2, double>(o);
}

}  // namespace

int main(int argc, char* argv[]) {
#if DPT_WITH_MPI
  // started by mpiexec: the particles spread over the ranks by slabs of cells (grid/across_ranks.hpp)
  if (dpt::mpi::launched_by_mpiexec()) return dpt::app::main_across_ranks(argc, argv);
#endif
  return dpt::app::run_app("dpt-grid", [&] {
    const auto o = dpt::app::parse_grid_options(argc, argv);
    if (!o) {
      std::fputs(dpt::app::grid_usage, stdout);
      return 0;
    }
    return run(*o);
  });
}
