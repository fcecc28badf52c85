// Seeded random inputs shared by the tests: every test draws from the same generators, so a failure
// reproduces from its seed and size alone.
#pragma once

#include <cstddef>
#include <cstdint>
#include <random>
#include <type_traits>
#include <vector>

namespace dpt::test {

// Whether this test was built with AddressSanitizer (the asan preset). Under it, allocation-heavy references and
// large inputs run about a hundred times slower, so that build stops at 65537 (already many of the CPU backend's
// slices and the SIMT runner's tiles) and skips the [large] test cases; the optimised builds run everything.
#if defined(__SANITIZE_ADDRESS__)
inline constexpr bool sanitized_build = true;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
inline constexpr bool sanitized_build = true;
#else
inline constexpr bool sanitized_build = false;
#endif
#else
inline constexpr bool sanitized_build = false;
#endif

// The largest input the sanitizer build tests (sanitized_build).
inline constexpr std::size_t sanitized_size_cap = 65537;

// The sizes every algorithm is tested on: empty, one, two, primes (none a multiple of a block size) and, except
// in the sanitizer build, large.
inline const std::vector<std::size_t> interesting_sizes =
    sanitized_build ? std::vector<std::size_t>{0, 1, 2, 3, 31, 97, 1009, sanitized_size_cap}
                    : std::vector<std::size_t>{0, 1, 2, 3, 31, 97, 1009, 65537, 1000003};

template <class T>
std::vector<T> random_values(std::size_t n, std::uint64_t seed, T lo, T hi) {
  std::mt19937_64 rng(seed);
  std::vector<T> values(n);
  if constexpr (std::is_integral_v<T>) {
    std::uniform_int_distribution<long long> dist(lo, hi);
    for (auto& v : values) v = static_cast<T>(dist(rng));
  } else {
    std::uniform_real_distribution<T> dist(lo, hi);
    for (auto& v : values) v = dist(rng);
  }
  return values;
}

// How segments are laid out over n elements, as head flags (1 where a segment begins).
enum class segment_layout { one_segment, every_element, random_runs, first_unflagged };

inline const char* name(segment_layout layout) {
  switch (layout) {
    case segment_layout::one_segment:
      return "one segment";
    case segment_layout::every_element:
      return "every element its own segment";
    case segment_layout::random_runs:
      return "random segment lengths";
    default:
      return "random segments, first flag unset";
  }
}

inline std::vector<int> head_flags(std::size_t n, segment_layout layout, std::uint64_t seed) {
  std::vector<int> flags(n, 0);
  std::mt19937_64 rng(seed);
  std::bernoulli_distribution starts(0.1);
  for (std::size_t i = 0; i < n; ++i) {
    switch (layout) {
      case segment_layout::one_segment:
        flags[i] = i == 0;
        break;
      case segment_layout::every_element:
        flags[i] = 1;
        break;
      case segment_layout::random_runs:
        flags[i] = i == 0 || starts(rng);
        break;
      case segment_layout::first_unflagged:
        flags[i] = i != 0 && starts(rng);
        break;
    }
  }
  return flags;
}

}  // namespace dpt::test
