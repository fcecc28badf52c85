// dpt-grid under mpiexec: the same command line, the same --cells-out, --neighbors-out and --png files, the grid spread
// over the ranks.
//
// Rank 0 reads (or generates) the particles, chooses the grid and opens the outputs as one process does, then sends
// each rank an even slice of the particles (rank 0 reads and scatters; the ranks do not read the file). The ranks
// run dpt::mpi::build_grid: cells cut into slabs along the last axis, each rank owning a run of slabs with about
// n/p particles, particles sent to their owners, the lecture's sort-based grid on each rank, and with --radius the
// neighbour counts, halo particles from the next ranks' slabs included. Rank 0 gathers each rank's cell counts (rank
// order is cell order) and each particle's cell and neighbour count, checks them (--check) and writes the files:
// cells and counts are integers, computed particle by particle and pair by pair as one process computes them, so
// the files are byte for byte the single-process files. Only solution 5 (the sort) runs across ranks; --solution
// 1–4 is refused. The time is rank 0's view of the slowest rank, barrier to barrier, of one build (map,
// redistribution, halo, sort, boundary detection and the query).
#pragma once

#include <cstdint>
#include <cstdio>
#include <optional>
#include <string>
#include <thrust/device_vector.h>
#include <thrust/execution_policy.h>
#include <type_traits>
#include <vector>

#include <dpt/config.hpp>
#include <dpt/context.hpp>
#include <dpt/grid.hpp>
#include <dpt/mpi/communicator.hpp>
#include <dpt/mpi/grid.hpp>
#include <dpt/mpi/partition.hpp>
#include "grid/grid_run.hpp"
#include "grid/options.hpp"
#include "app_support/errors.hpp"
#include "app_support/ranks.hpp"

namespace dpt::app {

// Every rank gets rank 0's value of a trivially copyable object.
template <class T>
void broadcast_from_root(const dpt::mpi::communicator& comm, T& value) {
  static_assert(std::is_trivially_copyable_v<T>, "sent as bytes");
  dpt::mpi::check(MPI_Bcast(&value, static_cast<int>(sizeof(T)), MPI_BYTE, 0, comm.get()), "MPI_Bcast");
}

template <int Dim, class Real>
int run_grid_across_ranks(const grid_options& o, const dpt::mpi::communicator& comm) {
  const bool root = comm.rank() == 0;
  if (o.solutions.size() > 1 || (o.solutions.size() == 1 && o.solutions[0] != 5)) {
    throw input_error("--solution: under mpiexec dpt-grid runs solution 5 (the sort) only");
  }
  // rank 0 reads, chooses the grid, checks and opens the outputs, as one process does
  grid_run_setup<Dim, Real> setup;
  together(
      comm,
      [&] {
        setup = prepare_run<Dim, Real>(o);
        print_run_header(o, setup, ", " + std::to_string(comm.size()) + " ranks");
      },
      /*root_only=*/true);
  broadcast_from_root(comm, setup.grid);
  broadcast_from_root(comm, setup.radius);
  std::int64_t n = static_cast<std::int64_t>(setup.source.size());
  broadcast_from_root(comm, n);

  // each rank gets an even slice of the particles
  const dpt::mpi::block_partition slices{n, comm.size()};
  thrust::device_vector<Real> axis[Dim];
  for (int a = 0; a < Dim; ++a) {
    const std::vector<Real> whole(setup.source.axis[a].begin(), setup.source.axis[a].end());
    const auto mine = dpt::mpi::scatter_slices(comm, whole, slices);
    axis[a] = thrust::device_vector<Real>(mine.begin(), mine.end());  // (assign reads *first even of none)
  }
  setup.outside = o.clamp ? dpt::out_of_domain::clamp : dpt::out_of_domain::error;  // on every rank
  dpt::soa_positions<Dim, typename thrust::device_vector<Real>::const_iterator> positions;
  for (int a = 0; a < Dim; ++a) positions.axis[a] = axis[a].cbegin();

  // the grid across the ranks, timed barrier to barrier; a particle without a cell is every rank's error, and
  // rank 0 names its line
  dpt::mpi::grid_block block;
  dpt::context context;
  double ms = 0;
  together(comm, [&] {
    rejecting_bad_input(setup.source, [&] {
      ms = ms_between_barriers(comm, [&] {
        block = dpt::mpi::build_grid(comm, context.policy(), setup.grid, positions, slices.size(comm.rank()),
                                     slices.start(comm.rank()), setup.outside,
                                     o.radius ? std::optional<Real>(setup.radius) : std::nullopt);
      });
      return 0;
    });
  });
  std::int64_t halo = block.halo_size;
  dpt::mpi::check(MPI_Reduce(root ? MPI_IN_PLACE : &halo, &halo, 1, MPI_INT64_T, MPI_SUM, 0, comm.get()), "MPI_Reduce");

  // rank 0 gathers the cells' counts (rank order is cell order) and every particle's cell and neighbour count
  const auto counts_whole = dpt::mpi::gather_slices(comm, block.cell_counts);
  const auto ids = dpt::mpi::gather_slices(comm, block.ids);
  const auto cells = dpt::mpi::gather_slices(comm, block.cells);
  const auto neighbors = dpt::mpi::gather_slices(comm, block.neighbor_counts);
  together(
      comm,
      [&] {
        const std::vector<grid_index> counts(counts_whole.begin(), counts_whole.end());
        std::vector<grid_index> particle_cell(static_cast<std::size_t>(n)),
            neighbor_counts(o.radius ? static_cast<std::size_t>(n) : 0);
        for (std::size_t k = 0; k < ids.size(); ++k) {
          const auto id = static_cast<std::size_t>(ids[k]);
          particle_cell[id] = static_cast<grid_index>(cells[k]);
          if (o.radius) neighbor_counts[id] = static_cast<grid_index>(neighbors[k]);
        }
        print_cell_counts(o.dims, counts);
        std::printf(
            "\ngrid across %d ranks (solution 5: map, redistribution by slab owner, %ssort, boundary "
            "detection%s):\n  %.3f ms, slowest rank",
            comm.size(), o.radius ? "halo, " : "", o.radius ? ", neighbour query" : "", ms);
        if (o.radius) std::printf("; %lld halo particles", static_cast<long long>(halo));
        std::printf("\n  particles exchanged in %s\n", dpt::mpi::describe(comm.path()));
        std::vector<std::string> failures;
        if (o.check) {
          check_against_references(o, setup.grid, setup.source, setup.radius, particle_cell, neighbor_counts, failures);
        }
        write_outputs(o, setup.grid, setup.source, counts, neighbor_counts, particle_cell, *setup.files);
        throw_if_failed(failures);
        setup.files->commit();
      },
      /*root_only=*/true);
  return 0;
}

inline int run_grid_across_ranks(const grid_options& o, const dpt::mpi::communicator& comm) {
  const bool three_d = o.dims.size() == 3;
  if (o.single_precision) {
    return three_d ? run_grid_across_ranks<3, float>(o, comm) : run_grid_across_ranks<2, float>(o, comm);
  }
  return three_d ? run_grid_across_ranks<3, double>(o, comm) : run_grid_across_ranks<2, double>(o, comm);
}

inline int main_across_ranks(int argc, char* argv[]) {
  return main_across_ranks(
      "dpt-grid", grid_usage, argc, argv, parse_grid_options,
      [](const grid_options& o, const dpt::mpi::communicator& comm) { return run_grid_across_ranks(o, comm); });
}

}  // namespace dpt::app
