// simt/simt.hpp — runs CUDA kernels on the CPU, one fiber per CUDA thread, and fails loudly on wrong
// synchronisation.
//
// The same kernel source that nvcc compiles for the GPU compiles with g++ against this header: it supplies
// `__global__`, `__device__`, `__shared__`, `threadIdx`/`blockIdx`/`blockDim`/`gridDim`, `__syncthreads`,
// `__syncwarp`, `__shfl*_sync`, the warp votes, atomics, `__threadfence` and `__nanosleep` with the semantics of
// Volta and later (independent thread scheduling: lanes of a warp meet only where the code says so).
//
//   __global__ void add_one(int* data, int n) {
//     int i = blockIdx.x * blockDim.x + threadIdx.x;
//     if (i < n) data[i] += 1;
//   }
//   simt::launch(dim3(4), dim3(256), add_one, data, n);   // what add_one<<<4, 256>>>(data, n) does on a GPU
//
// How it runs: the blocks of a launch run one after another, in a chosen order (forward, reverse, shuffled).
// Inside a block every thread is a fiber; between scheduling points (barriers, shuffles, votes, atomics,
// fences, __nanosleep) the runner switches fibers in a chosen schedule (forward, reverse, seeded random,
// run-to-barrier, warp-at-a-time). Code that lacks a barrier it needs gives a wrong answer under a schedule that
// lets the threads on one side of the missing barrier run ahead of the others; the tests sweep all of them, but a
// schedule is no proof: a race that only some interleaving within a warp exposes may pass them all.
// What it refuses, instead of hanging:
//   - a lane named in a barrier's mask that exits, or waits at a different barrier → simt::divergence_error
//   - no fiber can progress (all wait, or spin: come back to the same __nanosleep, fence or atomic in the same
//     state, finding the same value, with nothing changing elsewhere) → simt::deadlock_error
// Each message names the kernel, the block and the lanes. Every thread has a 512 KiB stack (CUDA's most local
// memory); a frame that overflows it faults (SIGSEGV) instead of writing into another thread's stack.
//
// `__shared__` variables are `static thread_local`: one copy per host thread, shared by the fibers of the block
// that runs on it — which is exactly the block's shared memory, because blocks of a launch run one at a time.
// Unlike a GPU's, they keep what the previous block (or launch) left in them, and start out zero: the runner
// cannot enumerate them to poison them, so a kernel that reads static shared memory before writing it may pass
// here. Dynamic shared memory (the launch's third parameter, at most 227 KiB as on sm_90) is filled with 0xA5
// before every block instead. It is reached with simt::dynamic_shared<T>() — portable code uses
// dpt::kernels::dynamic_shared<T>(), which is `extern __shared__` under nvcc. An exception thrown by a kernel
// thread ends the launch and reaches the caller as it was thrown, without the kernel and block that the runner's
// own errors name. Spin loops must contain __nanosleep, an atomic or __threadfence (the runner cannot see a plain
// volatile read).
//
// What it cannot show, so only a GPU run (scripts/gpu-check, with compute-sanitizer) can: memory is never
// reordered, and a thread runs alone between scheduling points, so a plain read-modify-write (h[key]++ without an
// atomic) never loses an update here; blocks publish to one another only in the order they run, so a flag stored
// before the value it guards (a release store made relaxed) still reads right; and lanes meeting at a shuffle are
// matched by where the shuffle helper is written, so two different shuffles of dpt::kernels' helpers reached by
// diverged lanes are not told apart.
#pragma once

#if defined(__CUDACC__)
#  error "simt.hpp emulates CUDA on the host; under nvcc kernels run natively"
#endif

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>

// dim3 and uint3 are CUDA's own (vector_types.h is plain C++ and the toolkit is present in every dpt build),
// so code that mixes this header with CCCL's headers sees one dim3.
#include <vector_types.h>

