// simt/stall_report.hpp — what the runner says when a block cannot make progress: who waits where and for whom
// when no thread is ready, or who spins while nothing changes. Internal to dpt::simt.
#pragma once

#include "simt/barriers.hpp"
#include "simt/fiber.hpp"
#include "simt/spin_detector.hpp"

#include <string>
#include <vector>

namespace simt::internal {

struct stall_report {
  bool deadlock;  // no thread waits for a lane that waits elsewhere: a deadlock rather than a divergence
  std::string message;
};

// No thread is ready, but some live.
stall_report report_stall(const barriers& meetings, const std::vector<fiber>& fibers);

// The spin detector's verdict (spinning or quiet) on a block run in the given block order.
std::string report_spin(spin_verdict verdict, const std::vector<fiber>& fibers, simt::block_order order);

}  // namespace simt::internal
