// dpt/cpu/sort.hpp — dpt::sort and dpt::stable_sort_by_key on the CPU device systems, by one of two methods:
// Highway's vqsort on every core and a parallel merge (below), or the radix sort of dpt/cpu/radix_sort.hpp.
//
// Which runs (sort_method::fastest, measured on the first machine, docs/benchmarks.md): a sort by key of integer
// keys with values of up to 4 bytes takes the radix sort from radix_sort_length keys on (its passes carry the
// value in the word they sort, where the merge gathers each value from a random place); a plain sort of 32-bit
// keys takes it from plain_radix_sort_length keys on, where its arrays outgrow the last-level cache (below that,
// vqsort and merges are faster on random keys). Either takes a tuning that picks the other.
//
// vqsort (Highway's vectorised quicksort, hwy/contrib/sort) sorts unsigned integers on one core. The keys are
// first mapped to unsigned codes in the same order, then the recipe is the lecture's, at the scale of cores:
//
//   codes   = map each key to its code                         [3, −5, 7, −1 | 2, 0, −3, 4]   (shown as keys)
//   chunks  = each core sorts its chunk with vqsort           [−5, −1, 3, 7 | −3, 0, 2, 4]
//   merge   = sorted runs merged pairwise, log2(chunks) rounds, [−5, −3, −1, 0, 2, 3, 4, 7]
//             every round cut into equal pieces at the split its merge path finds (a binary search on the
//             diagonal), so every core merges the same number of elements whatever the keys
//   decode  = each code back to its key, as the last merge writes it out
//
// Codes (both methods): unsigned integers as they are, signed ones with the sign bit flipped, IEEE floats by the
// usual totalOrder mapping (sign set: all bits inverted; otherwise the sign bit set), so that
//   −NaN < −∞ < … < −0.0 < +0.0 < … < +∞ < +NaN.
// The merge's sort by key (stable) packs each key's 32-bit code above its 32-bit position and sorts the 64-bit
// pairs: the position breaks ties in input order, which is what makes it stable, and says where the key's value
// comes from. Its codes fold −0.0 into +0.0, which compare equal, so their values keep their input order too;
// values (and floating-point keys) are then gathered from copies, unless the values are their own positions 0, 1,
// …, n − 1 (an argsort, as the grid's particle ids are). Keys wider than 32 bits and n ≥ 2^32 are not sorted by
// key here (supports_* below).
//
// The whole sort is one parallel loop over the cores (thrust::for_each_n on the caller's policy), which claim its
// tasks in order — sort chunk 0, 1, …, then merge piece 0, 1, … of each round, the last round writing the output
// (with one chunk, a decode pass instead) — and wait for the round before theirs to finish: a system that runs the
// loop on fewer threads than it has iterations, or on one, still finishes, since every task waited on was claimed
// earlier by a running thread. Scratch (an array of codes, two when there are more than two chunks, and for a sort
// by key copies of the values and floating-point keys; the radix sort's two arrays of words) comes from the policy.
#pragma once

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <limits>
#include <memory>
#include <optional>
#include <stdexcept>
#include <thread>
#include <type_traits>
#include <thrust/for_each.h>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/type_traits/unwrap_contiguous_iterator.h>

#include <dpt/config.hpp>
#include <dpt/cpu/radix_sort.hpp>
#include <dpt/cpu/sort_targets.hpp>
#include <dpt/cpu/system.hpp>
#include <dpt/detail/temporary_array.hpp>

