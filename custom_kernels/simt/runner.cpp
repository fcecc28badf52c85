// simt/runner.cpp — simt.hpp's entry points: launches (checked, their blocks in the chosen order, each run by a
// block_runner) and the calls the CUDA dialect makes from a kernel's threads into the block that runs them.
#include "simt/block_runner.hpp"

#include <algorithm>
#include <numeric>
#include <random>
#include <string>
#include <vector>

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
thread_local internal::block_runner* running = nullptr;

internal::block_runner& runner(const char* what) {
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

  internal::block_runner runner(config, opts, thread_body, context);
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
  internal::block_runner& r = runner(at.what);
  r.sync_block(at, predicate, how);
  return r.barrier_result();
}
void sync_warp(const site& at, unsigned mask) {
  runner(at.what).collective_op(internal::wait_kind::warp_sync, at, mask, 0, shuffle_kind::idx, 0, 32);
}
std::uint64_t shuffle(const site& at, unsigned mask, shuffle_kind kind, std::uint64_t bits, int lane_arg, int width) {
  return runner(at.what).collective_op(internal::wait_kind::shuffle, at, mask, bits, kind, lane_arg, width);
}
unsigned ballot(const site& at, unsigned mask, bool predicate) {
  return static_cast<unsigned>(
      runner(at.what).collective_op(internal::wait_kind::ballot, at, mask, predicate, shuffle_kind::idx, 0, 32));
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
