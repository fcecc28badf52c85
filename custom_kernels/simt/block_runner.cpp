// simt/block_runner.cpp — the fibers of a block and the parts that decide for them (block_runner.hpp).
#include "simt/block_runner.hpp"

#include "simt/fiber_stacks.hpp"
#include "simt/stall_report.hpp"

#include <cstdlib>
#include <cstring>
#include <sstream>
#include <utility>

namespace simt {
namespace {

thread_local std::uint64_t switches = 0;

}  // namespace

std::uint64_t switch_count() {
  return switches;
}

namespace internal {
namespace ctx = boost::context::detail;
namespace {

// Thrown inside a fiber to unwind it after the block failed.
struct abandon {};

}  // namespace

block_runner::block_runner(const launch_config& config, const options& opts, void (*body)(void*), void* context)
    : config_(config),
      opts_(opts),
      body_(body),
      context_(context),
      threads_(config.block.x * config.block.y * config.block.z),
      fibers_(threads_),
      barriers_(fibers_, threads_),
      scheduler_(opts.schedule, opts.seed, threads_),
      dynamic_shared_((config.dynamic_shared_bytes + sizeof(std::max_align_t) - 1) / sizeof(std::max_align_t)) {}

void block_runner::run_block(uint3 block_index) {
  block_ = block_index;
  ::blockIdx = block_index;
  scheduler_.clear();
  barriers_.clear();
  spin_.clear(threads_);
  live_ = threads_;
  current_ = -1;
  // Shared memory starts out as garbage on a GPU; make reads of unwritten dynamic shared memory visible.
  if (!dynamic_shared_.empty())
    std::memset(dynamic_shared_.data(), 0xA5, dynamic_shared_.size() * sizeof(std::max_align_t));
  stack_pool& stacks = thread_stacks();
  for (unsigned t = 0; t < threads_; ++t) {
    fiber& f = fibers_[t];
    f = fiber{};
    f.stack_bottom = stacks.bottom(t);
    f.stack_bytes = stack_pool::bytes(t);
    f.context = ctx::make_fcontext(f.stack_bottom + f.stack_bytes, f.stack_bytes, &fiber_entry);
    f.index =
        uint3{t % config_.block.x, t / config_.block.x % config_.block.y, t / (config_.block.x * config_.block.y)};
    scheduler_.set_ready(t, true);
  }
  while (live_ > 0 && failure_ == failure::none) {
    const int next = scheduler_.pick(current_, polled_);
    if (next < 0) {
      const stall_report stall = report_stall(barriers_, fibers_);
      failure_ = stall.deadlock ? failure::deadlock : failure::divergence;
      message_ = stall.message;
      break;
    }
    resume(next);
    const unsigned t = static_cast<unsigned>(next);
    polled_ = spin_.polled(t);
    if (polled_ && failure_ == failure::none) {
      const fiber& f = fibers_[t];
      const spin_verdict verdict = spin_.judge(t, f.context, f.stack_bottom + f.stack_bytes);
      if (verdict != spin_verdict::progressing) {
        failure_ = failure::deadlock;
        message_ = report_spin(verdict, fibers_, opts_.block_order);
      }
    }
  }
  if (failure_ != failure::none) {
    // Unwind every fiber still mid-kernel (suspend() throws `abandon` in it), so its objects are destroyed;
    // fibers that never started return at once.
    aborting_ = true;
    for (unsigned t = 0; t < threads_; ++t)
      if (fibers_[t].state != fiber_state::done) resume(static_cast<int>(t));
    aborting_ = false;
    for (unsigned t = 0; t < threads_; ++t) unpoison(fibers_[t].stack_bottom, fibers_[t].stack_bytes);
    rethrow();
  }
}

void block_runner::sync_block(const detail::site& at, int predicate, int how) {
  fiber& f = self();
  const std::string wrong = barriers_.block_arrival_error(static_cast<unsigned>(current_), at);
  if (!wrong.empty()) fail(failure::divergence, wrong);
  const bool last = barriers_.arrive_at_block(at, predicate, how);
  f.waiting_for = wait_kind::block_barrier;
  f.at = at;
  wait(f.waiting_for);
  if (last) {
    for (unsigned t = 0; t < threads_; ++t) release(t);
    if (opts_.schedule == schedule::run_to_barrier) return;
  }
  suspend();
  if (f.state != fiber_state::ready) fail(failure::deadlock, "internal error: fiber resumed while waiting");
}

std::uint64_t block_runner::collective_op(wait_kind kind, const detail::site& at, unsigned mask,
                                          std::uint64_t payload, detail::shuffle_kind shuffle, int lane_arg,
                                          int width) {
  fiber& f = self();
  const unsigned t = static_cast<unsigned>(current_);
  const std::string wrong = barriers_.warp_arrival_error(t, at, mask);
  if (!wrong.empty()) fail(failure::divergence, wrong);
  const collective* completed = barriers_.arrive_at_warp(t, kind, at, mask, shuffle, lane_arg);
  f.waiting_for = kind;
  f.at = at;
  f.mask = mask;
  f.payload = payload;
  f.result = static_cast<std::uint64_t>(lane_arg);  // the lane's own argument until the collective completes
  wait(f.waiting_for);
  if (completed) {
    const std::string misread = barriers_.complete(t / 32, *completed, width);
    if (!misread.empty()) fail(failure::divergence, misread);
    for (unsigned l = 0; l < 32; ++l)
      if (mask >> l & 1u) release(t / 32 * 32 + l);
    if (opts_.schedule != schedule::run_to_barrier) suspend();
    return f.result;
  }
  suspend();
  return f.result;
}

void block_runner::point(bool changed, bool yield_even_when_running_to_barrier, std::uint64_t observed) {
  if (changed)
    progress();
  else
    spin_.poll(static_cast<unsigned>(current_), observed);
  if (opts_.schedule == schedule::run_to_barrier && !yield_even_when_running_to_barrier) return;
  suspend();
}

void block_runner::fiber_entry(ctx::transfer_t from) {
  auto* self = static_cast<block_runner*>(from.data);
  self->scheduler_context_ = from.fctx;
  finish_switch(nullptr, &self->scheduler_stack_bottom_, &self->scheduler_stack_size_);
  try {
    if (!self->aborting_) self->body_(self->context_);
  } catch (const abandon&) {
    // unwound after a failure elsewhere in the block
  } catch (...) {
    if (self->failure_ == failure::none) {
      self->failure_ = failure::exception;
      self->exception_ = std::current_exception();
    }
  }
  self->exit_current();
  start_switch(nullptr, self->scheduler_stack_bottom_, self->scheduler_stack_size_);
  ctx::jump_fcontext(self->scheduler_context_, nullptr);
  std::abort();  // a finished fiber is never resumed
}

inline void block_runner::resume(int t) {
  current_ = t;
  fiber& f = fibers_[static_cast<unsigned>(t)];
  ::threadIdx = f.index;
  ++switches;
  void* fake_stack = nullptr;
  start_switch(&fake_stack, f.stack_bottom, f.stack_bytes);
  const ctx::transfer_t back = ctx::jump_fcontext(f.context, this);
  finish_switch(fake_stack, nullptr, nullptr);
  f.context = back.fctx;
}

// Back to the scheduler; returns when the scheduler picks this fiber again.
inline void block_runner::suspend() {
  fiber& f = self();
  start_switch(&f.asan_fake_stack, scheduler_stack_bottom_, scheduler_stack_size_);
  const ctx::transfer_t back = ctx::jump_fcontext(scheduler_context_, nullptr);
  scheduler_context_ = back.fctx;
  finish_switch(f.asan_fake_stack, &scheduler_stack_bottom_, &scheduler_stack_size_);
  if (aborting_) throw abandon{};
}

void block_runner::exit_current() {
  fiber& f = self();
  const unsigned t = static_cast<unsigned>(current_);
  f.state = fiber_state::done;
  scheduler_.set_ready(t, false);
  --live_;
  progress();
  if (failure_ != failure::none) return;
  std::string wrong = barriers_.exit(t);
  if (!wrong.empty()) {
    failure_ = failure::divergence;
    message_ = std::move(wrong);
  }
}

// A barrier or __syncwarp reached is progress; a vote or shuffle is not: a spin loop that asks its warp
// whether the flags it waits for have come (`while (__any_sync(…)) __nanosleep(…);`) changes nothing.
inline void block_runner::wait(wait_kind kind) {
  fiber& f = self();
  f.state = fiber_state::waiting;
  scheduler_.set_ready(static_cast<unsigned>(current_), false);
  if (kind != wait_kind::ballot && kind != wait_kind::shuffle) progress();
}

inline void block_runner::release(unsigned t) {
  fibers_[t].state = fiber_state::ready;
  fibers_[t].waiting_for = wait_kind::none;
  scheduler_.set_ready(t, true);
}

// Records the failure and leaves the fiber; the scheduler unwinds it, then throws the failure.
void block_runner::fail(failure kind, const std::string& message) {
  if (failure_ == failure::none) {
    failure_ = kind;
    message_ = message;
  }
  for (;;) suspend();  // resumed only to be unwound: suspend() then throws `abandon`
}

void block_runner::rethrow() {
  if (failure_ == failure::exception) std::rethrow_exception(exception_);
  std::ostringstream os;
  os << "simt: kernel '" << config_.kernel_name << "', block (" << block_.x << ", " << block_.y << ", " << block_.z
     << ") of (" << config_.grid.x << ", " << config_.grid.y << ", " << config_.grid.z << "), schedule "
     << name(opts_.schedule) << ": " << message_;
  if (failure_ == failure::divergence) throw divergence_error(os.str());
  throw deadlock_error(os.str());
}

}  // namespace internal
}  // namespace simt
