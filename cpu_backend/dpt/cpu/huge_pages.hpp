// dpt/cpu/huge_pages.hpp — scratch that a scatter writes all over, in 2 MiB pages.
//
// A scatter to a few thousand places at once touches a few thousand 4 KiB pages in turn, more than the TLB holds,
// and a fresh scratch array costs a page fault per 4 KiB on its first touch. Linux backs memory with 2 MiB pages
// where a program asks for them (transparent huge pages; Debian's default mode, "madvise", gives them only then):
// 512 times fewer pages to map and to fault in. Memory already mapped with small pages keeps them until the
// kernel's background thread merges them. The advice is only advice: where it is refused, or on another system,
// nothing changes but the speed.
#pragma once

#include <cstddef>
#include <cstdint>

#if defined(__linux__)
#  include <sys/mman.h>
#endif

namespace dpt::cpu {

// Arrays at least this large get the advice: they span several 2 MiB pages.
inline constexpr std::size_t huge_page_scratch_bytes = std::size_t(8) << 20;

inline void advise_huge_pages(void* data, std::size_t bytes) {
#if defined(__linux__) && defined(MADV_HUGEPAGE)
  if (bytes < huge_page_scratch_bytes) return;
  constexpr std::uintptr_t huge_page = std::uintptr_t(2) << 20;
  const auto begin = reinterpret_cast<std::uintptr_t>(data);
  const std::uintptr_t first = (begin + huge_page - 1) & ~(huge_page - 1), last = (begin + bytes) & ~(huge_page - 1);
  if (last > first) madvise(reinterpret_cast<void*>(first), last - first, MADV_HUGEPAGE);
#else
  (void)data;
  (void)bytes;
#endif
}

}  // namespace dpt::cpu
