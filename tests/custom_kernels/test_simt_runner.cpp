// The host SIMT runner's own semantics, under every fiber schedule and block order: shuffles, votes, barriers,
// atomics and shared memory as CUDA defines them; wrong synchronisation reported (divergence_error,
// deadlock_error) instead of hanging, while loops that progress through plain memory are not; fiber stacks as
// large as CUDA's local memory, an overflow faulting; bad launches rejected and a thread's exception passed on.
//
// Plain C++: in every build (the CUDA one too) its kernels run on the SIMT runner.
#include <catch2/catch.hpp>

#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <csignal>
#include <cstdio>
#include <stdexcept>
#include <string>
#include <vector>

#include "custom_kernels/simt_cases.hpp"

using dpt::test::all_schedules;
using dpt::test::message_of;
using dpt::test::run;

namespace {

__global__ void shuffle_kernel(int* out) {
  const int lane = static_cast<int>(threadIdx.x);
  const int value = 100 + lane;
  out[0 * 32 + lane] = __shfl_sync(0xffffffffu, value, 5);
  out[1 * 32 + lane] = __shfl_up_sync(0xffffffffu, value, 3);
  out[2 * 32 + lane] = __shfl_down_sync(0xffffffffu, value, 3);
  out[3 * 32 + lane] = __shfl_xor_sync(0xffffffffu, value, 1);
  out[4 * 32 + lane] = __shfl_up_sync(0xffffffffu, value, 2, 8);  // within segments of 8 lanes
  out[5 * 32 + lane] = __shfl_sync(0xffffffffu, value, lane + 1, 16);
  out[6 * 32 + lane] = static_cast<int>(__ballot_sync(0xffffffffu, lane % 3 == 0));
  out[7 * 32 + lane] = __any_sync(0xffffffffu, lane == 17);
  out[8 * 32 + lane] = __all_sync(0xffffffffu, lane < 31);
  out[9 * 32 + lane] = __syncthreads_count(lane % 2);
  out[10 * 32 + lane] = static_cast<int>(__shfl_sync(0xffffffffu, 2.5 * lane, 31 - lane) * 2);  // doubles move too
  out[11 * 32 + lane] = static_cast<int>(__ballot_sync(0xffffffffu, lane >= 29));               // the top lanes' bits
}

std::vector<int> expected_shuffles() {
  std::vector<int> e(12 * 32);
  unsigned ballot = 0;
  for (int l = 0; l < 32; l += 3) ballot |= 1u << l;
  for (int l = 0; l < 32; ++l) {
    e[0 * 32 + l] = 105;
    e[1 * 32 + l] = 100 + (l >= 3 ? l - 3 : l);
    e[2 * 32 + l] = 100 + (l + 3 < 32 ? l + 3 : l);
    e[3 * 32 + l] = 100 + (l ^ 1);
    e[4 * 32 + l] = 100 + (l % 8 >= 2 ? l - 2 : l);
    e[5 * 32 + l] = 100 + (l / 16 * 16 + (l + 1) % 16);
    e[6 * 32 + l] = static_cast<int>(ballot);
    e[7 * 32 + l] = 1;
    e[8 * 32 + l] = 0;
    e[9 * 32 + l] = 16;
    e[10 * 32 + l] = static_cast<int>(2.5 * (31 - l) * 2);
    e[11 * 32 + l] = static_cast<int>(0xe0000000u);
  }
  return e;
}

// A block of 40 threads: warp 1 has 8 lanes, and its collectives name only those.
__global__ void partial_warp_kernel(int* out) {
  const int t = static_cast<int>(threadIdx.x);
  const unsigned mask = t < 32 ? 0xffffffffu : 0xffu;
  out[t] = static_cast<int>(__ballot_sync(mask, true));
  out[40 + t] = __shfl_sync(mask, t, 0);
  out[80 + t] = __all_sync(mask, t != 3);
  out[120 + t] = __syncthreads_count(1);
}

std::vector<int> expected_partial_warp() {
  std::vector<int> e(160);
  for (int t = 0; t < 40; ++t) {
    e[t] = t < 32 ? -1 : 0xff;
    e[40 + t] = t < 32 ? 0 : 32;
    e[80 + t] = t < 32 ? 0 : 1;
    e[120 + t] = 40;
  }
  return e;
}

__global__ void exit_before_barrier_kernel(int* data) {
  if (threadIdx.x == 40) return;  // thread 40 leaves; everyone else waits for it
  __syncthreads();
  data[threadIdx.x] = 1;
}

__global__ void two_barriers_kernel(int* data) {
  if (threadIdx.x < 32)
    __syncthreads();
  else
    __syncthreads();  // a different barrier: on a GPU, undefined behaviour
  data[threadIdx.x] = 1;
}

__global__ void half_warp_shuffle_kernel(int* data) {
  if (threadIdx.x < 16) data[threadIdx.x] = __shfl_xor_sync(0xffffffffu, 1, 1);  // lanes 16-31 never come
  __syncwarp();
}

__global__ void spin_forever_kernel(int* flag) {
  if (threadIdx.x == 0)
    while (*reinterpret_cast<volatile int*>(flag) == 0) __nanosleep(100);
  __syncthreads();
}

__global__ void counting_atomics_kernel(unsigned long long* total, int* maximum) {
  atomicAdd(total, 1ull);
  atomicMax(maximum, static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x));
}

