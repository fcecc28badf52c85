// dpt/kernels/device_scan.hpp — scans of a whole array in device memory, shaped like cub::DeviceScan.
//
//   in:        3  1  4  1  5  9  2  6             (op = +)
//   inclusive: 3  4  8  9 14 23 25 31
//   exclusive: 0  3  4  8  9 14 23 25             (initial value 0)
//
// The array is cut into tiles of BlockThreads × ItemsPerThread elements, one block per tile. Two algorithms:
//
//   - The lecture's three launches (the kernel boundaries are the global barriers):
//       1. scan tiles:           every block scans its tile and writes the tile's total;
//       2. scan the tile totals: the same device scan, recursively, on the array of totals;
//       3. add bases:            every block combines the total of the tiles before it into its tile.
//     For n = 10 with tiles of 4:
//       in       [3 1 4 1 | 5 9 2 6 | 5 3]
//       launch 1 [3 4 8 9 | 5 14 16 22 | 5 8]   totals [9 22 8]
//       launch 2                                  scanned totals [9 31 39]
//       launch 3 [3 4 8 9 | 14 23 25 31 | 36 39]
//     Inside a tile the block scan is the lecture's scan_block over the shared-memory warp scan, the same over
//     the shuffle warp scan, or the up-sweep/down-sweep (device_scan_algorithm).
//
//   - single_pass: the decoupled look-back scan of Merrill & Garland (2016), one launch, each element read once
//     and written once. A block takes the next tile number from an atomic counter — the order blocks *start*,
//     which is not blockIdx order — scans it, publishes its total ("aggregate"), then its first warp walks back
//     over the tiles before it, 32 at a time, combining their aggregates until it meets one that has published
//     its inclusive prefix, and publishes its own. Because tile numbers follow the start order, every tile it
//     waits for belongs to a block that is already running; waiting on blockIdx − 1 instead can wait on a block
//     that never started. How tiles are numbered (dynamic_tile_id, or CUB's blockIdx order: block_index_tile_id)
//     and how the look-back waits (eager_wait, or CUB's sm_90 sleeps: settled_wait) are template choices of
//     detail::single_pass_scan; the entry points take the first of each, and bench_scan times the others. The
//     tile status, the look-back and these choices are in dpt/kernels/look_back.hpp, which the fused SpMV shares.
//
// Offsets are 64-bit: n may exceed 2^31. The entry points take device pointers (host pointers on the SIMT
// runner) and a stream, throw std::invalid_argument for bad arguments and dpt::kernels::cuda_error when a
// CUDA call fails. d_out may equal d_in. A tile, with its padded exchange buffer, must fit a block's 48 KiB of
// static shared memory (asserted at compile time): at the default 256 threads × 8 items a value of 16 bytes fits
// and one of 24 does not, which needs fewer items per thread.
#pragma once

#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <type_traits>

#include "dpt/kernels/block_scan.hpp"
#include "dpt/kernels/look_back.hpp"

namespace dpt::kernels {

enum class device_scan_algorithm {
  three_launch_lecture,   // scan_block over the shared-memory Hillis–Steele warp scan
  three_launch_shuffle,   // scan_block over the __shfl_up_sync warp scan
  three_launch_blelloch,  // the up-sweep/down-sweep block scan
  single_pass,            // decoupled look-back
};

// How a tile is split over a block.
template <int BlockThreads, int ItemsPerThread, block_scan_algorithm Algorithm>
struct tile_policy {
  static constexpr int block_threads = BlockThreads;
  static constexpr int items_per_thread = ItemsPerThread;
  static constexpr int tile_items = BlockThreads * ItemsPerThread;
  static constexpr block_scan_algorithm algorithm = Algorithm;
};

namespace detail {

// One block scans one tile that it holds in registers, ItemsPerThread consecutive items per thread (the
// "blocked" arrangement the scan needs). Memory is read and written "warp-striped" instead: each warp owns
// 32·ItemsPerThread consecutive elements of the tile, and item j of lane l is element j·32 + l of them, so a warp
// touches 32 neighbouring elements at once. Each warp transposes its own part between the two through its own
// stretch of shared memory, so __syncwarp() suffices where a block-wide transpose needs __syncthreads(), as
// cub::BlockLoad's BLOCK_LOAD_WARP_TRANSPOSE does.
template <class T, class Policy>
struct tile_scan {
  using block_scan = BlockScan<T, Policy::block_threads, Policy::algorithm>;
  static constexpr int items = Policy::items_per_thread;
  static constexpr int threads = Policy::block_threads;
  static_assert(threads % 32 == 0, "tiles are transposed warp by warp");

