// dpt/cpu/radix_sort.hpp — the CPU sort of 32-bit codes, alone or with a 32-bit payload riding along: a scatter
// by the top digit across the cores, then each bucket sorted in cache, lowest digit first.
//
// The lecture's counting sort, twice over (codes in hex, payloads left out):
//
//   codes      = [31, 12, 33, 10, 21, 32]
//   vary       = OR of (code ^ codes[0])            = 23: only bits 0–5 decide the order; the others are skipped
//   top digit  = each core counts its chunk's top digit (bits 4–5 here: 3, 1, 3, 1, 2, 3), a scan of the
//                counts says where each core writes each bucket, and each core scatters its chunk there, in
//                input order                        → [12, 10 | 21 | 31, 33, 32]
//   buckets    = each bucket, claimed by whichever core is free, sorted by counting-sort passes over the lower
//                digits, least significant first, while it sits in cache; the last pass writes the output
//                                                   → [10, 12 | 21 | 31, 32, 33]
//
// Every pass is stable, so a payload (a sort by key's value) keeps the input order of equal codes. Bits that no
// code changes cost no pass: keys all equal take none, a histogram's bin ids below 256 take one scatter.
//
// Tasks, claimed in order by the cores of one parallel loop (thrust::for_each_n on the caller's policy): per
// chunk, the varying bits and the default top digit's counts; per chunk, the chosen top digit's counts when it is
// not the default one; per chunk, the scatter; per bucket, its lower passes. Each phase waits for the one before
// (whose every task was claimed earlier, by a running thread), and the core that finishes a phase's last task
// does its serial step (combine the bits, lay out the buckets) before releasing the next.
#pragma once

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <thread>
#include <thrust/for_each.h>
#include <thrust/iterator/counting_iterator.h>
#include <vector>

#include <dpt/config.hpp>
#include <dpt/detail/temporary_array.hpp>

namespace dpt::cpu::detail {

// Bits of the top digit: enough for buckets of about 2^16 codes, at least 4 and at most 8. A scatter from memory to
// more than 256 places at once runs out of TLB entries and write-combining slots: on the first machine a scatter
// of 2^25 codes to 1024 buckets took longer than to 256 and than a whole bucket pass in cache.
inline constexpr int radix_bucket_bits = 16;
inline constexpr int radix_min_top_bits = 4;
inline constexpr int radix_max_top_bits = 8;
// Lower digits: at most 8 bits (256 counters and write positions stay in L1), so up to four of them.
inline constexpr int radix_max_lower_bits = 8;
inline constexpr int radix_max_lower_digits = 4;

inline int radix_top_bits(std::ptrdiff_t n) {
  int log2 = 0;
  while ((std::ptrdiff_t(1) << log2) < n) ++log2;
  return std::clamp(log2 - radix_bucket_bits, radix_min_top_bits, radix_max_top_bits);
}

// The digits a sort passes over: bits [shift, shift + bits) of the code.
struct radix_digit {
  int shift = 0, bits = 0;
  DPT_ALWAYS_INLINE std::uint32_t of(std::uint32_t code) const { return (code >> shift) & ((1u << bits) - 1u); }
};

struct radix_digits {
  radix_digit top;                            // top.bits == 0: every code is the same, nothing to sort
  radix_digit lower[radix_max_lower_digits];  // least significant first
  int lower_count = 0;
};

// Splits the bits that vary into one top digit of at most top_bits bits and as few lower digits as can hold the
// rest, of near-equal widths.
inline radix_digits make_radix_digits(std::uint32_t vary, int top_bits) {
  radix_digits digits;
  if (vary == 0) return digits;
  const int high = 32 - __builtin_clz(vary), low = __builtin_ctz(vary);
  digits.top.shift = std::max(low, high - top_bits);
  digits.top.bits = high - digits.top.shift;
  const int rest = digits.top.shift - low;
  digits.lower_count = (rest + radix_max_lower_bits - 1) / radix_max_lower_bits;
  for (int k = 0, shift = low; k < digits.lower_count; ++k) {
    const int bits = rest / digits.lower_count + (k < rest % digits.lower_count);
    digits.lower[k] = {shift, bits};
    shift += bits;
  }
  return digits;
}

// Word: std::uint32_t (a code) or std::uint64_t (a code above a 32-bit payload).
template <class Word>
DPT_ALWAYS_INLINE std::uint32_t code_of(Word word) {
  return static_cast<std::uint32_t>(word >> (8 * sizeof(Word) - 32));
}

// One counting-sort pass over src[0, size): counts[d] codes have digit d; put(k, word) receives the k-th word of
// the pass's output.
template <class Word, class Put>
DPT_ALWAYS_INLINE void counting_sort_pass(const Word* src, std::ptrdiff_t size, radix_digit digit,
                                          std::ptrdiff_t* counts, Put put) {
  // find where each digit's run starts
  std::ptrdiff_t start = 0;
  for (std::uint32_t d = 0; d < (1u << digit.bits); ++d) {
    const std::ptrdiff_t count = counts[d];
    counts[d] = start;
    start += count;
  }
  // scatter each word to its digit's run, in input order
  for (std::ptrdiff_t i = 0; i < size; ++i) {
    const Word word = src[i];
    put(counts[digit.of(code_of(word))]++, word);
  }
}

// Everything one radix sort shares between its workers. Source: code(i) (a key's code, for counting) and word(i)
// (the word to sort: its code, and payload); emit(i, word): the i-th word of the sorted sequence, to the output.
template <class Word, class Source, class Emit>
struct radix_tasks {
  std::ptrdiff_t n, chunks;
  int default_top_bits;  // the top digit counted with the varying bits: the top default_top_bits bits
  Source source;
  Emit emit;
  Word* sorted_by_top;  // n words, bucket after bucket
  Word* buffer;         // n words, for the buckets' intermediate passes: a slot per worker, or a region per bucket

