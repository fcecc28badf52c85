// dpt/mpi/grid.hpp — particles into a uniform grid, and each one's neighbours within R, with the particles spread
// over MPI ranks.
//
// The grid's cells are cut into slabs along its last axis (rows of cells in 2-D, planes in 3-D), and each rank owns
// a run of slabs holding about n/p particles. Then the lecture's recipe runs on every rank:
//
//   4×4 grid, 2 ranks, slabs = rows of 4 cells;  particles' rows [0, 0, 1, 3, 3, 2, 0, 3]  →  rank 0 owns rows 0–1
//   (4 particles), rank 1 rows 2–3 (4 particles)
//
//   1. map          each rank maps its particles to cells (dpt::map_particles_to_cells on the whole grid)
//   2. redistribute sort by owner to bring each rank's particles together, find where each owner's run starts,
//                   one MPI_Alltoallv per array (ids and coordinates): the lecture's bucket exchange, with the slab
//                   cut for splitters (a histogram of slab counts, MPI_Allreduce, cut as rows are cut for SpMV)
//   3. halo         with a radius: every particle within 2 slabs of another rank's run goes to that rank too (filter
//                   the particles near the run's ends, one MPI_Alltoallv). R is at most a cell's side, so a
//                   neighbour lies in the next slab at most — two, with rounding (dpt/grid_neighbors.hpp)
//   4. sort         the sort-based grid over the rank's slabs and its halo: sort by cell, find where each cell
//                   starts and ends, with cell arrays for those slabs only (O(cells / p) memory per rank)
//   5. query        dpt::count_neighbors for the rank's own particles, which fill the slots between the halo's
//
// Results, on each rank: its cells' counts (rank order is cell order) and, for each particle it owns, the global id,
// cell and neighbour count. Cells and counts are integers computed as one process computes them, particle by
// particle and pair by pair, so gathered they equal the single-process results exactly.
//
// Messages: the redistribution moves every particle once (n · (8 + Dim · sizeof(Real)) bytes in all, each rank's
// share n/p); the halo, the particles in the 2 slabs at each end of a run; two small MPI_Allreduce calls (the error
// agreement, the slab histogram of at most 2^20 counters).
#pragma once

#include <algorithm>
#include <cstdint>
#include <limits>
#include <optional>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <thrust/binary_search.h>
#include <thrust/copy.h>
#include <thrust/device_vector.h>
#include <thrust/gather.h>
#include <thrust/host_vector.h>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/iterator/permutation_iterator.h>
#include <thrust/iterator/transform_iterator.h>
#include <thrust/sequence.h>
#include <thrust/transform.h>
#include <vector>

#include <dpt/config.hpp>
#include <dpt/grid.hpp>
#include <dpt/grid_neighbors.hpp>
#include <dpt/mpi/communicator.hpp>
#include <dpt/mpi/detail/alltoallv.hpp>
#include <dpt/mpi/detail/counts.hpp>
#include <dpt/sort.hpp>

