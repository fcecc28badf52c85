// dpt/detail/histogram_atomics.hpp — the histogram methods the lecture argues against, kept for comparison:
// one atomic increment per value (contention when many values share a bin), privatised atomics (a private
// histogram per CUDA block in shared memory, or per chunk of the input on a CPU, merged at the end), and
// cub::DeviceHistogram. Each counts into K + 3 slots (K bins, below, above, NaN) like the sort-based methods
// in dpt/histogram.hpp, which is the only header that should include this one.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cuda/atomic>
#include <limits>
#include <stdexcept>
#include <thread>
#include <thrust/fill.h>
#include <thrust/for_each.h>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/iterator/transform_iterator.h>
#include <thrust/transform.h>

#include <dpt/config.hpp>
#include <dpt/detail/temporary_array.hpp>

#if DPT_CUDA_DEVICE_SYSTEM
#  include <cub/device/device_histogram.cuh>
#  include <dpt/detail/cuda_check.hpp>
#endif

namespace dpt::detail {

// The counter every histogram method counts in: 64 bits, and a type CUDA's atomicAdd and CUB accept.
using bin_counter = unsigned long long;

// One relaxed atomic increment of slot bin_of(x): the order of increments does not matter, only their sum.
template <class BinIndex>
struct increment_slot_atomically {
  BinIndex bin_of;
  bin_counter* slots;
  template <class T>
  DPT_HOST_DEVICE void operator()(const T& x) const {
    ::cuda::atomic_ref<bin_counter, ::cuda::thread_scope_device> slot(slots[bin_of(x)]);
    slot.fetch_add(1, ::cuda::memory_order_relaxed);
  }
};

// Every value increments its slot in the one shared histogram.
template <class DerivedPolicy, class InputIt, class BinIndex, class SlotIt>
void count_by_atomics(const thrust::detail::execution_policy_base<DerivedPolicy>& exec, InputIt first, std::ptrdiff_t n,
                      BinIndex bin_of, int slot_count, SlotIt slots) {
  thrust::fill_n(exec, slots, slot_count, bin_counter{0});
  // map + atomic add: each value bumps its bin's counter
  thrust::for_each(exec, first, first + n,
                   increment_slot_atomically<BinIndex>{bin_of, thrust::raw_pointer_cast(&*slots)});
}

#if DPT_CUDA_DEVICE_SYSTEM

// Each block counts its share of the input into a private histogram in shared memory — contention only among
// the block's own threads, on fast shared-memory atomics — then adds its non-zero counts to the global
// histogram, one global atomic per bin per block instead of one per value.
template <class InputIt, class BinIndex>
__global__ void privatized_histogram_kernel(InputIt first, std::int64_t n, BinIndex bin_of, int slot_count,
                                            bin_counter* slots) {
  extern __shared__ unsigned int block_slots[];  // 32-bit: the launch keeps a block's share below 2^32 values
  for (int s = threadIdx.x; s < slot_count; s += blockDim.x) block_slots[s] = 0;
  __syncthreads();
  const std::int64_t stride = static_cast<std::int64_t>(blockDim.x) * gridDim.x;
  for (std::int64_t i = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride) {
    ::cuda::atomic_ref<unsigned int, ::cuda::thread_scope_block> slot(block_slots[bin_of(first[i])]);
    slot.fetch_add(1u, ::cuda::memory_order_relaxed);
  }
  __syncthreads();
  for (int s = threadIdx.x; s < slot_count; s += blockDim.x) {
    if (block_slots[s] != 0) {
      ::cuda::atomic_ref<bin_counter, ::cuda::thread_scope_device> slot(slots[s]);
      slot.fetch_add(block_slots[s], ::cuda::memory_order_relaxed);
    }
  }
}

template <class DerivedPolicy, class InputIt, class BinIndex, class SlotIt>
void count_by_privatized_atomics(const thrust::detail::execution_policy_base<DerivedPolicy>& exec, InputIt first,
                                 std::ptrdiff_t n, BinIndex bin_of, int slot_count, SlotIt slots) {
  const std::size_t shared_bytes = static_cast<std::size_t>(slot_count) * sizeof(unsigned int);
  int device = 0, sm_count = 0, shared_optin = 0;
  cuda_check(cudaGetDevice(&device), "cudaGetDevice");
  cuda_check(cudaDeviceGetAttribute(&sm_count, cudaDevAttrMultiProcessorCount, device), "cudaDeviceGetAttribute");
  cuda_check(cudaDeviceGetAttribute(&shared_optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, device),
             "cudaDeviceGetAttribute");
  if (shared_bytes > static_cast<std::size_t>(shared_optin)) {
    // A private histogram per block would not fit in shared memory: count in the shared one instead.
    count_by_atomics(exec, first, n, bin_of, slot_count, slots);
    return;
  }
  const auto kernel = privatized_histogram_kernel<InputIt, BinIndex>;
  if (shared_bytes > 48 * 1024) {
    cuda_check(
        cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(shared_bytes)),
        "cudaFuncSetAttribute(privatized_histogram_kernel)");
  }
  thrust::fill_n(exec, slots, slot_count, bin_counter{0});
  if (n == 0) return;
  constexpr int block_threads = 256;
  // a few blocks per SM (so each block's private histogram is amortised over many values), and enough
  // blocks that no block counts 2^32 values into its 32-bit shared counters
  const std::int64_t wanted = (n + block_threads - 1) / block_threads;
  const std::int64_t needed_for_32_bits = n / (std::int64_t{1} << 31) + 1;
  const auto blocks = static_cast<unsigned int>(
      std::max(needed_for_32_bits, std::min<std::int64_t>(wanted, std::int64_t{4} * sm_count)));
  const cudaStream_t stream = stream_of(exec);
  kernel<<<blocks, block_threads, shared_bytes, stream>>>(first, static_cast<std::int64_t>(n), bin_of, slot_count,
                                                          thrust::raw_pointer_cast(&*slots));
  cuda_check_launch(stream, "privatized_histogram_kernel");
}