  // shared state: varying bits per chunk, the digits, counts per chunk of the top digit, buckets' bounds
  std::uint32_t* vary;
  radix_digits* digits;
  std::ptrdiff_t* top_counts;     // chunk c's count of top digit d: [c << default_top_bits | d]
  std::ptrdiff_t* bucket_starts;  // 2^default_top_bits + 1
  std::ptrdiff_t* slot_size;      // words of buffer per worker, or 0: each bucket uses its own region
  std::ptrdiff_t workers;
  std::atomic<std::ptrdiff_t>* next_task;
  std::atomic<std::ptrdiff_t>* done;  // per phase
  std::atomic<bool>* ready;           // per phase: its serial step is done

  static constexpr int phases = 4;  // varying bits, top counts, scatter, buckets
  std::ptrdiff_t buckets() const { return std::ptrdiff_t(1) << default_top_bits; }
  std::ptrdiff_t tasks_in(int phase) const { return phase < 3 ? chunks : buckets(); }
  std::ptrdiff_t bound(std::ptrdiff_t chunk) const { return chunk * n / chunks; }
  std::ptrdiff_t* counts_of(std::ptrdiff_t chunk) const { return top_counts + (chunk << default_top_bits); }
  bool top_is_default() const {
    return digits->top.shift + digits->top.bits == 32 && digits->top.bits == default_top_bits;
  }

  // each core finds the bits its chunk varies in, and counts its default top digit
  void find_varying_bits(std::ptrdiff_t chunk) const {
    const std::ptrdiff_t begin = bound(chunk), end = bound(chunk + 1);
    const std::uint32_t first = source.code(0);
    const int shift = 32 - default_top_bits;
    std::ptrdiff_t* const counts = counts_of(chunk);
    std::fill(counts, counts + buckets(), 0);
    std::uint32_t bits = 0;
    for (std::ptrdiff_t i = begin; i < end; ++i) {
      const std::uint32_t code = source.code(i);
      bits |= code ^ first;
      ++counts[code >> shift];
    }
    vary[chunk] = bits;
  }