  struct TempStorage {
    typename block_scan::TempStorage scan;
    uninitialized_array<T, 1> tile_total;
    bank_padded_array<T, Policy::tile_items> exchange;  // lanes' consecutive items, `items` apart: padded
  };

  // The thread's lane, and where its warp's stretch of 32·items elements begins in the tile.
  struct warp_stretch {
    int lane = static_cast<int>(lane_rank());
    int first = static_cast<int>(thread_rank()) / 32 * 32 * items;
  };

  // Thread t's items [t·items, t·items + items) of the tile's first `valid`; the rest are copies of a valid one.
  __device__ static void load(TempStorage& storage, const T* in, std::int64_t begin, int valid, T (&values)[items]) {
    const auto [lane, warp_first] = warp_stretch{};
    // Phase 1: coalesced reads into the warp's stretch of shared memory.
    for (int j = 0; j < items; ++j) {
      const int i = warp_first + j * 32 + lane;
      storage.exchange[i] = in[begin + (i < valid ? i : 0)];
    }
    __syncwarp();
    // Phase 2: each lane takes its consecutive items.
    for (int j = 0; j < items; ++j) values[j] = storage.exchange[warp_first + lane * items + j];
    __syncwarp();  // every lane has its items before the stretch is reused
  }
  __device__ static void store(TempStorage& storage, T* out, std::int64_t begin, int valid, const T (&values)[items]) {
    const auto [lane, warp_first] = warp_stretch{};
    // Phase 1: each lane puts back its consecutive items.
    for (int j = 0; j < items; ++j) storage.exchange[warp_first + lane * items + j] = values[j];
    __syncwarp();
    // Phase 2: coalesced writes of the valid elements.
    for (int j = 0; j < items; ++j) {
      const int i = warp_first + j * 32 + lane;
      if (i < valid) out[begin + i] = storage.exchange[i];
    }
  }

  // Replaces the items by their scan within the tile — inclusive, or exclusive (the tile's first item then
  // has no value and keeps its input) — and returns the tile's total.
  template <class Op>
  __device__ static T scan(TempStorage& storage, T (&values)[items], int valid, bool exclusive, Op op) {
    const int thread = static_cast<int>(thread_rank()), first = thread * items;
    const int mine = valid - first < 0 ? 0 : (valid - first > items ? items : valid - first);

    // Each thread combines its own items (a thread past the end scans a copy; nothing keeps its result). The
    // loops run to the constant `items` and test `j < mine` inside, so they unroll and the items stay in
    // registers; a loop bound of `mine` puts them in local memory.
    T thread_total = values[0];
    for (int j = 1; j < items; ++j)
      if (j < mine) thread_total = op(thread_total, values[j]);

    // The block scans the thread totals: what precedes each thread's items.
    T inclusive, before, aggregate;
    block_scan(storage.scan).Scan(thread_total, inclusive, before, aggregate, op);

    // Each thread rescans its items, starting from what precedes them.
    bool has_running = thread > 0;
    T running = before;
    for (int j = 0; j < items; ++j) {
      if (j >= mine) break;
      const T x = values[j];
      const T next = has_running ? op(running, x) : x;
      values[j] = !exclusive ? next : has_running ? running : x;  // x: the tile's first item has nothing before it
      running = next;
      has_running = true;
    }
    // A full tile's total is the block scan's aggregate (`valid` is the same for every thread, so all take the
    // same branch). In the last, partial tile the threads past the end scanned copies, so the owner of the last
    // valid item hands its running value to the others.
    if (valid == Policy::tile_items) return aggregate;
    if (mine > 0 && first + mine == valid) storage.tile_total[0] = running;
    __syncthreads();
    return storage.tile_total[0];
  }

