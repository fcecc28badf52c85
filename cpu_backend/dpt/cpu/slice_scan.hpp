// dpt/cpu/slice_scan.hpp — the lecture's two-processor scan recipe for scan-shaped work on the CPU's cores.
//
// Scan, segmented scan and compaction have the same shape: every element's output depends on a running value
// (a sum, a segment's partial result, an output position) built from everything before it. On a few cores the
// lecture's recipe cuts the input into slices and
//
//   1. reduce:  each core folds its slice into a total            [3 8 4 6 | 3 9 2 8] → totals [21, 22]
//   2. bases:   the totals are scanned, serially (few of them)     bases [·, 21]
//   3. scan:    each core walks its slice again from its base      [3 11 15 21 | 24 33 35 43]
//
// Steps 1 and 3 read a slice twice. So that memory sees one read (and one write) per element, as in a copy,
// slices are cache-sized and there are many of them: a core reduces a slice, then walks it while it is still
// in its cache (or, as the compaction does, keeps what its reduce produced in a scratch buffer for the walk). Step 2
// needs no barrier between the cores: each slice waits only for its predecessor's prefix (everything up to and
// including that slice), adds its own total and publishes its prefix at once, before its walk — a chain of one small
// hand-off per slice, the CPU cousin of the GPU single-pass scan's look-back (custom_kernels/). Cores claim slices in
// order from a shared counter, so every slice a core waits for has already been claimed by a core that is running;
// nothing can wait on work that has not started.
//
// One refinement keeps a core busy while memory works: when a core publishes a slice's prefix it can claim
// its next slice at once, and prefetch it while it walks the current one, so that the next reduce reads from
// cache and the walk's arithmetic overlaps the memory traffic. That pays for a walk that takes a cycle or more
// per element; a walk a vector at a time is over too soon to hide the next slice's fetch, and claiming late
// serves it better (see slice_scan_worker).
//
// What "fold" and "walk" mean is the caller's: a `Loops` object supplies
//   bool prefetches_next_slice() const
//                                      whether its scan prefetches the `ahead` slice (see slice_scan_worker)
//   Scratch make_scratch(slice_length) const
//                                      a core's own working memory, made once per core and handed to both
//                                      loops (no_scratch when they need none)
//   T reduce(scratch, begin, end) const
//                                      the total of a non-empty slice; may leave what it learned about the
//                                      slice in the scratch, for the scan of the same slice that follows
//   T scan(scratch, begin, end, base, ahead) const
//                                      writes the slice's outputs, starting from `base`, the total of
//                                      everything before the slice (nullptr only for the first slice of an
//                                      unseeded run), and prefetches the `ahead` slice as it goes (with
//                                      walk_prefetching; `ahead` is empty unless prefetches_next_slice);
//                                      returns the total through the slice's end. When one core does
//                                      everything, scan runs on its own, over the whole input.
// and `op` combines totals (associative, not necessarily commutative). Loops may also supply
//   T prefix(scratch, base, total, begin, end) const
//                                      the prefix through the slice from its base and its total, in place of
//                                      op(base, total): a loop whose reduce cannot fold a slice without its
//                                      base (dpt::spmv's slice inside one long row, dpt/cpu/spmv_slices.hpp)
//                                      folds it here, once the base has arrived. If a loop or `op` throws, the other
//                                      cores
// stop at their next hand-off or claim and the first exception reaches the caller, as from a serial scan.
#pragma once

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <exception>
#include <memory>
#include <mutex>
#include <optional>
#include <thread>
#include <type_traits>
#include <utility>
#include <thrust/for_each.h>
#include <thrust/iterator/counting_iterator.h>

#include <dpt/config.hpp>
#include <dpt/cpu/system.hpp>

namespace dpt::cpu {

// How the input is cut, in elements. A slice is reduced and then walked by the same core, so the slice and
// its output should stay in that core's L2 in between, yet be long enough that the hand-off between slices
// (a cache line moving between cores, ~100 ns) is small next to it. Up to `serial_length` elements one core
// does everything: waking the others costs more than it saves (docs/benchmarks.md, scan).
struct slice_sizes {
  std::ptrdiff_t slice_length, serial_length;

