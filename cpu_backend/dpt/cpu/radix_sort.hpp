// dpt/cpu/radix_sort.hpp — the CPU sort of 32-bit codes, alone or with a 32-bit payload riding along: a scatter
// by the top digit across the cores, then each bucket sorted in cache, lowest digit first.
//
// The lecture's counting sort, twice over (codes in hex, payloads left out):
//
//   codes      = [31, 12, 33, 10, 21, 32]
//   vary       = OR of (code ^ codes[0])            = 33: only bits 0–5 decide the order; the others are skipped
//   top digit  = each core counts its chunk's top digit (bits 4–5 here, two bits for the example; the sort's
//                top digit has 4 to 11: 3, 1, 3, 1, 2, 3), a scan of the
//                counts says where each core writes each bucket, and each core scatters its chunk there, in
//                input order, a cache line at a time → [12, 10 | 21 | 31, 33, 32]
//   buckets    = each bucket, claimed by whichever core is free, sorted by counting-sort passes over the lower
//                digits, least significant first, while it sits in cache; the last pass writes the output
//                                                   → [10, 12 | 21 | 31, 32, 33]
//
// Every pass is stable, so a payload (a sort by key's value) keeps the input order of equal codes. Bits that no
// code changes cost no pass: keys all equal take none, a histogram's bin ids below 256 take one scatter.
//
// What keeps the passes near the memory's speed (docs/benchmarks.md, sort): the scatter from memory gathers each
// bucket's words in a 64-byte line of its own and writes whole lines (streamed past the caches when the array is
// larger than them), so up to 2^11 buckets cost hardly more than 2^4; the scratch arrays ask for 2 MiB pages
// (dpt/cpu/huge_pages.hpp); buckets are small enough (about 2^15 words) that their lower passes run in L2, with
// 32-bit counters of at most 11-bit digits in L1.
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
#include <cstring>
#include <thread>
#include <thrust/for_each.h>
#include <thrust/iterator/counting_iterator.h>
#include <vector>

#include <dpt/config.hpp>
#include <dpt/cpu/huge_pages.hpp>
#include <dpt/cpu/streaming_store.hpp>
#include <dpt/detail/temporary_array.hpp>

namespace dpt::cpu::detail {

// Bits of the top digit: enough for buckets of about 2^15 words (a bucket and its pass buffer, 256 or 512 KiB, stay
// in a core's L2), at least 4 and at most 11. The scatter to the buckets goes through a line of 64 bytes per
// bucket (write_combining_lines below), so its cost hardly grows with the number of buckets; a plain scatter from
// memory to more than about 64 places at once runs out of TLB entries and L1 ways (docs/benchmarks.md, sort).
inline constexpr int radix_bucket_bits = 15;
inline constexpr int radix_min_top_bits = 4;
inline constexpr int radix_max_top_bits = 11;
// Lower digits: at most 11 bits (2048 counters, 16 KiB, stay in L1), so at most three of them.
inline constexpr int radix_max_lower_bits = 11;
inline constexpr int radix_max_lower_digits = 3;

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

// Counts and positions within one bucket: 32 bits, half the cache of 64-bit ones (the radix sort takes fewer than
// max_radix_sort_length words).
using bucket_count = std::uint32_t;
inline constexpr std::ptrdiff_t max_radix_sort_length = std::ptrdiff_t(1) << 32;

// One counting-sort pass over src[0, size): counts[d] codes have digit d; put(k, word) receives the k-th word of
// the pass's output.
template <class Word, class Put>
DPT_ALWAYS_INLINE void counting_sort_pass(const Word* src, std::ptrdiff_t size, radix_digit digit, bucket_count* counts,
                                          Put put) {
  // find where each digit's run starts
  bucket_count start = 0;
  for (std::uint32_t d = 0; d < (1u << digit.bits); ++d) {
    const bucket_count count = counts[d];
    counts[d] = start;
    start += count;
  }
  // scatter each word to its digit's run, in input order
  for (std::ptrdiff_t i = 0; i < size; ++i) {
    const Word word = src[i];
    put(counts[digit.of(code_of(word))]++, word);
  }
}

// A scatter to many places at once, a 64-byte line at a time. Each bucket's words gather in two lines of its own
// (all of them together, 2^11 buckets at most, 256 KiB, stay in L2), filled in turn; when the words start to fill
// one line, the other, full since, goes to memory in one piece, streamed past the caches when `stream` is set.
// (Writing a line the moment it is full would read back words stored a few instructions earlier with wider loads,
// which the processor cannot forward from its store buffer: a stall per line.) The lines follow the destination's
// own 64-byte lines, so a full line never touches a word outside them. A chunk shares the first and last line of
// its run in a bucket with the chunks before and after it: those are written word by word.
template <class Word>
class write_combining_lines {
 public:
  static constexpr std::ptrdiff_t words = 64 / sizeof(Word);

  // next[d]: where bucket d's next word goes in `to` (each put advances it); `buckets` of them are used.
  write_combining_lines(Word* to, std::ptrdiff_t* next, std::ptrdiff_t buckets, bool stream)
      : to_(to),
        next_(next),
        buckets_(buckets),
        offset_(std::ptrdiff_t(reinterpret_cast<std::uintptr_t>(to) / sizeof(Word) % words)),
        stream_(stream) {
    for (std::ptrdiff_t d = 0; d < buckets; ++d) begin_[d] = next[d];
  }

  DPT_ALWAYS_INLINE void put(std::uint32_t bucket, Word word) {
    const std::ptrdiff_t i = next_[bucket]++;
    const std::ptrdiff_t slot = (i + offset_) & (2 * words - 1);
    lines_[bucket][slot] = word;
    // the first word of a line: the other line, which ends at to[i], is full (or holds none of this chunk's words)
    if ((slot & (words - 1)) == 0) write_line(bucket, i - words);
  }