namespace simt {

using ::dim3;
using ::uint3;

// Everything the runner throws derives from simt::error.
struct error : std::runtime_error {
  using std::runtime_error::runtime_error;
};
// A lane in a barrier's (or shuffle's, or vote's) mask exited or waits at a different barrier.
struct divergence_error : error {
  using error::error;
};
// No fiber can progress: every live fiber waits, or spins without changing anything.
struct deadlock_error : error {
  using error::error;
};
// An invalid launch configuration (what CUDA reports as cudaErrorInvalidConfiguration).
struct launch_error : error {
  using error::error;
};

// How fibers of a block take turns between scheduling points.
enum class schedule {
  forward,         // round robin in increasing thread order, switching at every scheduling point
  reverse,         // round robin in decreasing thread order, switching at every scheduling point
  random,          // a seeded random ready fiber at every scheduling point
  run_to_barrier,  // each fiber runs until it must wait (barrier, shuffle, vote, __nanosleep); fastest
  // Round robin within one warp, switching at every scheduling point, until every lane of the warp waits or has
  // exited, or a lane polls (an atomic that changes nothing, a fence, __nanosleep: it may wait for another warp);
  // then the next warp. One warp thus runs as far ahead of the others as it can: past the end of a block scan
  // into the next use of its TempStorage, when the barrier between them is missing.
  warp_at_a_time,
};
// The order in which the blocks of a launch run.
enum class block_order { forward, reverse, shuffled };

const char* name(schedule s);
const char* name(block_order o);

struct options {
  simt::schedule schedule = schedule::run_to_barrier;
  simt::block_order block_order = block_order::forward;
  std::uint64_t seed = 0;  // for schedule::random and block_order::shuffled
};

// The options launches use when they are not given any; per host thread.
options default_options();
// Sets default_options() for its lifetime (tests run the same host code under many schedules).
class scoped_options {
 public:
  explicit scoped_options(const options& o);
  ~scoped_options();
  scoped_options(const scoped_options&) = delete;
  scoped_options& operator=(const scoped_options&) = delete;

 private:
  options saved_;
};

struct launch_config {
  dim3 grid, block;
  std::size_t dynamic_shared_bytes = 0;
  const char* kernel_name = "kernel";
  const options* opts = nullptr;  // nullptr: default_options()
};

// How many fibers switches have happened on this host thread (for the switch-rate benchmark).
std::uint64_t switch_count();

namespace detail {

// A program point, for matching lanes at barriers and for error messages.
struct site {
  const char* what;
  const char* file;
  int line;
};

enum class shuffle_kind { idx, up, down, bfly };

void launch(const launch_config& config, void (*thread_body)(void*), void* context);

// The fiber-side half of the runner; each is a scheduling point.
void sync_block(const site& at);
int sync_block_reduce(const site& at, int predicate, int how);  // how: 0 count, 1 and, 2 or
void sync_warp(const site& at, unsigned mask);
std::uint64_t shuffle(const site& at, unsigned mask, shuffle_kind kind, std::uint64_t bits, int lane_arg, int width);
unsigned ballot(const site& at, unsigned mask, bool predicate);
unsigned active_mask();
// `changed`: whether the operation wrote memory (progress); otherwise it only looked at `observed` (the value
// it found at `address`), and whether that was a spin depends on what the fiber does next time (spin_detector.hpp).
void memory_point(const void* address, std::uint64_t observed, bool changed);
void fence_point();
void sleep_point();
void* dynamic_shared_memory();
std::size_t dynamic_shared_bytes();

template <class Tuple, class Kernel>
struct kernel_call {
  Kernel kernel;
  Tuple args;
  static void run(void* self) {
    auto* call = static_cast<kernel_call*>(self);
    Tuple copy = call->args;  // every CUDA thread gets its own copy of the parameters
    std::apply(call->kernel, copy);
  }
};

}  // namespace detail

// kernel<<<config.grid, config.block, config.dynamic_shared_bytes>>>(args...), on the host.
template <class... Params, class... Args>
void launch(const launch_config& config, void (*kernel)(Params...), Args&&... args) {
  static_assert(sizeof...(Params) == sizeof...(Args), "simt::launch: wrong number of kernel arguments");
  using tuple = std::tuple<std::decay_t<Params>...>;
  detail::kernel_call<tuple, void (*)(Params...)> call{kernel, tuple(std::forward<Args>(args)...)};
  detail::launch(config, &decltype(call)::run, &call);
}

template <class... Params, class... Args>
void launch(dim3 grid, dim3 block, void (*kernel)(Params...), Args&&... args) {
  launch_config config;
  config.grid = grid;
  config.block = block;
  launch(config, kernel, std::forward<Args>(args)...);
}

// The launch's dynamic shared memory, as `extern __shared__ T name[];` gives it under nvcc.
template <class T>
T* dynamic_shared() {
  return static_cast<T*>(detail::dynamic_shared_memory());
}

namespace detail {

template <class T>
std::uint64_t to_bits(T value) {
  static_assert(std::is_trivially_copyable_v<T> && sizeof(T) <= 8, "shuffles move values of at most 8 bytes");
  std::uint64_t bits = 0;
  std::memcpy(&bits, &value, sizeof(T));
  return bits;
}
template <class T>
T from_bits(std::uint64_t bits) {
  T value;
  std::memcpy(&value, &bits, sizeof(T));
  return value;
}

}  // namespace detail
}  // namespace simt

