// dpt/cpu/sort_targets.hpp — which of Highway's instruction-set targets the CPU sort runs vqsort on.
//
// Highway compiles vqsort once per instruction set (AVX-512 as AVX3, AVX2, SSE4, …) and dispatches each call to
// the best one the processor has. "Best" is decided by the instruction set, not by measurement, and the two can
// disagree: Highway 1.0.3 predates its AVX3_ZEN4 target, and its AVX3 partition writes with compress-store to
// memory, which some AVX-512 processors run slowly. On such a processor AVX3 sorts 32-bit keys several times
// slower than AVX2 while it still sorts 64-bit keys faster (docs/benchmarks.md has this machine's figures).
//
// So the choice is measured, once per process and key width: the first sort of 32-bit (or 64-bit) codes times
// vqsort on a small random input with every target the processor has and with its AVX-512 targets left out, and
// keeps the faster set for that width.
//
// Highway's target set is process-wide state (hwy::SetSupportedTargetsForTest). dpt's CPU sorts set it under one
// lock and run one at a time (each uses every core anyway); a program that calls Highway itself while a dpt sort
// runs sees dpt's choice.
#pragma once

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <mutex>
#include <vector>

#include <hwy/contrib/sort/vqsort.h>
#include <hwy/targets.h>

namespace dpt::cpu {

// A set of Highway targets (HWY_AVX2 | HWY_SSE4 …), or 0 for Highway's own choice among all the processor has.
using sort_target_set = std::int64_t;

namespace detail {

// The lock under which a sort sets Highway's targets and runs, and the set last given to Highway.
struct highway_target_state {
  std::mutex lock;
  sort_target_set current = 0;
};

inline highway_target_state& highway_targets() {
  static highway_target_state state;
  return state;
}

// Caller holds the lock.
inline void use_targets(sort_target_set targets) {
  auto& state = highway_targets();
  if (state.current == targets) return;
  hwy::SetSupportedTargetsForTest(targets);
  state.current = targets;
}

// The fastest of a few runs of vqsort over `keys`, under `targets`. Caller holds the lock.
template <class Code>
double seconds_to_sort(const std::vector<Code>& keys, sort_target_set targets) {
  use_targets(targets);
  const hwy::Sorter sorter;  // its buffer is sized for the current target: made after the targets are set
  double best = 1e30;
  for (int run = 0; run < 3; ++run) {
    std::vector<Code> copy = keys;
    const auto start = std::chrono::steady_clock::now();
    sorter(copy.data(), copy.size(), hwy::SortAscending());
    best = std::min(best, std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
  }
  return best;
}

// Measures which target set sorts Code fastest: all the processor has, or all but AVX-512. Caller holds the lock.
template <class Code>
sort_target_set measure_fastest_targets() {
  use_targets(0);
  const sort_target_set all = hwy::SupportedTargets();
  const sort_target_set without_avx512 = all & ~(HWY_AVX3 | HWY_AVX3_DL);
  if (without_avx512 == all || without_avx512 == 0) return 0;
  std::vector<Code> keys(std::size_t(1) << 16);
  std::uint64_t state = 0x9e3779b97f4a7c15ULL;
  for (auto& key : keys) {  // xorshift64: random codes, the case where the partition does the most work
    state ^= state << 13;
    state ^= state >> 7;
    state ^= state << 17;
    key = static_cast<Code>(state);
  }
  return seconds_to_sort(keys, without_avx512) < seconds_to_sort(keys, 0) ? without_avx512 : sort_target_set{0};
}

}  // namespace detail

// Runs `sort()` with Highway limited to `targets` (0: the set measured fastest for Code on this processor), holding
// the lock that keeps dpt's sorts one at a time. Make hwy::Sorter objects inside `sort`: a Sorter's buffer is sized
// for the target that was current when it was made.
template <class Code, class Sort>
void with_sort_targets(sort_target_set targets, Sort&& sort) {
  auto& state = detail::highway_targets();
  const std::lock_guard<std::mutex> hold(state.lock);
  if (targets == 0) {
    static const sort_target_set fastest = detail::measure_fastest_targets<Code>();
    targets = fastest;
  }
  detail::use_targets(targets);
  sort();
}

}  // namespace dpt::cpu
