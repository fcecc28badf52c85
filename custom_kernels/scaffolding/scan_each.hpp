// scaffolding/scan_each.hpp — the warp and block scans on their own: every warp (32 values) or every block
// (BlockThreads values) of an array scanned independently, one value per thread. The tests diff these against
// cub::WarpScan and cub::BlockScan, and the tour counts their work. Scaffolding for them, not a public kernel:
// it lies outside custom_kernels/dpt, so `cmake --install` leaves it out.
//
//   scan_each_warp, inclusive, op = +:   in  [1 1 1 … (32) | 2 2 2 … (32)]
//                                        out [1 2 3 … 32   | 2 4 6 … 64  ]
#pragma once

#include <cstdint>
#include <stdexcept>
#include <type_traits>

#include "dpt/kernels/block_scan.hpp"

namespace dpt::kernels {
namespace detail {

template <class T, warp_scan_algorithm Algorithm, class Op>
__global__ void __launch_bounds__(32)
    scan_each_warp_kernel(const T* in, T* out, bool exclusive, T initial_value, Op op) {
  using warp_scan = WarpScan<T, Algorithm>;
  __shared__ typename warp_scan::TempStorage storage;  // one warp per block
  const std::int64_t i = static_cast<std::int64_t>(blockIdx.x) * 32 + threadIdx.x;
  warp_scan scan(storage);
  if (exclusive)
    scan.ExclusiveScan(in[i], out[i], initial_value, op);
  else
    scan.InclusiveScan(in[i], out[i], op);
}

template <class T, int BlockThreads, block_scan_algorithm Algorithm, class Op>
__global__ void __launch_bounds__(BlockThreads)
    scan_each_block_kernel(const T* in, T* out, T* aggregates, bool exclusive, T initial_value, Op op) {
  using block_scan = BlockScan<T, BlockThreads, Algorithm>;
  __shared__ typename block_scan::TempStorage storage;
  const std::int64_t i = static_cast<std::int64_t>(blockIdx.x) * BlockThreads + threadIdx.x;
  T aggregate;
  if (exclusive)
    block_scan(storage).ExclusiveScan(in[i], out[i], initial_value, op, aggregate);
  else
    block_scan(storage).InclusiveScan(in[i], out[i], op, aggregate);
  if (aggregates && threadIdx.x == 0) aggregates[blockIdx.x] = aggregate;
}

}  // namespace detail

// Scans each run of 32 values of d_in (warps × 32 of them) on its own.
template <warp_scan_algorithm Algorithm, class T, class Op>
void scan_each_warp(const T* d_in, T* d_out, std::int64_t warps, bool exclusive, T initial_value, Op op,
                    stream_t stream = {}) {
  if (warps < 0) throw std::invalid_argument("dpt::kernels::scan_each_warp: negative warp count");
  if (warps == 0) return;
  detail::launch("scan_each_warp_kernel", detail::grid_of(warps), dim3(32), stream,
                 &detail::scan_each_warp_kernel<T, Algorithm, Op>, d_in, d_out, exclusive, initial_value, op);
}

// Scans each run of BlockThreads values of d_in (blocks × BlockThreads of them) on its own; each block's total
// goes to d_aggregates[block] unless it is null.
template <int BlockThreads, block_scan_algorithm Algorithm, class T, class Op>
void scan_each_block(const T* d_in, T* d_out, std::remove_cv_t<T>* d_aggregates, std::int64_t blocks, bool exclusive,
                     T initial_value, Op op, stream_t stream = {}) {
  if (blocks < 0) throw std::invalid_argument("dpt::kernels::scan_each_block: negative block count");
  if (blocks == 0) return;
  detail::launch("scan_each_block_kernel", detail::grid_of(blocks), dim3(BlockThreads), stream,
                 &detail::scan_each_block_kernel<T, BlockThreads, Algorithm, Op>, d_in, d_out, d_aggregates, exclusive,
                 initial_value, op);
}

}  // namespace dpt::kernels
