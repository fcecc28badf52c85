// simt/barriers.cpp — arrivals at, completion of, and misuse of block barriers and warp collectives
// (barriers.hpp).
#include "simt/barriers.hpp"

#include "simt/describe.hpp"

#include <algorithm>
#include <cstring>

namespace simt::internal {
namespace {

bool same_site(const detail::site& a, const detail::site& b) {
  return a.line == b.line && (a.file == b.file || std::strcmp(a.file, b.file) == 0) &&
         (a.what == b.what || std::strcmp(a.what, b.what) == 0);
}

std::vector<unsigned> threads_of(unsigned warp_index, unsigned lanes) {
  std::vector<unsigned> ids;
  for (unsigned l : lanes_of(lanes)) ids.push_back(warp_index * 32 + l);
  return ids;
}

}  // namespace

barriers::barriers(std::vector<fiber>& fibers, unsigned threads)
    : fibers_(fibers), threads_(threads), warps_((threads + 31) / 32) {
  for (unsigned w = 0; w < warps_.size(); ++w) {
    const unsigned lanes = std::min(32u, threads_ - 32 * w);
    warps_[w].existing = lanes == 32 ? ~0u : (1u << lanes) - 1;
  }
}

void barriers::clear() {
  for (auto& w : warps_) {
    w.exited = 0;
    w.pending.clear();
  }
  block_arrived_ = 0;
}

std::string barriers::block_arrival_error(unsigned t, const detail::site& at) const {
  for (unsigned w = 0; w < warps_.size(); ++w)
    if (warps_[w].exited)
      return "thread " + std::to_string(t) + " waits at " + where(at) + ", but " +
             some("thread", threads_of(w, warps_[w].exited)) + " have exited and never arrive";
  if (block_arrived_ > 0 && !same_site(block_site_, at))
    return "thread " + std::to_string(t) + " waits at " + where(at) + ", but " +
           some("thread", threads_waiting(fibers_, wait_kind::block_barrier)) + " wait at " + where(block_site_);
  return {};
}

bool barriers::arrive_at_block(const detail::site& at, int predicate, int how) {
  if (block_arrived_ == 0) {
    block_site_ = at;
    block_count_ = 0;
    block_and_ = 1;
    block_or_ = 0;
  }
  block_count_ += predicate != 0;
  block_and_ &= predicate != 0;
  block_or_ |= predicate != 0;
  if (++block_arrived_ < threads_) return false;
  const int result = how == 0 ? block_count_ : how == 1 ? block_and_ : block_or_;
  block_arrived_ = 0;
  for (fiber& f : fibers_) f.result = static_cast<std::uint64_t>(result);
  return true;
}

std::string barriers::warp_arrival_error(unsigned t, const detail::site& at, unsigned mask) const {
  const unsigned lane = t % 32;
  const warp& w = warps_[t / 32];
  if (!(mask >> lane & 1u))
    return "lane " + std::to_string(lane) + " of warp " + std::to_string(t / 32) + " calls " + where(at) +
           " with mask " + hex(mask) + ", which does not include itself";
  if (mask & ~w.existing)
    return where(at) + " names " + some("lane", lanes_of(mask & ~w.existing)) + " of warp " + std::to_string(t / 32) +
           ", which the block does not have (mask " + hex(mask) + ")";
  if (mask & w.exited)
    return "lane " + std::to_string(lane) + " of warp " + std::to_string(t / 32) + " waits at " + where(at) +
           " with mask " + hex(mask) + ", but " + some("lane", lanes_of(mask & w.exited)) + " in the mask have exited";
  return {};
}

const collective* barriers::arrive_at_warp(unsigned t, wait_kind kind, const detail::site& at, unsigned mask,
                                           detail::shuffle_kind shuffle, int lane_arg) {
  warp& w = warps_[t / 32];
  auto it = std::find_if(w.pending.begin(), w.pending.end(), [&](const collective& c) {
    return c.kind == kind && c.mask == mask && same_site(c.at, at);
  });
  if (it == w.pending.end()) {
    w.pending.push_back(collective{kind, at, mask, 0u, shuffle, lane_arg});
    it = w.pending.end() - 1;
  }
  it->arrived |= 1u << (t % 32);
  return it->arrived == mask ? &*it : nullptr;
}

std::string barriers::complete(unsigned warp_index, const collective& c, int width) {
  const unsigned base = warp_index * 32;
  if (c.kind == wait_kind::ballot) {
    unsigned bits = 0;
    for (unsigned l = 0; l < 32; ++l)
      if ((c.mask >> l & 1u) && fibers_[base + l].payload) bits |= 1u << l;
    for (unsigned l = 0; l < 32; ++l)
      if (c.mask >> l & 1u) fibers_[base + l].result = bits;
  } else if (c.kind == wait_kind::shuffle) {
    if (width < 1 || width > 32 || (width & (width - 1)))
      return where(c.at) + ": width " + std::to_string(width) + " is not a power of two <= 32";
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
        return "lane " + std::to_string(l) + " of warp " + std::to_string(warp_index) + " reads lane " +
               std::to_string(source) + " in " + where(c.at) + ", which is not in the mask " + hex(c.mask);
      f.result = values[source];
    }
  }
  std::vector<collective>& pending = warps_[warp_index].pending;
  pending.erase(pending.begin() + (&c - pending.data()));
  return {};
}

unsigned barriers::active_mask(unsigned t) const {
  const warp& w = warps_[t / 32];
  return w.existing & ~w.exited;
}

std::string barriers::exit(unsigned t) {
  const unsigned lane = t % 32;
  warp& w = warps_[t / 32];
  w.exited |= 1u << lane;
  if (block_arrived_ > 0)
    return "thread " + std::to_string(t) + " exits while " +
           some("thread", threads_waiting(fibers_, wait_kind::block_barrier)) + " wait for it at " +
           where(block_site_);
  for (const collective& c : w.pending)
    if (c.mask >> lane & 1u)
      return "lane " + std::to_string(lane) + " of warp " + std::to_string(t / 32) + " exits while " +
             some("lane", lanes_of(c.arrived)) + " wait for it at " + where(c.at) + " with mask " + hex(c.mask);
  return {};
}

}  // namespace simt::internal
