// dpt/kernels/spmv.hpp — y = A·x for a CSR matrix in one launch: the lecture's flat SpMV fused into one kernel.
//
// The work of SpMV is two sorted sequences, the row ends (row_offsets[1..rows]) and the entries 0 .. nnz − 1.
// Merged — entry k before row end e exactly when k < e — they list what a sequential loop does, in order:
// add an entry's product, or finish a row. Every merge item costs about the same, so the merge is cut into
// equal tiles, one block per tile, and each thread takes equal consecutive items of its tile ("merge path",
// Merrill & Garland 2016): long rows, short rows and empty rows all balance. The lecture's matrix:
//
//   row_offsets [0, 2, 3, 4, 7], products values[k]·x[cols[k]] with x = [1, 2, 3, 4]: [3, 3, 4, 12, 4, 18, 32]
//   merge:   3  3  end0 | 4  end1  12 | end2  4  18 | 32  end3          (tiles of 3 items)
//   tile 0:  y0 = 3 + 3 = 6;              open row leaving the tile: (a row ended, sum 0)
//   tile 1:  y1 = 0 (coming in) + 4 = 4;  leaving: (ended, 12)
//   tile 2:  y2 = 12 (coming in) + 0;     leaving: (ended, 4 + 18 = 22)
//   tile 3:  y3 = 22 (coming in) + 32 = 54                              → y = [6, 4, 12, 54]
//
// The carries are the lecture's segmented scan: each thread, then each tile, reduces its items to an
// open_row — (did a row end?, sum since the last row end) — whose combination is a scan with a head flag at
// every row end. A block scan gives each thread the open row coming in; decoupled look-back over the tiles
// before it (dpt/kernels/look_back.hpp) gives the block the open row coming into its tile. Each thread writes
// every row that ends among its items: all but the first are complete within the thread, and the first gets
// the incoming open sum added. Every entry is read once, every y once, with no atomics and no second launch.
//
// Memory: a block stages its tile's products (gathering x) and row ends in shared memory with coalesced reads,
// then each thread finds its place in the tile by a binary search there; only the tile's start and end are
// searched for in global memory.
#pragma once

#include <cstddef>
#include <cstdint>
#include <stdexcept>

#include "dpt/kernels/block_scan.hpp"
#include "dpt/kernels/look_back.hpp"