namespace dpt::cpu {

// Which of the two sorts runs: the radix sort of dpt/cpu/radix_sort.hpp, or vqsort on every core and merges.
enum class sort_method {
  fastest,       // the radix sort for a sort by key (integer keys, values of up to 4 bytes) from radix_sort_length
                 // keys on and for a plain sort of 32-bit keys from plain_radix_sort_length; vqsort and merges for
                 // the rest
  radix,         // the radix sort wherever it applies (32-bit codes; by key, as above), at any size
  vqsort_merge,  // vqsort and merges for every key
};

// How the CPU sort is run, when a caller wants to choose (tests do: several chunks on any machine, every target,
// both methods).
struct sort_tuning {
  std::optional<std::ptrdiff_t> chunks{};  // how many chunks the cores sort (or scatter); default: one per core
  sort_target_set targets = 0;             // Highway targets for vqsort; 0: the fastest measured (sort_targets.hpp)
  sort_method method = sort_method::fastest;
  std::optional<int> radix_top_bits{};  // bits of the radix sort's top digit, 4 to 11; default: by n (radix_sort.hpp)
};

// Below this many keys one core sorts them all: waking the others would cost more than it saves.
inline constexpr std::ptrdiff_t serial_sort_length = std::ptrdiff_t(1) << 15;
// From this many keys on, the radix sort is the faster of the two for a sort by key, and for a plain sort of 32-bit
// keys (docs/benchmarks.md: even with vqsort at 2^22 random keys, 1.4x faster at 2^24).
inline constexpr std::ptrdiff_t radix_sort_length = std::ptrdiff_t(1) << 16;
inline constexpr std::ptrdiff_t plain_radix_sort_length = std::ptrdiff_t(1) << 23;

// The unsigned code of a Key with the same order (see above): `type`, `encode`, `decode`.
template <class Key, class = void>
struct sort_code {};

template <class Key>
struct sort_code<Key, std::enable_if_t<std::is_integral_v<Key> && !std::is_same_v<Key, bool> && sizeof(Key) <= 8>> {
  using type = std::conditional_t<sizeof(Key) <= 4, std::uint32_t, std::uint64_t>;
  using unsigned_key = std::make_unsigned_t<Key>;
  static constexpr type sign_bit = std::is_signed_v<Key> ? type(unsigned_key(1) << (8 * sizeof(Key) - 1)) : 0;
  static type encode(Key key) { return type(unsigned_key(key)) ^ sign_bit; }
  static Key decode(type code) { return Key(unsigned_key(code ^ sign_bit)); }
};

template <class Key>
struct sort_code<Key, std::enable_if_t<std::is_floating_point_v<Key> && (sizeof(Key) == 4 || sizeof(Key) == 8) &&
                                       std::numeric_limits<Key>::is_iec559>> {
  using type = std::conditional_t<sizeof(Key) == 4, std::uint32_t, std::uint64_t>;
  static constexpr type sign_bit = type(1) << (8 * sizeof(Key) - 1);
  static type encode(Key key) {
    type bits;
    std::memcpy(&bits, &key, sizeof bits);
    return (bits & sign_bit) ? ~bits : bits | sign_bit;
  }
  static Key decode(type code) {
    const type bits = (code & sign_bit) ? code & ~sign_bit : ~code;
    Key key;
    std::memcpy(&key, &bits, sizeof key);
    return key;
  }
};

template <class Key, class = void>
inline constexpr bool has_sort_code_v = false;
template <class Key>
inline constexpr bool has_sort_code_v<Key, std::void_t<typename sort_code<Key>::type>> = true;

// Keys this backend sorts: integers (not bool) of up to 64 bits, float and double.
template <class Key>
inline constexpr bool supports_sort_v = has_sort_code_v<Key>;
// Keys it sorts by key: those with 32-bit codes (the code and a 32-bit position share one 64-bit word), with
// values it can copy as bytes.
template <class Key, class Value>
inline constexpr bool supports_sort_by_key_v = has_sort_code_v<Key> &&
                                               sizeof(Key) <= 4 && std::is_trivially_copyable_v<Value>;
// ... and how many of them at most.
inline constexpr std::ptrdiff_t max_sort_by_key_length = std::ptrdiff_t(1) << 32;

namespace detail {

// How the sort cuts [0, n): `chunks` runs sorted by one core each, then as many equal pieces per merge round.
struct sort_layout {
  std::ptrdiff_t n = 0, chunks = 1, rounds = 0;
  std::ptrdiff_t bound(std::ptrdiff_t chunk) const { return std::min(chunk, chunks) * n / chunks; }
};

inline sort_layout make_sort_layout(std::ptrdiff_t n, std::ptrdiff_t workers, const sort_tuning& tuning) {
  sort_layout layout{n};
  const std::ptrdiff_t wanted = tuning.chunks ? *tuning.chunks : n < serial_sort_length ? 1 : workers;
  layout.chunks = std::clamp<std::ptrdiff_t>(wanted, 1, std::max<std::ptrdiff_t>(n, 1));
  while ((std::ptrdiff_t(1) << layout.rounds) < layout.chunks) ++layout.rounds;
  return layout;
}

// How many of the first `diagonal` elements of merge(a, b) come from a (ties from a first).
template <class Code>
std::ptrdiff_t merge_path(const Code* a, std::ptrdiff_t a_size, const Code* b, std::ptrdiff_t b_size,
                          std::ptrdiff_t diagonal) {
  std::ptrdiff_t low = std::max<std::ptrdiff_t>(0, diagonal - b_size), high = std::min(diagonal, a_size);
  while (low < high) {
    const std::ptrdiff_t mid = low + (high - low) / 2;
    if (b[diagonal - mid - 1] < a[mid]) {
      high = mid;
    } else {
      low = mid + 1;
    }
  }
  return low;
}

// Merges a[0, a_size) and b[0, b_size), taking a's element on ties, without branching on the keys: put(k, code)
// receives the k-th code of the merge, k counted from `first`.
template <class Code, class Put>
DPT_ALWAYS_INLINE void merge_runs(const Code* a, std::ptrdiff_t a_size, const Code* b, std::ptrdiff_t b_size,
                                  std::ptrdiff_t first, Put put) {
  std::ptrdiff_t i = 0, j = 0, k = first;
  while (i < a_size && j < b_size) {
    const bool take_b = b[j] < a[i];
    put(k++, take_b ? b[j] : a[i]);
    j += take_b;
    i += !take_b;
  }
  for (; i < a_size; ++i) put(k++, a[i]);
  for (; j < b_size; ++j) put(k++, b[j]);
}

// Merges piece `piece` of round `round`'s output, handing each code and its position to put: pieces are the
// chunks' ranges, and each lies inside one pair of the runs that round merges (runs of 2^(round−1) chunks).
template <class Code, class Put>
void merge_piece(const sort_layout& layout, std::ptrdiff_t round, std::ptrdiff_t piece, const Code* from, Put put) {
  const std::ptrdiff_t run_chunks = std::ptrdiff_t(1) << (round - 1);
  const std::ptrdiff_t pair_first_chunk = piece / (2 * run_chunks) * (2 * run_chunks);
  const std::ptrdiff_t low = layout.bound(pair_first_chunk), mid = layout.bound(pair_first_chunk + run_chunks),
                       high = layout.bound(pair_first_chunk + 2 * run_chunks);
  const std::ptrdiff_t begin = layout.bound(piece), end = layout.bound(piece + 1);
  const Code *a = from + low, *b = from + mid;
  // find where the piece's first and one-past-last outputs cut the two runs: the merge path
  const std::ptrdiff_t a_begin = merge_path(a, mid - low, b, high - mid, begin - low);
  const std::ptrdiff_t a_end = merge_path(a, mid - low, b, high - mid, end - low);
  merge_runs(a + a_begin, a_end - a_begin, b + (begin - low - a_begin), (end - low - a_end) - (begin - low - a_begin),
             begin, put);
}

// Everything one sort shares between its workers: the layout, the arrays of codes and the task counters.
// Phases: 0 sorts the chunks; 1 … rounds merge, the last of them handing its output to `emit`; with one chunk,
// phase 1 hands the sorted chunk to `emit`.
template <class Code, class Fill, class Emit>
struct sort_tasks {
  sort_layout layout;
  Code* codes[2];  // chunks are sorted in codes[0]; round r reads codes[(r − 1) % 2] and writes the other
  Fill fill;       // fill(begin, end, codes): the chunk's codes
  Emit emit;       // emit(i, code): the i-th code of the sorted sequence, to the output
  std::atomic<std::ptrdiff_t>* next_task;
  std::atomic<std::ptrdiff_t>* done;  // tasks finished, per phase

