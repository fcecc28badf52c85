// dpt/kernels/cuda.hpp — the few things hand-written kernels need that differ between nvcc and the host SIMT
// runner: how a kernel is launched, what a stream is, where scratch memory comes from, and how values of any
// trivially copyable type move between lanes.
//
// Under nvcc kernels launch natively with <<<…>>>, every CUDA call is checked, and in debug builds every
// launch is followed by a synchronising error check. Otherwise the same kernel runs on the CPU through
// simt::launch (custom_kernels/simt), so callers see one function either way.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <string>
#include <type_traits>

#include <cuda/atomic>

#if defined(__CUDACC__)
#  include <cuda_runtime.h>

#  include <mutex>
#  include <vector>
#else
#  include <cstdlib>
#  include <new>

#  include "simt/simt.hpp"
#endif

namespace dpt::kernels {

#if defined(__CUDACC__)
using stream_t = cudaStream_t;
#else
struct simt_stream;             // kernels on the SIMT runner run synchronously, in order;
using stream_t = simt_stream*;  // a stream is accepted for the callers' sake and otherwise ignored
#endif

// A CUDA runtime call failed; the message names the call and CUDA's description of the error.
struct cuda_error : std::runtime_error {
  using std::runtime_error::runtime_error;
};

namespace detail {

#if defined(__CUDACC__)
inline void check(cudaError_t status, const char* what) {
  if (status != cudaSuccess)
    throw cuda_error(std::string(what) + ": " + cudaGetErrorName(status) + ": " + cudaGetErrorString(status));
}
#endif

// A one-dimensional grid of `blocks` blocks; CUDA allows at most 2^31 - 1.
inline dim3 grid_of(std::int64_t tiles) {
  if (tiles > 2147483647) throw std::invalid_argument("dpt::kernels: more than 2^31 - 1 tiles");
  return dim3(static_cast<unsigned>(tiles));
}

// kernel<<<grid, block, 0, stream>>>(args...) — natively under nvcc, on the SIMT runner otherwise.
template <class... Params, class... Args>
void launch(const char* name, dim3 grid, dim3 block, stream_t stream, void (*kernel)(Params...), Args&&... args) {
#if defined(__CUDACC__)
  kernel<<<grid, block, 0, stream>>>(static_cast<Params>(args)...);
  check(cudaGetLastError(), name);
#  if !defined(NDEBUG)
  check(cudaStreamSynchronize(stream), name);  // debug builds: report a failing kernel at its launch
#  endif
#else
  (void)stream;
  simt::launch_config config;
  config.grid = grid;
  config.block = block;
  config.kernel_name = name;
  simt::launch(config, kernel, static_cast<Params>(args)...);
#endif
}

#if defined(__CUDACC__)
// The stream-ordered pool that scratch comes from: one of dpt's own per device, which keeps what is freed. The
// device's default pool has a release threshold of 0: at every synchronisation it hands freed memory back, and
// the next cudaMallocAsync maps pages again while the GPU idles between the scan's launches, which makes a small
// custom scan several times slower than CUB's (docs/benchmarks/gpu/README.md).
inline cudaMemPool_t scratch_pool() {
  int device = 0;
  check(cudaGetDevice(&device), "cudaGetDevice");
  static std::mutex mutex;
  static std::vector<cudaMemPool_t> pools;  // by device, created on first use, kept for the process
  const std::lock_guard<std::mutex> lock(mutex);
  if (pools.empty()) {
    int devices = 0;
    check(cudaGetDeviceCount(&devices), "cudaGetDeviceCount");
    pools.assign(static_cast<std::size_t>(devices), nullptr);
  }
  cudaMemPool_t& cached = pools.at(static_cast<std::size_t>(device));
  if (!cached) {
    cudaMemPoolProps properties{};
    properties.allocType = cudaMemAllocationTypePinned;
    properties.handleTypes = cudaMemHandleTypeNone;
    properties.location.type = cudaMemLocationTypeDevice;
    properties.location.id = device;
    cudaMemPool_t pool = nullptr;
    check(cudaMemPoolCreate(&pool, &properties), "cudaMemPoolCreate");
    std::uint64_t keep_everything = UINT64_MAX;
    const cudaError_t status = cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &keep_everything);
    if (status != cudaSuccess) cudaMemPoolDestroy(pool);  // cached only once fully set up; the next call retries
    check(status, "cudaMemPoolSetAttribute(cudaMemPoolAttrReleaseThreshold)");
    cached = pool;
  }
  return cached;
}
#endif

// Zeroes `bytes` bytes of device memory, stream-ordered.
inline void zero_async(void* data, std::size_t bytes, stream_t stream) {
  if (bytes == 0) return;
#if defined(__CUDACC__)
  check(cudaMemsetAsync(data, 0, bytes, stream), "cudaMemsetAsync");
#else
  (void)stream;
  std::memset(data, 0, bytes);
#endif
}

// Scratch memory in the device's memory space, stream-ordered under CUDA (from scratch_pool()), released when
// it goes out of scope.
class device_buffer {
 public:
  device_buffer(std::size_t bytes, stream_t stream) : bytes_(bytes), stream_(stream) {
    if (bytes_ == 0) return;
#if defined(__CUDACC__)
    check(cudaMallocFromPoolAsync(&data_, bytes_, scratch_pool(), stream_), "cudaMallocFromPoolAsync");
#else
    data_ = std::aligned_alloc(256, (bytes_ + 255) / 256 * 256);  // aligned as cudaMalloc's memory is
    if (!data_) throw std::bad_alloc();
#endif
  }
  device_buffer(const device_buffer&) = delete;
  device_buffer& operator=(const device_buffer&) = delete;
  ~device_buffer() {
    if (!data_) return;
#if defined(__CUDACC__)
    // Not checked: a destructor cannot throw, and it also runs while an error from this buffer's kernels unwinds
    // the stack. An error that broke the context comes back from the caller's next checked call; any other stays
    // in the last-error slot, which the next launch() reads (and reports under that kernel's name).
    cudaFreeAsync(data_, stream_);
#else
    std::free(data_);
#endif
  }
  template <class T>
  T* as() const {
    return static_cast<T*>(data_);
  }
  // Zeroes the first `bytes` bytes (at most all of them), stream-ordered.
  void zero(std::size_t bytes) {
    zero_async(data_, bytes < bytes_ ? bytes : bytes_, stream_);
  }

