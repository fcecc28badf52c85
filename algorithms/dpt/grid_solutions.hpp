// dpt/grid_solutions.hpp — the lecture's five ways to put particles into grid cells, side by side.
//
// Each solution turns n particles into the same "list of lists": for every cell, the ids of its particles,
// stored as cell lists in compressed form —
//
//   offsets (cells + 1):  cell c holds ids[offsets[c] .. offsets[c+1]); offsets[cells] = n
//   ids     (n):          particle ids grouped by cell
//
//   the six particles of dpt/grid.hpp in the 4×4 grid:
//     offsets = [0, 1, 2, 2, 2, 2, 2, 4, 4, 4, 4, 4, 4, 5, 5, 5, 6]
//     ids     = [1, 5, 0, 3, 4, 2]                cell 0: {1}, cell 1: {5}, cell 6: {0, 3}, 12: {4}, 15: {2}
//
// Solutions that race (1, 2, 4) may list a cell's particles in any order; sort_within_cells puts every list
// in ascending order, the canonical form in which all five are compared.
//
//   1 global_lock     one task per particle appends to its cell's list under ONE lock: thousands of threads
//                     contend for one word.
//   2 lock_per_cell   the same with a lock per cell: ~cells× less contention for uniform particles, still locks.
//   3 task_per_cell   one task per cell scans all particles: no synchronisation, but only `cells` tasks
//                     (16 in the lecture — far too few for a GPU) and cells× the work.
//   4 partial_grids   particles in chunks (a CUDA block in the lecture, here a contiguous chunk handled by
//                     consecutive threads), each chunk counting into its own partial grid; a scan merges the
//                     partial grids. Atomics only collide within a chunk. Thrust gives no shared memory, so
//                     the partial grids live in global memory; memory is chunks × cells.
//   5 sort            map + sort + boundary detection (dpt/grid.hpp): no fine-grained synchronisation and
//                     parallelism n throughout, paid for with a sort and extra passes over the data.
//
// Appending to variable-length lists in parallel is done in two passes by every solution: count the
// particles of each cell, exclusive-scan the counts into offsets, then place each particle at its cell's
// offset plus a slot taken from a per-cell cursor — under the solution's lock (1, 2), by an atomic on the
// chunk's cursor (4), or without contention at all (3, 5). Locks and atomics are cuda::atomic_ref
// (dpt/detail/spin_lock.hpp), correct under independent thread scheduling, so one source serves every
// device system. Particles without a cell are reported before anything is written (dpt/grid.hpp's errors).
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cuda/atomic>
#include <cuda/std/iterator>
#include <stdexcept>
#include <thrust/binary_search.h>
#include <thrust/copy.h>
#include <thrust/fill.h>
#include <thrust/for_each.h>
#include <thrust/functional.h>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/iterator/permutation_iterator.h>
#include <thrust/iterator/transform_iterator.h>
#include <thrust/memory.h>
#include <thrust/scan.h>
#include <thrust/sort.h>
#include <thrust/transform.h>

#include <dpt/config.hpp>
#include <dpt/scan.hpp>
#include <dpt/detail/spin_lock.hpp>
#include <dpt/detail/temporary_array.hpp>
#include <dpt/grid.hpp>

