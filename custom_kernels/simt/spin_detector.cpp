// simt/spin_detector.cpp — fingerprints of suspended fibers, and the counts that turn them into a verdict
// (spin_detector.hpp).
#include "simt/spin_detector.hpp"

#include "simt/fiber_stacks.hpp"

#include <algorithm>

namespace simt::internal {
namespace {

// FNV-1a over the live part of a suspended fiber's stack, [saved context, top), then what its atomic observed.
// The stack holds ASan's red zones between frames: reading them here is no bug, so this is not instrumented.
SIMT_NOT_INSTRUMENTED std::uint64_t fingerprint(const void* saved_context, const char* top, std::uint64_t observed) {
  std::uint64_t hash = 0xcbf29ce484222325ull;
  for (auto* word = static_cast<const std::uint64_t*>(saved_context);
       word < reinterpret_cast<const std::uint64_t*>(top); ++word)
    hash = (hash ^ *word) * 0x100000001b3ull;
  return (hash ^ observed) * 0x100000001b3ull;
}

}  // namespace

void spin_detector::clear(unsigned threads) {
  threads_.assign(threads, history{});
  progress();
}

spin_verdict spin_detector::judge(unsigned t, const void* saved_context, const char* stack_top) {
  history& f = threads_[t];
  f.polled = false;
  const std::uint64_t hash = fingerprint(saved_context, stack_top, f.observed);
  const unsigned kept = std::min(f.recent_count, 4u);
  const bool same = std::find(f.recent, f.recent + kept, hash) != f.recent + kept;
  if (!same) f.recent[f.recent_count++ % 4] = hash;
  ++quiet_points_;
  if (!same) {
    idle_points_ = 0;
    if (quiet_points_ <= quiet_limit) return spin_verdict::progressing;
  } else if (++idle_points_ <= spin_limit && quiet_points_ <= quiet_limit) {
    return spin_verdict::progressing;
  }
  return same ? spin_verdict::spinning : spin_verdict::quiet;
}

}  // namespace simt::internal
