// simt/block_runner.hpp — runs the blocks of one launch, one at a time: a fiber per thread on its own stack
// (fiber_stacks.hpp), switched as the scheduler picks (scheduler.hpp), waiting and woken at barriers and warp
// collectives (barriers.hpp), watched for spins (spin_detector.hpp) and for stalls (stall_report.hpp); a failure
// unwinds the block's fibers and is thrown to the launch. Internal to dpt::simt.
#pragma once

#include "simt/barriers.hpp"
#include "simt/fiber.hpp"
#include "simt/scheduler.hpp"
#include "simt/spin_detector.hpp"

#include <cstddef>
#include <exception>
#include <string>
#include <vector>

namespace simt::internal {

class block_runner {
 public:
  block_runner(const launch_config& config, const options& opts, void (*body)(void*), void* context);

  // Runs every thread of the block to its end; throws what went wrong.
  void run_block(uint3 block_index);

  // ---- called on fibers; sync_block, collective_op and point are scheduling points ---------------------------

  // __syncthreads and its reductions (`how`: 0 count, 1 and, 2 or; the result is then barrier_result()).
  void sync_block(const detail::site& at, int predicate, int how);
  int barrier_result() { return static_cast<int>(self().result); }
  // __syncwarp, shuffles and votes: the lane's result once every lane of `mask` has arrived.
  std::uint64_t collective_op(wait_kind kind, const detail::site& at, unsigned mask, std::uint64_t payload,
                              detail::shuffle_kind shuffle, int lane_arg, int width);
  // A scheduling point that does not wait: atomics, fences, __nanosleep. `observed` identifies what an atomic
  // saw (0 for a fence or a sleep); the spin detector judges a point that changed nothing once the fiber has
  // suspended.
  void point(bool changed, bool yield_even_when_running_to_barrier, std::uint64_t observed);
  unsigned active_mask() const { return barriers_.active_mask(static_cast<unsigned>(current_)); }
  void* dynamic_shared() { return dynamic_shared_.data(); }
  std::size_t dynamic_shared_bytes() const { return config_.dynamic_shared_bytes; }

 private:
  enum class failure { none, divergence, deadlock, exception };

  static void fiber_entry(boost::context::detail::transfer_t from);
  fiber& self() { return fibers_[static_cast<unsigned>(current_)]; }
  void resume(int t);
  void suspend();
  void exit_current();
  void wait(wait_kind kind);
  void release(unsigned t);
  void progress() { spin_.progress(); }
  [[noreturn]] void fail(failure kind, const std::string& message);
  void rethrow();

  launch_config config_;
  options opts_;
  void (*body_)(void*);
  void* context_;
  unsigned threads_ = 0, live_ = 0;
  uint3 block_;
  std::vector<fiber> fibers_;
  barriers barriers_;
  scheduler scheduler_;
  spin_detector spin_;
  std::vector<std::max_align_t> dynamic_shared_;
  int current_ = -1;
  bool polled_ = false;  // the fiber that ran last stopped at a point that changed nothing
  boost::context::detail::fcontext_t scheduler_context_ = nullptr;
  const void* scheduler_stack_bottom_ = nullptr;
  std::size_t scheduler_stack_size_ = 0;
  failure failure_ = failure::none;
  std::string message_;
  std::exception_ptr exception_;
  bool aborting_ = false;
};

}  // namespace simt::internal
