// dpt/kernels/warp_scan.hpp — a scan across the 32 lanes of a warp, shaped like cub::WarpScan.
//
// Each lane holds one value; lane i gets the combination of lanes 0..i (inclusive) or 0..i-1 (exclusive):
//
//   lane:      0  1  2  3 ... 31          (op = +)
//   input:     3  1  4  1 ...
//   inclusive: 3  4  8  9 ...
//   exclusive: -  3  4  8 ...             (lane 0 gets the initial value)
//
// Both algorithms are the lecture's Hillis–Steele scan: in round k (shift 1, 2, 4, 8, 16) every lane at or
// above the shift combines the value `shift` lanes to its left into its own. That is 32·5 − (1+2+4+8+16)
// = 129 applications of op per warp — more than the 31 a sequential scan needs, but all 32 lanes are busy in
// every round and there are only 5 rounds.
//   - warp_scan_algorithm::shared_memory — the slide's scan_warp: lanes talk through 32 slots of shared
//     memory. The slide calls __syncwarp() inside `if (lane >= shift)`, which lane 0 never enters, so lane 0
//     never arrives at a barrier the other lanes wait at. Here every lane reaches both barriers of a round.
//   - warp_scan_algorithm::shuffle — lanes read each other's registers with __shfl_up_sync; no shared memory.
//
// Usage (every lane of a full warp calls, as with CUB):
//   using warp_scan = dpt::kernels::WarpScan<int, dpt::kernels::warp_scan_algorithm::shuffle>;
//   __shared__ warp_scan::TempStorage storage[warps_per_block];
//   int prefix;
//   warp_scan(storage[warp_id]).InclusiveSum(value, prefix);
#pragma once

#include "dpt/kernels/cuda.hpp"

namespace dpt::kernels {

enum class warp_scan_algorithm { shared_memory, shuffle };

template <class T, warp_scan_algorithm Algorithm = warp_scan_algorithm::shuffle>
class WarpScan;

namespace detail {

// CUB's entry points, shared by both algorithms: each derives from this and supplies one
// Scan(input, inclusive, exclusive, op) that gives every lane both of its prefixes.
template <class Derived, class T>
class warp_scan_entry_points {
 public:
  template <class Op>
  __device__ void InclusiveScan(T input, T& output, Op op) {
    T exclusive;
    derived().Scan(input, output, exclusive, op);
  }
  template <class Op>
  __device__ void ExclusiveScan(T input, T& output, T initial_value, Op op) {
    T inclusive, exclusive;
    derived().Scan(input, inclusive, exclusive, op);
    output = lane_rank() == 0 ? initial_value : op(initial_value, exclusive);
  }
  __device__ void InclusiveSum(T input, T& output) { InclusiveScan(input, output, sum{}); }
  __device__ void ExclusiveSum(T input, T& output) { ExclusiveScan(input, output, T{}, sum{}); }

 private:
  __device__ Derived& derived() { return static_cast<Derived&>(*this); }
};

}  // namespace detail

// The lecture's scan_warp, with its barriers where every lane meets them.
template <class T>
class WarpScan<T, warp_scan_algorithm::shared_memory>
    : public detail::warp_scan_entry_points<WarpScan<T, warp_scan_algorithm::shared_memory>, T> {
 public:
  using TempStorage = detail::uninitialized_array<T, 32>;

  __device__ explicit WarpScan(TempStorage& storage) : slots_(storage), lane_(detail::lane_rank()) {}

  // inclusive: x0 ∘ … ∘ x_lane. exclusive: x0 ∘ … ∘ x_(lane-1), meaningless in lane 0.
  template <class Op>
  __device__ void Scan(T input, T& inclusive, T& exclusive, Op op) {
    __syncwarp();  // the lanes' previous use of the slots is over
    slots_[lane_] = input;
    __syncwarp();
    T value = input;
    for (unsigned shift = 1; shift < 32; shift <<= 1) {
      const bool has_left = lane_ >= shift;
      T left = value;
      if (has_left) left = slots_[lane_ - shift];
      __syncwarp();  // every lane has read round k's values before any lane overwrites them
      if (has_left) {
        value = op(left, value);  // keep the left operand on the left: op need not commute
        slots_[lane_] = value;
      }
      __syncwarp();  // every lane has written before round k+1 reads
    }
    inclusive = value;
    exclusive = lane_ > 0 ? slots_[lane_ - 1] : value;
  }

 private:
  TempStorage& slots_;
  unsigned lane_;
};

// The same rounds over registers: each lane fetches the value `shift` lanes to its left with __shfl_up_sync.
template <class T>
class WarpScan<T, warp_scan_algorithm::shuffle>
    : public detail::warp_scan_entry_points<WarpScan<T, warp_scan_algorithm::shuffle>, T> {
 public:
  struct TempStorage {};  // shuffles need no shared memory

  __device__ explicit WarpScan(TempStorage&) : lane_(detail::lane_rank()) {}
  __device__ WarpScan() : lane_(detail::lane_rank()) {}

  template <class Op>
  __device__ void Scan(T input, T& inclusive, T& exclusive, Op op) {
    T value = input;
    for (unsigned shift = 1; shift < 32; shift <<= 1) {
      const T left = detail::shuffle_up(detail::full_warp, value, shift);  // every lane shuffles, even lane 0
      if (lane_ >= shift) value = op(left, value);
    }
    inclusive = value;
    exclusive = detail::shuffle_up(detail::full_warp, value, 1u);
  }

 private:
  unsigned lane_;
};

}  // namespace dpt::kernels
