// simt/scheduler.hpp — which thread of a block runs next: the set of ready threads, and the schedule
// (simt::schedule) that picks one of them at every scheduling point. Internal to dpt::simt; header-only, since
// the runner picks at every fiber switch.
#pragma once

#include "simt/simt.hpp"

#include <algorithm>
#include <cstdint>
#include <random>
#include <vector>

namespace simt::internal {

class scheduler {
 public:
  // The random schedule draws from `seed` for the whole launch, across its blocks.
  scheduler(simt::schedule s, std::uint64_t seed, unsigned threads)
      : schedule_(s), threads_(threads), ready_((threads + 63) / 64), rng_(seed) {}

  // A new block: no thread is ready.
  void clear() { std::fill(ready_.begin(), ready_.end(), 0); }
  void set_ready(unsigned t, bool ready) {
    if (ready)
      ready_[t / 64] |= std::uint64_t{1} << (t % 64);
    else
      ready_[t / 64] &= ~(std::uint64_t{1} << (t % 64));
  }

  // The next ready thread after `current` (-1: none has run yet in this block); -1 when none is ready.
  // `polled`: the current thread has just stopped at a point that changed nothing (it may wait for another).
  int pick(int current, bool polled) {
    const unsigned n = threads_;
    switch (schedule_) {
      case schedule::reverse: {
        const unsigned start = current < 0 ? n - 1 : (static_cast<unsigned>(current) + n - 1) % n;
        for (unsigned k = 0; k < n; ++k) {
          const unsigned t = (start + n - k) % n;
          if (ready(t)) return static_cast<int>(t);
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
        if (current >= 0 && !polled) {
          const unsigned base = static_cast<unsigned>(current) / 32 * 32, lanes = std::min(32u, n - base);
          for (unsigned k = 1; k <= lanes; ++k) {
            const unsigned t = base + (static_cast<unsigned>(current) - base + k) % lanes;
            if (ready(t)) return static_cast<int>(t);
          }
        }
        if (current >= 0 && polled) return next_ready_from((static_cast<unsigned>(current) + 1) % n);
        return next_ready_from(current < 0 ? 0 : (static_cast<unsigned>(current) / 32 * 32 + 32) % n);
      }
      default:
        return next_ready_from(current < 0 ? 0 : (static_cast<unsigned>(current) + 1) % n);
    }
  }

 private:
  bool ready(unsigned t) const { return ready_[t / 64] >> (t % 64) & 1u; }
  // The first ready thread at or after `start`, wrapping around.
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

  simt::schedule schedule_;
  unsigned threads_;
  std::vector<std::uint64_t> ready_;  // a bit per thread
  std::mt19937_64 rng_;
};

}  // namespace simt::internal