  // what is still in the lines, word by word; then the streamed lines are fenced, before any other core reads
  void finish() {
    for (std::ptrdiff_t d = 0; d < buckets_; ++d) {
      const std::ptrdiff_t end = next_[d], filling = end - ((end + offset_) & (words - 1));
      // a line is written when the next one starts: the last line, when it ended on a line's end, is not yet
      const std::ptrdiff_t unwritten = filling == end ? end - words : filling;
      for (std::ptrdiff_t i = std::max(unwritten, begin_[d]); i < end; ++i) to_[i] = word_at(d, i);
    }
#if DPT_HAVE_STREAMING_STORES
    if (stream_) _mm_sfence();
#endif
  }

 private:
  DPT_ALWAYS_INLINE Word word_at(std::ptrdiff_t d, std::ptrdiff_t i) const {
    return lines_[d][(i + offset_) & (2 * words - 1)];
  }

  // the line of bucket d that starts at to[first] is full: write it, or the part of it that is this chunk's
  DPT_ALWAYS_INLINE void write_line(std::uint32_t d, std::ptrdiff_t first) {
    if (first < begin_[d]) {
      for (std::ptrdiff_t i = begin_[d]; i < first + words; ++i) to_[i] = word_at(d, i);
      return;
    }
    const Word* const line = &lines_[d][(first + offset_) & (2 * words - 1)];
#if DPT_HAVE_STREAMING_STORES
    if (stream_) {
      __m128i* const out = reinterpret_cast<__m128i*>(to_ + first);
      const __m128i* const in = reinterpret_cast<const __m128i*>(line);
      for (int k = 0; k < 4; ++k) _mm_stream_si128(out + k, _mm_load_si128(in + k));
      return;
    }
#endif
    std::memcpy(to_ + first, line, 64);
  }

  alignas(64) Word lines_[std::size_t(1) << radix_max_top_bits][2 * words];
  std::ptrdiff_t begin_[std::size_t(1) << radix_max_top_bits];  // where this chunk's run of each bucket starts
  Word* to_;
  std::ptrdiff_t* next_;
  std::ptrdiff_t buckets_, offset_;
  bool stream_;
};

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
  bool stream_scatter;  // the scatter's lines bypass the caches: sorted_by_top is far larger than them

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

  // each core scatters its chunk to the buckets, in input order, a cache line at a time
  void scatter_by_top_digit(std::ptrdiff_t chunk) const {
    if (digits->top.bits == 0) return;
    const radix_digit top = digits->top;
    std::ptrdiff_t* const next = counts_of(chunk);  // by now, where the chunk's next word of each bucket goes
    write_combining_lines<Word> lines(sorted_by_top, next, std::ptrdiff_t(1) << top.bits, stream_scatter);
    for (std::ptrdiff_t i = bound(chunk), end = bound(chunk + 1); i < end; ++i) {
      const Word word = source.word(i);
      lines.put(top.of(code_of(word)), word);
    }
    lines.finish();
  }

  // the counts of `Digits` lower digits in one read (a fixed number of them, so that the loop is straight code)
  template <int Digits>
  static void count_lower_digits(const Word* src, std::ptrdiff_t size, const radix_digit* digit,
                                 bucket_count (*counts)[std::size_t(1) << radix_max_lower_bits]) {
    for (std::ptrdiff_t i = 0; i < size; ++i) {
      const std::uint32_t code = code_of(src[i]);
      for (int k = 0; k < Digits; ++k) ++counts[k][digit[k].of(code)];
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
    bucket_count counts[radix_max_lower_digits][std::size_t(1) << radix_max_lower_bits];
    for (int k = 0; k < d.lower_count; ++k) std::fill(counts[k], counts[k] + (1u << d.lower[k].bits), 0);
    switch (d.lower_count) {
      case 1:
        count_lower_digits<1>(src, size, d.lower, counts);
        break;
      case 2:
        count_lower_digits<2>(src, size, d.lower, counts);
        break;
      default:
        count_lower_digits<3>(src, size, d.lower, counts);
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
    // the last pass too stays in cache; the sorted bucket then goes to the output in order, a stream of whole lines
    // where the pass's stores would have fetched each line of the output from memory first
    const int last = d.lower_count - 1;
    Word* const to = other;
    counting_sort_pass(static_cast<const Word*>(here), size, d.lower[last], counts[last],
                       [to](std::ptrdiff_t i, Word word) { to[i] = word; });
    for (std::ptrdiff_t i = 0; i < size; ++i) out(begin + i, to[i]);
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

// Sorts n words by their 32-bit codes on `workers` cores (chunks of the input, one per core), stably, with a top
// digit of at most top_bits bits (radix_top_bits(n), unless a test wants another): see the top of this file. One
// Thrust call.
template <class Word, class DerivedPolicy, class Source, class Emit>
void radix_sort_words(const thrust::detail::execution_policy_base<DerivedPolicy>& exec, std::ptrdiff_t n,
                      std::ptrdiff_t workers, std::ptrdiff_t chunks, int top_bits, Source source, Emit emit) {
  if (n <= 1) return;
  chunks = std::clamp<std::ptrdiff_t>(chunks, 1, n);
  // two arrays of n words: the top digit's scatter, and a buffer for the buckets' passes
  dpt::detail::temporary_array<Word, DerivedPolicy> scattered(exec, n), buffer(exec, n);
  advise_huge_pages(thrust::raw_pointer_cast(scattered.begin()), std::size_t(n) * sizeof(Word));
  advise_huge_pages(thrust::raw_pointer_cast(buffer.begin()), std::size_t(n) * sizeof(Word));
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
                                              std::size_t(n) * sizeof(Word) >= streaming_output_bytes,
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