  // For inputs that read `bytes_per_element` bytes per element (all input sequences together), in slices of
  // `slice_bytes` of input.
  static slice_sizes for_element_bytes(std::size_t bytes_per_element, std::size_t slice_bytes = 256 * 1024) {
    constexpr std::size_t serial_bytes = 512 * 1024;
    return {std::ptrdiff_t(std::max<std::size_t>(1, slice_bytes / bytes_per_element)),
            std::ptrdiff_t(serial_bytes / bytes_per_element)};
  }
};

// The scratch of loops that need none.
struct no_scratch {};

// A range of element indices; empty when a walk has nothing to prefetch.
struct index_range {
  std::ptrdiff_t begin = 0, end = 0;
};

// Elements walked per prefetch step.
inline constexpr std::ptrdiff_t walk_chunk = 16;

// Hints that `count` elements from `first` will be read soon: one prefetch per 64-byte line. Only raw
// pointers get the hint; other iterators (transforms, counting) are left alone.
template <class It>
DPT_ALWAYS_INLINE void prefetch_elements(It first, std::ptrdiff_t count) {
  if constexpr (std::is_pointer_v<It>) {
    const auto* bytes = reinterpret_cast<const char*>(first);
    const auto size = static_cast<std::size_t>(count) * sizeof(*first);
    for (std::size_t offset = 0; offset < size; offset += 64) __builtin_prefetch(bytes + offset);
  } else {
    (void)first;
    (void)count;
  }
}

// body(i) for every i in [begin, end), in order; every walk_chunk elements, prefetch(a) for the next chunk of
// `ahead`, so that the slice walked next arrives in cache while this one is walked.
template <class Prefetch, class Body>
DPT_ALWAYS_INLINE void walk_prefetching(std::ptrdiff_t begin, std::ptrdiff_t end, index_range ahead, Prefetch prefetch,
                                        Body body) {
  std::ptrdiff_t i = begin, a = ahead.begin;
  for (; i + walk_chunk <= end && a < ahead.end; a += walk_chunk) {
    prefetch(a);
    for (const auto chunk_end = i + walk_chunk; i < chunk_end; ++i) body(i);
  }
  for (; i < end; ++i) body(i);
}

// A spin-wait hint for the processor (x86's `pause`). A short wait spins on it rather than calling into the
// kernel: a system call drains the write-combining buffers that streaming stores are filling, and the part-
// filled lines then cost a read-modify-write each.
DPT_ALWAYS_INLINE void spin_pause() {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#endif
}

// Thrown by slice_prefixes::wait on the cores that did not fail, to unwind them once another core has failed.
struct slice_scan_abandoned {};

// The chain: for every slice, the prefix through it, and whether that prefix has been published yet; and the
// first exception a core met, which stops the others (a slice that failed never publishes its prefix).
template <class T>
class slice_prefixes {
 public:
  explicit slice_prefixes(std::ptrdiff_t slices)
      : published_(new std::atomic<bool>[slices]), prefix_(new std::optional<T>[slices]) {
    for (std::ptrdiff_t s = 0; s < slices; ++s) published_[s].store(false, std::memory_order_relaxed);
  }

  void publish(std::ptrdiff_t slice, const T& prefix) {
    prefix_[slice] = prefix;
    published_[slice].store(true, std::memory_order_release);
  }

  // Waits until `slice` has published its prefix. The core that claimed it is running and is at most one
  // walk and one reduce away from publishing, so the wait is short: spin a while, then yield, which keeps a
  // long wait (the other core descheduled) polite. Throws slice_scan_abandoned once any core has failed.
  const T& wait(std::ptrdiff_t slice) const {
    for (int spins = 0; !published_[slice].load(std::memory_order_acquire); ++spins) {
      if (failed()) throw slice_scan_abandoned{};
      if (spins < 4096) {
        spin_pause();
      } else {
        std::this_thread::yield();
      }
    }
    return *prefix_[slice];
  }

  // Records a core's exception (the first one is kept) and tells the other cores to stop.
  void fail(std::exception_ptr error) {
    {
      const std::lock_guard<std::mutex> lock(error_mutex_);
      if (!error_) error_ = error;
    }
    failed_.store(true, std::memory_order_release);
  }
  bool failed() const { return failed_.load(std::memory_order_acquire); }
  // After every core has returned: rethrows the first exception, if a core met one.
  void rethrow_if_failed() const {
    if (error_) std::rethrow_exception(error_);
  }

