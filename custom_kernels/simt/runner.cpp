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

// ASan must be told when the stack changes under it, or it reports the other stack's frames as overflows.
#if defined(SIMT_ASAN)
constexpr std::size_t fiber_stack_bytes = 256 * 1024;
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
constexpr std::size_t fiber_stack_bytes = 64 * 1024;
void start_switch(void**, const void*, std::size_t) {}
void finish_switch(void*, const void**, std::size_t*) {}
void unpoison(void*, std::size_t) {}
#endif

// No progress for this many scheduling points in a row means the fibers spin on something that never comes.
constexpr std::uint64_t spin_limit = 1u << 20;

// Fiber stacks, kept per host thread and reused by every launch: mmap'd, with a guard page below each.
class stack_pool {
 public:
  ~stack_pool() {
    for (void* base : bases_) munmap(base, bytes_ + page_);
  }
  // The lowest usable address of stack i.
  char* bottom(std::size_t i) {
    while (bases_.size() <= i) {
      void* base =
          mmap(nullptr, bytes_ + page_, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
      if (base == MAP_FAILED) throw std::bad_alloc();
      mprotect(base, page_, PROT_NONE);  // an overflow faults instead of corrupting the neighbour
      bases_.push_back(base);
    }
    return static_cast<char*>(bases_[i]) + page_;
  }
  std::size_t bytes() const { return bytes_; }

 private:
  std::size_t page_ = static_cast<std::size_t>(sysconf(_SC_PAGESIZE));
  std::size_t bytes_ = fiber_stack_bytes;
  std::vector<void*> bases_;
};

thread_local stack_pool stacks;

enum class wait_kind : std::uint8_t { none, block_barrier, warp_sync, shuffle, ballot };
enum class fiber_state : std::uint8_t { ready, waiting, done };

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
  uint3 index;
  fiber_state state = fiber_state::ready;
  bool spinning = false;  // its last scheduling point changed nothing
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
    idle_points_ = 0;
    current_ = -1;
    // Shared memory starts out as garbage on a GPU; make reads of unwritten dynamic shared memory visible.
    if (!dynamic_shared_.empty())
      std::memset(dynamic_shared_.data(), 0xA5, dynamic_shared_.size() * sizeof(std::max_align_t));
    for (unsigned t = 0; t < threads_; ++t) {
      fiber& f = fibers_[t];
      f = fiber{};
      f.stack_bottom = stacks.bottom(t);
      f.context = ctx::make_fcontext(f.stack_bottom + stacks.bytes(), stacks.bytes(), &fiber_entry);
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
    }
    if (failure_ != failure::none) {
      // Unwind every fiber still mid-kernel (suspend() throws `abandon` in it), so its objects are destroyed;
      // fibers that never started return at once.
      aborting_ = true;
      for (unsigned t = 0; t < threads_; ++t)
        if (fibers_[t].state != fiber_state::done) resume(static_cast<int>(t));
      aborting_ = false;
      for (unsigned t = 0; t < threads_; ++t) unpoison(fibers_[t].stack_bottom, stacks.bytes());
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

  // A scheduling point that does not wait: atomics, fences, __nanosleep.
  void point(bool progress, bool yield_even_when_running_to_barrier) {
    fiber& f = self();
    f.spinning = !progress;
    if (progress) {
      idle_points_ = 0;
    } else if (++idle_points_ > spin_limit) {
      std::vector<unsigned> spinning, waiting;
      for (unsigned t = 0; t < threads_; ++t) {
        if (fibers_[t].state == fiber_state::ready) spinning.push_back(t);
        if (fibers_[t].state == fiber_state::waiting) waiting.push_back(t);
      }
      std::string message = some("thread", spinning) + " spinning (__nanosleep, atomics or fences that change " +
                            "nothing) for " + std::to_string(spin_limit) +
                            " scheduling points with no progress anywhere in the block";
      if (!waiting.empty()) message += "; " + some("thread", waiting) + " wait at barriers";
      message += ". Blocks run one at a time (block order " + std::string(name(opts_.block_order)) +
                 "), so a block that waits for another block that has not started, or for a later one, never "
                 "proceeds";
      fail(failure::deadlock, message);
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
    start_switch(&fake_stack, f.stack_bottom, stacks.bytes());
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
    if (kind != wait_kind::ballot && kind != wait_kind::shuffle) idle_points_ = 0;
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
    idle_points_ = 0;
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
  std::uint64_t idle_points_ = 0;
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
void memory_point(bool changed) {
  runner("an atomic").point(changed, !changed);
}
void fence_point() {
  runner("__threadfence()").point(false, true);
}
void sleep_point() {
  runner("__nanosleep()").point(false, true);
}
void* dynamic_shared_memory() {
  return runner("dynamic shared memory").dynamic_shared();
}
std::size_t dynamic_shared_bytes() {
  return runner("dynamic shared memory").dynamic_shared_bytes();
}

}  // namespace detail
}  // namespace simt