namespace dpt::kernels {
namespace detail {

// The sum of the row still open at the end of a stretch of merge items, and whether any row ended in it.
// `ended` is a whole word, because published values move as 32-bit words.
template <class T>
struct open_row {
  T sum;
  unsigned ended;
};

// (a then b): b's open sum if a row ended in b, else a's and b's sums added — a segmented sum with a head at
// every row end.
template <class T>
struct combine_open_rows {
  __host__ __device__ open_row<T> operator()(const open_row<T>& a, const open_row<T>& b) const {
    return {b.ended ? b.sum : a.sum + b.sum, a.ended | b.ended};
  }
};

// The merge-path split of diagonal d: how many row ends are among the first d items of the merge of row ends
// row_end(0) ≤ … ≤ row_end(rows − 1) with the entries first_entry … first_entry + entries − 1. Row end i is
// among them when it comes before entry first_entry + d − i − 1, i.e. row_end(i) ≤ that entry.
template <class RowEnd>
__device__ std::int64_t merge_path_split(RowEnd row_end, std::int64_t rows, std::int64_t first_entry,
                                         std::int64_t entries, std::int64_t d) {
  std::int64_t low = d > entries ? d - entries : 0, high = d < rows ? d : rows;
  while (low < high) {
    const std::int64_t mid = low + (high - low) / 2;
    if (static_cast<std::int64_t>(row_end(mid)) <= first_entry + d - mid - 1)
      low = mid + 1;
    else
      high = mid;
  }
  return low;
}

template <int BlockThreads, int ItemsPerThread>
struct spmv_policy {
  static constexpr int block_threads = BlockThreads;
  static constexpr int items_per_thread = ItemsPerThread;
  static constexpr int tile_items = BlockThreads * ItemsPerThread;
};

template <class T, class Offset, class Index, class Value, class X, class Policy, class TileId>
__global__ void __launch_bounds__(Policy::block_threads)
    spmv_kernel(const Offset* __restrict__ row_offsets, const Index* __restrict__ column_indices,
                const Value* __restrict__ values, const X* __restrict__ x, T* __restrict__ y, std::int64_t rows,
                std::int64_t nnz, tile_status<open_row<T>> status) {
  constexpr int threads = Policy::block_threads, items = Policy::items_per_thread;
  using carry = open_row<T>;
  using block_scan = BlockScan<carry, threads>;
  struct storage_t {
    typename block_scan::TempStorage scan;
    // The tile's entries multiplied by x, and its row ends. Padded: in phase 2 the threads of a warp read
    // elements about `items` apart, which would otherwise fall into a few of the 32 banks (doubles 8 apart:
    // two bank pairs, so 8 threads of each half-warp queue for the same pair).
    bank_padded_array<T, Policy::tile_items> products;
    bank_padded_array<Offset, Policy::tile_items> ends;
    std::int64_t tile_index, split[2];  // row ends before the tile's start and end
    uninitialized_array<carry, 1> prefix;
  };
  __shared__ storage_t storage;
  const int thread = static_cast<int>(thread_rank());
  const Offset* row_ends = row_offsets + 1;

  // Take the next tile; two threads find where it starts and ends on the merge path.
  const bool single_tile = gridDim.x == 1;  // then there is no status: nothing to take, no one to publish to
  if (thread == 0) storage.tile_index = single_tile ? 0 : TileId::take(status.next_tile);
  __syncthreads();
  const std::int64_t tile_index = storage.tile_index;
  const std::int64_t merge_items = rows + nnz, tile_begin = tile_index * Policy::tile_items;
  const std::int64_t tile_end =
      merge_items - tile_begin < Policy::tile_items ? merge_items : tile_begin + Policy::tile_items;
  if (thread < 2) {
    const auto global_end = [row_ends](std::int64_t i) { return row_ends[i]; };
    storage.split[thread] = merge_path_split(global_end, rows, 0, nnz, thread == 0 ? tile_begin : tile_end);
  }
  __syncthreads();
  const std::int64_t first_row = storage.split[0], first_entry = tile_begin - first_row;
  const int tile_rows = static_cast<int>(storage.split[1] - first_row);
  const int tile_entries = static_cast<int>(tile_end - tile_begin) - tile_rows;

  // Phase 1, gather and map: the tile's products values[k]·x[cols[k]] and its row ends into shared memory,
  // neighbouring threads reading neighbouring elements. The loops run to the constant `items` so that they
  // unroll and each thread has all its loads in flight at once.
  for (int step = 0; step < items; ++step) {
    const int i = step * threads + thread;
    if (i < tile_entries) {
      const std::int64_t k = first_entry + i;
      storage.products[i] = static_cast<T>(values[k]) * static_cast<T>(x[column_indices[k]]);
    }
  }
  for (int step = 0; step < items; ++step) {
    const int i = step * threads + thread;
    if (i < tile_rows) storage.ends[i] = row_ends[first_row + i];
  }
  __syncthreads();

  // Phase 2, each thread's items in merge order: add entries, finish rows. Every row after the thread's first
  // row end is complete here; the first may have begun before the thread's items.
  const int tile_length = tile_rows + tile_entries;
  const int d = thread * items < tile_length ? thread * items : tile_length;
  const auto shared_end = [](std::int64_t i) { return storage.ends[static_cast<int>(i)]; };
  int i = static_cast<int>(merge_path_split(shared_end, tile_rows, first_entry, tile_entries, d));
  int j = d - i;
  carry mine{T(0), 0u};
  std::int64_t first_ended_row = -1;
  T first_sum = T(0);
  for (int step = 0; step < items && i + j < tile_length; ++step) {
    if (i < tile_rows && (j == tile_entries || static_cast<std::int64_t>(storage.ends[i]) <= first_entry + j)) {
      if (mine.ended) {
        y[first_row + i] = mine.sum;
      } else {
        first_ended_row = first_row + i;
        first_sum = mine.sum;
      }
      mine = {T(0), 1u};
      ++i;
    } else {
      mine.sum += storage.products[j];
      ++j;
    }
  }

  // Phase 3, segmented scan of the threads' open rows: what comes into each thread from the threads before it.
  carry inclusive, before, aggregate;
  block_scan(storage.scan).Scan(mine, inclusive, before, aggregate, combine_open_rows<T>{});

  // Phase 4, decoupled look-back: what comes into the tile (the first warp), then publish the tile's own.
  if (tile_index == 0) {
    if (thread == 0) {
      if (!single_tile) status.publish(0, aggregate, tile_inclusive_ready);
      storage.prefix[0] = carry{T(0), 0u};
    }
  } else if (thread < 32) {
    if (thread == 0) status.publish(tile_index, aggregate, tile_aggregate_ready);
    const carry prefix = look_back(status, tile_index, combine_open_rows<T>{});
    if (thread == 0) {
      status.publish(tile_index, combine_open_rows<T>{}(prefix, aggregate), tile_inclusive_ready);
      storage.prefix[0] = prefix;
    }
  }
  __syncthreads();  // the tile's incoming open row is in shared memory

  // Phase 5: the thread's first finished row adds the sum that was open when its items began.
  if (first_ended_row >= 0) {
    const carry incoming = thread == 0 ? storage.prefix[0] : combine_open_rows<T>{}(storage.prefix[0], before);
    y[first_ended_row] = incoming.sum + first_sum;
  }
}

inline void check_spmv_sizes(std::int64_t rows, std::int64_t nnz) {
  if (rows < 0 || nnz < 0) throw std::invalid_argument("dpt::kernels::spmv: negative row or entry count");
}

// Throws for negative sizes or a needed null pointer; returns whether there is anything to compute.
template <class Offset, class Index, class Value, class X, class T>
bool check_spmv_arguments(const Offset* d_row_offsets, const Index* d_column_indices, const Value* d_values,
                          std::int64_t rows, std::int64_t nnz, const X* d_x, T* d_y) {
  check_spmv_sizes(rows, nnz);
  if (rows == 0) return false;
  if (!d_row_offsets || !d_y || (nnz > 0 && (!d_column_indices || !d_values || !d_x)))
    throw std::invalid_argument("dpt::kernels::spmv: null pointer for a non-empty matrix");
  return true;
}

template <class Policy>
std::int64_t spmv_tile_count(std::int64_t rows, std::int64_t nnz) {
  return rows > 0 ? (rows + nnz + Policy::tile_items - 1) / Policy::tile_items : 0;
}

template <class Policy, class TileId, class Offset, class Index, class Value, class X, class T>
void launch_spmv(std::int64_t tiles, tile_status<open_row<T>> status, const Offset* d_row_offsets,
                 const Index* d_column_indices, const Value* d_values, std::int64_t rows, std::int64_t nnz,
                 const X* d_x, T* d_y, stream_t stream) {
  launch("spmv_kernel", grid_of(tiles), dim3(Policy::block_threads), stream,
         &spmv_kernel<T, Offset, Index, Value, X, Policy, TileId>, d_row_offsets, d_column_indices, d_values, d_x, d_y,
         rows, nnz, status);
}

// y = A·x in tiles of Policy, tiles taken in TileId's order, the tile status in scratch of its own;
// dpt::kernels::spmv's body (tests pick small tiles).
template <class Policy, class TileId = dynamic_tile_id, class Offset, class Index, class Value, class X, class T>
void spmv_with(const Offset* d_row_offsets, const Index* d_column_indices, const Value* d_values, std::int64_t rows,
               std::int64_t nnz, const X* d_x, T* d_y, stream_t stream) {
  if (!check_spmv_arguments(d_row_offsets, d_column_indices, d_values, rows, nnz, d_x, d_y)) return;
  const std::int64_t tiles = spmv_tile_count<Policy>(rows, nnz);
  const tile_status_storage<open_row<T>> state(tiles, stream);
  launch_spmv<Policy, TileId>(tiles, state.status(), d_row_offsets, d_column_indices, d_values, rows, nnz, d_x, d_y,
                              stream);
}

// The same in caller-owned scratch, as cub's device algorithms take it: with d_temp_storage null, only set
// temp_storage_bytes to what the matrix needs (at least 1).
template <class Policy, class TileId = dynamic_tile_id, class Offset, class Index, class Value, class X, class T>
void spmv_with(void* d_temp_storage, std::size_t& temp_storage_bytes, const Offset* d_row_offsets,
               const Index* d_column_indices, const Value* d_values, std::int64_t rows, std::int64_t nnz, const X* d_x,
               T* d_y, stream_t stream) {
  check_spmv_sizes(rows, nnz);  // the size query needs only the sizes
  const std::int64_t tiles = spmv_tile_count<Policy>(rows, nnz);
  const tile_status_layout<open_row<T>> layout(tiles);
  const std::size_t needed = layout.bytes() > 0 ? layout.bytes() : 1;
  if (!d_temp_storage) {
    temp_storage_bytes = needed;
    return;
  }
  check_temp_storage("dpt::kernels::spmv", d_temp_storage, temp_storage_bytes, needed, layout.alignment);
  if (!check_spmv_arguments(d_row_offsets, d_column_indices, d_values, rows, nnz, d_x, d_y)) return;
  zero_async(d_temp_storage, layout.zeroed_bytes(), stream);
  launch_spmv<Policy, TileId>(tiles, layout.status(d_temp_storage), d_row_offsets, d_column_indices, d_values, rows,
                              nnz, d_x, d_y, stream);
}

}  // namespace detail

// The tile of dpt::kernels::spmv: 128 threads × 8 merge items.
constexpr int spmv_block_threads = 128;
constexpr int spmv_items_per_thread = 8;

// y = A·x, A in CSR form: d_row_offsets has rows + 1 entries (0 first, nnz last, never decreasing),
// d_column_indices and d_values nnz each, columns within x; y overlaps none of them (the kernel reads them
// through the read-only data cache while it writes y). Products and sums are in y's type T. Device
// pointers (host pointers on the SIMT runner) and a stream; the offsets and columns are trusted, as cuSPARSE
// trusts them (dpt's readers validate a file before it gets here). Throws std::invalid_argument for negative
// sizes or a needed null pointer, dpt::kernels::cuda_error when a CUDA call fails.
template <class Offset, class Index, class Value, class X, class T>
void spmv(const Offset* d_row_offsets, const Index* d_column_indices, const Value* d_values, std::int64_t rows,
          std::int64_t nnz, const X* d_x, T* d_y, stream_t stream = {}) {
  detail::spmv_with<detail::spmv_policy<spmv_block_threads, spmv_items_per_thread>>(
      d_row_offsets, d_column_indices, d_values, rows, nnz, d_x, d_y, stream);
}

// The same with caller-owned scratch, in cub's two-phase form: a call with d_temp_storage null only sets
// temp_storage_bytes to what a matrix of `rows` rows and `nnz` entries needs (at least 1 byte); a call with at
// least that much device memory, 16-byte aligned (cudaMalloc's is), computes y. The scratch serves any number
// of calls in the same stream, so a solver that multiplies by A every iteration allocates nothing per call.
// Also throws std::invalid_argument for too little or misaligned scratch.
template <class Offset, class Index, class Value, class X, class T>
void spmv(void* d_temp_storage, std::size_t& temp_storage_bytes, const Offset* d_row_offsets,
          const Index* d_column_indices, const Value* d_values, std::int64_t rows, std::int64_t nnz, const X* d_x,
          T* d_y, stream_t stream = {}) {
  detail::spmv_with<detail::spmv_policy<spmv_block_threads, spmv_items_per_thread>>(
      d_temp_storage, temp_storage_bytes, d_row_offsets, d_column_indices, d_values, rows, nnz, d_x, d_y, stream);
}

}  // namespace dpt::kernels