namespace dpt {

enum class grid_solution { global_lock = 1, lock_per_cell = 2, task_per_cell = 3, partial_grids = 4, sort = 5 };

inline const char* name(grid_solution solution) {
  switch (solution) {
    case grid_solution::global_lock:
      return "1 global lock";
    case grid_solution::lock_per_cell:
      return "2 lock per cell";
    case grid_solution::task_per_cell:
      return "3 task per cell";
    case grid_solution::partial_grids:
      return "4 partial grids + merge";
    default:
      return "5 sort";
  }
}

namespace detail {

// Cell ids of the binning solutions: enough for any grid validate_grid accepts.
using binning_cell = std::uint32_t;

// offsets[0 .. cells) holds counts; afterwards offsets[0 .. cells] holds their exclusive scan, total last.
template <class DerivedPolicy, class OffsetIt>
void counts_to_offsets(const thrust::detail::execution_policy_base<DerivedPolicy>& exec, OffsetIt offsets,
                       std::int64_t cells) {
  using offset_type = ::cuda::std::iter_value_t<OffsetIt>;
  thrust::fill_n(exec, offsets + cells, 1, offset_type(0));
  // exclusive scan of the counts: where each cell's list starts
  dpt::exclusive_scan(exec, offsets, offsets + cells + 1, offsets, offset_type(0));
}

// The cell of each particle, computed on the fly, after checking that every particle has one.
template <class DerivedPolicy, int Dim, class Real, class CoordIt>
particle_cell<binning_cell, Dim, Real, CoordIt> checked_particle_cell(
    const thrust::detail::execution_policy_base<DerivedPolicy>& exec, const uniform_grid<Dim, Real>& grid,
    soa_positions<Dim, CoordIt> positions, std::ptrdiff_t n, out_of_domain outside) {
  validate_grid<binning_cell>(grid);
  const auto cell_of = make_particle_cell<binning_cell>(grid, positions, outside);
  throw_if_without_cell(exec,
                        thrust::make_transform_iterator(thrust::make_counting_iterator<std::ptrdiff_t>(0), cell_of), n,
                        grid, positions);
  return cell_of;
}

// Solutions 1 and 2, pass 1: count the particle in its cell while holding the cell's lock.
template <class CellOf, class Offset>
struct count_under_lock {
  CellOf cell_of;
  int* locks;
  bool lock_per_cell;
  Offset* counts;
  DPT_HOST_DEVICE void operator()(std::ptrdiff_t p) const {
    const auto cell = cell_of(p);
    Offset* const count = counts + cell;
    with_lock(locks[lock_per_cell ? cell : 0], [count] { *count += 1; });
  }
};

// Solutions 1 and 2, pass 2: take the next slot of the cell's list while holding its lock, then fill it.
template <class CellOf, class Offset, class IdIt>
struct insert_under_lock {
  CellOf cell_of;
  int* locks;
  bool lock_per_cell;
  Offset* cursors;  // the next free slot of every cell, starting at its offset
  IdIt ids;
  DPT_HOST_DEVICE void operator()(std::ptrdiff_t p) const {
    using id_type = ::cuda::std::iter_value_t<IdIt>;
    const auto cell = cell_of(p);
    Offset* const cursor = cursors + cell;
    Offset slot{};
    with_lock(locks[lock_per_cell ? cell : 0], [cursor, &slot] { slot = (*cursor)++; });
    ids[slot] = static_cast<id_type>(p);
  }
};

template <class DerivedPolicy, int Dim, class Real, class CoordIt, class OffsetIt, class IdIt>
void bin_under_locks(const thrust::detail::execution_policy_base<DerivedPolicy>& exec,
                     const uniform_grid<Dim, Real>& grid, soa_positions<Dim, CoordIt> positions, std::ptrdiff_t n,
                     OffsetIt offsets_out, IdIt ids_out, out_of_domain outside, bool lock_per_cell) {
  using offset_type = ::cuda::std::iter_value_t<OffsetIt>;
  const auto cell_of = checked_particle_cell(exec, grid, positions, n, outside);
  const auto cells = grid.cell_count();
  const auto particles = thrust::make_counting_iterator<std::ptrdiff_t>(0);
  temporary_array<int, DerivedPolicy> locks(exec, lock_per_cell ? cells : 1);
  temporary_array<offset_type, DerivedPolicy> counters(exec, cells);
  thrust::fill(exec, locks.begin(), locks.end(), 0);
  thrust::fill(exec, counters.begin(), counters.end(), offset_type(0));
  // count each cell's particles, one task per particle, the counters guarded by the lock(s)
  thrust::for_each_n(
      exec, particles, n,
      count_under_lock<decltype(cell_of), offset_type>{cell_of, thrust::raw_pointer_cast(locks.begin()), lock_per_cell,
                                                       thrust::raw_pointer_cast(counters.begin())});
  thrust::copy(exec, counters.begin(), counters.end(), offsets_out);
  counts_to_offsets(exec, offsets_out, cells);
  // append each particle to its cell's list: a slot from the cell's cursor, taken under the lock
  thrust::copy_n(exec, offsets_out, cells, counters.begin());
  thrust::for_each_n(exec, particles, n,
                     insert_under_lock<decltype(cell_of), offset_type, IdIt>{
                         cell_of, thrust::raw_pointer_cast(locks.begin()), lock_per_cell,
                         thrust::raw_pointer_cast(counters.begin()), ids_out});
}

// Solution 3: the task of one cell scans every particle, first to count its own, then to list them.
template <class CellOf>
struct count_cell_by_scanning {
  CellOf cell_of;
  std::ptrdiff_t n;
  DPT_HOST_DEVICE std::ptrdiff_t operator()(std::int64_t cell) const {
    std::ptrdiff_t count = 0;
    for (std::ptrdiff_t p = 0; p < n; ++p) count += cell_of(p) == static_cast<binning_cell>(cell);
    return count;
  }
};

template <class CellOf, class OffsetIt, class IdIt>
struct list_cell_by_scanning {
  CellOf cell_of;
  std::ptrdiff_t n;
  OffsetIt offsets;
  IdIt ids;
  DPT_HOST_DEVICE void operator()(std::int64_t cell) const {
    using id_type = ::cuda::std::iter_value_t<IdIt>;
    auto slot = static_cast<std::ptrdiff_t>(offsets[cell]);
    for (std::ptrdiff_t p = 0; p < n; ++p) {
      if (cell_of(p) == static_cast<binning_cell>(cell)) ids[slot++] = static_cast<id_type>(p);
    }
  }
};

// Solution 4: particle p belongs to chunk p / chunk_size; the partial grids are stored cell-major
// (partial[cell · chunks + chunk]) so that one scan over them merges them into the final lists.
template <class CellOf, class Offset>
struct count_in_partial_grid {
  CellOf cell_of;
  std::ptrdiff_t chunk_size, chunks;
  Offset* partial;
  DPT_HOST_DEVICE void operator()(std::ptrdiff_t p) const {
    const auto slot = static_cast<std::int64_t>(cell_of(p)) * chunks + p / chunk_size;
    ::cuda::atomic_ref<Offset, ::cuda::thread_scope_device>(partial[slot])
        .fetch_add(Offset(1), ::cuda::std::memory_order_relaxed);
  }
};

template <class CellOf, class Offset, class IdIt>
struct insert_from_partial_grid {
  CellOf cell_of;
  std::ptrdiff_t chunk_size, chunks;
  Offset* cursors;  // the merged offsets, advanced as the chunk's particles are placed
  IdIt ids;
  DPT_HOST_DEVICE void operator()(std::ptrdiff_t p) const {
    using id_type = ::cuda::std::iter_value_t<IdIt>;
    const auto slot = static_cast<std::int64_t>(cell_of(p)) * chunks + p / chunk_size;
    const Offset position = ::cuda::atomic_ref<Offset, ::cuda::thread_scope_device>(cursors[slot])
                                .fetch_add(Offset(1), ::cuda::std::memory_order_relaxed);
    ids[position] = static_cast<id_type>(p);
  }
};

struct times_stride {
  std::int64_t stride;
  DPT_HOST_DEVICE std::int64_t operator()(std::int64_t i) const { return i * stride; }
};

// How many partial grids solution 4 uses: about one per 4096 particles, at most 256, and at most 2^24 partial
// counters in all.
inline std::ptrdiff_t partial_grid_count(std::ptrdiff_t n, std::int64_t cells) {
  const std::int64_t by_particles = (n + 4095) / 4096;
  const std::int64_t by_memory = std::max<std::int64_t>(1, (std::int64_t(1) << 24) / cells);
  return static_cast<std::ptrdiff_t>(std::max<std::int64_t>(1, std::min({by_particles, std::int64_t(256), by_memory})));
}

}  // namespace detail

// Solution 1. Output capacity: offsets_out grid.cell_count() + 1, ids_out n.
template <class DerivedPolicy, int Dim, class Real, class CoordIt, class OffsetIt, class IdIt>
void bin_particles_global_lock(const thrust::detail::execution_policy_base<DerivedPolicy>& exec,
                               const uniform_grid<Dim, Real>& grid, soa_positions<Dim, CoordIt> positions,
                               std::ptrdiff_t n, OffsetIt offsets_out, IdIt ids_out,
                               out_of_domain outside = out_of_domain::error) {
  detail::bin_under_locks(exec, grid, positions, n, offsets_out, ids_out, outside, false);
}

// Solution 2.
template <class DerivedPolicy, int Dim, class Real, class CoordIt, class OffsetIt, class IdIt>
void bin_particles_lock_per_cell(const thrust::detail::execution_policy_base<DerivedPolicy>& exec,
                                 const uniform_grid<Dim, Real>& grid, soa_positions<Dim, CoordIt> positions,
                                 std::ptrdiff_t n, OffsetIt offsets_out, IdIt ids_out,
                                 out_of_domain outside = out_of_domain::error) {
  detail::bin_under_locks(exec, grid, positions, n, offsets_out, ids_out, outside, true);
}

// Solution 3. Lists come out in ascending order already.
template <class DerivedPolicy, int Dim, class Real, class CoordIt, class OffsetIt, class IdIt>
void bin_particles_task_per_cell(const thrust::detail::execution_policy_base<DerivedPolicy>& exec,
                                 const uniform_grid<Dim, Real>& grid, soa_positions<Dim, CoordIt> positions,
                                 std::ptrdiff_t n, OffsetIt offsets_out, IdIt ids_out,
                                 out_of_domain outside = out_of_domain::error) {
  const auto cell_of = detail::checked_particle_cell(exec, grid, positions, n, outside);
  const auto cells = grid.cell_count();
  const auto cell_ids = thrust::make_counting_iterator<std::int64_t>(0);
  // one task per cell counts its particles by scanning all of them
  thrust::transform(exec, cell_ids, cell_ids + cells, offsets_out,
                    detail::count_cell_by_scanning<decltype(cell_of)>{cell_of, n});
  detail::counts_to_offsets(exec, offsets_out, cells);
  // one task per cell scans all particles again, listing its own at its offset
  thrust::for_each_n(
      exec, cell_ids, cells,
      detail::list_cell_by_scanning<decltype(cell_of), OffsetIt, IdIt>{cell_of, n, offsets_out, ids_out});
}

// Solution 4. Scratch: chunks × cells offsets (detail::partial_grid_count).
template <class DerivedPolicy, int Dim, class Real, class CoordIt, class OffsetIt, class IdIt>
void bin_particles_partial_grids(const thrust::detail::execution_policy_base<DerivedPolicy>& exec,
                                 const uniform_grid<Dim, Real>& grid, soa_positions<Dim, CoordIt> positions,
                                 std::ptrdiff_t n, OffsetIt offsets_out, IdIt ids_out,
                                 out_of_domain outside = out_of_domain::error) {
  using offset_type = ::cuda::std::iter_value_t<OffsetIt>;
  const auto cell_of = detail::checked_particle_cell(exec, grid, positions, n, outside);
  const auto cells = grid.cell_count();
  const auto chunks = detail::partial_grid_count(n, cells);
  const auto chunk_size = std::max<std::ptrdiff_t>(1, (n + chunks - 1) / chunks);
  const auto particles = thrust::make_counting_iterator<std::ptrdiff_t>(0);
  detail::temporary_array<offset_type, DerivedPolicy> partial(exec, cells * chunks + 1);
  offset_type* const partial_counts = thrust::raw_pointer_cast(partial.begin());
  thrust::fill(exec, partial.begin(), partial.end(), offset_type(0));
  // every chunk counts its particles into its own partial grid: atomics collide only within a chunk
  thrust::for_each_n(
      exec, particles, n,
      detail::count_in_partial_grid<decltype(cell_of), offset_type>{cell_of, chunk_size, chunks, partial_counts});
  // merge: one exclusive scan over the cell-major partial grids gives every (cell, chunk) its own range
  detail::counts_to_offsets(exec, partial.begin(), cells * chunks);
  // a cell's list starts where its first chunk's range does
  const auto first_chunk_of_cell =
      thrust::make_transform_iterator(thrust::make_counting_iterator<std::int64_t>(0), detail::times_stride{chunks});
  thrust::copy_n(exec, thrust::make_permutation_iterator(partial.begin(), first_chunk_of_cell), cells + 1, offsets_out);
  // every chunk places its particles in its ranges, taking slots with atomics on its own cursors
  thrust::for_each_n(exec, particles, n,
                     detail::insert_from_partial_grid<decltype(cell_of), offset_type, IdIt>{cell_of, chunk_size, chunks,
                                                                                            partial_counts, ids_out});
}

// Solution 5: build_grid, then the cell ranges as offsets. Lists come out in ascending order (stable sort).
template <class DerivedPolicy, int Dim, class Real, class CoordIt, class OffsetIt, class IdIt>
void bin_particles_sort(const thrust::detail::execution_policy_base<DerivedPolicy>& exec,
                        const uniform_grid<Dim, Real>& grid, soa_positions<Dim, CoordIt> positions, std::ptrdiff_t n,
                        OffsetIt offsets_out, IdIt ids_out, out_of_domain outside = out_of_domain::error) {
  using offset_type = ::cuda::std::iter_value_t<OffsetIt>;
  // a bad grid is an error before its cells are counted and allocated
  detail::validate_grid<detail::binning_cell>(grid);
  const auto cells = grid.cell_count();
  detail::temporary_array<detail::binning_cell, DerivedPolicy> sorted_cells(exec, n);
  detail::temporary_array<offset_type, DerivedPolicy> cell_start(exec, cells), cell_end(exec, cells);
  build_grid(exec, grid, positions, n, sorted_cells.begin(), ids_out, cell_start.begin(), cell_end.begin(), outside);
  // each cell's count is end − start; their scan is the offsets
  thrust::transform(exec, cell_end.begin(), cell_end.end(), cell_start.begin(), offsets_out,
                    thrust::minus<offset_type>());
  detail::counts_to_offsets(exec, offsets_out, cells);
}

// Any of the five, by number.
template <class DerivedPolicy, int Dim, class Real, class CoordIt, class OffsetIt, class IdIt>
void bin_particles(const thrust::detail::execution_policy_base<DerivedPolicy>& exec, grid_solution solution,
                   const uniform_grid<Dim, Real>& grid, soa_positions<Dim, CoordIt> positions, std::ptrdiff_t n,
                   OffsetIt offsets_out, IdIt ids_out, out_of_domain outside = out_of_domain::error) {
  switch (solution) {
    case grid_solution::global_lock:
      return bin_particles_global_lock(exec, grid, positions, n, offsets_out, ids_out, outside);
    case grid_solution::lock_per_cell:
      return bin_particles_lock_per_cell(exec, grid, positions, n, offsets_out, ids_out, outside);
    case grid_solution::task_per_cell:
      return bin_particles_task_per_cell(exec, grid, positions, n, offsets_out, ids_out, outside);
    case grid_solution::partial_grids:
      return bin_particles_partial_grids(exec, grid, positions, n, offsets_out, ids_out, outside);
    case grid_solution::sort:
      return bin_particles_sort(exec, grid, positions, n, offsets_out, ids_out, outside);
  }
  throw std::invalid_argument("bin_particles: no such solution");
}

// The canonical form: sorts each cell's list [ids[offsets[c]], ids[offsets[c+1])) into ascending order.
template <class DerivedPolicy, class OffsetIt, class IdIt>
void sort_within_cells(const thrust::detail::execution_policy_base<DerivedPolicy>& exec, OffsetIt offsets,
                       std::int64_t cells, IdIt ids_first, IdIt ids_last) {
  const auto n = static_cast<std::ptrdiff_t>(thrust::distance(ids_first, ids_last));
  detail::temporary_array<std::int64_t, DerivedPolicy> cell_of_slot(exec, n);
  // the cell of every slot: the number of cells that end at or before it
  thrust::upper_bound(exec, offsets + 1, offsets + cells + 1, thrust::make_counting_iterator<std::int64_t>(0),
                      thrust::make_counting_iterator<std::int64_t>(n), cell_of_slot.begin());
  // sort by id, then stably by cell: ids ascending within every cell
  thrust::stable_sort_by_key(exec, ids_first, ids_last, cell_of_slot.begin());
  thrust::stable_sort_by_key(exec, cell_of_slot.begin(), cell_of_slot.end(), ids_first);
}

}  // namespace dpt
