// simt/stall_report.cpp — the messages for blocks that cannot make progress (stall_report.hpp).
#include "simt/stall_report.hpp"

#include "simt/describe.hpp"

#include <sstream>

namespace simt::internal {

stall_report report_stall(const barriers& meetings, const std::vector<fiber>& fibers) {
  if (meetings.block_arrived() > 0) {
    std::ostringstream os;
    os << some("thread", threads_waiting(fibers, wait_kind::block_barrier)) << " wait at "
       << where(meetings.block_site()) << ", but";
    for (unsigned t = 0; t < fibers.size(); ++t) {
      const fiber& f = fibers[t];
      if (f.state == fiber_state::waiting && f.waiting_for != wait_kind::block_barrier) {
        os << " thread " << t << " waits at " << where(f.at) << " with mask " << hex(f.mask);
        return {false, os.str()};
      }
    }
  }
  const std::vector<warp>& warps = meetings.warps();
  for (unsigned w = 0; w < warps.size(); ++w) {
    for (const collective& c : warps[w].pending) {
      const unsigned missing = c.mask & ~c.arrived;
      for (unsigned l : lanes_of(missing)) {
        const fiber& f = fibers[w * 32 + l];
        std::ostringstream os;
        os << some("lane", lanes_of(c.arrived)) << " of warp " << w << " wait at " << where(c.at) << " with mask "
           << hex(c.mask) << ", but lane " << l << " in the mask waits at " << where(f.at);
        if (f.waiting_for != wait_kind::block_barrier) os << " with mask " << hex(f.mask);
        return {false, os.str()};
      }
    }
  }
  return {true, "no thread can progress"};
}

std::string report_spin(spin_verdict verdict, const std::vector<fiber>& fibers, simt::block_order order) {
  std::vector<unsigned> spinning, waiting;
  for (unsigned t = 0; t < fibers.size(); ++t) {
    if (fibers[t].state == fiber_state::ready) spinning.push_back(t);
    if (fibers[t].state == fiber_state::waiting) waiting.push_back(t);
  }
  std::string message = some("thread", spinning) + " spinning (__nanosleep, atomics or fences that change nothing) " +
                        (verdict == spin_verdict::spinning
                             ? "in the same state for " + std::to_string(spin_limit) + " scheduling points"
                             : "for " + std::to_string(quiet_limit) + " scheduling points with no write") +
                        " and no progress anywhere in the block";
  if (!waiting.empty()) message += "; " + some("thread", waiting) + " wait at barriers";
  message += ". Blocks run one at a time (block order " + std::string(name(order)) +
             "), so a block that waits for another block that has not started, or for a later one, never proceeds";
  return message;
}

}  // namespace simt::internal