  std::ptrdiff_t phases() const { return std::max<std::ptrdiff_t>(layout.rounds, 1) + 1; }

  void run_task(std::ptrdiff_t task) const {
    const std::ptrdiff_t phase = task / layout.chunks, piece = task % layout.chunks;
    // wait for the phase before: every task of it was claimed before this one, by a running thread
    if (phase > 0) {
      while (done[phase - 1].load(std::memory_order_acquire) < layout.chunks) std::this_thread::yield();
    }
    const std::ptrdiff_t begin = layout.bound(piece), end = layout.bound(piece + 1);
    if (phase == 0) {
      // each core sorts its chunk
      fill(begin, end, codes[0]);
      if (end - begin > 1) {
        const hwy::Sorter sorter;
        sorter(codes[0] + begin, static_cast<std::size_t>(end - begin), hwy::SortAscending());
      }
    } else if (layout.rounds == 0) {
      for (std::ptrdiff_t i = begin; i < end; ++i) emit(i, codes[0][i]);
    } else if (phase < layout.rounds) {
      // merge pairs of sorted runs
      Code* const to = codes[phase % 2];
      merge_piece(layout, phase, piece, codes[(phase - 1) % 2], [to](std::ptrdiff_t i, Code code) { to[i] = code; });
    } else {
      // the last merge writes the output
      merge_piece(layout, phase, piece, codes[(phase - 1) % 2], emit);
    }
    done[phase].fetch_add(1, std::memory_order_release);
  }

