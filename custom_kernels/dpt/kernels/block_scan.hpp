// dpt/kernels/block_scan.hpp — a scan across the threads of a block, shaped like cub::BlockScan.
//
// Each of the BlockThreads threads holds one value; thread i gets the combination of threads 0..i
// (inclusive) or 0..i-1 (exclusive), and every thread can get the block's total (the aggregate):
//
//   thread:    0  1  2  3  …                  (op = +, BlockThreads = 64, inputs all 1)
//   inclusive: 1  2  3  4  …  64              aggregate 64
//   exclusive: 0  1  2  3  …  63              (initial value 0)
//
// Algorithms (block_scan_algorithm):
//   - warp_scans_shared_memory / warp_scans_shuffle — the lecture's scan_block: (1) every warp scans its 32
//     values, (2) the last lane of each warp writes the warp's total, (3) warp 0 scans those totals,
//     (4) every warp adds the total of the warps before it. The warp scan inside is the lecture's
//     shared-memory Hillis–Steele or the __shfl_up_sync one; the two block scans differ only in that.
//   - up_sweep_down_sweep — the work-efficient tree scan: an up-sweep builds partial sums in place
//     (N − 1 applications of op), a down-sweep pushes the prefixes back down (at most N − 1 more), so at most
//     2(N − 1) in all instead of the warp scans' ~N·log2(32). It needs log2(N) barriers per sweep.
//
// Usage (every thread of the block calls; a __syncthreads() is needed before TempStorage is reused):
//   using block_scan = dpt::kernels::BlockScan<int, 256>;
//   __shared__ block_scan::TempStorage storage;
//   int prefix, total;
//   block_scan(storage).ExclusiveSum(value, prefix);
//   block_scan(storage).InclusiveScan(value, prefix, op, total);   // after a __syncthreads()
#pragma once

#include <type_traits>

#include "dpt/kernels/warp_scan.hpp"

namespace dpt::kernels {

enum class block_scan_algorithm { warp_scans_shared_memory, warp_scans_shuffle, up_sweep_down_sweep };

namespace detail {

// The lecture's scan_block over either warp scan.
template <class T, int BlockThreads, warp_scan_algorithm WarpAlgorithm>
class block_scan_warp_scans {
  static_assert(BlockThreads % 32 == 0 && BlockThreads >= 32 && BlockThreads <= 1024,
                "the lecture's scan_block needs whole warps: BlockThreads a multiple of 32, at most 1024");
  static constexpr int warps = BlockThreads / 32;
  using warp_scan = WarpScan<T, WarpAlgorithm>;

 public:
  struct TempStorage {
    typename warp_scan::TempStorage warp[warps];
    uninitialized_array<T, warps> warp_totals;
  };

  __device__ explicit block_scan_warp_scans(TempStorage& storage) : storage_(storage) {}

  // inclusive and aggregate for every thread; exclusive for every thread but thread 0.
  template <class Op>
  __device__ void Scan(T input, T& inclusive, T& exclusive, T& aggregate, Op op) {
    const unsigned thread = thread_rank(), warp = thread / 32, lane = thread % 32;

    // Step 1: every warp scans its own 32 values.
    T warp_exclusive;
    warp_scan(storage_.warp[warp]).Scan(input, inclusive, warp_exclusive, op);

    // Step 2: the last lane of each warp writes the warp's total.
    if (lane == 31) storage_.warp_totals[static_cast<int>(warp)] = inclusive;
    __syncthreads();  // every total is written before warp 0 reads them

    // Step 3: warp 0 scans the warp totals. Lanes past the last warp scan a copy of the last total; a lane's
    // inclusive result depends only on the lanes before it, so they change nothing that is kept.
    if (warp == 0) {
      const int slot = lane < static_cast<unsigned>(warps) ? static_cast<int>(lane) : warps - 1;
      T total = storage_.warp_totals[slot], scanned, unused;
      warp_scan(storage_.warp[0]).Scan(total, scanned, unused, op);
      __syncwarp();  // the spare lanes have read the last total before its owner overwrites it
      if (lane < static_cast<unsigned>(warps)) storage_.warp_totals[slot] = scanned;
    }
    __syncthreads();  // the scanned totals are written before any warp reads its base

    // Step 4: every warp adds the total of the warps before it.
    aggregate = storage_.warp_totals[warps - 1];
    if (warp > 0) {
      const T base = storage_.warp_totals[static_cast<int>(warp) - 1];
      exclusive = lane > 0 ? op(base, warp_exclusive) : base;
      inclusive = op(base, inclusive);
    } else {
      exclusive = warp_exclusive;
    }
  }

