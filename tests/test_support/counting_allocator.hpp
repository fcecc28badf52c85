// An allocator that records how much temporary storage an algorithm takes through its execution policy:
// thrust::device(alloc) routes every temporary buffer of dpt's algorithms (dpt/detail/temporary_array.hpp) and of
// the Thrust primitives they call to alloc.allocate, so `peak_bytes` is the most they held at once. The tests
// compare it with the algorithms' *_temporary_bytes queries (check_scratch), and run the same calls through a
// dpt::context, whose pool must serve every call after the first without allocating
// (test_support/counting_resource.hpp).
#pragma once

#include <catch2/catch.hpp>

#include <algorithm>
#include <cstddef>
#include <thrust/device_malloc.h>
#include <thrust/device_free.h>
#include <thrust/device_ptr.h>
#include <thrust/execution_policy.h>
#include <vector>

#include <dpt/config.hpp>
#include "test_support/counting_resource.hpp"

namespace dpt::test {

class counting_allocator {
 public:
  using value_type = char;

  char* allocate(std::ptrdiff_t bytes) {
    outstanding_ += static_cast<std::size_t>(bytes);
    peak_ = std::max(peak_, outstanding_);
    return thrust::raw_pointer_cast(thrust::device_malloc<char>(static_cast<std::size_t>(bytes)));
  }
  void deallocate(char* p, std::size_t bytes) {
    outstanding_ -= bytes;
    thrust::device_free(thrust::device_pointer_cast(p));
  }

  std::size_t peak_bytes() const noexcept { return peak_; }
  std::size_t outstanding_bytes() const noexcept { return outstanding_; }

 private:
  std::size_t outstanding_ = 0, peak_ = 0;
};

// What an algorithm held at most through thrust::device(alloc) while `run(policy)` ran.
template <class Run>
std::size_t peak_temporary_bytes(Run&& run) {
  counting_allocator alloc;
  run(thrust::device(alloc));
  return alloc.peak_bytes();
}

// The sizes every query is checked at: none, one, a prime, and one large enough for the primitives' own scratch to
// show (a sort's copies, CUB's tile states).
inline const std::vector<std::ptrdiff_t> temporary_bytes_sizes{0, 1, 7, 100003};

// A *_temporary_bytes query against what the call held: never less, and at most twice as much plus 4 KiB (on
// CUDA, where a primitive's share is twice CUB's answer to its size query, four times plus 64 KiB).
inline void check_temporary_bytes(std::size_t peak, std::size_t query) {
  INFO("held at most " << peak << " bytes; the query says " << query);
  CHECK(peak <= query);
  CHECK(query <= (DPT_CUDA_DEVICE_SYSTEM ? 4 * peak + 65536 : 2 * peak + 4096));
}

// A call's scratch, `run(policy)` for any policy: what it held at most against its *_temporary_bytes query
// (check_temporary_bytes); and through a dpt::context, that the first call's scratch came from the context's pool
// (it went upstream exactly when the call takes scratch) and that the calls after it allocate nothing.
template <class Run>
void check_scratch(Run&& run, std::size_t query) {
  const std::size_t peak = peak_temporary_bytes(run);
  check_temporary_bytes(peak, query);
  const context_allocations through_context = allocations_through_context(run);
  INFO("through a dpt::context, the first call allocated " << through_context.first_call << " times");
  CHECK((through_context.first_call > 0) == (peak > 0));
  CHECK(through_context.repeated_calls == 0);
}

}  // namespace dpt::test
