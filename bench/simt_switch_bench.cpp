// How fast the host SIMT runner switches fibers: every CUDA thread of a 1024-thread block calls __nanosleep
// (a scheduling point that always yields) in a loop, so each call is one switch to the scheduler and one back.
// Reports switches per second (items/s); the runner is meant to sustain at least 5 million.
#include <benchmark/benchmark.h>

#include <simt/simt.hpp>

namespace {

__global__ void yield_loop(int rounds) {
  for (int r = 0; r < rounds; ++r) __nanosleep(0);
}

__global__ void warp_barrier_loop(int rounds) {
  for (int r = 0; r < rounds; ++r) __syncwarp();
}

template <void (*Kernel)(int)>
void switches(benchmark::State& state, simt::schedule schedule) {
  const int rounds = 64;
  const simt::options options{schedule, simt::block_order::forward, 1};
  simt::launch_config config;
  config.grid = dim3(4);
  config.block = dim3(1024);
  config.kernel_name = "switch loop";
  config.opts = &options;
  const std::uint64_t before = simt::switch_count();
  for (auto _ : state) simt::launch(config, Kernel, rounds);
  state.SetItemsProcessed(static_cast<std::int64_t>(simt::switch_count() - before));
  state.counters["switches/s"] =
      benchmark::Counter(static_cast<double>(simt::switch_count() - before), benchmark::Counter::kIsRate);
}

void BM_simt_nanosleep_switches(benchmark::State& state) {
  switches<yield_loop>(state, simt::schedule::forward);
}
void BM_simt_syncwarp_switches_forward(benchmark::State& state) {
  switches<warp_barrier_loop>(state, simt::schedule::forward);
}
void BM_simt_syncwarp_switches_random(benchmark::State& state) {
  switches<warp_barrier_loop>(state, simt::schedule::random);
}

}  // namespace

BENCHMARK(BM_simt_nanosleep_switches)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_simt_syncwarp_switches_forward)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_simt_syncwarp_switches_random)->Unit(benchmark::kMillisecond)->UseRealTime();

BENCHMARK_MAIN();