  // each core counts the chosen top digit, when it is not the one already counted
  void count_top_digit(std::ptrdiff_t chunk) const {
    if (digits->top.bits == 0 || top_is_default()) return;
    const radix_digit top = digits->top;
    std::ptrdiff_t* const counts = counts_of(chunk);
    std::fill(counts, counts + buckets(), 0);
    for (std::ptrdiff_t i = bound(chunk), end = bound(chunk + 1); i < end; ++i) ++counts[top.of(source.code(i))];
  }

  // each core scatters its chunk to the buckets, in input order
  void scatter_by_top_digit(std::ptrdiff_t chunk) const {
    if (digits->top.bits == 0) return;
    const radix_digit top = digits->top;
    std::ptrdiff_t* const next = counts_of(chunk);  // by now, where the chunk's next word of each bucket goes
    Word* const to = sorted_by_top;
    for (std::ptrdiff_t i = bound(chunk), end = bound(chunk + 1); i < end; ++i) {
      const Word word = source.word(i);
      to[next[top.of(code_of(word))]++] = word;
    }
  }

  // whichever core is free sorts a bucket by its lower digits, in cache, the last pass writing the output
  void sort_bucket(std::ptrdiff_t bucket, std::ptrdiff_t worker) const {
    const radix_digits& d = *digits;
    if (d.top.bits == 0 || bucket >= (std::ptrdiff_t(1) << d.top.bits)) return;
    const std::ptrdiff_t begin = bucket_starts[bucket], size = bucket_starts[bucket + 1] - begin;
    if (size == 0) return;
    const Emit out = emit;
    const Word* src = sorted_by_top + begin;
    if (d.lower_count == 0) {
      for (std::ptrdiff_t i = 0; i < size; ++i) out(begin + i, src[i]);
      return;
    }
    // count every lower digit in one read: a digit's counts do not depend on the order
    std::ptrdiff_t counts[radix_max_lower_digits][std::size_t(1) << radix_max_lower_bits];
    for (int k = 0; k < d.lower_count; ++k) std::fill(counts[k], counts[k] + (1u << d.lower[k].bits), 0);
    for (std::ptrdiff_t i = 0; i < size; ++i) {
      const std::uint32_t code = code_of(src[i]);
      for (int k = 0; k < d.lower_count; ++k) ++counts[k][d.lower[k].of(code)];
    }
    // the intermediate passes write the worker's slot, which stays in cache from bucket to bucket
    Word* other = buffer + (*slot_size > 0 ? worker * *slot_size : begin);
    Word* here = sorted_by_top + begin;
    for (int k = 0; k + 1 < d.lower_count; ++k) {
      // sort by the k-th lower digit into the other buffer
      Word* const to = other;
      counting_sort_pass(static_cast<const Word*>(here), size, d.lower[k], counts[k],
                         [to](std::ptrdiff_t i, Word word) { to[i] = word; });
      std::swap(here, other);
    }
    // the last pass writes the output
    const int last = d.lower_count - 1;
    counting_sort_pass(static_cast<const Word*>(here), size, d.lower[last], counts[last],
                       [out, begin](std::ptrdiff_t i, Word word) { out(begin + i, word); });
  }