// ---- The CUDA dialect, at global scope as nvcc provides it -------------------------------------------------

// CUDA's host_defines.h (pulled in by vector_types.h) defines these as nothing for a host compiler; here
// __shared__ must mean "one copy per block", so they are all redefined.
#undef __global__
#undef __device__
#undef __host__
#undef __shared__
#define __global__
#define __device__
#define __host__
#define __shared__ static thread_local
#ifndef __forceinline__
#  define __forceinline__ inline
#endif
#ifndef __launch_bounds__
#  define __launch_bounds__(...)
#endif

inline thread_local uint3 threadIdx;
inline thread_local uint3 blockIdx;
inline thread_local dim3 blockDim;
inline thread_local dim3 gridDim;
constexpr int warpSize = 32;

#define SIMT_SITE_PARAMS const char *simt_file_ = __builtin_FILE(), int simt_line_ = __builtin_LINE()
#define SIMT_SITE(what)          \
  simt::detail::site {           \
    what, simt_file_, simt_line_ \
  }

inline void __syncthreads(SIMT_SITE_PARAMS) {
  simt::detail::sync_block(SIMT_SITE("__syncthreads()"));
}
inline int __syncthreads_count(int predicate, SIMT_SITE_PARAMS) {
  return simt::detail::sync_block_reduce(SIMT_SITE("__syncthreads_count()"), predicate, 0);
}
inline int __syncthreads_and(int predicate, SIMT_SITE_PARAMS) {
  return simt::detail::sync_block_reduce(SIMT_SITE("__syncthreads_and()"), predicate, 1);
}
inline int __syncthreads_or(int predicate, SIMT_SITE_PARAMS) {
  return simt::detail::sync_block_reduce(SIMT_SITE("__syncthreads_or()"), predicate, 2);
}
inline void __syncwarp(unsigned mask = 0xffffffffu, SIMT_SITE_PARAMS) {
  simt::detail::sync_warp(SIMT_SITE("__syncwarp()"), mask);
}

template <class T>
T __shfl_sync(unsigned mask, T var, int src_lane, int width = warpSize, SIMT_SITE_PARAMS) {
  return simt::detail::from_bits<T>(simt::detail::shuffle(
      SIMT_SITE("__shfl_sync()"), mask, simt::detail::shuffle_kind::idx, simt::detail::to_bits(var), src_lane, width));
}
template <class T>
T __shfl_up_sync(unsigned mask, T var, unsigned delta, int width = warpSize, SIMT_SITE_PARAMS) {
  return simt::detail::from_bits<T>(simt::detail::shuffle(SIMT_SITE("__shfl_up_sync()"), mask,
                                                          simt::detail::shuffle_kind::up, simt::detail::to_bits(var),
                                                          static_cast<int>(delta), width));
}
template <class T>
T __shfl_down_sync(unsigned mask, T var, unsigned delta, int width = warpSize, SIMT_SITE_PARAMS) {
  return simt::detail::from_bits<T>(simt::detail::shuffle(SIMT_SITE("__shfl_down_sync()"), mask,
                                                          simt::detail::shuffle_kind::down, simt::detail::to_bits(var),
                                                          static_cast<int>(delta), width));
}
template <class T>
T __shfl_xor_sync(unsigned mask, T var, int lane_mask, int width = warpSize, SIMT_SITE_PARAMS) {
  return simt::detail::from_bits<T>(simt::detail::shuffle(SIMT_SITE("__shfl_xor_sync()"), mask,
                                                          simt::detail::shuffle_kind::bfly, simt::detail::to_bits(var),
                                                          lane_mask, width));
}