__global__ void shared_memory_kernel(int* out) {
  __shared__ int tile[64];
  int* dynamic = simt::dynamic_shared<int>();
  tile[threadIdx.x] = static_cast<int>(threadIdx.x + blockIdx.x);
  dynamic[threadIdx.x] = static_cast<int>(2 * threadIdx.x);
  __syncthreads();
  out[blockIdx.x * 64 + threadIdx.x] = tile[63 - threadIdx.x] + dynamic[63 - threadIdx.x];
}

__global__ void throwing_kernel() {
  if (threadIdx.x == 3) throw std::runtime_error("thrown by thread 3");
}

// Producer/consumer inside a warp, legal under independent thread scheduling: lane 1 spins until lane 0 writes.
__global__ void intra_warp_handoff_kernel(int* flag, int* out) {
  if (threadIdx.x == 0) atomicExch(flag, 42);
  if (threadIdx.x == 1) {
    while (atomicAdd(flag, 0) == 0) __nanosleep(10);
    out[0] = atomicAdd(flag, 0);
  }
}

// A max-reduction whose atomics mostly find a larger value already there: they change nothing, yet the loop
// progresses through the input (plain loads the runner cannot see).
__global__ void atomic_max_kernel(const int* in, int n, int* result) {
  for (int i = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x); i < n;
       i += static_cast<int>(blockDim.x * gridDim.x))
    atomicMax(result, in[i]);
}

// A writer that fences after each plain store: every scheduling point is a fence, and the loop still progresses.
__global__ void fenced_writes_kernel(int* out, int n) {
  for (int i = static_cast<int>(threadIdx.x); i < n; i += static_cast<int>(blockDim.x)) {
    out[i] = i;
    __threadfence();
  }
}

// Thread 0 takes the lock and exits without releasing it; the others try to take it forever.
__global__ void lock_never_released_kernel(int* lock) {
  if (threadIdx.x == 0) {
    atomicCAS(lock, 0, 1);
    return;
  }
  while (atomicCAS(lock, 0, 1) != 0) __nanosleep(32);
}

// Thread 0 waits for a flag that nobody sets, with a fence (not __nanosleep) in its spin.
__global__ void fence_spin_kernel(int* flag) {
  if (threadIdx.x == 0)
    while (*reinterpret_cast<volatile int*>(flag) == 0) __threadfence();
}

// Thread 0 uses a local array of `Bytes` while the others keep values in their own frames across the barriers; a
// fiber stack too small for the array would have thread 0 write into another thread's frame. Each thread counts the
// words of its frame that changed (thread 0 also counts a stretch of its array that does not read back).
template <int Bytes>
__attribute__((noinline)) int write_big_frame(unsigned char fill) {
  volatile unsigned char local[Bytes];
  for (int i = 4096 + 16; i < 4096 + 16 + 1024; ++i) local[i] = fill;  // a stretch near the array's low end
  return local[4096 + 16] != fill;
}
template <int Bytes>
__global__ void big_frame_kernel(int* changed) {
  volatile int mine[256];
  for (int i = 0; i < 256; ++i) mine[i] = 12345;
  __syncthreads();
  int count = threadIdx.x == 0 ? write_big_frame<Bytes>(0x5a) : 0;
  __syncthreads();
  for (int i = 0; i < 256; ++i) count += mine[i] != 12345;
  changed[threadIdx.x] = count;
}

// In a child process: runs big_frame_kernel<Bytes> on 4 threads and exits 0 if nothing stopped it. Returns how the
// child ended.
template <int Bytes>
int status_of_child_running_big_frame() {
  std::fflush(nullptr);
  const pid_t child = ::fork();
  if (child == 0) {
    for (const int s : {SIGSEGV, SIGBUS}) std::signal(s, SIG_DFL);  // Catch2 handles them in the test process
    std::vector<int> changed(4, -1);
    simt::launch(dim3(1), dim3(4), &big_frame_kernel<Bytes>, changed.data());
    ::_exit(0);
  }
  int status = 0;
  ::waitpid(child, &status, 0);
  return status;
}