 private:
  std::unique_ptr<std::atomic<bool>[]> published_;
  std::unique_ptr<std::optional<T>[]> prefix_;
  std::atomic<bool> failed_{false};
  std::mutex error_mutex_;
  std::exception_ptr error_;
};

// Whether Loops supplies prefix(scratch, base, total, begin, end).
template <class Loops, class Scratch, class T, class = void>
struct has_prefix : std::false_type {};
template <class Loops, class Scratch, class T>
struct has_prefix<Loops, Scratch, T,
                  std::void_t<decltype(std::declval<const Loops&>().prefix(
                      std::declval<Scratch&>(), std::declval<const T&>(), std::declval<const T&>(), std::ptrdiff_t{},
                      std::ptrdiff_t{}))>> : std::true_type {};

// What each core runs, until no slice is left: reduce my slice, take my predecessor's prefix as base, publish
// my prefix, walk mine from its base, claim my next slice. Loops whose walk prefetches the next slice
// (Loops::prefetches_next_slice()) claim it before the walk, so that they know what to prefetch. The others
// claim it after: a slice claimed but not yet reduced holds up every slice after it, so a core that claims
// only when it is free lets a faster core take more slices instead of waiting for a slower one.
template <class Loops, class T, class AssociativeOp>
struct slice_scan_worker {
  Loops loops;
  AssociativeOp op;
  std::ptrdiff_t n, slice_length, slices;
  const std::optional<T>* seed;
  slice_prefixes<T>* prefixes;
  std::atomic<std::ptrdiff_t>* next_slice;

  index_range slice(std::ptrdiff_t s) const { return {s * slice_length, std::min(n, (s + 1) * slice_length)}; }

  // The prefix through a slice: Loops::prefix where the loops supply one, op(base, total) otherwise.
  template <class Scratch>
  T prefix_through(Scratch& scratch, const T& base, const T& total, index_range range) const {
    if constexpr (has_prefix<Loops, Scratch, T>::value) {
      return loops.prefix(scratch, base, total, range.begin, range.end);
    } else {
      return static_cast<T>(op(base, total));
    }
  }

  // Nothing escapes a core: an exception would end an OpenMP program and leave TBB's other cores waiting.
  void operator()(std::ptrdiff_t /*worker*/) const {
    try {
      run();
    } catch (const slice_scan_abandoned&) {
      // another core failed first; its exception is the one the caller gets
    } catch (...) {
      prefixes->fail(std::current_exception());
    }
  }

  void run() const {
    auto mine = next_slice->fetch_add(1);
    if (mine >= slices || prefixes->failed()) return;
    auto scratch = loops.make_scratch(slice_length);
    // reduce: fold my slice
    T total = loops.reduce(scratch, slice(mine).begin, slice(mine).end);
    for (;;) {
      // bases: my base is my predecessor's prefix; publish mine at once so my successor need not wait for my walk
      const T* base = mine > 0 ? &prefixes->wait(mine - 1) : (*seed ? &**seed : nullptr);
      prefixes->publish(mine, base ? prefix_through(scratch, *base, total, slice(mine)) : total);
      // scan: walk my slice from my base (prefetching my next one, if the walk does)
      std::ptrdiff_t next = slices;
      if (loops.prefetches_next_slice()) {
        next = next_slice->fetch_add(1);
        loops.scan(scratch, slice(mine).begin, slice(mine).end, base, next < slices ? slice(next) : index_range{});
      } else {
        loops.scan(scratch, slice(mine).begin, slice(mine).end, base, index_range{});
        next = next_slice->fetch_add(1);
      }
      if (next >= slices || prefixes->failed()) return;
      mine = next;
      // reduce: fold my next slice
      total = loops.reduce(scratch, slice(mine).begin, slice(mine).end);
    }
  }
};

// Runs the recipe over [0, n) with `loops`, starting from `seed` (std::nullopt: the first element has nothing
// before it). Returns the total of everything, seed included; std::nullopt only when n == 0 and unseeded.
template <class T, class DerivedPolicy, class Loops, class AssociativeOp>
std::optional<T> run_slice_scan(const thrust::detail::execution_policy_base<DerivedPolicy>& exec, std::ptrdiff_t n,
                                const Loops& loops, std::optional<T> seed, AssociativeOp op, slice_sizes sizes) {
  if (n == 0) return seed;
  const auto slice_length = std::max<std::ptrdiff_t>(1, sizes.slice_length);
  const auto slices = (n + slice_length - 1) / slice_length;
  if (n <= sizes.serial_length || slices == 1) {
    // too small to pay for waking the other cores, or a single slice that only one core could take: walked on
    // the calling thread
    auto scratch = loops.make_scratch(0);
    return loops.scan(scratch, 0, n, seed ? &*seed : nullptr, index_range{});
  }
  slice_prefixes<T> prefixes(slices);
  std::atomic<std::ptrdiff_t> next_slice{0};
  const auto workers = std::min(slices, worker_count<DerivedPolicy>());
  // every core runs the chain: reduce, hand off, scan, slice after slice
  thrust::for_each_n(
      exec, thrust::counting_iterator<std::ptrdiff_t>(0), workers,
      slice_scan_worker<Loops, T, AssociativeOp>{loops, op, n, slice_length, slices, &seed, &prefixes, &next_slice});
  prefixes.rethrow_if_failed();
  return prefixes.wait(slices - 1);
}

}  // namespace dpt::cpu