 private:
  TempStorage& storage_;
};

// The work-efficient scan: up-sweep, then down-sweep, over one shared array.
template <class T, int BlockThreads>
class block_scan_up_sweep_down_sweep {
  static_assert(BlockThreads >= 1 && BlockThreads <= 1024, "at most 1024 threads per block");
  static constexpr int n = BlockThreads;
  static constexpr int levels_top = [] {
    int p = 1;
    while (p < n) p *= 2;
    return p;
  }();

 public:
  struct TempStorage {
    // Threads of a sweep step read elements a power of two apart: padded, they hit distinct banks (for
    // 4-byte T and N ≤ 1024).
    bank_padded_array<T, n> tree;
  };

  __device__ explicit block_scan_up_sweep_down_sweep(TempStorage& storage) : tree_(storage.tree) {}

  template <class Op>
  __device__ void Scan(T input, T& inclusive, T& exclusive, T& aggregate, Op op) {
    const int thread = static_cast<int>(thread_rank());
    tree_[thread] = input;
    __syncthreads();

    // Up-sweep: after the step of stride d, element i with (i + 1) a multiple of 2d holds the combination of
    // the 2d elements ending at i.
    for (int d = 1; d < n; d *= 2) {
      const int i = (thread + 1) * 2 * d - 1;
      if (i < n) tree_[i] = op(tree_[i - d], tree_[i]);
      __syncthreads();
    }

    // Down-sweep: element i = m·2d + d − 1 (m ≥ 1) still holds only its last d elements; the element before
    // its block of d already holds its full prefix, so one op completes it.
    for (int d = levels_top / 4; d >= 1; d /= 2) {
      const int i = (thread + 1) * 2 * d + d - 1;
      if (i < n) tree_[i] = op(tree_[i - d], tree_[i]);
      __syncthreads();
    }

    inclusive = tree_[thread];
    exclusive = thread > 0 ? tree_[thread - 1] : inclusive;
    aggregate = tree_[n - 1];
  }

 private:
  decltype(TempStorage::tree)& tree_;
};

}  // namespace detail

template <class T, int BlockThreads, block_scan_algorithm Algorithm = block_scan_algorithm::warp_scans_shuffle>
class BlockScan {
  using implementation =
      std::conditional_t<Algorithm == block_scan_algorithm::up_sweep_down_sweep,
                         detail::block_scan_up_sweep_down_sweep<T, BlockThreads>,
                         detail::block_scan_warp_scans<T, BlockThreads,
                                                       Algorithm == block_scan_algorithm::warp_scans_shared_memory
                                                           ? warp_scan_algorithm::shared_memory
                                                           : warp_scan_algorithm::shuffle>>;

 public:
  using TempStorage = typename implementation::TempStorage;

  __device__ explicit BlockScan(TempStorage& storage) : storage_(storage) {}

  // The building block of the others: inclusive, exclusive (not for thread 0) and the block's total.
  template <class Op>
  __device__ void Scan(T input, T& inclusive, T& exclusive, T& aggregate, Op op) {
    implementation(storage_).Scan(input, inclusive, exclusive, aggregate, op);
  }

  template <class Op>
  __device__ void InclusiveScan(T input, T& output, Op op, T& block_aggregate) {
    T exclusive;
    Scan(input, output, exclusive, block_aggregate, op);
  }
  template <class Op>
  __device__ void InclusiveScan(T input, T& output, Op op) {
    T aggregate;
    InclusiveScan(input, output, op, aggregate);
  }
  // output = initial_value ∘ x0 ∘ … ∘ x_(i-1); block_aggregate = x0 ∘ … ∘ x_(N-1), without the initial value.
  template <class Op>
  __device__ void ExclusiveScan(T input, T& output, T initial_value, Op op, T& block_aggregate) {
    T inclusive, exclusive;
    Scan(input, inclusive, exclusive, block_aggregate, op);
    output = detail::thread_rank() == 0 ? initial_value : op(initial_value, exclusive);
  }
  template <class Op>
  __device__ void ExclusiveScan(T input, T& output, T initial_value, Op op) {
    T aggregate;
    ExclusiveScan(input, output, initial_value, op, aggregate);
  }
  __device__ void InclusiveSum(T input, T& output) { InclusiveScan(input, output, sum{}); }
  __device__ void ExclusiveSum(T input, T& output) { ExclusiveScan(input, output, T{}, sum{}); }

 private:
  TempStorage& storage_;
};

}  // namespace dpt::kernels
