// A memory resource that counts the allocations it passes on to the device system's own: the upstream of a
// dpt::basic_context in the tests, which check that repeated calls through a context allocate nothing
// (dpt/context.hpp).
#pragma once

#include <cstddef>
#include <thrust/mr/device_memory_resource.h>
#include <thrust/mr/memory_resource.h>

#include <dpt/context.hpp>

namespace dpt::test {

class counting_resource final : public thrust::mr::memory_resource<thrust::device_memory_resource::pointer> {
 public:
  int allocations() const noexcept { return allocations_; }

  pointer do_allocate(std::size_t bytes, std::size_t alignment) override {
    ++allocations_;
    return upstream_->allocate(bytes, alignment);
  }
  void do_deallocate(pointer p, std::size_t bytes, std::size_t alignment) override {
    upstream_->deallocate(p, bytes, alignment);
  }

 private:
  thrust::device_memory_resource* upstream_ = thrust::mr::get_global_resource<thrust::device_memory_resource>();
  int allocations_ = 0;
};

// The upstream allocations of a first call through a fresh context, and of two more calls like it.
struct context_allocations {
  int first_call, repeated_calls;
};

template <class Run>
context_allocations allocations_through_context(Run&& run) {
  counting_resource upstream;
  dpt::basic_context<counting_resource> context(&upstream);
  run(context.policy());
  const int first = upstream.allocations();
  run(context.policy());
  run(context.policy());
  return {first, upstream.allocations() - first};
}

}  // namespace dpt::test