  void operator()(std::ptrdiff_t /*worker*/) const {
    const std::ptrdiff_t tasks = layout.chunks * phases();
    for (std::ptrdiff_t task = next_task->fetch_add(1); task < tasks; task = next_task->fetch_add(1)) run_task(task);
  }
};

inline bool uses_radix(std::ptrdiff_t n, bool by_key, const sort_tuning& tuning) {
  if (n >= max_radix_sort_length) return false;
  return tuning.method == sort_method::radix ||
         (tuning.method == sort_method::fastest && n >= (by_key ? radix_sort_length : plain_radix_sort_length));
}

// What the radix sort reads: each key's code (a sort), or each key's code above its value's bits (a sort by key).
template <class Key, class KeyPtr>
struct key_codes {
  KeyPtr keys;
  DPT_ALWAYS_INLINE std::uint32_t code(std::ptrdiff_t i) const { return sort_code<Key>::encode(keys[i]); }
  DPT_ALWAYS_INLINE std::uint32_t word(std::ptrdiff_t i) const { return code(i); }
};

template <class Key, class Value, class KeyPtr, class ValuePtr>
struct key_codes_and_values {
  KeyPtr keys;
  ValuePtr values;
  DPT_ALWAYS_INLINE std::uint32_t code(std::ptrdiff_t i) const { return sort_code<Key>::encode(keys[i]); }
  DPT_ALWAYS_INLINE std::uint64_t word(std::ptrdiff_t i) const {
    const Value value = values[i];
    std::uint32_t bits = 0;
    std::memcpy(&bits, &value, sizeof value);
    return std::uint64_t(code(i)) << 32 | bits;
  }
};

// The cores the policy runs a sort on. The serial CPP system runs the loop on the calling thread: one chunk,
// unless a caller asks for more.
template <class DerivedPolicy>
std::ptrdiff_t sort_workers() {
  return handles_v<DerivedPolicy> ? worker_count<DerivedPolicy>() : 1;
}

// Sorts n words by their 32-bit codes with the radix sort, on the policy's cores. One Thrust call.
template <class Word, class DerivedPolicy, class Source, class Emit>
void radix_sort_codes(const thrust::detail::execution_policy_base<DerivedPolicy>& exec, std::ptrdiff_t n, Source source,
                      Emit emit, const sort_tuning& tuning) {
  const std::ptrdiff_t workers = sort_workers<DerivedPolicy>();
  const int top_bits = tuning.radix_top_bits
                           ? std::clamp(*tuning.radix_top_bits, radix_min_top_bits, radix_max_top_bits)
                           : radix_top_bits(n);
  radix_sort_words<Word>(exec, n, workers, make_sort_layout(n, workers, tuning).chunks, top_bits, source, emit);
}

// Sorts n codes on the policy's cores: fill them, sort and merge, emit the sorted codes. One Thrust call.
template <class Code, class DerivedPolicy, class Fill, class Emit>
void sort_codes(const thrust::detail::execution_policy_base<DerivedPolicy>& exec, std::ptrdiff_t n, Fill fill,
                Emit emit, const sort_tuning& tuning) {
  const std::ptrdiff_t workers = sort_workers<DerivedPolicy>();
  const sort_layout layout = make_sort_layout(n, workers, tuning);
  dpt::detail::temporary_array<Code, DerivedPolicy> first(exec, n), second(exec, layout.rounds > 1 ? n : 0);
  std::atomic<std::ptrdiff_t> next_task{0};
  sort_tasks<Code, Fill, Emit> tasks{
      layout,     {thrust::raw_pointer_cast(first.begin()), thrust::raw_pointer_cast(second.begin())},
      fill,       emit,
      &next_task, nullptr};
  const auto done = std::make_unique<std::atomic<std::ptrdiff_t>[]>(static_cast<std::size_t>(tasks.phases()));
  for (std::ptrdiff_t phase = 0; phase < tasks.phases(); ++phase) done[phase].store(0);
  tasks.done = done.get();
  with_sort_targets<Code>(tuning.targets, [&] {
    thrust::for_each_n(exec, thrust::counting_iterator<std::ptrdiff_t>(0), std::min(workers, layout.chunks), tasks);
  });
}

}  // namespace detail

// Sorts [first, last) ascending (the order of the keys' codes, above). RandomIt's values: supports_sort_v.
template <class DerivedPolicy, class RandomIt>
void sort(const thrust::detail::execution_policy_base<DerivedPolicy>& exec, RandomIt first, RandomIt last,
          const sort_tuning& tuning = {}) {
  using key_type = std::remove_cv_t<typename std::iterator_traits<RandomIt>::value_type>;
  using code = sort_code<key_type>;
  static_assert(supports_sort_v<key_type>, "dpt::cpu::sort takes integer, float and double keys");
  const auto keys = thrust::try_unwrap_contiguous_iterator(first);
  const auto n = static_cast<std::ptrdiff_t>(last - first);
  if constexpr (sizeof(typename code::type) == 4) {
    if (detail::uses_radix(n, false, tuning)) {
      // scatter by the top digit across the cores, then sort each bucket in cache; the last pass decodes
      const auto emit = [keys](std::ptrdiff_t i, std::uint32_t sorted) { keys[i] = code::decode(sorted); };
      detail::radix_sort_codes<std::uint32_t>(exec, n, detail::key_codes<key_type, decltype(keys)>{keys}, emit, tuning);
      return;
    }
  }
  // map each key to its code
  const auto fill = [keys](std::ptrdiff_t begin, std::ptrdiff_t end, typename code::type* codes) {
    for (std::ptrdiff_t i = begin; i < end; ++i) codes[i] = code::encode(keys[i]);
  };
  // each code back to its key
  const auto emit = [keys](std::ptrdiff_t i, typename code::type sorted) { keys[i] = code::decode(sorted); };
  detail::sort_codes<typename code::type>(exec, n, fill, emit, tuning);
}

// Sorts [keys_first, keys_last) ascending and permutes values_first's elements alike; keys that compare equal keep
// their input order. Key and value: supports_sort_by_key_v; fewer than max_sort_by_key_length keys.
template <class DerivedPolicy, class KeyIt, class ValueIt>
void stable_sort_by_key(const thrust::detail::execution_policy_base<DerivedPolicy>& exec, KeyIt keys_first,
                        KeyIt keys_last, ValueIt values_first, const sort_tuning& tuning = {}) {
  using key_type = std::remove_cv_t<typename std::iterator_traits<KeyIt>::value_type>;
  using value_type = std::remove_cv_t<typename std::iterator_traits<ValueIt>::value_type>;
  using code = sort_code<key_type>;
  static_assert(supports_sort_by_key_v<key_type, value_type>,
                "dpt::cpu::stable_sort_by_key takes keys of up to 32 bits and trivially copyable values");
  const auto n = static_cast<std::ptrdiff_t>(keys_last - keys_first);
  if (n >= max_sort_by_key_length) throw std::length_error("dpt::cpu::stable_sort_by_key: 2^32 keys or more");
  const auto keys = thrust::try_unwrap_contiguous_iterator(keys_first);
  const auto values = thrust::try_unwrap_contiguous_iterator(values_first);
  // Integer keys and values of up to 4 bytes sort as one 64-bit word each, code above value: the radix sort's
  // passes are stable, and its last one writes both out. (Floating-point keys need −0.0 folded into +0.0 for
  // sorting and kept for the output: the code cannot carry both.)
  if constexpr (std::is_integral_v<key_type> && sizeof(value_type) <= 4) {
    if (detail::uses_radix(n, true, tuning)) {
      const auto emit = [keys, values](std::ptrdiff_t i, std::uint64_t sorted) {
        keys[i] = code::decode(static_cast<std::uint32_t>(sorted >> 32));
        const auto bits = static_cast<std::uint32_t>(sorted);
        value_type value;
        std::memcpy(&value, &bits, sizeof value);
        values[i] = value;
      };
      const detail::key_codes_and_values<key_type, value_type, decltype(keys), decltype(values)> words{keys, values};
      detail::radix_sort_codes<std::uint64_t>(exec, n, words, emit, tuning);
      return;
    }
  }
  // integer keys come back from their codes; floating-point ones from a copy (their codes fold −0.0 into +0.0)
  constexpr bool copy_keys = std::is_floating_point_v<key_type>;
  dpt::detail::temporary_array<key_type, DerivedPolicy> key_copies(exec, copy_keys ? n : 0);
  dpt::detail::temporary_array<value_type, DerivedPolicy> value_copies(exec, n);
  key_type* const key_copy = thrust::raw_pointer_cast(key_copies.begin());
  value_type* const value_copy = thrust::raw_pointer_cast(value_copies.begin());
  // Values that are their own positions, 0, 1, …, n − 1 (the grid's particle ids: an argsort), need no gather: the
  // fill notices, and the output takes each position as it is. Read after the merges, which wait for the fill.
  std::atomic<bool> values_are_positions{std::is_integral_v<value_type>};
  std::atomic<bool>* const positions = &values_are_positions;
  // pair each key's code with its position, and keep copies to gather from
  const auto fill = [=](std::ptrdiff_t begin, std::ptrdiff_t end, std::uint64_t* pairs) {
    bool are_positions = true;
    for (std::ptrdiff_t i = begin; i < end; ++i) {
      key_type key = keys[i];
      if constexpr (copy_keys) {
        key_copy[i] = key;
        if (key == key_type(0)) key = key_type(0);  // −0.0 → +0.0
      }
      const value_type value = values[i];
      value_copy[i] = value;
      if constexpr (std::is_integral_v<value_type>) are_positions &= value == static_cast<value_type>(i);
      pairs[i] = std::uint64_t(code::encode(key)) << 32 | std::uint64_t(i);
    }
    if (!are_positions) positions->store(false, std::memory_order_relaxed);
  };
  // each sorted position's key, and the value from where that key was
  const auto emit = [=](std::ptrdiff_t i, std::uint64_t pair) {
    const auto from = static_cast<std::ptrdiff_t>(pair & 0xffffffffu);
    if constexpr (copy_keys) {
      keys[i] = key_copy[from];
    } else {
      keys[i] = code::decode(static_cast<typename code::type>(pair >> 32));
    }
    if constexpr (std::is_integral_v<value_type>) {
      if (positions->load(std::memory_order_relaxed)) {
        values[i] = static_cast<value_type>(from);
        return;
      }
    }
    values[i] = value_copy[from];
  };
  detail::sort_codes<std::uint64_t>(exec, n, fill, emit, tuning);
}

// Bytes the sorts above take through their policy for n keys (of Key, with values of Value for a sort by key): the
// larger of the two methods' (the radix sort's two arrays of n codes, or of n 64-bit words by key, never exceed
// the merge's).
template <class Key>
std::size_t sort_temporary_bytes(std::ptrdiff_t n) {
  return n > 0 ? 2 * std::size_t(n) * sizeof(typename sort_code<Key>::type) : 0;
}
template <class Key, class Value>
std::size_t stable_sort_by_key_temporary_bytes(std::ptrdiff_t n) {
  const std::size_t key_copy = std::is_floating_point_v<Key> ? sizeof(Key) : 0;
  return n > 0 ? std::size_t(n) * (2 * sizeof(std::uint64_t) + key_copy + sizeof(Value)) : 0;
}

}  // namespace dpt::cpu
