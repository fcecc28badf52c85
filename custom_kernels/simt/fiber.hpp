// simt/fiber.hpp — what the runner's parts know about one CUDA thread of a block: its fiber, whether it runs,
// waits or is done, and where it waits with what. Internal to dpt::simt.
#pragma once

#include "simt/simt.hpp"

#include <boost/context/detail/fcontext.hpp>
#include <cstdint>
#include <vector>

namespace simt::internal {

enum class wait_kind : std::uint8_t { none, block_barrier, warp_sync, shuffle, ballot };
enum class fiber_state : std::uint8_t { ready, waiting, done };

struct fiber {
  boost::context::detail::fcontext_t context = nullptr;
  char* stack_bottom = nullptr;
  std::size_t stack_bytes = 0;
  uint3 index;
  fiber_state state = fiber_state::ready;
  wait_kind waiting_for = wait_kind::none;
  detail::site at{};
  unsigned mask = 0;
  std::uint64_t payload = 0, result = 0;
  void* asan_fake_stack = nullptr;
};

// The threads that wait, and wait for `kind`.
inline std::vector<unsigned> threads_waiting(const std::vector<fiber>& fibers, wait_kind kind) {
  std::vector<unsigned> ids;
  for (unsigned t = 0; t < fibers.size(); ++t)
    if (fibers[t].state == fiber_state::waiting && fibers[t].waiting_for == kind) ids.push_back(t);
  return ids;
}

}  // namespace simt::internal
