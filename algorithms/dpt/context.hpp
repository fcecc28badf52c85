// dpt/context.hpp — scratch that stays between calls: a memory pool the algorithms take their temporaries from.
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
// keeps its bookkeeping in host memory, so it serves device memory as well as host memory. It is not thread-safe:
// one context per host thread (on CUDA, per stream of work). The memory goes back to the upstream resource when
// the context is destroyed; policies from policy() must not outlive it.
//
// The policy is thrust::device(&pool), on every device system. What a context does not change:
// on CUDA each Thrust call still synchronises its stream when it returns, and results whose size the host needs
// (a compaction's count) are still read back; the OpenMP and TBB paths of dpt::compact and the CPU scans keep
// their per-core slice buffers, which do not come from the policy.
#pragma once

#include <cstddef>
#include <thrust/execution_policy.h>
#include <thrust/mr/device_memory_resource.h>
#include <thrust/mr/disjoint_pool.h>
#include <thrust/mr/new.h>

namespace dpt {

// A context whose pool draws on `Upstream` (a thrust::mr memory resource of the device system; tests pass one that
// counts its calls). dpt::context is the one for everyday use.
template <class Upstream>
class basic_context {
 public:
  explicit basic_context(Upstream* upstream = thrust::mr::get_global_resource<Upstream>())
      : pool_(upstream, thrust::mr::get_global_resource<thrust::mr::new_delete_resource>()) {}
  basic_context(const basic_context&) = delete;
  basic_context& operator=(const basic_context&) = delete;

  // thrust::device drawing its temporaries from this context's pool.
  auto policy() { return thrust::device(&pool_); }

  // Gives every cached block back to the upstream resource (none may be in use).
  void release() { pool_.release(); }

 private:
  // Thrust's default options: blocks up to 1 MiB come from pools of chunks, larger ones straight from upstream,
  // and both are cached when freed, so a repeated call finds its scratch again however large it is.
  thrust::mr::disjoint_unsynchronized_pool_resource<Upstream, thrust::mr::new_delete_resource> pool_;
};

using context = basic_context<thrust::device_memory_resource>;

}  // namespace dpt
