// dpt/kernels/look_back.hpp — decoupled look-back (Merrill & Garland 2016): how the tiles of one launch hand each
// other the combination of every tile before them, with no global barrier and no second launch. The single-pass
// scan (dpt/kernels/device_scan.hpp) and the fused SpMV (dpt/kernels/spmv.hpp) both carry prefixes between tiles
// this way.
//
// The problem: a block that has combined its own tile (its "aggregate") still needs the combination of all the
// tiles before it (its "prefix"), which blocks still running are computing. Waiting for tile − 1's prefix
// alone would chain the tiles one after another; instead every tile publishes twice, in a status word of its
// own — first its aggregate, then its inclusive prefix (prefix ∘ aggregate) — and a tile looking back combines
// the aggregates of its predecessors, nearest first, until it meets one that has published its inclusive prefix.
//
//   tile                   0    1    2    3    4          (op = +)
//   aggregate              9   22    8    5    7
//   inclusive prefix       9   31   39   44   51
//
//   Tile 4 looks back while tiles 0 and 2 have published their inclusive prefixes, tiles 1 and 3 only their
//   aggregates:
//     tile 3   aggregate 5             → go on
//     tile 2   inclusive prefix 39     → stop: tile 4's prefix is 39 + 5 = 44
//   and publishes 44 + 7 = 51 as its inclusive prefix. Tile 1's aggregate is read (a window of 32 tiles is read
//   at once) but not combined: tile 2 already covers it.
//
// The phases of one tile (the kernels run them; this header gives the pieces):
//   1. take a tile number:        TileId::take — dynamic_tile_id (the order blocks start) or block_index_tile_id;
//   2. publish the aggregate:     status.publish(tile, aggregate, tile_aggregate_ready) — tile 0 instead
//                                 publishes its inclusive prefix at once and skips 3;
//   3. look back:                 look_back<Wait>(status, tile, op), one warp, waiting as Wait says
//                                 (eager_wait, settled_wait) for tiles that have published nothing yet;
//   4. publish the inclusive prefix: status.publish(tile, prefix ∘ aggregate, tile_inclusive_ready).
// tile_status_layout places the status words of a launch in scratch memory; tile_status_storage owns some.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>

#include "dpt/kernels/cuda.hpp"

namespace dpt::kernels {
namespace detail {

enum : unsigned { tile_empty = 0, tile_aggregate_ready = 1, tile_inclusive_ready = 2 };

// What one tile has published: its flag and the value the flag names.
template <class T>
struct tile_state {
  unsigned flag;
  T value;
};

// Values of at most 4 bytes travel with their flag in one 64-bit word, as in Merrill & Garland (2016) and
// cub::ScanTileState: one store publishes both, one load reads both, and nothing needs ordering between them.
template <class T>
constexpr bool packs_with_flag = sizeof(T) <= 4;

// What each tile has published, and the tile counter. status.publish(tile, value, flag) announces a tile's
// aggregate or inclusive prefix; status.read(tile) returns what the tile has published so far.
template <class T, bool Packed = packs_with_flag<T>>
struct tile_status;

// Flag and value in one word: the value's bits above, the flag below. Relaxed atomic stores and loads suffice.
template <class T>
struct tile_status<T, true> {
  unsigned long long* words;
  unsigned long long* next_tile;

  __device__ void publish(std::int64_t tile, const T& value, unsigned flag) const {
    std::uint32_t bits = 0;
    std::memcpy(&bits, &value, sizeof(T));
    store_relaxed(&words[tile], static_cast<unsigned long long>(bits) << 32 | flag);
  }
  __device__ tile_state<T> read(std::int64_t tile) const {
    const unsigned long long word = load_relaxed(&words[tile]);
    const auto bits = static_cast<std::uint32_t>(word >> 32);
    tile_state<T> state{static_cast<unsigned>(word & 0xffffffffu), T{}};
    std::memcpy(&state.value, &bits, sizeof(T));
    return state;
  }
};

// Larger values: a flag and two value arrays, each value words_of<T> 32-bit words (so T may have any size and
// alignment; see store_volatile). The value is written first and the flag stored with release semantics; a reader
// that loads the flag with acquire semantics then sees the value. Aggregate and inclusive prefix have arrays of
// their own, so publishing the prefix never rewrites the aggregate that a reader may be loading.
template <class T>
struct tile_status<T, false> {
  unsigned* flags;
  unsigned* aggregates;          // tile j's aggregate in words [j·words_of<T>, (j + 1)·words_of<T>)
  unsigned* inclusive_prefixes;  // the same for its inclusive prefix
  unsigned long long* next_tile;