  // out = seed ∘ local; in an exclusive scan the tile's first element becomes the seed itself.
  template <class Op>
  __device__ static void add_seed(T (&values)[items], int valid, bool exclusive, bool has_seed, const T& seed, Op op) {
    const int first = static_cast<int>(thread_rank()) * items;
    if (!has_seed) return;
    for (int j = 0; j < items; ++j)
      if (first + j < valid) values[j] = exclusive && first + j == 0 ? seed : op(seed, values[j]);
  }
};

template <class Policy>
__device__ inline int tile_valid(std::int64_t n, std::int64_t begin) {
  return n - begin < Policy::tile_items ? static_cast<int>(n - begin) : Policy::tile_items;
}

// ---- the lecture's three launches -------------------------------------------------------------------------

// Launch 1: scan every tile on its own and write its total.
template <class T, class Op, class Policy>
__global__ void __launch_bounds__(Policy::block_threads)
    scan_tiles_kernel(const T* in, T* out, T* tile_totals, std::int64_t n, Op op, bool exclusive) {
  using tile = tile_scan<T, Policy>;
  static_assert(sizeof(typename tile::TempStorage) <= static_shared_memory_limit,
                "the tile does not fit a block's 48 KiB of static shared memory: fewer items per thread for this type");
  __shared__ typename tile::TempStorage storage;
  const std::int64_t begin = static_cast<std::int64_t>(blockIdx.x) * Policy::tile_items;
  const int valid = tile_valid<Policy>(n, begin);
  T values[Policy::items_per_thread];
  tile::load(storage, in, begin, valid, values);
  const T total = tile::scan(storage, values, valid, exclusive, op);
  tile::store(storage, out, begin, valid, values);
  if (thread_rank() == 0) tile_totals[blockIdx.x] = total;
}

// Launch 3: combine the totals of all earlier tiles (and the initial value) into every tile.
template <class T, class Op, class Policy>
__global__ void __launch_bounds__(Policy::block_threads)
    add_tile_prefixes_kernel(T* out, const T* scanned_totals, std::int64_t n, Op op, bool exclusive, T initial_value) {
  const std::int64_t tile_index = blockIdx.x;
  const std::int64_t begin = tile_index * Policy::tile_items;
  const int valid = tile_valid<Policy>(n, begin);
  if (!exclusive && tile_index == 0) return;  // the first tile of an inclusive scan is complete
  const T seed = !exclusive       ? scanned_totals[tile_index - 1]
                 : tile_index > 0 ? op(initial_value, scanned_totals[tile_index - 1])
                                  : initial_value;
  // Element by element, so striped (coalesced) with no transpose; in an exclusive scan the tile's first
  // element becomes the seed itself.
  for (int j = 0; j < Policy::items_per_thread; ++j) {
    const int i = j * Policy::block_threads + static_cast<int>(thread_rank());
    if (i < valid) out[begin + i] = exclusive && i == 0 ? seed : op(seed, out[begin + i]);
  }
}

template <class Policy>
std::int64_t tile_count(std::int64_t n) {
  return (n + Policy::tile_items - 1) / Policy::tile_items;
}

// Launch 1 on its own: `out` gets every tile scanned by itself, `tile_totals` one total per tile.
template <class Policy, class T, class Op>
void scan_tiles(const T* in, T* out, T* tile_totals, std::int64_t n, Op op, bool exclusive, stream_t stream) {
  launch("scan_tiles_kernel", grid_of(tile_count<Policy>(n)), dim3(Policy::block_threads), stream,
         &scan_tiles_kernel<T, Op, Policy>, in, out, tile_totals, n, op, exclusive);
}

// Launch 3 on its own: combine the inclusive scan of the tile totals (and the initial value) into every tile.
template <class Policy, class T, class Op>
void add_tile_prefixes(T* out, const T* scanned_totals, std::int64_t n, Op op, bool exclusive, T initial_value,
                       stream_t stream) {
  launch("add_tile_prefixes_kernel", grid_of(tile_count<Policy>(n)), dim3(Policy::block_threads), stream,
         &add_tile_prefixes_kernel<T, Op, Policy>, out, scanned_totals, n, op, exclusive, initial_value);
}

constexpr std::size_t round_up(std::size_t bytes, std::size_t multiple) {
  return (bytes + multiple - 1) / multiple * multiple;
}

// The scratch of the three launches: the tile totals of every level of the recursion, one after another.
template <class Policy, class T>
std::size_t three_launch_scratch_bytes(std::int64_t n) {
  std::size_t bytes = 0;
  for (std::int64_t tiles = tile_count<Policy>(n);; tiles = tile_count<Policy>(tiles)) {
    bytes += round_up(static_cast<std::size_t>(tiles) * sizeof(T), scratch_alignment<T>);
    if (tiles <= 1) return bytes;
  }
}

// The three launches, in three_launch_scratch_bytes(n) of scratch; launch 2 is this function again on the tile
// totals, which are always scanned inclusively, in the scratch after them.
template <class Policy, class T, class Op>
void three_launch_scan(const T* in, T* out, std::int64_t n, Op op, bool exclusive, T initial_value, void* scratch,
                       stream_t stream) {
  const std::int64_t tiles = tile_count<Policy>(n);
  T* totals = static_cast<T*>(scratch);
  void* deeper =
      static_cast<char*>(scratch) + round_up(static_cast<std::size_t>(tiles) * sizeof(T), scratch_alignment<T>);
  scan_tiles<Policy>(in, out, totals, n, op, exclusive, stream);
  if (tiles > 1) three_launch_scan<Policy>(totals, totals, tiles, op, false, initial_value, deeper, stream);
  if (tiles > 1 || exclusive)
    add_tile_prefixes<Policy>(out, static_cast<const T*>(totals), n, op, exclusive, initial_value, stream);
}

// ---- single pass: decoupled look-back ---------------------------------------------------------------------

template <class T, class Op, class Policy, class TileId, class Wait>
__global__ void __launch_bounds__(Policy::block_threads)
    single_pass_scan_kernel(const T* in, T* out, std::int64_t n, Op op, bool exclusive, T initial_value,
                            tile_status<T> status) {
  using tile = tile_scan<T, Policy>;
  struct storage_t {
    typename tile::TempStorage scan;
    std::int64_t tile_index;
    uninitialized_array<T, 1> prefix;
  };
  static_assert(sizeof(storage_t) <= static_shared_memory_limit,
                "the tile does not fit a block's 48 KiB of static shared memory: fewer items per thread for this type");
  __shared__ storage_t storage;

  // Take the next tile. A launch of one tile has nothing to take and no one to publish to: it gets no status.
  const bool single_tile = gridDim.x == 1;
  if (thread_rank() == 0) storage.tile_index = single_tile ? 0 : TileId::take(status.next_tile);
  __syncthreads();
  const std::int64_t tile_index = storage.tile_index;
  const std::int64_t begin = tile_index * Policy::tile_items;
  const int valid = tile_valid<Policy>(n, begin);

  // Scan the tile on its own.
  T values[Policy::items_per_thread];
  tile::load(storage.scan, in, begin, valid, values);
  const T total = tile::scan(storage.scan, values, valid, exclusive, op);

  // Publish the aggregate, look back for the prefix (the first warp), publish the inclusive prefix.
  if (tile_index == 0) {
    if (thread_rank() == 0 && !single_tile) status.publish(0, total, tile_inclusive_ready);
  } else if (thread_rank() < 32) {
    if (thread_rank() == 0) status.publish(tile_index, total, tile_aggregate_ready);
    const T prefix = look_back<Wait>(status, tile_index, op);
    if (thread_rank() == 0) {
      status.publish(tile_index, op(prefix, total), tile_inclusive_ready);
      storage.prefix[0] = prefix;
    }
  }
  __syncthreads();  // the prefix is in shared memory

  const bool has_seed = exclusive || tile_index > 0;
  const T seed = !exclusive       ? (tile_index > 0 ? storage.prefix[0] : initial_value)
                 : tile_index > 0 ? op(initial_value, storage.prefix[0])
                                  : initial_value;
  tile::add_seed(values, valid, exclusive, has_seed, seed, op);
  tile::store(storage.scan, out, begin, valid, values);
}

template <class Policy, class T>
std::size_t single_pass_scratch_bytes(std::int64_t n) {
  return tile_status_layout<T>(tile_count<Policy>(n)).bytes();
}

// The single pass in single_pass_scratch_bytes(n) of scratch, whose flags it zeroes first; tiles numbered by
// TileId, the look-back waiting as Wait says.
template <class Policy, class TileId = dynamic_tile_id, class Wait = eager_wait, class T, class Op>
void single_pass_scan(const T* in, T* out, std::int64_t n, Op op, bool exclusive, T initial_value, void* scratch,
                      stream_t stream) {
  const std::int64_t tiles = tile_count<Policy>(n);
  const tile_status_layout<T> layout(tiles);
  zero_async(scratch, layout.zeroed_bytes(), stream);
  launch("single_pass_scan_kernel", grid_of(tiles), dim3(Policy::block_threads), stream,
         &single_pass_scan_kernel<T, Op, Policy, TileId, Wait>, in, out, n, op, exclusive, initial_value,
         layout.status(scratch));
}

// The same in scratch of its own.
template <class Policy, class TileId = dynamic_tile_id, class Wait = eager_wait, class T, class Op>
void single_pass_scan(const T* in, T* out, std::int64_t n, Op op, bool exclusive, T initial_value, stream_t stream) {
  const device_buffer scratch(single_pass_scratch_bytes<Policy, T>(n), stream);
  single_pass_scan<Policy, TileId, Wait>(in, out, n, op, exclusive, initial_value, scratch.as<void>(), stream);
}

// Calls visit(policy, single_pass) with the tile policy of `algorithm` and whether it is the single pass (a
// std::bool_constant, so that each algorithm instantiates only its own kernels).
template <int BlockThreads, int ItemsPerThread, class Visit>
decltype(auto) with_policy(device_scan_algorithm algorithm, Visit&& visit) {
  using A = block_scan_algorithm;
  switch (algorithm) {
    case device_scan_algorithm::three_launch_lecture:
      return visit(tile_policy<BlockThreads, ItemsPerThread, A::warp_scans_shared_memory>{}, std::false_type{});
    case device_scan_algorithm::three_launch_shuffle:
      return visit(tile_policy<BlockThreads, ItemsPerThread, A::warp_scans_shuffle>{}, std::false_type{});
    case device_scan_algorithm::three_launch_blelloch:
      return visit(tile_policy<BlockThreads, ItemsPerThread, A::up_sweep_down_sweep>{}, std::false_type{});
    case device_scan_algorithm::single_pass:
      return visit(tile_policy<BlockThreads, ItemsPerThread, A::warp_scans_shuffle>{}, std::true_type{});
  }
  throw std::invalid_argument("dpt::kernels: unknown device_scan_algorithm");
}

// Bytes of scratch a scan of n elements needs (at least 1, so that a caller's allocation is never empty).
template <int BlockThreads, int ItemsPerThread, class T>
std::size_t scan_scratch_bytes(device_scan_algorithm algorithm, std::int64_t n) {
  if (n == 0) return 1;
  const std::size_t bytes = with_policy<BlockThreads, ItemsPerThread>(algorithm, [n](auto policy, auto single_pass) {
    using Policy = decltype(policy);
    if constexpr (single_pass) {
      return single_pass_scratch_bytes<Policy, T>(n);
    } else {
      return three_launch_scratch_bytes<Policy, T>(n);
    }
  });
  return bytes > 0 ? bytes : 1;
}

inline void check_scan_arguments(const void* in, const void* out, std::int64_t n) {
  if (n < 0) throw std::invalid_argument("dpt::kernels: negative element count");
  if (n > 0 && (!in || !out)) throw std::invalid_argument("dpt::kernels: null pointer for a non-empty scan");
}

// The scan in caller-owned scratch, in cub's two-phase form: with d_temp_storage null, only set
// temp_storage_bytes to what it needs.
template <int BlockThreads, int ItemsPerThread, class T, class Op>
void scan_with(void* d_temp_storage, std::size_t& temp_storage_bytes, device_scan_algorithm algorithm, const T* in,
               T* out, std::int64_t n, Op op, bool exclusive, T initial_value, stream_t stream) {
  if (n < 0) throw std::invalid_argument("dpt::kernels: negative element count");  // the size query needs only n
  const std::size_t needed = scan_scratch_bytes<BlockThreads, ItemsPerThread, T>(algorithm, n);
  if (!d_temp_storage) {
    temp_storage_bytes = needed;
    return;
  }
  check_temp_storage("dpt::kernels scan", d_temp_storage, temp_storage_bytes, needed, scratch_alignment<T>);
  check_scan_arguments(in, out, n);
  if (n == 0) return;
  with_policy<BlockThreads, ItemsPerThread>(algorithm, [&](auto policy, auto single_pass) {
    using Policy = decltype(policy);
    if constexpr (single_pass) {
      single_pass_scan<Policy>(in, out, n, op, exclusive, initial_value, d_temp_storage, stream);
    } else {
      three_launch_scan<Policy>(in, out, n, op, exclusive, initial_value, d_temp_storage, stream);
    }
  });
}

// The same in scratch of its own.
template <int BlockThreads, int ItemsPerThread, class T, class Op>
void scan_with(device_scan_algorithm algorithm, const T* in, T* out, std::int64_t n, Op op, bool exclusive,
               T initial_value, stream_t stream) {
  check_scan_arguments(in, out, n);
  if (n == 0) return;
  std::size_t bytes = scan_scratch_bytes<BlockThreads, ItemsPerThread, T>(algorithm, n);
  const device_buffer scratch(bytes, stream);
  scan_with<BlockThreads, ItemsPerThread>(scratch.as<void>(), bytes, algorithm, in, out, n, op, exclusive,
                                          initial_value, stream);
}

}  // namespace detail

// The tile of the entry points unless the caller names another: 256 threads × 8 items. (bench_scan also times
// 128 × 24, the tile cub::DeviceScan uses for 4-byte sums on sm_90.)
constexpr int scan_block_threads = 256;
constexpr int scan_items_per_thread = 8;

// d_out[i] = d_in[0] ∘ … ∘ d_in[i].
template <int BlockThreads = scan_block_threads, int ItemsPerThread = scan_items_per_thread, class T, class Op>
void inclusive_scan(device_scan_algorithm algorithm, const T* d_in, T* d_out, std::int64_t n, Op op,
                    stream_t stream = {}) {
  detail::scan_with<BlockThreads, ItemsPerThread>(algorithm, d_in, d_out, n, op, false, T{}, stream);
}

// d_out[0] = initial_value, d_out[i] = initial_value ∘ d_in[0] ∘ … ∘ d_in[i − 1].
template <int BlockThreads = scan_block_threads, int ItemsPerThread = scan_items_per_thread, class T, class Op>
void exclusive_scan(device_scan_algorithm algorithm, const T* d_in, T* d_out, std::int64_t n, T initial_value, Op op,
                    stream_t stream = {}) {
  detail::scan_with<BlockThreads, ItemsPerThread>(algorithm, d_in, d_out, n, op, true, initial_value, stream);
}

// The same two with caller-owned scratch, in cub's two-phase form: a call with d_temp_storage null only sets
// temp_storage_bytes to what `algorithm` needs for n elements (at least 1 byte); a call with at least that much
// device memory, 16-byte aligned (cudaMalloc's is), scans. The scratch serves any number of scans of at most n
// elements in the same stream, so repeated scans allocate nothing. Also throws std::invalid_argument for too
// little or misaligned scratch.
template <int BlockThreads = scan_block_threads, int ItemsPerThread = scan_items_per_thread, class T, class Op>
void inclusive_scan(void* d_temp_storage, std::size_t& temp_storage_bytes, device_scan_algorithm algorithm,
                    const T* d_in, T* d_out, std::int64_t n, Op op, stream_t stream = {}) {
  detail::scan_with<BlockThreads, ItemsPerThread>(d_temp_storage, temp_storage_bytes, algorithm, d_in, d_out, n, op,
                                                  false, T{}, stream);
}

template <int BlockThreads = scan_block_threads, int ItemsPerThread = scan_items_per_thread, class T, class Op>
void exclusive_scan(void* d_temp_storage, std::size_t& temp_storage_bytes, device_scan_algorithm algorithm,
                    const T* d_in, T* d_out, std::int64_t n, T initial_value, Op op, stream_t stream = {}) {
  detail::scan_with<BlockThreads, ItemsPerThread>(d_temp_storage, temp_storage_bytes, algorithm, d_in, d_out, n, op,
                                                  true, initial_value, stream);
}

}  // namespace dpt::kernels
