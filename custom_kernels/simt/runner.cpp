// simt/runner.cpp — the scheduler behind simt.hpp: one fiber per CUDA thread (Boost.Context's fcontext, the
// cheapest stack switch Boost offers), blocks one after another, barriers that know their lanes.
#include "simt/simt.hpp"

#include <algorithm>
#include <boost/context/detail/fcontext.hpp>
#include <cstdio>
#include <exception>
#include <numeric>
#include <random>
#include <sstream>
#include <sys/mman.h>
#include <unistd.h>
#include <vector>

#if defined(__SANITIZE_ADDRESS__)
#  define SIMT_ASAN 1
#elif defined(__has_feature)
#  if __has_feature(address_sanitizer)
#    define SIMT_ASAN 1
#  endif
#endif
#if defined(SIMT_ASAN)
#  include <sanitizer/asan_interface.h>
#  include <sanitizer/common_interface_defs.h>
#  define SIMT_NOT_INSTRUMENTED __attribute__((no_sanitize("address")))
#else
#  define SIMT_NOT_INSTRUMENTED
#endif

namespace simt {

const char* name(schedule s) {
  switch (s) {
    case schedule::forward:
      return "forward";
    case schedule::reverse:
      return "reverse";
    case schedule::random:
      return "random";
    case schedule::warp_at_a_time:
      return "warp-at-a-time";
    default:
      return "run-to-barrier";
  }
}

const char* name(block_order o) {
  switch (o) {
    case block_order::forward:
      return "forward";
    case block_order::reverse:
      return "reverse";
    default:
      return "shuffled";
  }
}

namespace {

thread_local options current_defaults;
thread_local std::uint64_t switches = 0;

namespace ctx = boost::context::detail;

// Every fiber gets 512 KiB of stack, the most local memory CUDA gives a thread, so every legal kernel fits; the
// pages are committed only when touched (MAP_NORESERVE), so a small frame costs a few pages. Below each stack lie
// 64 KiB that are not mapped for access: a frame that grows past the stack's end faults there instead of writing
// into the next fiber's stack. Code compiled with -fstack-clash-protection (the INTERFACE option of dpt::simt,
// where the compiler has it) touches every page of a large frame as it allocates it, so even a frame larger than
// the guard faults at the guard rather than skipping over it. A fault ends the process with SIGSEGV.
constexpr std::size_t fiber_stack_bytes = 512 * 1024;
constexpr std::size_t guard_bytes = 64 * 1024;
// The stacks' tops are staggered by a cache line per fiber, over 64 KiB. Stacks of equal size lie a multiple of
// the page size apart, so without it every fiber's hot top of stack (its saved registers, the kernel's frame)
// falls into the same few sets of each cache, and 1024 fibers evict each other at every switch.
constexpr std::size_t stagger_bytes = 64 * 1024, stagger_step = 64;

// ASan must be told when the stack changes under it, or it reports the other stack's frames as overflows.
#if defined(SIMT_ASAN)
void start_switch(void** fake_stack, const void* bottom, std::size_t size) {
  __sanitizer_start_switch_fiber(fake_stack, bottom, size);
}
void finish_switch(void* fake_stack, const void** bottom, std::size_t* size) {
  __sanitizer_finish_switch_fiber(fake_stack, bottom, size);
}
void unpoison(void* base, std::size_t size) {
  __asan_unpoison_memory_region(base, size);
}
#else
void start_switch(void**, const void*, std::size_t) {}
void finish_switch(void*, const void**, std::size_t*) {}
void unpoison(void*, std::size_t) {}
#endif

// How the runner tells a spin that nothing will end from a correct kernel, at the scheduling points that do not
// wait (an atomic that leaves memory as it was, a fence, __nanosleep). Plain loads and stores are invisible to it,
// so such a point alone says nothing: an atomicMax that finds a larger value, or a fence after each of a loop's
// plain stores, is a point that "changes nothing" in a correct loop. What a spinning fiber does not change is its
// own state: it comes back to the same point with the same registers and locals and finds the same value. So the
// scheduler fingerprints each such point when the fiber has just suspended there — the live part of its stack,
// which then holds every callee-saved register (Boost.Context saves them on it), hence the loop's variables,
// plus the return addresses, i.e. the site — together with the atomic's address and the value it found. A point
// whose fingerprint equals one of the fiber's last four is a spin candidate; any other point, a write, a barrier or an
// exit is progress. spin_limit candidates in a row with no progress anywhere in the block is a deadlock.
constexpr std::uint64_t spin_limit = 1u << 20;
// A spin loop that counts its rounds (or backs off without a cap) changes its stack every time, so the
// fingerprint never repeats; as a backstop, this many non-waiting points in a row without a write, barrier or
// exit in the block is reported too. A correct kernel passes unless one block makes over 2^26 such points with no
// atomic that changes memory between them (an atomicMax over 2^26 values that finds its maximum early).
constexpr std::uint64_t quiet_limit = 1u << 26;

// Fiber stacks, kept per host thread and reused by every launch: mmap'd, each above its guard (see
// fiber_stack_bytes).
class stack_pool {
 public:
  ~stack_pool() {
    for (void* base : bases_) munmap(base, mapped_bytes);
  }
  // The lowest usable address of stack i.
  char* bottom(std::size_t i) {
    while (bases_.size() <= i) {
      void* base =
          mmap(nullptr, mapped_bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
      if (base == MAP_FAILED) throw std::bad_alloc();
      if (mprotect(base, guard_bytes, PROT_NONE) != 0) {  // an overflow faults instead of corrupting the neighbour
        munmap(base, mapped_bytes);
        throw std::bad_alloc();
      }
      bases_.push_back(base);
    }
    return static_cast<char*>(bases_[i]) + guard_bytes;
  }
  // The size of stack i: at least fiber_stack_bytes, plus its stagger.
  static std::size_t bytes(std::size_t i) { return fiber_stack_bytes + i * stagger_step % stagger_bytes; }

 private:
  static constexpr std::size_t mapped_bytes = guard_bytes + fiber_stack_bytes + stagger_bytes;
  std::vector<void*> bases_;
};

thread_local stack_pool stacks;

enum class wait_kind : std::uint8_t { none, block_barrier, warp_sync, shuffle, ballot };
enum class fiber_state : std::uint8_t { ready, waiting, done };

// FNV-1a over the live part of a suspended fiber's stack, [saved context, top), then what its atomic observed.
// The stack holds ASan's red zones between frames: reading them here is no bug, so this is not instrumented.
SIMT_NOT_INSTRUMENTED std::uint64_t fingerprint(const void* saved_context, const char* top, std::uint64_t observed) {
  std::uint64_t hash = 0xcbf29ce484222325ull;
  for (auto* word = static_cast<const std::uint64_t*>(saved_context);
       word < reinterpret_cast<const std::uint64_t*>(top); ++word)
    hash = (hash ^ *word) * 0x100000001b3ull;
  return (hash ^ observed) * 0x100000001b3ull;
}

bool same_site(const detail::site& a, const detail::site& b) {
  return a.line == b.line && (a.file == b.file || std::strcmp(a.file, b.file) == 0) &&
         (a.what == b.what || std::strcmp(a.what, b.what) == 0);
}

std::string where(const detail::site& s) {
  return std::string(s.what) + " at " + s.file + ":" + std::to_string(s.line);
}

struct fiber {
  ctx::fcontext_t context = nullptr;
  char* stack_bottom = nullptr;
  std::size_t stack_bytes = 0;
  uint3 index;
  fiber_state state = fiber_state::ready;
  bool polled = false;         // it has just suspended at a non-waiting point that changed nothing
  std::uint64_t observed = 0;  // what that point's atomic saw (its address and the value found there)
  // The fingerprints of its last such points (see spin_limit): a spin round may pass several points (an atomic
  // poll, then __nanosleep), so a point is a repeat when it equals any of these.
  std::uint64_t recent[4] = {};
  unsigned recent_count = 0;
  wait_kind waiting_for = wait_kind::none;
  detail::site at{};
  unsigned mask = 0;
  std::uint64_t payload = 0, result = 0;
  void* asan_fake_stack = nullptr;
};

struct collective {
  wait_kind kind;
  detail::site at;
  unsigned mask;
  unsigned arrived;
  detail::shuffle_kind shuffle;
  int lane_arg;  // unused by the runner (each lane keeps its own), kept for messages
};

struct warp {
  unsigned existing = 0, exited = 0;
  std::vector<collective> pending;
};

std::string hex(unsigned mask) {
  char text[16];
  std::snprintf(text, sizeof text, "0x%08x", mask);
  return text;
}

// "1-31" or "0, 2, 5-7" — a set of thread or lane numbers, compactly.
std::string ranges(const std::vector<unsigned>& ids) {
  std::ostringstream os;
  for (std::size_t i = 0; i < ids.size();) {
    std::size_t j = i;
    while (j + 1 < ids.size() && ids[j + 1] == ids[j] + 1) ++j;
    os << (i ? ", " : "") << ids[i];
    if (j > i) os << '-' << ids[j];
    i = j + 1;
  }
  return os.str();
}

// "lane 3" or "lanes 1-31".
std::string some(const char* noun, const std::vector<unsigned>& ids) {
  return std::string(noun) + (ids.size() == 1 ? " " : "s ") + ranges(ids);
}

std::vector<unsigned> lanes_of(unsigned mask) {
  std::vector<unsigned> lanes;
  for (unsigned l = 0; l < 32; ++l)
    if (mask >> l & 1u) lanes.push_back(l);
  return lanes;
}

enum class failure { none, divergence, deadlock, exception };

// Thrown inside a fiber to unwind it after the block failed.
struct abandon {};

class block_runner;
thread_local block_runner* running = nullptr;

class block_runner {
 public:
  block_runner(const launch_config& config, const options& opts, void (*body)(void*), void* context)
      : config_(config), opts_(opts), body_(body), context_(context), rng_(opts.seed) {
    threads_ = config.block.x * config.block.y * config.block.z;
    fibers_.resize(threads_);
    warps_.resize((threads_ + 31) / 32);
    for (unsigned w = 0; w < warps_.size(); ++w) {
      const unsigned lanes = std::min(32u, threads_ - 32 * w);
      warps_[w].existing = lanes == 32 ? ~0u : (1u << lanes) - 1;
    }
    ready_.resize((threads_ + 63) / 64);
    dynamic_shared_.resize((config.dynamic_shared_bytes + sizeof(std::max_align_t) - 1) / sizeof(std::max_align_t));
  }