// The storage cub::DeviceHistogram::HistogramEven asks for to count n slot ids read through `ids` into
// slot_count slots (its size query; at least 1 byte, the allocation count_by_cub makes).
template <class IdIt>
std::size_t cub_histogram_bytes(IdIt ids, bin_counter* counters, int slot_count, std::ptrdiff_t n,
                                cudaStream_t stream = nullptr) {
  std::size_t temp_bytes = 0;
  cuda_check(cub::DeviceHistogram::HistogramEven(nullptr, temp_bytes, ids, counters, slot_count + 1, 0, slot_count,
                                                 static_cast<std::int64_t>(n), stream),
             "cub::DeviceHistogram::HistogramEven (size query)");
  return std::max<std::size_t>(temp_bytes, 1);
}

// CUB's histogram over the NumPy slot ids: HistogramEven with K + 3 integer bins of width 1 counts every id
// exactly, so the bin rule stays NumPy's (CUB's own float binning computes (x − lo)·K/(hi − lo) and would put
// some edge values in a different bin, and it drops hi instead of closing the last bin).
template <class DerivedPolicy, class InputIt, class BinIndex, class SlotIt>
void count_by_cub(const thrust::detail::execution_policy_base<DerivedPolicy>& exec, InputIt first, std::ptrdiff_t n,
                  BinIndex bin_of, int slot_count, SlotIt slots) {
  // HistogramEven takes slot_count + 1 levels as an int
  if (slot_count == std::numeric_limits<int>::max()) {
    throw std::invalid_argument("histogram: the cub method counts at most 2^31 - 5 bins");
  }
  if (n == 0) {
    thrust::fill_n(exec, slots, slot_count, bin_counter{0});
    return;
  }
  const auto ids = thrust::make_transform_iterator(first, bin_of);
  bin_counter* const counters = thrust::raw_pointer_cast(&*slots);
  const cudaStream_t stream = stream_of(exec);
  const auto samples = static_cast<std::int64_t>(n);
  std::size_t temp_bytes = cub_histogram_bytes(ids, counters, slot_count, n, stream);
  temporary_array<unsigned char, DerivedPolicy> temp(exec, static_cast<std::ptrdiff_t>(temp_bytes));
  // count: CUB privatises per block too, then merges
  cuda_check(cub::DeviceHistogram::HistogramEven(thrust::raw_pointer_cast(temp.begin()), temp_bytes, ids, counters,
                                                 slot_count + 1, 0, slot_count, samples, stream),
             "cub::DeviceHistogram::HistogramEven");
}

#else  // CPU device systems

// One task per chunk of the input: the task owns its private histogram, so it counts without atomics.
template <class InputIt, class BinIndex>
struct count_chunk_privately {
  InputIt first;
  std::ptrdiff_t n, chunk_size;
  BinIndex bin_of;
  int slot_count;
  bin_counter* private_slots;  // chunk c owns private_slots[c·slot_count … (c+1)·slot_count)
  void operator()(std::ptrdiff_t chunk) const {
    bin_counter* const mine = private_slots + chunk * slot_count;
    const std::ptrdiff_t begin = chunk * chunk_size, end = std::min(n, begin + chunk_size);
    for (std::ptrdiff_t i = begin; i < end; ++i) ++mine[bin_of(first[i])];
  }
};

