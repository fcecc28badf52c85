// What the SIMT-runner tests share (test_simt_runner.cpp, test_custom_kernels.cpp, test_spmv_kernel.cpp): named
// schedules to run kernels under, a launch with explicit options, the message of an expected runner error, and the
// published tile states that stand in for a GPU's blocks in look-back tests.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include <dpt/kernels/look_back.hpp>

namespace dpt::test {

struct schedule_case {
  simt::options options;
  std::string name;
};

inline schedule_case make_case(simt::schedule s, simt::block_order o, std::uint64_t seed = 1) {
  return {simt::options{s, o, seed}, std::string("schedule ") + simt::name(s) + ", block order " + simt::name(o) +
                                         ", seed " + std::to_string(seed)};
}

// kernel<<<grid, block>>>(args...) on the runner under `options`.
template <class... Params, class... Args>
void run(const simt::options& options, const char* name, dim3 grid, dim3 block, void (*kernel)(Params...),
         Args&&... args) {
  simt::launch_config config;
  config.grid = grid;
  config.block = block;
  config.kernel_name = name;
  config.opts = &options;
  simt::launch(config, kernel, std::forward<Args>(args)...);
}

// Every schedule with forward and reverse blocks, plus random fibers with shuffled blocks.
inline std::vector<schedule_case> all_schedules() {
  std::vector<schedule_case> cases;
  for (auto o : {simt::block_order::forward, simt::block_order::reverse})
    for (auto s : {simt::schedule::forward, simt::schedule::reverse, simt::schedule::random,
                   simt::schedule::run_to_barrier, simt::schedule::warp_at_a_time})
      cases.push_back(make_case(s, o));
  cases.push_back(make_case(simt::schedule::random, simt::block_order::shuffled, 7));
  return cases;
}

// The message of the Error that body throws; another exception fails the test on its own.
template <class Error, class Body>
std::string message_of(Body&& body) {
  try {
    body();
  } catch (const Error& e) {
    return e.what();
  }
  return "(nothing thrown)";
}

// The runner starts a block only when the one before it has finished, so every look-back there meets an
// inclusive prefix at once. These are the flags of the `tiles` tiles before a looking tile as a GPU leaves them:
// the last `aggregates_only` have published only their aggregate, the one before them its inclusive prefix,
// and the tiles below that, which the look-back must not reach, a mix of both.
inline std::vector<unsigned> look_back_flags(std::int64_t tiles, std::int64_t aggregates_only) {
  const std::int64_t nearest_inclusive = tiles - 1 - aggregates_only;
  std::vector<unsigned> flags(static_cast<std::size_t>(tiles));
  for (std::int64_t j = 0; j < tiles; ++j)
    flags[j] = j > nearest_inclusive    ? dpt::kernels::detail::tile_aggregate_ready
               : j == nearest_inclusive ? dpt::kernels::detail::tile_inclusive_ready
               : j % 3 == 0             ? dpt::kernels::detail::tile_inclusive_ready
                                        : dpt::kernels::detail::tile_aggregate_ready;
  return flags;
}

template <class T>
__global__ void publish_states_kernel(dpt::kernels::detail::tile_status<T> status, const unsigned* flags,
                                      const T* aggregates, const T* inclusive, std::int64_t tiles) {
  for (std::int64_t j = 0; j < tiles; ++j)
    status.publish(j, flags[j] == dpt::kernels::detail::tile_inclusive_ready ? inclusive[j] : aggregates[j], flags[j]);
}

// Publishes those states in `status`, through the kernels' own publish (so in whichever layout T gets): tile j's
// aggregate or inclusive prefix, as its flag says.
template <class T>
void publish_look_back_states(const dpt::kernels::detail::tile_status<T>& status, const std::vector<T>& aggregates,
                              const std::vector<T>& inclusive, std::int64_t aggregates_only) {
  const auto tiles = static_cast<std::int64_t>(aggregates.size());
  const std::vector<unsigned> flags = look_back_flags(tiles, aggregates_only);
  run(simt::options{}, "publish_states_kernel", dim3(1), dim3(1), &publish_states_kernel<T>, status, flags.data(),
      aggregates.data(), inclusive.data(), tiles);
}

}  // namespace dpt::test