  void run_block(uint3 block_index) {
    block_ = block_index;
    ::blockIdx = block_index;
    std::fill(ready_.begin(), ready_.end(), 0);
    for (auto& w : warps_) {
      w.exited = 0;
      w.pending.clear();
    }
    barrier_arrived_ = 0;
    live_ = threads_;
    progress();
    current_ = -1;
    // Shared memory starts out as garbage on a GPU; make reads of unwritten dynamic shared memory visible.
    if (!dynamic_shared_.empty())
      std::memset(dynamic_shared_.data(), 0xA5, dynamic_shared_.size() * sizeof(std::max_align_t));
    for (unsigned t = 0; t < threads_; ++t) {
      fiber& f = fibers_[t];
      f = fiber{};
      f.stack_bottom = stacks.bottom(t);
      f.stack_bytes = stack_pool::bytes(t);
      f.context = ctx::make_fcontext(f.stack_bottom + f.stack_bytes, f.stack_bytes, &fiber_entry);
      f.index =
          uint3{t % config_.block.x, t / config_.block.x % config_.block.y, t / (config_.block.x * config_.block.y)};
      set_ready(t, true);
    }
    while (live_ > 0 && failure_ == failure::none) {
      const int next = pick();
      if (next < 0) {
        diagnose_stall();
        break;
      }
      resume(next);
      fiber& f = fibers_[static_cast<unsigned>(next)];
      polled_ = f.polled;
      if (f.polled && failure_ == failure::none) {
        f.polled = false;
        note_poll(f);
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

  // ---- called on fibers ----------------------------------------------------------------------------------

  void sync_block(const detail::site& at, int predicate, int how) {
    fiber& f = self();
    for (unsigned w = 0; w < warps_.size(); ++w)
      if (warps_[w].exited)
        fail(failure::divergence, "thread " + std::to_string(current_) + " waits at " + where(at) + ", but " +
                                      some("thread", threads_of(w, warps_[w].exited)) +
                                      " have exited and never arrive");
    if (barrier_arrived_ > 0 && !same_site(barrier_site_, at))
      fail(failure::divergence, "thread " + std::to_string(current_) + " waits at " + where(at) + ", but " +
                                    some("thread", threads_waiting(wait_kind::block_barrier)) + " wait at " +
                                    where(barrier_site_));
    if (barrier_arrived_ == 0) {
      barrier_site_ = at;
      barrier_count_ = 0;
      barrier_and_ = 1;
      barrier_or_ = 0;
    }
    barrier_count_ += predicate != 0;
    barrier_and_ &= predicate != 0;
    barrier_or_ |= predicate != 0;
    ++barrier_arrived_;
    f.waiting_for = wait_kind::block_barrier;
    f.at = at;
    wait(f.waiting_for);
    if (barrier_arrived_ == threads_) {
      const int result = how == 0 ? barrier_count_ : how == 1 ? barrier_and_ : barrier_or_;
      barrier_arrived_ = 0;
      for (unsigned t = 0; t < threads_; ++t) {
        fibers_[t].result = static_cast<std::uint64_t>(result);
        release(t);
      }
      if (opts_.schedule == schedule::run_to_barrier) return;
    }
    suspend();
    if (f.state != fiber_state::ready) fail(failure::deadlock, "internal error: fiber resumed while waiting");
  }

  int barrier_result() { return static_cast<int>(self().result); }

  std::uint64_t collective_op(wait_kind kind, const detail::site& at, unsigned mask, std::uint64_t payload,
                              detail::shuffle_kind shuffle, int lane_arg, int width) {
    fiber& f = self();
    const unsigned t = static_cast<unsigned>(current_), lane = t % 32;
    warp& w = warps_[t / 32];
    if (!(mask >> lane & 1u))
      fail(failure::divergence, "lane " + std::to_string(lane) + " of warp " + std::to_string(t / 32) + " calls " +
                                    where(at) + " with mask " + hex(mask) + ", which does not include itself");
    if (mask & ~w.existing)
      fail(failure::divergence, where(at) + " names " + some("lane", lanes_of(mask & ~w.existing)) + " of warp " +
                                    std::to_string(t / 32) + ", which the block does not have (mask " + hex(mask) +
                                    ")");
    if (mask & w.exited)
      fail(failure::divergence, "lane " + std::to_string(lane) + " of warp " + std::to_string(t / 32) + " waits at " +
                                    where(at) + " with mask " + hex(mask) + ", but " +
                                    some("lane", lanes_of(mask & w.exited)) + " in the mask have exited");
    auto it = std::find_if(w.pending.begin(), w.pending.end(), [&](const collective& c) {
      return c.kind == kind && c.mask == mask && same_site(c.at, at);
    });
    if (it == w.pending.end()) {
      w.pending.push_back(collective{kind, at, mask, 0u, shuffle, lane_arg});
      it = w.pending.end() - 1;
    }
    it->arrived |= 1u << lane;
    f.waiting_for = kind;
    f.at = at;
    f.mask = mask;
    f.payload = payload;
    f.result = static_cast<std::uint64_t>(lane_arg);  // the lane's own argument until the collective completes
    wait(f.waiting_for);
    if (it->arrived == mask) {
      complete(t / 32, *it, width);
      w.pending.erase(it);
      if (opts_.schedule != schedule::run_to_barrier) suspend();
      return f.result;
    }
    suspend();
    return f.result;
  }

  unsigned active_mask() {
    const warp& w = warps_[static_cast<unsigned>(current_) / 32];
    return w.existing & ~w.exited;
  }

  // A scheduling point that does not wait: atomics, fences, __nanosleep. `observed` identifies what an atomic
  // saw (0 for a fence or a sleep); the scheduler judges a point that changed nothing once the fiber has
  // suspended (note_poll).
  void point(bool changed, bool yield_even_when_running_to_barrier, std::uint64_t observed) {
    fiber& f = self();
    if (changed) {
      progress();
    } else {
      f.polled = true;
      f.observed = observed;
    }
    if (opts_.schedule == schedule::run_to_barrier && !yield_even_when_running_to_barrier) return;
    suspend();
  }

  void* dynamic_shared() { return dynamic_shared_.data(); }
  std::size_t dynamic_shared_bytes() const { return config_.dynamic_shared_bytes; }

 private:
  static void fiber_entry(ctx::transfer_t from) {
    auto* self = static_cast<block_runner*>(from.data);
    self->scheduler_ = from.fctx;
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
    ctx::jump_fcontext(self->scheduler_, nullptr);
    std::abort();  // a finished fiber is never resumed
  }

  fiber& self() { return fibers_[static_cast<unsigned>(current_)]; }

  void resume(int t) {
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
  void suspend() {
    fiber& f = self();
    start_switch(&f.asan_fake_stack, scheduler_stack_bottom_, scheduler_stack_size_);
    const ctx::transfer_t back = ctx::jump_fcontext(scheduler_, nullptr);
    scheduler_ = back.fctx;
    finish_switch(f.asan_fake_stack, &scheduler_stack_bottom_, &scheduler_stack_size_);
    if (aborting_) throw abandon{};
  }

  // Called by the scheduler after fiber f suspended at a point that changed nothing: a spin candidate if f is
  // exactly where and as it was at one of its last such points (see spin_limit), otherwise progress.
  void note_poll(fiber& f) {
    const std::uint64_t hash = fingerprint(f.context, f.stack_bottom + f.stack_bytes, f.observed);
    const unsigned kept = std::min(f.recent_count, 4u);
    const bool same = std::find(f.recent, f.recent + kept, hash) != f.recent + kept;
    if (!same) f.recent[f.recent_count++ % 4] = hash;
    ++quiet_points_;
    if (!same) {
      idle_points_ = 0;
      if (quiet_points_ <= quiet_limit) return;
    } else if (++idle_points_ <= spin_limit && quiet_points_ <= quiet_limit) {
      return;
    }
    std::vector<unsigned> spinning, waiting;
    for (unsigned t = 0; t < threads_; ++t) {
      if (fibers_[t].state == fiber_state::ready) spinning.push_back(t);
      if (fibers_[t].state == fiber_state::waiting) waiting.push_back(t);
    }
    std::string message = some("thread", spinning) + " spinning (__nanosleep, atomics or fences that change nothing) " +
                          (same ? "in the same state for " + std::to_string(spin_limit) + " scheduling points"
                                : "for " + std::to_string(quiet_limit) + " scheduling points with no write") +
                          " and no progress anywhere in the block";
    if (!waiting.empty()) message += "; " + some("thread", waiting) + " wait at barriers";
    message += ". Blocks run one at a time (block order " + std::string(name(opts_.block_order)) +
               "), so a block that waits for another block that has not started, or for a later one, never proceeds";
    failure_ = failure::deadlock;
    message_ = message;
  }

  // Something changed memory, reached a barrier or exited: whatever spun may now see something new.
  void progress() {
    idle_points_ = 0;
    quiet_points_ = 0;
  }

  // Records the failure and leaves the fiber; the scheduler unwinds it, then throws the failure.
  [[noreturn]] void fail(failure kind, const std::string& message) {
    if (failure_ == failure::none) {
      failure_ = kind;
      message_ = message;
    }
    for (;;) suspend();  // resumed only to be unwound: suspend() then throws `abandon`
  }

  void rethrow() {
    if (failure_ == failure::exception) std::rethrow_exception(exception_);
    std::ostringstream os;
    os << "simt: kernel '" << config_.kernel_name << "', block (" << block_.x << ", " << block_.y << ", " << block_.z
       << ") of (" << config_.grid.x << ", " << config_.grid.y << ", " << config_.grid.z << "), schedule "
       << name(opts_.schedule) << ": " << message_;
    if (failure_ == failure::divergence) throw divergence_error(os.str());
    throw deadlock_error(os.str());
  }

  void set_ready(unsigned t, bool ready) {
    if (ready)
      ready_[t / 64] |= std::uint64_t{1} << (t % 64);
    else
      ready_[t / 64] &= ~(std::uint64_t{1} << (t % 64));
  }

  // A barrier or __syncwarp reached is progress; a vote or shuffle is not: a spin loop that asks its warp
  // whether the flags it waits for have come (`while (__any_sync(…)) __nanosleep(…);`) changes nothing.
  void wait(wait_kind kind) {
    fiber& f = self();
    f.state = fiber_state::waiting;
    set_ready(static_cast<unsigned>(current_), false);
    if (kind != wait_kind::ballot && kind != wait_kind::shuffle) progress();
  }

  void release(unsigned t) {
    fibers_[t].state = fiber_state::ready;
    fibers_[t].waiting_for = wait_kind::none;
    set_ready(t, true);
  }

  void complete(unsigned warp_index, const collective& c, int width) {
    const unsigned base = warp_index * 32;
    if (c.kind == wait_kind::ballot) {
      unsigned bits = 0;
      for (unsigned l = 0; l < 32; ++l)
        if ((c.mask >> l & 1u) && fibers_[base + l].payload) bits |= 1u << l;
      for (unsigned l = 0; l < 32; ++l)
        if (c.mask >> l & 1u) fibers_[base + l].result = bits;
    } else if (c.kind == wait_kind::shuffle) {
      if (width < 1 || width > 32 || (width & (width - 1)))
        fail(failure::divergence, where(c.at) + ": width " + std::to_string(width) + " is not a power of two <= 32");
      std::uint64_t values[32] = {};  // lanes outside the mask may not exist (a block's partial last warp)
      for (unsigned l = 0; l < 32; ++l)
        if (c.mask >> l & 1u) values[l] = fibers_[base + l].payload;
      for (unsigned l = 0; l < 32; ++l) {
        if (!(c.mask >> l & 1u)) continue;
        fiber& f = fibers_[base + l];
        const int arg = static_cast<int>(f.result);
        const unsigned segment = l & ~static_cast<unsigned>(width - 1), offset = l - segment;
        unsigned source = l;
        switch (c.shuffle) {
          case detail::shuffle_kind::idx:
            source = segment + static_cast<unsigned>(arg) % static_cast<unsigned>(width);
            break;
          case detail::shuffle_kind::up:
            if (arg >= 0 && offset >= static_cast<unsigned>(arg)) source = l - static_cast<unsigned>(arg);
            break;
          case detail::shuffle_kind::down:
            if (arg >= 0 && offset + static_cast<unsigned>(arg) < static_cast<unsigned>(width))
              source = l + static_cast<unsigned>(arg);
            break;
          case detail::shuffle_kind::bfly: {
            const unsigned target = l ^ static_cast<unsigned>(arg);
            if (target < segment + static_cast<unsigned>(width) && target < 32) source = target;
            break;
          }
        }
        if (!(c.mask >> source & 1u))
          fail(failure::divergence, "lane " + std::to_string(l) + " of warp " + std::to_string(warp_index) +
                                        " reads lane " + std::to_string(source) + " in " + where(c.at) +
                                        ", which is not in the mask " + hex(c.mask));
        f.result = values[source];
      }
    }
    for (unsigned l = 0; l < 32; ++l)
      if (c.mask >> l & 1u) release(base + l);
  }

  std::vector<unsigned> threads_of(unsigned warp_index, unsigned lanes) const {
    std::vector<unsigned> ids;
    for (unsigned l : lanes_of(lanes)) ids.push_back(warp_index * 32 + l);
    return ids;
  }

  std::vector<unsigned> threads_waiting(wait_kind kind) const {
    std::vector<unsigned> ids;
    for (unsigned t = 0; t < threads_; ++t)
      if (fibers_[t].state == fiber_state::waiting && fibers_[t].waiting_for == kind) ids.push_back(t);
    return ids;
  }

  void exit_current() {
    fiber& f = self();
    const unsigned t = static_cast<unsigned>(current_), lane = t % 32;
    f.state = fiber_state::done;
    set_ready(t, false);
    --live_;
    progress();
    if (failure_ != failure::none) return;
    warp& w = warps_[t / 32];
    w.exited |= 1u << lane;
    if (barrier_arrived_ > 0) {
      failure_ = failure::divergence;
      message_ = "thread " + std::to_string(t) + " exits while " +
                 some("thread", threads_waiting(wait_kind::block_barrier)) + " wait for it at " + where(barrier_site_);
      return;
    }
    for (const collective& c : w.pending)
      if (c.mask >> lane & 1u) {
        failure_ = failure::divergence;
        message_ = "lane " + std::to_string(lane) + " of warp " + std::to_string(t / 32) + " exits while " +
                   some("lane", lanes_of(c.arrived)) + " wait for it at " + where(c.at) + " with mask " + hex(c.mask);
        return;
      }
  }

  // Nothing is ready but some fibers live: name who waits where and for whom.
  void diagnose_stall() {
    failure_ = failure::divergence;
    if (barrier_arrived_ > 0) {
      std::ostringstream os;
      os << some("thread", threads_waiting(wait_kind::block_barrier)) << " wait at " << where(barrier_site_) << ", but";
      for (unsigned t = 0; t < threads_; ++t) {
        const fiber& f = fibers_[t];
        if (f.state == fiber_state::waiting && f.waiting_for != wait_kind::block_barrier) {
          os << " thread " << t << " waits at " << where(f.at);
          if (f.waiting_for != wait_kind::block_barrier) os << " with mask " << hex(f.mask);
          message_ = os.str();
          return;
        }
      }
    }
    for (unsigned w = 0; w < warps_.size(); ++w) {
      for (const collective& c : warps_[w].pending) {
        const unsigned missing = c.mask & ~c.arrived;
        for (unsigned l : lanes_of(missing)) {
          const fiber& f = fibers_[w * 32 + l];
          std::ostringstream os;
          os << some("lane", lanes_of(c.arrived)) << " of warp " << w << " wait at " << where(c.at) << " with mask "
             << hex(c.mask) << ", but lane " << l << " in the mask waits at " << where(f.at);
          if (f.waiting_for != wait_kind::block_barrier) os << " with mask " << hex(f.mask);
          message_ = os.str();
          return;
        }
      }
    }
    failure_ = failure::deadlock;
    message_ = "no thread can progress";
  }

  // The next ready fiber, as the schedule says; -1 when none is ready.
  int pick() {
    const unsigned n = threads_;
    switch (opts_.schedule) {
      case schedule::reverse: {
        const unsigned start = current_ < 0 ? n - 1 : (static_cast<unsigned>(current_) + n - 1) % n;
        for (unsigned k = 0; k < n; ++k) {
          const unsigned t = (start + n - k) % n;
          if (ready_[t / 64] >> (t % 64) & 1u) return static_cast<int>(t);
        }
        return -1;
      }
      case schedule::random:
        return next_ready_from(static_cast<unsigned>(rng_() % n));
      case schedule::warp_at_a_time: {
        // The next ready lane of the current warp, after the current one — unless the current one has just
        // polled (an atomic that changed nothing, a fence, __nanosleep): it may wait for a later lane or another
        // warp, which must get its turn (warps of a block all progress on a GPU), so the turn passes on as in the
        // forward schedule.
        if (current_ >= 0 && !polled_) {
          const unsigned base = static_cast<unsigned>(current_) / 32 * 32, lanes = std::min(32u, n - base);
          for (unsigned k = 1; k <= lanes; ++k) {
            const unsigned t = base + (static_cast<unsigned>(current_) - base + k) % lanes;
            if (ready_[t / 64] >> (t % 64) & 1u) return static_cast<int>(t);
          }
        }
        if (current_ >= 0 && polled_) return next_ready_from((static_cast<unsigned>(current_) + 1) % n);
        return next_ready_from(current_ < 0 ? 0 : (static_cast<unsigned>(current_) / 32 * 32 + 32) % n);
      }
      default:
        return next_ready_from(current_ < 0 ? 0 : (static_cast<unsigned>(current_) + 1) % n);
    }
  }

  // The first ready fiber at or after `start`, wrapping around.
  int next_ready_from(unsigned start) const {
    const unsigned words = static_cast<unsigned>(ready_.size());
    unsigned word = start / 64;
    std::uint64_t bits = ready_[word] & (~std::uint64_t{0} << (start % 64));
    for (unsigned k = 0; k <= words; ++k) {
      if (bits) return static_cast<int>(word * 64 + static_cast<unsigned>(__builtin_ctzll(bits)));
      word = (word + 1) % words;
      bits = ready_[word];
    }
    return -1;
  }

  launch_config config_;
  options opts_;
  void (*body_)(void*);
  void* context_;
  std::mt19937_64 rng_;
  unsigned threads_ = 0, live_ = 0;
  uint3 block_;
  std::vector<fiber> fibers_;
  std::vector<warp> warps_;
  std::vector<std::uint64_t> ready_;
  std::vector<std::max_align_t> dynamic_shared_;
  int current_ = -1;
  ctx::fcontext_t scheduler_ = nullptr;
  const void* scheduler_stack_bottom_ = nullptr;
  std::size_t scheduler_stack_size_ = 0;
  unsigned barrier_arrived_ = 0;
  detail::site barrier_site_{};
  int barrier_count_ = 0, barrier_and_ = 1, barrier_or_ = 0;
  bool polled_ = false;             // the fiber that ran last stopped at a point that changed nothing
  std::uint64_t idle_points_ = 0;   // spin candidates in a row (see spin_limit)
  std::uint64_t quiet_points_ = 0;  // non-waiting points that changed nothing, in a row (see quiet_limit)
  failure failure_ = failure::none;
  std::string message_;
  std::exception_ptr exception_;
  bool aborting_ = false;
};

block_runner& runner(const char* what) {
  if (!running) throw error(std::string("simt: ") + what + " called outside a kernel launched with simt::launch");
  return *running;
}

}  // namespace

options default_options() {
  return current_defaults;
}
scoped_options::scoped_options(const options& o) : saved_(current_defaults) {
  current_defaults = o;
}
scoped_options::~scoped_options() {
  current_defaults = saved_;
}
std::uint64_t switch_count() {
  return switches;
}

namespace detail {

void launch(const launch_config& config, void (*thread_body)(void*), void* context) {
  const dim3 g = config.grid, b = config.block;
  const std::uint64_t threads = std::uint64_t{b.x} * b.y * b.z;
  if (running) throw launch_error("simt: launching a kernel from inside a kernel is not supported");
  if (threads == 0 || threads > 1024 || b.z > 64)
    throw launch_error(std::string("simt: kernel '") + config.kernel_name + "': invalid block (" + std::to_string(b.x) +
                       ", " + std::to_string(b.y) + ", " + std::to_string(b.z) + "): 1 to 1024 threads, z at most 64");
  if (g.x == 0 || g.y == 0 || g.z == 0 || g.x > 2147483647u || g.y > 65535 || g.z > 65535)
    throw launch_error(std::string("simt: kernel '") + config.kernel_name + "': invalid grid (" + std::to_string(g.x) +
                       ", " + std::to_string(g.y) + ", " + std::to_string(g.z) + ")");
  // The most shared memory a block of sm_90 may have, after opting in with cudaFuncSetAttribute (227 KiB; static
  // and dynamic together there, but the runner cannot see the static part). A GPU refuses more at the launch.
  constexpr std::size_t max_dynamic_shared_bytes = 227 * 1024;
  if (config.dynamic_shared_bytes > max_dynamic_shared_bytes)
    throw launch_error(std::string("simt: kernel '") + config.kernel_name + "': " +
                       std::to_string(config.dynamic_shared_bytes) + " bytes of dynamic shared memory, more than the " +
                       std::to_string(max_dynamic_shared_bytes) + " a block may have (sm_90, opted in)");
  const options opts = config.opts ? *config.opts : current_defaults;

  const std::uint64_t blocks = std::uint64_t{g.x} * g.y * g.z;
  std::vector<std::uint64_t> order;
  if (opts.block_order == block_order::shuffled) {
    order.resize(blocks);
    std::iota(order.begin(), order.end(), std::uint64_t{0});
    std::shuffle(order.begin(), order.end(), std::mt19937_64(opts.seed ^ 0x9e3779b97f4a7c15ull));
  }

  block_runner runner(config, opts, thread_body, context);
  running = &runner;
  ::gridDim = g;
  ::blockDim = b;
  try {
    for (std::uint64_t k = 0; k < blocks; ++k) {
      const std::uint64_t id = opts.block_order == block_order::forward   ? k
                               : opts.block_order == block_order::reverse ? blocks - 1 - k
                                                                          : order[k];
      runner.run_block(uint3{static_cast<unsigned>(id % g.x), static_cast<unsigned>(id / g.x % g.y),
                             static_cast<unsigned>(id / (std::uint64_t{g.x} * g.y))});
    }
  } catch (...) {
    running = nullptr;
    throw;
  }
  running = nullptr;
}

void sync_block(const site& at) {
  runner(at.what).sync_block(at, 1, 0);
}
int sync_block_reduce(const site& at, int predicate, int how) {
  block_runner& r = runner(at.what);
  r.sync_block(at, predicate, how);
  return r.barrier_result();
}
void sync_warp(const site& at, unsigned mask) {
  runner(at.what).collective_op(wait_kind::warp_sync, at, mask, 0, shuffle_kind::idx, 0, 32);
}
std::uint64_t shuffle(const site& at, unsigned mask, shuffle_kind kind, std::uint64_t bits, int lane_arg, int width) {
  return runner(at.what).collective_op(wait_kind::shuffle, at, mask, bits, kind, lane_arg, width);
}
unsigned ballot(const site& at, unsigned mask, bool predicate) {
  return static_cast<unsigned>(
      runner(at.what).collective_op(wait_kind::ballot, at, mask, predicate, shuffle_kind::idx, 0, 32));
}
unsigned active_mask() {
  return runner("__activemask()").active_mask();
}
void memory_point(const void* address, std::uint64_t observed, bool changed) {
  const auto where = static_cast<std::uint64_t>(reinterpret_cast<std::uintptr_t>(address));
  runner("an atomic").point(changed, !changed, where * 0x9e3779b97f4a7c15ull ^ observed);
}
void fence_point() {
  runner("__threadfence()").point(false, true, 0);
}
void sleep_point() {
  runner("__nanosleep()").point(false, true, 0);
}
void* dynamic_shared_memory() {
  return runner("dynamic shared memory").dynamic_shared();
}
std::size_t dynamic_shared_bytes() {
  return runner("dynamic shared memory").dynamic_shared_bytes();
}

}  // namespace detail
}  // namespace simt