  // the serial steps: after the first phase, choose the digits; after the second, lay out the buckets
  void finish_phase(int phase) const {
    if (phase == 0) {
      std::uint32_t bits = 0;
      for (std::ptrdiff_t c = 0; c < chunks; ++c) bits |= vary[c];
      *digits = make_radix_digits(bits, default_top_bits);
    } else if (phase == 1 && digits->top.bits > 0) {
      // a scan of the counts, bucket by bucket and chunk by chunk within one: where each chunk writes each bucket
      std::ptrdiff_t start = 0;
      for (std::ptrdiff_t d = 0; d < (std::ptrdiff_t(1) << digits->top.bits); ++d) {
        bucket_starts[d] = start;
        for (std::ptrdiff_t c = 0; c < chunks; ++c) {
          const std::ptrdiff_t count = counts_of(c)[d];
          counts_of(c)[d] = start;
          start += count;
        }
      }
      bucket_starts[std::ptrdiff_t(1) << digits->top.bits] = start;
      // a slot per worker, when every worker's slot holds the largest bucket and all of them fit the buffer
      std::ptrdiff_t largest = 0;
      for (std::ptrdiff_t d = 0; d < (std::ptrdiff_t(1) << digits->top.bits); ++d) {
        largest = std::max(largest, bucket_starts[d + 1] - bucket_starts[d]);
      }
      *slot_size = largest * workers <= n ? largest : 0;
    }
  }

  void run_task(std::ptrdiff_t task, std::ptrdiff_t worker) const {
    int phase = 0;
    while (task >= tasks_in(phase)) task -= tasks_in(phase++);
    if (phase > 0) {
      while (!ready[phase - 1].load(std::memory_order_acquire)) std::this_thread::yield();
    }
    switch (phase) {
      case 0:
        find_varying_bits(task);
        break;
      case 1:
        count_top_digit(task);
        break;
      case 2:
        scatter_by_top_digit(task);
        break;
      default:
        sort_bucket(task, worker);
    }
    if (done[phase].fetch_add(1, std::memory_order_acq_rel) + 1 == tasks_in(phase)) {
      finish_phase(phase);
      ready[phase].store(true, std::memory_order_release);
    }
  }

  void operator()(std::ptrdiff_t worker) const {
    std::ptrdiff_t tasks = 0;
    for (int phase = 0; phase < phases; ++phase) tasks += tasks_in(phase);
    for (std::ptrdiff_t task = next_task->fetch_add(1); task < tasks; task = next_task->fetch_add(1)) {
      run_task(task, worker);
    }
  }
};

// Sorts n words by their 32-bit codes on `workers` cores (chunks of the input, one per core), stably: see the top
// of this file. One Thrust call.
template <class Word, class DerivedPolicy, class Source, class Emit>
void radix_sort_words(const thrust::detail::execution_policy_base<DerivedPolicy>& exec, std::ptrdiff_t n,
                      std::ptrdiff_t workers, std::ptrdiff_t chunks, Source source, Emit emit) {
  if (n <= 1) return;
  chunks = std::clamp<std::ptrdiff_t>(chunks, 1, n);
  const int top_bits = radix_top_bits(n);
  // two arrays of n words: the top digit's scatter, and a buffer for the buckets' passes
  dpt::detail::temporary_array<Word, DerivedPolicy> scattered(exec, n), buffer(exec, n);
  std::vector<std::uint32_t> vary(static_cast<std::size_t>(chunks));
  std::vector<std::ptrdiff_t> top_counts(static_cast<std::size_t>(chunks << top_bits));
  std::vector<std::ptrdiff_t> bucket_starts((std::size_t(1) << top_bits) + 1);
  radix_digits digits;
  std::ptrdiff_t slot_size = 0;
  workers = std::min(workers, chunks);
  std::atomic<std::ptrdiff_t> next_task{0};
  std::atomic<std::ptrdiff_t> done[4] = {0, 0, 0, 0};
  std::atomic<bool> ready[4] = {false, false, false, false};
  const radix_tasks<Word, Source, Emit> tasks{n,
                                              chunks,
                                              top_bits,
                                              source,
                                              emit,
                                              thrust::raw_pointer_cast(scattered.begin()),
                                              thrust::raw_pointer_cast(buffer.begin()),
                                              vary.data(),
                                              &digits,
                                              top_counts.data(),
                                              bucket_starts.data(),
                                              &slot_size,
                                              workers,
                                              &next_task,
                                              done,
                                              ready};
  thrust::for_each_n(exec, thrust::counting_iterator<std::ptrdiff_t>(0), workers, tasks);
}

}  // namespace dpt::cpu::detail
