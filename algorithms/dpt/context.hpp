// dpt/context.hpp — scratch that stays between calls: a memory pool the algorithms take their temporaries from, and
// on CUDA a stream they run on without waiting for each other.
//
// Every dpt algorithm that needs an intermediate sequence (row ids, sorted keys, scan scratch) takes it through
// its execution policy. With plain thrust::device each call allocates it and frees it again, and on a GPU a
// cudaMalloc/cudaFree pair costs more than a small SpMV. A context keeps what it handed out:
//
//   dpt::context ctx;
//   dpt::spmv(ctx.policy(), A, x, y);   first call: the pool asks the device for the call's scratch
//   dpt::spmv(ctx.policy(), A, x, y);   same sizes again: served from the pool, no allocation at all
//
// The pool is Thrust's own, thrust::mr::disjoint_unsynchronized_pool_resource over the device system's memory
// resource (cudaMalloc on CUDA, the heap elsewhere): it caches blocks of every size, large ones included, and
// keeps its bookkeeping in host memory, so it serves device memory as well as host memory. CCCL's other choices:
// cub::CachingDeviceAllocator is CUDA only (the CPU systems would need a second path), and Thrust's policies take a
// thrust::mr resource or an allocator, not a cuda::mr resource. It is not thread-safe: one context per host thread. The
// memory goes back to the upstream resource when the context is destroyed; policies from policy() must not outlive it.
//
// The policy. On the CPU systems it is thrust::device(&pool): each call returns when its work is done. On CUDA it
// is thrust::cuda::par_nosync(&pool).on(stream): Thrust launches the call's kernels on the context's stream and
// returns without waiting for them, so a composition's calls queue one after another and the host waits only where
// a result must reach it (a compaction's count, a run count: each header's budget names its host reads, and each
// of those waits for the stream). One stream for the context makes the pool safe: a block freed by one call and
// handed to the next is used in stream order. The stream must synchronise with the legacy default stream (the
// default stream itself, or one made by cudaStreamCreate without cudaStreamNonBlocking; the constructor refuses
// others): then copies through thrust::device_vector and cudaMemcpy, which run on the default stream, come after
// the work queued before them, and no dpt call needs synchronize(). Call it before the host reads device memory by
// other means (another stream, a CUDA-aware MPI, a raw pointer in managed memory) or times the work.
#pragma once

#include <cstddef>
#include <thrust/execution_policy.h>
#include <thrust/mr/device_memory_resource.h>
#include <thrust/mr/disjoint_pool.h>
#include <thrust/mr/new.h>

#include <dpt/config.hpp>

#if DPT_CUDA_DEVICE_SYSTEM
#  include <cuda_runtime_api.h>
#  include <stdexcept>
#  include <thrust/system/cuda/execution_policy.h>

#  include <dpt/detail/cuda_check.hpp>
#endif

namespace dpt {

// A context whose pool draws on `Upstream` (a thrust::mr memory resource of the device system; tests pass one that
// counts its calls). dpt::context is the one for everyday use.
template <class Upstream>
class basic_context {
 public:
  explicit basic_context(Upstream* upstream = thrust::mr::get_global_resource<Upstream>())
      : pool_(upstream, thrust::mr::get_global_resource<thrust::mr::new_delete_resource>()) {}
#if DPT_CUDA_DEVICE_SYSTEM
  // On CUDA, a context whose calls run on `stream` (one that synchronises with the legacy default stream).
  explicit basic_context(cudaStream_t stream, Upstream* upstream = thrust::mr::get_global_resource<Upstream>())
      : pool_(upstream, thrust::mr::get_global_resource<thrust::mr::new_delete_resource>()), stream_(stream) {
    unsigned int flags = 0;
    detail::cuda_check(cudaStreamGetFlags(stream, &flags), "cudaStreamGetFlags (dpt::context)");
    if (flags & cudaStreamNonBlocking) {
      throw std::invalid_argument(
          "dpt::context: a stream made with cudaStreamNonBlocking does not wait for the default stream's copies");
    }
  }
#endif
  basic_context(const basic_context&) = delete;
  basic_context& operator=(const basic_context&) = delete;
#if DPT_CUDA_DEVICE_SYSTEM
  // The pool frees its blocks after the work queued on them is done. A destructor cannot throw: a fault of that
  // work stays for the next CUDA call to report (a kernel's fault is sticky), and the error state is cleared.
  ~basic_context() {
    if (cudaStreamSynchronize(stream_) != cudaSuccess) (void)cudaGetLastError();
  }
#endif

  // The policy the algorithms take: thrust::device drawing its temporaries from this context's pool, on CUDA
  // without a synchronisation after each call, on the context's stream.
  auto policy() {
#if DPT_CUDA_DEVICE_SYSTEM
    return thrust::cuda::par_nosync(&pool_).on(stream_);
#else
    return thrust::device(&pool_);
#endif
  }

  // Waits until the work queued through policy() is done (on CUDA; the CPU systems' calls return done).
  void synchronize() const {
#if DPT_CUDA_DEVICE_SYSTEM
    detail::cuda_check(cudaStreamSynchronize(stream_), "cudaStreamSynchronize (dpt::context)");
#endif
  }

#if DPT_CUDA_DEVICE_SYSTEM
  cudaStream_t stream() const noexcept {
    return stream_;
  }
#endif

  // Waits for the queued work, then gives every cached block back to the upstream resource.
  void release() {
    synchronize();
    pool_.release();
  }

 private:
  // Thrust's default options: blocks up to 1 MiB come from pools of chunks, larger ones straight from upstream,
  // and both are cached when freed, so a repeated call finds its scratch again however large it is.
  thrust::mr::disjoint_unsynchronized_pool_resource<Upstream, thrust::mr::new_delete_resource> pool_;
#if DPT_CUDA_DEVICE_SYSTEM
  cudaStream_t stream_ = nullptr;  // the legacy default stream
#endif
};

using context = basic_context<thrust::device_memory_resource>;

}  // namespace dpt
