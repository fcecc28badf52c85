// simt/fiber_stacks.hpp — the fibers' stacks: guarded, staggered memory kept per host thread, and what
// AddressSanitizer must be told when the runner moves from one stack to another. Internal to dpt::simt.
#pragma once

#include <cstddef>
#include <vector>

#if defined(__SANITIZE_ADDRESS__)
#  define SIMT_ASAN 1
#elif defined(__has_feature)
#  if __has_feature(address_sanitizer)
#    define SIMT_ASAN 1
#  endif
#endif
#if defined(SIMT_ASAN)
#  include <sanitizer/asan_interface.h>
#  include <sanitizer/common_interface_defs.h>
#  define SIMT_NOT_INSTRUMENTED __attribute__((no_sanitize("address")))
#else
#  define SIMT_NOT_INSTRUMENTED
#endif

namespace simt::internal {

// Every fiber gets 512 KiB of stack, the most local memory CUDA gives a thread, so every legal kernel fits; the
// pages are committed only when touched (MAP_NORESERVE), so a small frame costs a few pages. Below each stack lie
// 64 KiB that are not mapped for access: a frame that grows past the stack's end faults there instead of writing
// into the next fiber's stack. Code compiled with -fstack-clash-protection (the INTERFACE option of dpt::simt,
// where the compiler has it) touches every page of a large frame as it allocates it, so even a frame larger than
// the guard faults at the guard rather than skipping over it. A fault ends the process with SIGSEGV.
constexpr std::size_t fiber_stack_bytes = 512 * 1024;
constexpr std::size_t guard_bytes = 64 * 1024;
// The stacks' tops are staggered by a cache line per fiber, over 64 KiB. Stacks of equal size lie a multiple of
// the page size apart, so without it every fiber's hot top of stack (its saved registers, the kernel's frame)
// falls into the same few sets of each cache, and 1024 fibers evict each other at every switch.
constexpr std::size_t stagger_bytes = 64 * 1024, stagger_step = 64;

// Fiber stacks, mmap'd, each above its guard (see fiber_stack_bytes).
class stack_pool {
 public:
  stack_pool() = default;
  ~stack_pool();
  stack_pool(const stack_pool&) = delete;
  stack_pool& operator=(const stack_pool&) = delete;
  // The lowest usable address of stack i.
  char* bottom(std::size_t i);
  // The size of stack i: at least fiber_stack_bytes, plus its stagger.
  static std::size_t bytes(std::size_t i) { return fiber_stack_bytes + i * stagger_step % stagger_bytes; }

 private:
  static constexpr std::size_t mapped_bytes = guard_bytes + fiber_stack_bytes + stagger_bytes;
  std::vector<void*> bases_;
};

// The stacks of this host thread, reused by every launch on it.
stack_pool& thread_stacks();

// ASan must be told when the stack changes under it, or it reports the other stack's frames as overflows.
#if defined(SIMT_ASAN)
inline void start_switch(void** fake_stack, const void* bottom, std::size_t size) {
  __sanitizer_start_switch_fiber(fake_stack, bottom, size);
}
inline void finish_switch(void* fake_stack, const void** bottom, std::size_t* size) {
  __sanitizer_finish_switch_fiber(fake_stack, bottom, size);
}
inline void unpoison(void* base, std::size_t size) {
  __asan_unpoison_memory_region(base, size);
}
#else
inline void start_switch(void**, const void*, std::size_t) {}
inline void finish_switch(void*, const void**, std::size_t*) {}
inline void unpoison(void*, std::size_t) {}
#endif

}  // namespace simt::internal
