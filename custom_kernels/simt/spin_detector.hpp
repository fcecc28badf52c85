// simt/spin_detector.hpp — tells a thread that spins on something nothing will change from one that polls and
// progresses, so that a block whose threads only spin is reported instead of running forever. Internal to
// dpt::simt.
//
// It judges the scheduling points that do not wait (an atomic that leaves memory as it was, a fence,
// __nanosleep). Plain loads and stores are invisible to the runner, so such a point alone says nothing: an
// atomicMax that finds a larger value, or a fence after each of a loop's plain stores, is a point that "changes
// nothing" in a correct loop. What a spinning fiber does not change is its own state: it comes back to the same
// point with the same registers and locals and finds the same value. So each such point is fingerprinted when the
// fiber has just suspended there — the live part of its stack, which then holds every callee-saved register
// (Boost.Context saves them on it), hence the loop's variables, plus the return addresses, i.e. the site —
// together with the atomic's address and the value it found. A point whose fingerprint equals one of the fiber's
// last four is a spin candidate; any other point, a write, a barrier or an exit is progress. spin_limit
// candidates in a row with no progress anywhere in the block is a deadlock.
#pragma once

#include <cstdint>
#include <vector>

namespace simt::internal {

constexpr std::uint64_t spin_limit = 1u << 20;
// A spin loop that counts its rounds (or backs off without a cap) changes its stack every time, so the
// fingerprint never repeats; as a backstop, this many non-waiting points in a row without a write, barrier or
// exit in the block is reported too. A correct kernel passes unless one block makes over 2^26 such points with no
// atomic that changes memory between them (an atomicMax over 2^26 values that finds its maximum early).
constexpr std::uint64_t quiet_limit = 1u << 26;

enum class spin_verdict {
  progressing,
  spinning,  // spin_limit spin candidates in a row
  quiet,     // quiet_limit points that changed nothing in a row
};

class spin_detector {
 public:
  // A new block of `threads` threads: no history.
  void clear(unsigned threads);
  // Something changed memory, reached a barrier or exited: whatever spun may now see something new.
  void progress() {
    idle_points_ = 0;
    quiet_points_ = 0;
  }
  // On thread t's fiber: it reached a non-waiting point that changed nothing. `observed` identifies what an
  // atomic saw (its address and the value found there; 0 for a fence or a sleep).
  void poll(unsigned t, std::uint64_t observed) {
    history& h = threads_[t];
    h.polled = true;
    h.observed = observed;
  }
  // Whether thread t has just suspended at such a point (and not been judged yet).
  bool polled(unsigned t) const { return threads_[t].polled; }
  // After thread t suspended at such a point, with its saved context at the bottom of the live part of its stack
  // and its stack ending at `stack_top`: is the block spinning?
  spin_verdict judge(unsigned t, const void* saved_context, const char* stack_top);

 private:
  struct history {
    bool polled = false;
    std::uint64_t observed = 0;
    // The fingerprints of its last such points: a spin round may pass several points (an atomic poll, then
    // __nanosleep), so a point is a repeat when it equals any of these.
    std::uint64_t recent[4] = {};
    unsigned recent_count = 0;
  };
  std::vector<history> threads_;
  std::uint64_t idle_points_ = 0;   // spin candidates in a row (see spin_limit)
  std::uint64_t quiet_points_ = 0;  // non-waiting points that changed nothing, in a row (see quiet_limit)
};

}  // namespace simt::internal