// The deadlock_error message of a one-block launch of `kernel(flag)` that spins on `flag` forever.
std::string spin_report(const simt::options& options, const char* name, unsigned threads, void (*kernel)(int*)) {
  int flag = 0;
  return message_of<simt::deadlock_error>([&] { run(options, name, dim3(1), dim3(threads), kernel, &flag); });
}

}  // namespace

TEST_CASE("the SIMT runner gives shuffles, votes and barriers their CUDA meaning", "[simt][runner]") {
  const auto sc = GENERATE(from_range(all_schedules()));
  SECTION("shuffles, ballots and __syncthreads_count under " + sc.name) {
    std::vector<int> out(12 * 32, -1);
    run(sc.options, "shuffle_kernel", dim3(1), dim3(32), &shuffle_kernel, out.data());
    CHECK(out == expected_shuffles());
  }
  SECTION("a partial last warp votes, shuffles and counts with the lanes it has under " + sc.name) {
    std::vector<int> out(160, -2);
    run(sc.options, "partial_warp_kernel", dim3(1), dim3(40), &partial_warp_kernel, out.data());
    CHECK(out == expected_partial_warp());
  }
  SECTION("atomics, static and dynamic shared memory under " + sc.name) {
    unsigned long long total = 0;
    int maximum = -1;
    run(sc.options, "counting_atomics_kernel", dim3(5), dim3(96), &counting_atomics_kernel, &total, &maximum);
    CHECK(total == 5 * 96);
    CHECK(maximum == 5 * 96 - 1);

    std::vector<int> out(3 * 64);
    simt::launch_config config;
    config.grid = dim3(3);
    config.block = dim3(64);
    config.dynamic_shared_bytes = 64 * sizeof(int);
    config.opts = &sc.options;
    simt::launch(config, &shared_memory_kernel, out.data());
    for (int b = 0; b < 3; ++b)
      for (int t = 0; t < 64; ++t) CHECK(out[b * 64 + t] == (63 - t + b) + 2 * (63 - t));
  }
  SECTION("a lane may spin on another lane of its warp under " + sc.name) {
    int flag = 0, out = 0;
    run(sc.options, "intra_warp_handoff_kernel", dim3(1), dim3(32), &intra_warp_handoff_kernel, &flag, &out);
    CHECK(out == 42);
  }
}

TEST_CASE("the SIMT runner reports wrong synchronisation instead of hanging", "[simt][runner]") {
  const auto sc = GENERATE(from_range(all_schedules()));
  std::vector<int> data(1024);
  SECTION("a thread that exits while the block waits at __syncthreads, under " + sc.name) {
    CHECK_THAT(message_of<simt::divergence_error>([&] {
                 run(sc.options, "exit_before_barrier_kernel", dim3(2), dim3(64), &exit_before_barrier_kernel,
                     data.data());
               }),
               Catch::Matchers::Contains("exit_before_barrier_kernel") && Catch::Matchers::Contains("block (") &&
                   Catch::Matchers::Contains("40") && Catch::Matchers::Contains("__syncthreads()"));
  }
  SECTION("two different __syncthreads() in divergent branches, under " + sc.name) {
    CHECK_THAT(message_of<simt::divergence_error>([&] {
                 run(sc.options, "two_barriers_kernel", dim3(1), dim3(64), &two_barriers_kernel, data.data());
               }),
               Catch::Matchers::Contains("two_barriers_kernel") && Catch::Matchers::Contains("threads"));
  }
  SECTION("a shuffle that names lanes which wait elsewhere, under " + sc.name) {
    CHECK_THAT(message_of<simt::divergence_error>([&] {
                 run(sc.options, "half_warp_shuffle_kernel", dim3(1), dim3(32), &half_warp_shuffle_kernel, data.data());
               }),
               Catch::Matchers::Contains("half_warp_shuffle_kernel") &&
                   Catch::Matchers::Contains("__shfl_xor_sync()") && Catch::Matchers::Contains("lane"));
  }
  SECTION("a spin loop that nothing will end, under " + sc.name) {
    CHECK_THAT(spin_report(sc.options, "spin_forever_kernel", 64, &spin_forever_kernel),
               Catch::Matchers::Contains("spin_forever_kernel") && Catch::Matchers::Contains("thread 0 spinning") &&
                   Catch::Matchers::Contains("in the same state"));
  }
}