 private:
  void* data_ = nullptr;
  std::size_t bytes_;
  stream_t stream_;
};

// Every piece of a scan's scratch starts 16-byte aligned, or more where T needs it (cudaMalloc gives 256).
template <class T>
constexpr std::size_t scratch_alignment = alignof(T) > 16 ? alignof(T) : 16;

// Throws std::invalid_argument unless caller-owned scratch holds `needed` bytes at `alignment`.
inline void check_temp_storage(const char* who, const void* d_temp_storage, std::size_t temp_storage_bytes,
                               std::size_t needed, std::size_t alignment) {
  if (temp_storage_bytes < needed)
    throw std::invalid_argument(std::string(who) + ": temp_storage_bytes is less than the size query asked for");
  if (reinterpret_cast<std::uintptr_t>(d_temp_storage) % alignment != 0)
    throw std::invalid_argument(std::string(who) + ": d_temp_storage is not aligned to " + std::to_string(alignment) +
                                " bytes");
}

// The most static `__shared__` memory one block may declare (more takes dynamic shared memory and an opt-in).
// Kernels assert their storage against it, so the SIMT runner refuses what a GPU build would.
inline constexpr std::size_t static_shared_memory_limit = 48 * 1024;

// Storage for N values of T without constructing them: `__shared__` variables cannot have constructors under
// nvcc, and every slot is written before it is read.
template <class T, int N>
struct uninitialized_array {
  static_assert(std::is_trivially_copyable<T>::value, "kernels move values of trivially copyable types");
  alignas(T) unsigned char bytes[sizeof(T) * N];
  __device__ T& operator[](int i) { return reinterpret_cast<T*>(bytes)[i]; }
};

// Shared memory for N values of T with one padding element after every 128 bytes of elements. Threads that
// access elements a power of two apart would all hit the same of the 32 four-byte banks; the padding shifts
// the k-th row of banks by k, so that they hit distinct ones. Indexed as the unpadded array.
template <class T, int N>
struct bank_padded_array {
  static constexpr int per_row = sizeof(T) <= 128 ? static_cast<int>(128 / sizeof(T)) : 1 << 30;
  uninitialized_array<T, N + N / per_row + 1> slots;
  __device__ T& operator[](int i) { return slots[i + i / per_row]; }
};

// The launch's dynamic shared memory: `extern __shared__` under nvcc, the SIMT runner's per-block buffer
// otherwise (a host compiler cannot give `extern __shared__` a per-block meaning).
template <class T>
__device__ T* dynamic_shared() {
#if defined(__CUDACC__)
  extern __shared__ __align__(16) unsigned char dpt_dynamic_shared_memory[];
  return reinterpret_cast<T*>(dpt_dynamic_shared_memory);
#else
  return simt::dynamic_shared<T>();
#endif
}

// The thread's number in its block, and its lane in its warp.
__device__ inline unsigned thread_rank() {
  return (threadIdx.z * blockDim.y + threadIdx.y) * blockDim.x + threadIdx.x;
}
__device__ inline unsigned lane_rank() {
  return thread_rank() % 32u;
}

constexpr unsigned full_warp = 0xffffffffu;

// Any trivially copyable T through a warp shuffle, moved as 32-bit words as cub::ShuffleUp does;
// `shuffle_word(word)` is the __shfl_*_sync of one word.
template <class T, class ShuffleWord>
__device__ T shuffle_words(const T& value, ShuffleWord shuffle_word) {
  static_assert(std::is_trivially_copyable<T>::value, "shuffled values must be trivially copyable");
  constexpr int words = static_cast<int>((sizeof(T) + 3) / 4);
  unsigned in[words] = {}, out[words];
  std::memcpy(in, &value, sizeof(T));
  for (int w = 0; w < words; ++w) out[w] = shuffle_word(in[w]);
  T result;
  std::memcpy(&result, out, sizeof(T));
  return result;
}
template <class T>
__device__ T shuffle_up(unsigned mask, const T& value, unsigned delta) {
  return shuffle_words(value, [&](unsigned word) { return __shfl_up_sync(mask, word, delta); });
}
template <class T>
__device__ T shuffle_down(unsigned mask, const T& value, unsigned delta) {
  return shuffle_words(value, [&](unsigned word) { return __shfl_down_sync(mask, word, delta); });
}

// Device-scope atomic loads and stores of one 32- or 64-bit word (cuda::atomic_ref; PTX ld/st.relaxed.gpu,
// ld.acquire.gpu, st.release.gpu), for flags that blocks publish to each other during a kernel. A release store
// makes the thread's earlier writes visible to a thread whose acquire load reads what it stored. A flag ordered
// this way needs no __threadfence(): that is fence.sc.gpu, which the PTX ISA calls slower than fence.acq_rel,
// the fence that acquire and release patterns need.
template <class Word>
__device__ Word load_relaxed(Word* address) {
  return cuda::atomic_ref<Word, cuda::thread_scope_device>(*address).load(cuda::memory_order_relaxed);
}
template <class Word>
__device__ Word load_acquire(Word* address) {
  return cuda::atomic_ref<Word, cuda::thread_scope_device>(*address).load(cuda::memory_order_acquire);
}
template <class Word>
__device__ void store_relaxed(Word* address, Word value) {
  cuda::atomic_ref<Word, cuda::thread_scope_device>(*address).store(value, cuda::memory_order_relaxed);
}
template <class Word>
__device__ void store_release(Word* address, Word value) {
  cuda::atomic_ref<Word, cuda::thread_scope_device>(*address).store(value, cuda::memory_order_release);
}

// How many 32-bit words hold a T (the last one padded with zeros).
template <class T>
constexpr std::size_t words_of = (sizeof(T) + 3) / 4;

// Loads and stores that bypass the non-coherent L1 cache, for values another block publishes during the kernel.
// The value lives in words_of<T> 32-bit words of its own, not in an array of T, so any trivially copyable T
// travels (a 6-byte struct, an 8-byte one aligned to 1): it is copied to and from the words with memcpy. Only the
// words need 4-byte alignment. Each word is one volatile access; the protocol around them (a flag stored with
// release semantics after the words, loaded with acquire semantics before them) orders them.
template <class T>
__device__ T load_volatile(const unsigned* source) {
  static_assert(std::is_trivially_copyable<T>::value, "published values must be trivially copyable");
  unsigned words[words_of<T>];
  const volatile unsigned* from = source;
  for (std::size_t w = 0; w < words_of<T>; ++w) words[w] = from[w];
  T result;
  std::memcpy(&result, words, sizeof(T));
  return result;
}
template <class T>
__device__ void store_volatile(unsigned* target, const T& value) {
  static_assert(std::is_trivially_copyable<T>::value, "published values must be trivially copyable");
  unsigned words[words_of<T>] = {};
  std::memcpy(words, &value, sizeof(T));
  volatile unsigned* to = target;
  for (std::size_t w = 0; w < words_of<T>; ++w) to[w] = words[w];
}

}  // namespace detail

// a + b, the operator of the *Sum scans.
struct sum {
  template <class T>
  __host__ __device__ T operator()(const T& a, const T& b) const {
    return a + b;
  }
};

}  // namespace dpt::kernels