  __device__ unsigned* value_words(std::int64_t tile, unsigned flag) const {
    return (flag == tile_inclusive_ready ? inclusive_prefixes : aggregates) + tile * std::int64_t{words_of<T>};
  }
  __device__ void publish(std::int64_t tile, const T& value, unsigned flag) const {
    store_volatile(value_words(tile, flag), value);
    store_release(&flags[tile], flag);
  }
  __device__ tile_state<T> read(std::int64_t tile) const {
    tile_state<T> state{load_acquire(&flags[tile]), T{}};
    if (state.flag != tile_empty) state.value = load_volatile<T>(value_words(tile, state.flag));
    return state;
  }
};

// How a single-pass kernel numbers its tiles. TileId::take(counter) gives the calling block its tile.
//
// In the order blocks start: every tile a block looks back at belongs to a block already running. Costs one
// atomic on one counter per tile, which the block waits for before it can load anything.
struct dynamic_tile_id {
  __device__ static std::int64_t take(unsigned long long* next_tile) {
    return static_cast<std::int64_t>(atomicAdd(next_tile, 1ull));
  }
};

// In blockIdx order, as cub::DeviceScan numbers them: no atomic, but correct only if no block waits on one that
// has not started, i.e. if blocks start in index order. The CUDA programming model does not promise that (GPUs
// do it, and CUB relies on it); under the SIMT runner's reverse block order the look-back deadlocks
// (tests/custom_kernels). bench_scan times it against dynamic_tile_id to measure what the atomic costs.
struct block_index_tile_id {
  __device__ static std::int64_t take(unsigned long long* /*next_tile*/) { return blockIdx.x; }
};

// How a look-back waits for tiles of its window that have not published yet: it sleeps SettleNs once, after
// publishing its own aggregate and before its first read (about the time a store takes to reach L2, so that the
// first read more often finds the window ready and fewer reads compete with the tiles' own traffic), then FirstNs
// between reads of a window that is not ready, doubling up to MostNs.
template <unsigned SettleNs, unsigned FirstNs, unsigned MostNs>
struct look_back_wait {
  static_assert(FirstNs > 0 && FirstNs <= MostNs, "the wait between reads grows from FirstNs to MostNs");
  __device__ static void settle() {
    if (SettleNs > 0) __nanosleep(SettleNs);
  }
  static constexpr unsigned first = FirstNs;
  __device__ static unsigned next(unsigned delay) { return delay < MostNs / 2 ? 2 * delay : MostNs; }
};

// dpt's default: read at once, then sleep 16 ns, doubling to 512 ns.
using eager_wait = look_back_wait<0, 16, 512>;

// cub::DeviceScan's sm_90 tuning for 4-byte sums in CCCL 3.0: 1245 ns before the first read, 648 ns between reads.
// (CUB sleeps only in grids of 500 blocks or more; this sleeps in every grid of more than one tile.)
using settled_wait = look_back_wait<1245, 648, 648>;

// The combination of every tile before `tile`, by one whole warp: lane k watches tile w − k of a window of 32
// tiles ending at w; the warp combines the window back to its nearest inclusive prefix, or the whole window and
// moves 32 tiles back. Every lane returns the prefix. Wait says how it waits for tiles that have not published.
template <class Wait = eager_wait, class T, class Op>
__device__ T look_back(const tile_status<T>& status, std::int64_t tile, Op op) {
  const int lane = static_cast<int>(lane_rank());
  T prefix{};
  bool has_prefix = false;
  Wait::settle();
  for (std::int64_t window = tile - 1;; window -= 32) {
    // Read the window: wait until every tile of it has published something (tile 0 always publishes its
    // inclusive prefix, so lanes before it never wait and are never combined).
    const std::int64_t j = window - lane;
    tile_state<T> state = j >= 0 ? status.read(j) : tile_state<T>{tile_inclusive_ready, T{}};
    for (unsigned delay = Wait::first; __any_sync(full_warp, state.flag == tile_empty); delay = Wait::next(delay)) {
      __nanosleep(delay);  // some block of the window is running but has not published yet
      if (state.flag == tile_empty) state = status.read(j);
    }
    const unsigned flag = state.flag;
    T value = state.value;

    // Combine the window: lanes 0..last in tile order (a higher lane holds an earlier tile: the left operand),
    // where `last` is the nearest inclusive prefix or, without one, the window's end. Lane 0 gets the result.
    const unsigned inclusive_lanes = __ballot_sync(full_warp, flag == tile_inclusive_ready);
    const int last = inclusive_lanes ? __ffs(static_cast<int>(inclusive_lanes)) - 1 : 31;
    for (int d = 1; d < 32; d *= 2) {
      const T earlier = shuffle_down(full_warp, value, static_cast<unsigned>(d));
      if (lane + d <= last) value = op(earlier, value);
    }
    // Fold the window's total into the prefix; stop at an inclusive prefix, else move 32 tiles back.
    const T window_total = shuffle_words(value, [](unsigned word) { return __shfl_sync(full_warp, word, 0); });
    prefix = has_prefix ? op(window_total, prefix) : window_total;  // earlier tiles go on the left
    has_prefix = true;
    if (inclusive_lanes) return prefix;
  }
}

// Where the tile_status of one single-pass launch over `tiles` tiles lies in one stretch of device memory: the
// flags (or flag-and-value words), the tile counter, then (unpacked) the aggregates and inclusive prefixes. Only
// the flags and the counter need zeroing before the launch (every tile empty, no tile taken); a value is read
// only after its flag. A launch of one tile needs no status: it takes no memory, and its pointers are null.
template <class T>
class tile_status_layout {
  static constexpr bool packed = packs_with_flag<T>;