TEST_CASE("the SIMT runner tells loops that make progress from spins that nothing will end", "[simt][runner][spin]") {
  // Two schedules suffice for the correct kernels (each makes 2^21 scheduling points); the spins run under all.
  const auto sc = GENERATE(from_range(all_schedules()));
  const bool long_runs =
      sc.options.block_order == simt::block_order::forward &&
      (sc.options.schedule == simt::schedule::forward || sc.options.schedule == simt::schedule::run_to_barrier);
  const int n = 1 << 21;
  if (long_runs) {
    SECTION("an atomicMax reduction over 2^21 values in one block, whose atomics find the maximum early, under " +
            sc.name) {
      std::vector<int> in(n, 1);
      in[0] = 1000;
      in[n / 2] = 999;
      int result = 0;
      run(sc.options, "atomic_max_kernel", dim3(1), dim3(256), &atomic_max_kernel, in.data(), n, &result);
      CHECK(result == *std::max_element(in.begin(), in.end()));
    }
    SECTION("a warp that fences after each of 2^21 plain stores, under " + sc.name) {
      std::vector<int> out(n, -1), expected(n);
      for (int i = 0; i < n; ++i) expected[i] = i;
      run(sc.options, "fenced_writes_kernel", dim3(1), dim3(32), &fenced_writes_kernel, out.data(), n);
      CHECK(out == expected);
    }
  }
  SECTION("a lock that is never released, under " + sc.name) {
    CHECK_THAT(spin_report(sc.options, "lock_never_released_kernel", 64, &lock_never_released_kernel),
               Catch::Matchers::Contains("lock_never_released_kernel") && Catch::Matchers::Contains("spinning") &&
                   Catch::Matchers::Contains("in the same state"));
  }
  SECTION("a spin on a plain flag with only a fence in it, under " + sc.name) {
    CHECK_THAT(spin_report(sc.options, "fence_spin_kernel", 32, &fence_spin_kernel),
               Catch::Matchers::Contains("fence_spin_kernel") && Catch::Matchers::Contains("thread 0 spinning") &&
                   Catch::Matchers::Contains("in the same state"));
  }
}

TEST_CASE("the SIMT runner gives every thread a stack of CUDA's local-memory size, guarded", "[simt][runner][stack]") {
  SECTION("a thread with a 72 KiB local array leaves the other threads' frames alone") {
    std::vector<int> changed(2, -1);
    simt::launch(dim3(1), dim3(2), &big_frame_kernel<72 * 1024>, changed.data());
    CHECK(changed == std::vector<int>{0, 0});
  }
  SECTION("a frame larger than the stack ends the process with a fault instead of writing into another stack") {
    const int fits = status_of_child_running_big_frame<400 * 1024>();
    CHECK((WIFEXITED(fits) && WEXITSTATUS(fits) == 0));
    const int overflows = status_of_child_running_big_frame<1024 * 1024>();
    CHECK((WIFSIGNALED(overflows) && WTERMSIG(overflows) == SIGSEGV));
  }
}

TEST_CASE("the SIMT runner rejects bad launches and passes on exceptions", "[simt][runner]") {
  CHECK_THROWS_AS(simt::launch(dim3(1), dim3(2048), &throwing_kernel), simt::launch_error);
  CHECK_THROWS_AS(simt::launch(dim3(0), dim3(32), &throwing_kernel), simt::launch_error);
  SECTION("dynamic shared memory beyond sm_90's 227 KiB per block") {
    std::vector<int> out(64);
    simt::launch_config config;
    config.grid = dim3(1);
    config.block = dim3(64);
    config.kernel_name = "shared_memory_kernel";
    config.dynamic_shared_bytes = 227 * 1024;  // the most a block may opt in to
    simt::launch(config, &shared_memory_kernel, out.data());
    for (int t = 0; t < 64; ++t) CHECK(out[t] == (63 - t) + 2 * (63 - t));
    config.dynamic_shared_bytes = 227 * 1024 + 1;
    CHECK_THROWS_MATCHES(simt::launch(config, &shared_memory_kernel, out.data()), simt::launch_error,
                         Catch::Matchers::Message(
                             "simt: kernel 'shared_memory_kernel': 232449 bytes of dynamic shared memory, more than "
                             "the 232448 a block may have (sm_90, opted in)"));
  }
  CHECK_THROWS_WITH(simt::launch(dim3(2), dim3(32), &throwing_kernel), "thrown by thread 3");
  CHECK_THROWS_AS(__syncthreads(), simt::error);  // outside a kernel
}