namespace dpt::mpi {

// One rank's share of the grid: the cells it owns, and the particles in them in cell order.
struct grid_block {
  std::vector<std::int64_t> slab_starts;      // ranks + 1: rank r owns slabs [slab_starts[r], slab_starts[r + 1])
  std::int64_t first_cell = 0;                // this rank's cells: [first_cell, first_cell + cell_counts.size())
  std::vector<std::int64_t> cell_counts;      // the particles in each of them
  std::vector<std::int64_t> ids, cells;       // per particle it owns, in cell order: global id and cell
  std::vector<std::int64_t> neighbor_counts;  // with a radius: how many other particles lie within it
  std::int64_t halo_size = 0;                 // the particles it received only for the query
};

namespace detail {

inline constexpr std::int64_t most_slab_bins = std::int64_t{1} << 20;

// The cells of one slab: all axes but the last.
template <int Dim, class Real>
std::int64_t cells_per_slab(const uniform_grid<Dim, Real>& grid) {
  std::int64_t count = 1;
  for (int a = 0; a + 1 < Dim; ++a) count *= grid.cells[a];
  return count;
}

// Cell → the rank that owns its slab (a binary search in the ranks' slab starts).
struct owner_of_cell {
  const std::int64_t* slab_starts;  // ranks + 1
  int ranks;
  std::int64_t slab_cells;
  DPT_HOST_DEVICE int operator()(std::int64_t cell) const {
    const std::int64_t slab = cell / slab_cells;
    int low = 0, high = ranks;  // the last rank r with slab_starts[r] <= slab
    while (high - low > 1) {
      const int mid = (low + high) / 2;
      if (slab_starts[mid] <= slab) {
        low = mid;
      } else {
        high = mid;
      }
    }
    return low;
  }
};

// Whether a cell lies within `reach` slabs of either end of the run [first, end) of slabs: what a neighbouring rank
// may need.
struct near_run_ends {
  std::int64_t first, end, reach, slab_cells;
  DPT_HOST_DEVICE bool operator()(std::int64_t cell) const {
    const std::int64_t slab = cell / slab_cells;
    return slab < first + reach || slab >= end - reach;
  }
};

// cell − first: a cell's place in a window of cells.
struct cell_in_window {
  std::int64_t first;
  DPT_HOST_DEVICE std::uint32_t operator()(std::int64_t cell) const { return static_cast<std::uint32_t>(cell - first); }
};

// Sends each rank `send_counts[r]` elements of `out` (in rank order) and appends what every rank sent this one to
// `target`, in rank order.
template <class T>
void exchange_onto(const communicator& comm, const thrust::device_vector<T>& out, const std::vector<int>& send_counts,
                   const std::vector<int>& receive_counts, thrust::device_vector<T>& target) {
  const auto send_offsets = offsets_of(send_counts), receive_offsets = offsets_of(receive_counts);
  const auto old_size = target.size();
  target.resize(old_size + extent_of(receive_counts, receive_offsets));
  staging_buffers<T> staging;
  alltoallv(comm, address_of(out), send_counts, send_offsets, address_of(target) + old_size, receive_counts,
            receive_offsets, staging);
}

// The particles a rank sends away, as ids and one array per axis.
template <int Dim, class Real>
struct particle_arrays {
  thrust::device_vector<std::int64_t> ids, cells;
  thrust::device_vector<Real> axis[Dim];
};

// Sends the particles picked by `which` (indices into `from`, send_counts[r] of them to rank r, in rank order) and
// appends what this rank receives to `into`, array by array; `from` may be `into` (each array is gathered from before
// it grows).
template <int Dim, class Real>
void send_particles(const communicator& comm, const particle_arrays<Dim, Real>& from,
                    const thrust::device_vector<std::int64_t>& which, const std::vector<int>& send_counts,
                    particle_arrays<Dim, Real>& into) {
  std::vector<int> receive_counts(send_counts.size());
  check(MPI_Alltoall(send_counts.data(), 1, MPI_INT, receive_counts.data(), 1, MPI_INT, comm.get()), "MPI_Alltoall");
  const auto move = [&](const auto& source, auto& target) {
    using T = typename std::decay_t<decltype(source)>::value_type;
    thrust::device_vector<T> out(which.size());
    thrust::gather(which.begin(), which.end(), source.begin(), out.begin());
    exchange_onto(comm, out, send_counts, receive_counts, target);
  };
  move(from.ids, into.ids);
  move(from.cells, into.cells);
  for (int a = 0; a < Dim; ++a) move(from.axis[a], into.axis[a]);
}

// No particle lacks a cell on this rank.
inline constexpr long no_bad_particle = std::numeric_limits<long>::max();

// A particle without a cell on any rank is an error on every rank alike: the lowest global id's, with its message.
inline void agree_on_position_error(const communicator& comm, long bad_id, std::string message) {
  struct {
    long id;
    int rank;
  } mine{bad_id, comm.rank()}, first{};
  check(MPI_Allreduce(&mine, &first, 1, MPI_LONG_INT, MPI_MINLOC, comm.get()), "MPI_Allreduce");
  if (first.id == no_bad_particle) return;
  int length = static_cast<int>(message.size());
  check(MPI_Bcast(&length, 1, MPI_INT, first.rank, comm.get()), "MPI_Bcast");
  message.resize(static_cast<std::size_t>(length));
  check(MPI_Bcast(message.data(), length, MPI_CHAR, first.rank, comm.get()), "MPI_Bcast");
  throw grid_position_error(message, static_cast<std::ptrdiff_t>(first.id));
}

}  // namespace detail

// Puts the n particles this rank holds (positions; global ids first_id, first_id + 1, …) into `grid` across the
// ranks, and with a radius counts each particle's neighbours within it (dpt::count_neighbors's rule). Collective:
// every rank passes the same grid, `outside` and radius. Errors are thrown on every rank alike: a particle without
// a cell (grid_position_error naming the lowest global id), a bad grid or radius (std::invalid_argument).
template <int Dim, class Real, class DerivedPolicy, class CoordIt>
grid_block build_grid(const communicator& comm, const thrust::detail::execution_policy_base<DerivedPolicy>& exec,
                      const uniform_grid<Dim, Real>& grid, soa_positions<Dim, CoordIt> positions, std::ptrdiff_t n,
                      std::int64_t first_id, out_of_domain outside = out_of_domain::error,
                      std::optional<Real> radius = std::nullopt) {
  const int ranks = comm.size(), me = comm.rank();
  dpt::detail::validate_grid<std::int64_t>(grid);  // on every rank alike, before any collective
  if (radius) validate_neighbor_radius(grid, *radius);
  const std::int64_t slab_cells = detail::cells_per_slab(grid), slabs = grid.cells[Dim - 1];

  // 1. map: every particle's cell, on the whole grid; a particle without one fails every rank alike
  detail::particle_arrays<Dim, Real> mine;
  mine.cells.resize(static_cast<std::size_t>(n));
  long bad_id = detail::no_bad_particle;
  std::string message;
  try {
    map_particles_to_cells(exec, grid, positions, n, mine.cells.begin(), outside);
  } catch (const grid_position_error& e) {
    bad_id = static_cast<long>(first_id + e.particle);
    const std::string what = e.what();
    message = "particle " + std::to_string(bad_id) + what.substr(what.find(" at ("));
  }
  detail::agree_on_position_error(comm, bad_id, message);
  mine.ids.resize(static_cast<std::size_t>(n));
  thrust::sequence(exec, mine.ids.begin(), mine.ids.end(), first_id);
  for (int a = 0; a < Dim; ++a) mine.axis[a] = thrust::device_vector<Real>(positions.axis[a], positions.axis[a] + n);

  // the splitters: runs of slabs with about n/p particles each, from a histogram of the slabs (in at most 2^20 bins)
  grid_block block;
  const std::int64_t bins = std::min(slabs, detail::most_slab_bins);
  std::vector<std::int64_t> bin_counts(static_cast<std::size_t>(bins), 0);
  {
    const thrust::host_vector<std::int64_t> cells = mine.cells;
    for (const auto cell : cells) ++bin_counts[static_cast<std::size_t>(cell / slab_cells * bins / slabs)];
  }
  check(MPI_Allreduce(MPI_IN_PLACE, bin_counts.data(), static_cast<int>(bins), MPI_INT64_T, MPI_SUM, comm.get()),
        "MPI_Allreduce");
  std::int64_t total = 0;
  for (const auto c : bin_counts) total += c;
  block.slab_starts.assign(static_cast<std::size_t>(ranks) + 1, slabs);
  block.slab_starts[0] = 0;
  std::int64_t seen = 0, bin = 0;
  for (int r = 1; r < ranks; ++r) {
    const std::int64_t target = total / ranks * r + std::min<std::int64_t>(r, total % ranks);
    while (bin < bins && seen + bin_counts[static_cast<std::size_t>(bin)] <= target) {
      seen += bin_counts[static_cast<std::size_t>(bin++)];
    }
    // the first slab of the first bin past the target's particles (a whole bin goes to one rank)
    block.slab_starts[static_cast<std::size_t>(r)] = (bin * slabs + bins - 1) / bins;
  }
  const std::int64_t first_slab = block.slab_starts[static_cast<std::size_t>(me)],
                     end_slab = block.slab_starts[static_cast<std::size_t>(me) + 1];
  const thrust::device_vector<std::int64_t> slab_starts(block.slab_starts.begin(), block.slab_starts.end());
  const detail::owner_of_cell owner{thrust::raw_pointer_cast(slab_starts.data()), ranks, slab_cells};

  // 2. redistribute: sort by owner to bring each rank's particles together, find where each owner's run starts
  thrust::device_vector<int> owners(static_cast<std::size_t>(n));
  thrust::transform(exec, mine.cells.begin(), mine.cells.end(), owners.begin(), owner);
  thrust::device_vector<std::int64_t> order(static_cast<std::size_t>(n));
  thrust::sequence(exec, order.begin(), order.end());
  dpt::stable_sort_by_key(exec, owners.begin(), owners.end(), order.begin());
  thrust::device_vector<std::int64_t> run_ends(static_cast<std::size_t>(ranks));
  thrust::upper_bound(exec, owners.begin(), owners.end(), thrust::make_counting_iterator(0),
                      thrust::make_counting_iterator(ranks), run_ends.begin());
  const thrust::host_vector<std::int64_t> ends = run_ends;
  std::vector<int> send_counts(static_cast<std::size_t>(ranks));
  for (int r = 0; r < ranks; ++r) {
    send_counts[static_cast<std::size_t>(r)] =
        detail::as_count(ends[static_cast<std::size_t>(r)] - (r ? ends[static_cast<std::size_t>(r) - 1] : 0),
                         "dpt::mpi::build_grid: a rank's particles");
  }
  detail::particle_arrays<Dim, Real> local;  // the particles this rank owns, then its halo
  detail::send_particles(comm, mine, order, send_counts, local);
  mine = {};
  const auto owned = static_cast<std::ptrdiff_t>(local.ids.size());

  // 3. halo: the particles within 2 slabs of this run's ends go to every other rank whose run is that close
  if (radius) {
    constexpr std::int64_t reach = 2;
    thrust::device_vector<std::int64_t> near(static_cast<std::size_t>(owned));
    const auto near_end = thrust::copy_if(exec, thrust::make_counting_iterator<std::int64_t>(0),
                                          thrust::make_counting_iterator<std::int64_t>(owned), local.cells.begin(),
                                          near.begin(), detail::near_run_ends{first_slab, end_slab, reach, slab_cells});
    near.resize(static_cast<std::size_t>(near_end - near.begin()));
    const thrust::host_vector<std::int64_t> near_host = near, near_cells_all = local.cells;
    std::vector<std::vector<std::int64_t>> to(static_cast<std::size_t>(ranks));
    for (const auto i : near_host) {
      const std::int64_t slab = near_cells_all[static_cast<std::size_t>(i)] / slab_cells;
      const int lo = owner(std::max<std::int64_t>(slab - reach, 0) * slab_cells);
      const int hi = owner(std::min(slab + reach, slabs - 1) * slab_cells);
      for (int r = lo; r <= hi; ++r) {
        if (r != me) to[static_cast<std::size_t>(r)].push_back(i);
      }
    }
    std::vector<std::int64_t> which;
    std::vector<int> halo_counts(static_cast<std::size_t>(ranks));
    for (int r = 0; r < ranks; ++r) {
      const auto& list = to[static_cast<std::size_t>(r)];
      halo_counts[static_cast<std::size_t>(r)] =
          detail::as_count(static_cast<std::int64_t>(list.size()), "dpt::mpi::build_grid: a halo");
      which.insert(which.end(), list.begin(), list.end());
    }
    // from local into local: each array is gathered from before it grows
    detail::send_particles(comm, local, thrust::device_vector<std::int64_t>(which.begin(), which.end()), halo_counts,
                           local);
    block.halo_size = static_cast<std::int64_t>(local.ids.size()) - owned;
  }

  // 4. sort: the grid over this rank's slabs and the 2 beyond each end, in window-local cell ids
  const std::int64_t reach_slabs = radius ? 2 : 0;
  const std::int64_t window_first = std::max<std::int64_t>(first_slab - reach_slabs, 0) * slab_cells;
  const std::int64_t window_end = std::min(end_slab + reach_slabs, slabs) * slab_cells;
  const std::int64_t window_cells = std::max<std::int64_t>(window_end - window_first, 0);
  if (window_cells >= std::numeric_limits<std::uint32_t>::max())
    throw std::length_error("dpt::mpi::build_grid: a rank's cells exceed 2^32");
  const auto all = static_cast<std::ptrdiff_t>(local.ids.size());
  thrust::device_vector<std::uint32_t> sorted_cells(static_cast<std::size_t>(all)),
      sorted_particles(static_cast<std::size_t>(all)), cell_start(static_cast<std::size_t>(window_cells)),
      cell_end(static_cast<std::size_t>(window_cells));
  thrust::transform(exec, local.cells.begin(), local.cells.end(), sorted_cells.begin(),
                    detail::cell_in_window{window_first});
  // sort to bring equal cells together; find where each cell starts and ends
  sort_particles_by_cell(exec, sorted_cells.begin(), sorted_cells.end(), sorted_particles.begin());
  find_cell_boundaries(exec, sorted_cells.begin(), sorted_cells.end(), window_cells, cell_start.begin(),
                       cell_end.begin());

  // this rank's cells' counts, and its particles in cell order: the slots between the halo's
  block.first_cell = first_slab * slab_cells;
  const std::int64_t own_cells = (end_slab - first_slab) * slab_cells;
  const auto own_first = static_cast<std::uint32_t>(block.first_cell - window_first);
  {
    const thrust::host_vector<std::uint32_t> starts = cell_start, ends_of_cells = cell_end;
    block.cell_counts.resize(static_cast<std::size_t>(std::max<std::int64_t>(own_cells, 0)));
    for (std::size_t c = 0; c < block.cell_counts.size(); ++c) {
      block.cell_counts[c] = static_cast<std::int64_t>(ends_of_cells[own_first + c]) - starts[own_first + c];
    }
  }
  const auto first_slot = static_cast<std::ptrdiff_t>(
      thrust::lower_bound(exec, sorted_cells.begin(), sorted_cells.end(), own_first) - sorted_cells.begin());
  const auto last_slot = first_slot + static_cast<std::ptrdiff_t>(owned);
  const thrust::host_vector<std::uint32_t> own_slots(sorted_particles.begin() + first_slot,
                                                     sorted_particles.begin() + last_slot);
  const thrust::host_vector<std::int64_t> ids = local.ids, cells = local.cells;
  for (const auto p : own_slots) {
    block.ids.push_back(ids[p]);
    block.cells.push_back(cells[p]);
  }

  // 5. query: the neighbour counts of this rank's particles, cells looked up through the window
  if (radius) {
    soa_positions<Dim, typename thrust::device_vector<Real>::const_iterator> at;
    for (int a = 0; a < Dim; ++a) at.axis[a] = local.axis[a].cbegin();
    const auto window = [&](thrust::device_vector<std::uint32_t>& v) {
      return thrust::make_permutation_iterator(
          v.begin(), thrust::make_transform_iterator(thrust::make_counting_iterator<std::int64_t>(0),
                                                     detail::cell_in_window{window_first}));
    };
    const sorted_grid<decltype(sorted_cells.begin()), decltype(sorted_particles.begin()), decltype(window(cell_start))>
        sorted{sorted_cells.begin(), sorted_particles.begin(), all, window(cell_start), window(cell_end)};
    thrust::device_vector<std::int64_t> counts(static_cast<std::size_t>(all), 0);
    count_neighbors(exec, grid, at, sorted, *radius, counts.begin(), first_slot, last_slot);
    const thrust::host_vector<std::int64_t> counts_host = counts;
    for (const auto p : own_slots) block.neighbor_counts.push_back(counts_host[p]);
  }
  return block;
}

}  // namespace dpt::mpi