inline unsigned __ballot_sync(unsigned mask, int predicate, SIMT_SITE_PARAMS) {
  return simt::detail::ballot(SIMT_SITE("__ballot_sync()"), mask, predicate != 0);
}
inline int __any_sync(unsigned mask, int predicate, SIMT_SITE_PARAMS) {
  return simt::detail::ballot(SIMT_SITE("__any_sync()"), mask, predicate != 0) != 0;
}
inline int __all_sync(unsigned mask, int predicate, SIMT_SITE_PARAMS) {
  return simt::detail::ballot(SIMT_SITE("__all_sync()"), mask, predicate != 0) == mask;
}
// The lanes of the calling warp that have not exited (on a GPU: the lanes converged here, a subset of those).
inline unsigned __activemask() {
  return simt::detail::active_mask();
}

#undef SIMT_SITE
#undef SIMT_SITE_PARAMS

inline void __threadfence() {
  simt::detail::fence_point();
}
inline void __threadfence_block() {
  simt::detail::fence_point();
}
inline void __threadfence_system() {
  simt::detail::fence_point();
}
// The position of the least significant set bit, counting from 1; 0 for 0.
inline int __ffs(int x) {
  return __builtin_ffs(x);
}
// Lets other fibers run: a spin loop with __nanosleep makes progress, or is reported as a deadlock.
inline void __nanosleep(unsigned) {
  simt::detail::sleep_point();
}

// Atomics. Fibers of a launch run on one host thread, one at a time, so a read-modify-write between two
// scheduling points is atomic; each atomic is itself a scheduling point, taken before the operation.
namespace simt::detail {
template <class T, class Update>
T atomic_update(T* address, Update update) {
  const T old = *address;
  const T desired = update(old);
  const bool changed = std::memcmp(&old, &desired, sizeof(T)) != 0;
  std::uint64_t observed = 0;
  std::memcpy(&observed, &old, sizeof(T) < sizeof observed ? sizeof(T) : sizeof observed);
  memory_point(address, observed, changed);
  const T current = *address;  // re-read: another fiber may have run at the scheduling point
  *address = update(current);
  return current;
}
}  // namespace simt::detail

template <class T>
T atomicAdd(T* address, T value) {
  return simt::detail::atomic_update(address, [value](T old) { return static_cast<T>(old + value); });
}
template <class T>
T atomicSub(T* address, T value) {
  return simt::detail::atomic_update(address, [value](T old) { return static_cast<T>(old - value); });
}
template <class T>
T atomicExch(T* address, T value) {
  return simt::detail::atomic_update(address, [value](T) { return value; });
}
template <class T>
T atomicMin(T* address, T value) {
  return simt::detail::atomic_update(address, [value](T old) { return value < old ? value : old; });
}
template <class T>
T atomicMax(T* address, T value) {
  return simt::detail::atomic_update(address, [value](T old) { return old < value ? value : old; });
}
template <class T>
T atomicAnd(T* address, T value) {
  return simt::detail::atomic_update(address, [value](T old) { return static_cast<T>(old & value); });
}
template <class T>
T atomicOr(T* address, T value) {
  return simt::detail::atomic_update(address, [value](T old) { return static_cast<T>(old | value); });
}
template <class T>
T atomicXor(T* address, T value) {
  return simt::detail::atomic_update(address, [value](T old) { return static_cast<T>(old ^ value); });
}
template <class T>
T atomicCAS(T* address, T compare, T value) {
  return simt::detail::atomic_update(address, [compare, value](T old) { return old == compare ? value : old; });
}