// Slot s of the merged histogram: the sum of slot s over every chunk's private histogram.
struct sum_over_chunks {
  const bin_counter* private_slots;
  std::ptrdiff_t chunks;
  int slot_count;
  bin_counter operator()(int s) const {
    bin_counter total = 0;
    for (std::ptrdiff_t c = 0; c < chunks; ++c) total += private_slots[c * slot_count + s];
    return total;
  }
};

// How many chunks count_by_privatized_atomics cuts n values into: a few per hardware thread for balance, none
// smaller than 4096 values, and private histograms totalling at most 2^24 counters (128 MiB) however many bins
// there are.
inline std::ptrdiff_t privatized_chunk_count(std::ptrdiff_t n, int slot_count) {
  const std::ptrdiff_t threads = std::max(1u, std::thread::hardware_concurrency());
  const std::ptrdiff_t by_work = (n + 4095) / 4096;
  const std::ptrdiff_t by_memory = std::max<std::ptrdiff_t>(1, (std::ptrdiff_t{1} << 24) / slot_count);
  return std::max<std::ptrdiff_t>(1, std::min({4 * threads, by_work, by_memory}));
}

template <class DerivedPolicy, class InputIt, class BinIndex, class SlotIt>
void count_by_privatized_atomics(const thrust::detail::execution_policy_base<DerivedPolicy>& exec, InputIt first,
                                 std::ptrdiff_t n, BinIndex bin_of, int slot_count, SlotIt slots) {
  const std::ptrdiff_t chunks = privatized_chunk_count(n, slot_count);
  const std::ptrdiff_t chunk_size = (n + chunks - 1) / chunks;
  temporary_array<bin_counter, DerivedPolicy> private_slots(exec, chunks * slot_count);
  thrust::fill(exec, private_slots.begin(), private_slots.end(), bin_counter{0});
  // privatise: each chunk counts into its own histogram, in parallel over chunks
  const auto chunk_ids = thrust::make_counting_iterator<std::ptrdiff_t>(0);
  thrust::for_each(exec, chunk_ids, chunk_ids + chunks,
                   count_chunk_privately<InputIt, BinIndex>{first, n, chunk_size, bin_of, slot_count,
                                                            thrust::raw_pointer_cast(private_slots.begin())});
  // merge: every slot sums its column of the private histograms, in parallel over slots
  const auto slot_ids = thrust::make_counting_iterator<int>(0);
  thrust::transform(exec, slot_ids, slot_ids + slot_count, slots,
                    sum_over_chunks{thrust::raw_pointer_cast(private_slots.begin()), chunks, slot_count});
}

// There is no CUB on a CPU device system; dpt::histogram rejects the method before it gets here.
template <class DerivedPolicy, class InputIt, class BinIndex, class SlotIt>
void count_by_cub(const thrust::detail::execution_policy_base<DerivedPolicy>&, InputIt, std::ptrdiff_t, BinIndex, int,
                  SlotIt) {
  throw std::invalid_argument("histogram: the cub method needs the CUDA device system");
}

#endif

// An upper bound on the bytes the privatized method takes through its policy for n values in slot_count slots:
// the private histograms on a CPU (a CUDA block's live in shared memory).
inline std::size_t privatized_scratch_bytes(std::ptrdiff_t n, int slot_count) {
#if DPT_CUDA_DEVICE_SYSTEM
  (void)n, (void)slot_count;
  return 0;
#else
  return static_cast<std::size_t>(privatized_chunk_count(n, slot_count)) * slot_count * sizeof(bin_counter);
#endif
}

// The bytes the cub method takes through its policy for n values in slot_count slots (none on a CPU, which
// refuses the method, nor for more slots than it counts).
inline std::size_t cub_scratch_bytes(std::ptrdiff_t n, int slot_count) {
#if DPT_CUDA_DEVICE_SYSTEM
  if (n == 0 || slot_count == std::numeric_limits<int>::max()) return 0;
  return cub_histogram_bytes(static_cast<const int*>(nullptr), nullptr, slot_count, n);
#else
  (void)n, (void)slot_count;
  return 0;
#endif
}

}  // namespace dpt::detail