 public:
  static constexpr std::size_t alignment = scratch_alignment<T>;  // of the memory given to status()

  explicit tile_status_layout(std::int64_t tiles)
      : count_(tiles > 1 ? static_cast<std::size_t>(tiles) : 0),
        counter_offset_((count_ * (packed ? sizeof(unsigned long long) : sizeof(unsigned)) + 7) / 8 * 8),
        values_offset_((counter_offset_ + 8 + alignment - 1) / alignment * alignment) {}

  std::size_t bytes() const {
    return count_ == 0 ? 0 : values_offset_ + (packed ? 0 : 2 * count_ * words_of<T> * sizeof(unsigned));
  }
  std::size_t zeroed_bytes() const { return count_ == 0 ? 0 : counter_offset_ + 8; }

  tile_status<T> status(void* memory) const {
    if (count_ == 0) return {};
    char* base = static_cast<char*>(memory);
    auto* counter = reinterpret_cast<unsigned long long*>(base + counter_offset_);
    if constexpr (packed) {
      return {reinterpret_cast<unsigned long long*>(base), counter};
    } else {
      auto* values = reinterpret_cast<unsigned*>(base + values_offset_);
      return {reinterpret_cast<unsigned*>(base), values, values + count_ * words_of<T>, counter};
    }
  }

 private:
  std::size_t count_, counter_offset_, values_offset_;
};

// The tile_status of one launch in scratch memory of its own, zeroed where it must be.
template <class T>
class tile_status_storage {
 public:
  tile_status_storage(std::int64_t tiles, stream_t stream) : layout_(tiles), buffer_(layout_.bytes(), stream) {
    buffer_.zero(layout_.zeroed_bytes());
  }
  tile_status<T> status() const { return layout_.status(buffer_.as<void>()); }

 private:
  tile_status_layout<T> layout_;
  device_buffer buffer_;
};

}  // namespace detail
}  // namespace dpt::kernels
