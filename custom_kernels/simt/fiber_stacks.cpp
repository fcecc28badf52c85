// simt/fiber_stacks.cpp — maps the fibers' stacks and their guards (fiber_stacks.hpp).
#include "simt/fiber_stacks.hpp"

#include <new>
#include <sys/mman.h>

namespace simt::internal {

stack_pool::~stack_pool() {
  for (void* base : bases_) munmap(base, mapped_bytes);
}

char* stack_pool::bottom(std::size_t i) {
  while (bases_.size() <= i) {
    void* base =
        mmap(nullptr, mapped_bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (base == MAP_FAILED) throw std::bad_alloc();
    if (mprotect(base, guard_bytes, PROT_NONE) != 0) {  // an overflow faults instead of corrupting the neighbour
      munmap(base, mapped_bytes);
      throw std::bad_alloc();
    }
    bases_.push_back(base);
  }
  return static_cast<char*>(bases_[i]) + guard_bytes;
}

stack_pool& thread_stacks() {
  thread_local stack_pool stacks;
  return stacks;
}

}  // namespace simt::internal
