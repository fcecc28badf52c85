// simt/barriers.hpp — the meeting points of a block's threads: __syncthreads (and its count/and/or reductions)
// and the warp collectives (__syncwarp, shuffles, votes). Records who arrived where, completes a meeting when its
// last thread arrives, and says what is wrong when a thread arrives at, or exits from, a meeting it breaks.
// Waiting and waking are the block runner's. Internal to dpt::simt.
#pragma once

#include "simt/fiber.hpp"

#include <string>
#include <vector>

namespace simt::internal {

// A warp collective that some lanes of its mask have reached.
struct collective {
  wait_kind kind;
  detail::site at;
  unsigned mask;
  unsigned arrived;
  detail::shuffle_kind shuffle;
  int lane_arg;  // unused (each lane keeps its own in its fiber's result), kept for messages
};

struct warp {
  unsigned existing = 0, exited = 0;
  std::vector<collective> pending;
};

class barriers {
 public:
  // `fibers`: the block's threads, whose payloads the collectives read and whose results they write.
  barriers(std::vector<fiber>& fibers, unsigned threads);

  // A new block: no thread has arrived anywhere or exited.
  void clear();

  // What is wrong with thread t arriving at the block barrier `at`; empty when nothing is.
  std::string block_arrival_error(unsigned t, const detail::site& at) const;
  // Records an arrival at the block barrier `at` with its predicate. True when it was the last thread to arrive:
  // then every thread's result holds the reduction (`how`: 0 count, 1 and, 2 or) and the barrier is open again.
  bool arrive_at_block(const detail::site& at, int predicate, int how);

  // What is wrong with thread t arriving at the warp collective `at` over `mask`; empty when nothing is.
  std::string warp_arrival_error(unsigned t, const detail::site& at, unsigned mask) const;
  // Records thread t's arrival at its warp's collective; the collective when t is the last lane of its mask to
  // arrive, nullptr otherwise.
  const collective* arrive_at_warp(unsigned t, wait_kind kind, const detail::site& at, unsigned mask,
                                   detail::shuffle_kind shuffle, int lane_arg);
  // Hands every lane of a completed collective its result (a shuffle reads the lanes' payloads, taking each lane's
  // own argument from its result) and ends the collective. What is wrong with the shuffle, if anything.
  std::string complete(unsigned warp_index, const collective& c, int width);

  // The lanes of thread t's warp that have not exited.
  unsigned active_mask(unsigned t) const;
  // Records that thread t exited; what is wrong if threads wait for it.
  std::string exit(unsigned t);

  // For the stall report: how many threads wait at the block barrier, where, and what the warps wait for.
  unsigned block_arrived() const { return block_arrived_; }
  const detail::site& block_site() const { return block_site_; }
  const std::vector<warp>& warps() const { return warps_; }

 private:
  std::vector<fiber>& fibers_;
  unsigned threads_;
  std::vector<warp> warps_;
  unsigned block_arrived_ = 0;
  detail::site block_site_{};
  int block_count_ = 0, block_and_ = 1, block_or_ = 0;
};

}  // namespace simt::internal
