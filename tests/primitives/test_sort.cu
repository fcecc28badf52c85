// dpt::sort and dpt::stable_sort_by_key against std::sort and std::stable_sort; on the CPU systems the backend
// underneath (dpt::cpu::sort: vqsort per chunk, then merges, or the radix sort) with several chunk counts, every
// Highway target this processor runs, and both methods.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <type_traits>
#include <thrust/device_vector.h>
#include <thrust/host_vector.h>
#include <vector>

#include <dpt/sort.hpp>
#include "test_support/random_inputs.hpp"

namespace {

using dpt::test::interesting_sizes;

// How a test input is laid out.
enum class key_pattern { random, all_equal, ascending, descending, few_distinct };
const std::vector<key_pattern> all_patterns{key_pattern::random, key_pattern::all_equal, key_pattern::ascending,
                                            key_pattern::descending, key_pattern::few_distinct};

const char* name(key_pattern pattern) {
  switch (pattern) {
    case key_pattern::random:
      return "random";
    case key_pattern::all_equal:
      return "all equal";
    case key_pattern::ascending:
      return "ascending";
    case key_pattern::descending:
      return "descending";
    case key_pattern::few_distinct:
      return "few distinct";
  }
  return "?";
}

// n keys of the pattern. Random floating-point keys include ±0.0, ±∞ and NaNs of both signs.
template <class Key>
std::vector<Key> make_keys(std::size_t n, key_pattern pattern, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<Key> keys(n);
  const auto random_key = [&] {
    if constexpr (std::is_floating_point_v<Key>) {
      constexpr Key specials[] = {Key(0),
                                  -Key(0),
                                  std::numeric_limits<Key>::infinity(),
                                  -std::numeric_limits<Key>::infinity(),
                                  std::numeric_limits<Key>::quiet_NaN(),
                                  -std::numeric_limits<Key>::quiet_NaN()};
      if (rng() % 16 == 0) return specials[rng() % 6];
      return static_cast<Key>(std::uniform_real_distribution<double>(-1e6, 1e6)(rng));
    } else {
      return static_cast<Key>(rng());  // every bit pattern, negative keys included
    }
  };
  for (std::size_t i = 0; i < n; ++i) {
    switch (pattern) {
      case key_pattern::random:
        keys[i] = random_key();
        break;
      case key_pattern::all_equal:
        keys[i] = Key(42);
        break;
      case key_pattern::ascending:
        keys[i] = static_cast<Key>(i);
        break;
      case key_pattern::descending:
        keys[i] = static_cast<Key>(n - i);
        break;
      case key_pattern::few_distinct:
        keys[i] = static_cast<Key>(int(rng() % 5) - 2);
        break;
    }
  }
  return keys;
}

// The order the CPU sort documents, written out case by case: −NaN < −∞ < … < −0.0 < +0.0 < … < +∞ < +NaN.
// `zeros_equal`: −0.0 and +0.0 as one key (the sort by key's order, `<`'s).
template <class Key>
bool ordered_before(Key a, Key b, bool zeros_equal) {
  if constexpr (std::is_floating_point_v<Key>) {
    const auto rank = [](Key x) { return std::isnan(x) ? (std::signbit(x) ? 0 : 2) : 1; };
    if (rank(a) != rank(b)) return rank(a) < rank(b);
    if (rank(a) != 1) return false;
    if (a == b && !zeros_equal) return std::signbit(a) && !std::signbit(b);
  }
  return a < b;
}

template <class T>
bool same_bits(const std::vector<T>& a, const std::vector<T>& b) {
  return a.size() == b.size() && (a.empty() || std::memcmp(a.data(), b.data(), a.size() * sizeof(T)) == 0);
}

template <class T>
std::size_t first_difference(const std::vector<T>& a, const std::vector<T>& b) {
  std::size_t i = 0;
  while (i < std::min(a.size(), b.size()) && std::memcmp(&a[i], &b[i], sizeof(T)) == 0) ++i;
  return i;
}

template <class Key>
std::vector<Key> reference_sort(std::vector<Key> keys) {
  std::sort(keys.begin(), keys.end(), [](Key a, Key b) { return ordered_before(a, b, false); });
  return keys;
}

// (keys, values) stably sorted by key, −0.0 and +0.0 as one key.
template <class Key, class Value>
std::pair<std::vector<Key>, std::vector<Value>> reference_sort_by_key(const std::vector<Key>& keys,
                                                                      const std::vector<Value>& values) {
  std::vector<std::size_t> order(keys.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(),
                   [&](std::size_t a, std::size_t b) { return ordered_before(keys[a], keys[b], true); });
  std::pair<std::vector<Key>, std::vector<Value>> sorted;
  for (const std::size_t i : order) {
    sorted.first.push_back(keys[i]);
    sorted.second.push_back(values[i]);
  }
  return sorted;
}

// Sorts through `sort(keys)` (keys a std::vector) and compares bit for bit with the reference.
template <class Key, class Sort>
void check_sort(const std::vector<Key>& keys, Sort&& sort) {
  const auto expected = reference_sort(keys);
  std::vector<Key> got = keys;
  sort(got);
  INFO("first difference at " << first_difference(got, expected) << " of " << keys.size());
  CHECK(same_bits(got, expected));
}

// The values a sort by key carries: their own positions 0, 1, …, n − 1 (the grid's particle ids), those but for
// the last, or others.
enum class value_pattern { positions, positions_but_last, scattered };

template <class Key, class Value, class Sort>
void check_sort_by_key(const std::vector<Key>& keys, Sort&& sort, value_pattern pattern = value_pattern::scattered) {
  std::vector<Value> values(keys.size());
  for (std::size_t i = 0; i < values.size(); ++i) {
    values[i] = static_cast<Value>(pattern == value_pattern::scattered ? i * 7 + 1 : i);
  }
  if (pattern == value_pattern::positions_but_last && !values.empty()) values.back() = Value(0);
  const auto expected = reference_sort_by_key(keys, values);
  std::vector<Key> got_keys = keys;
  std::vector<Value> got_values = values;
  sort(got_keys, got_values);
  INFO("first difference at " << first_difference(got_keys, expected.first) << " (keys), "
                              << first_difference(got_values, expected.second) << " (values) of " << keys.size());
  CHECK(same_bits(got_keys, expected.first));
  CHECK(same_bits(got_values, expected.second));
}

// Through the lecture layer on thrust::device: device vectors in, device vectors out.
template <class Key>
void sort_on_device(std::vector<Key>& keys) {
  thrust::device_vector<Key> d_keys(keys.begin(), keys.end());
  dpt::sort(thrust::device, d_keys.begin(), d_keys.end());
  const thrust::host_vector<Key> sorted(d_keys.begin(), d_keys.end());
  keys.assign(sorted.begin(), sorted.end());
}

template <class Key, class Value>
void stable_sort_by_key_on_device(std::vector<Key>& keys, std::vector<Value>& values) {
  thrust::device_vector<Key> d_keys(keys.begin(), keys.end());
  thrust::device_vector<Value> d_values(values.begin(), values.end());
  dpt::stable_sort_by_key(thrust::device, d_keys.begin(), d_keys.end(), d_values.begin());
  const thrust::host_vector<Key> sorted_keys(d_keys.begin(), d_keys.end());
  const thrust::host_vector<Value> sorted_values(d_values.begin(), d_values.end());
  keys.assign(sorted_keys.begin(), sorted_keys.end());
  values.assign(sorted_values.begin(), sorted_values.end());
}

}  // namespace

// CUDA's sort orders floats by `<` only (−0.0 and +0.0 in any order, NaNs unordered): the device test sorts
// integers there, and every key type on the CPU systems.
#if DPT_CUDA_DEVICE_SYSTEM
#  define DPT_SORT_KEY_TYPES std::uint32_t, std::int32_t, std::int64_t
#  define DPT_SORT_BY_KEY_TYPES std::uint32_t, std::int32_t, std::int64_t
#else
#  define DPT_SORT_KEY_TYPES std::uint32_t, std::int32_t, float, std::uint64_t, std::int64_t, double, std::int16_t
#  define DPT_SORT_BY_KEY_TYPES std::uint32_t, std::int32_t, float, std::int64_t
#endif

TEMPLATE_TEST_CASE("dpt::sort puts every size and layout of keys in order", "[sort]" DPT_BACKEND_TAG,
                   DPT_SORT_KEY_TYPES) {
  for (const std::size_t n : interesting_sizes) {
    for (const key_pattern pattern : all_patterns) {
      SECTION("n = " + std::to_string(n) + ", " + name(pattern)) {
        check_sort(make_keys<TestType>(n, pattern, 100 + n), [](auto& keys) { sort_on_device(keys); });
      }
    }
  }
}

TEMPLATE_TEST_CASE("dpt::stable_sort_by_key keeps the input order of equal keys", "[sort]" DPT_BACKEND_TAG,
                   DPT_SORT_BY_KEY_TYPES) {
  for (const std::size_t n : interesting_sizes) {
    for (const key_pattern pattern : all_patterns) {
      SECTION("n = " + std::to_string(n) + ", " + name(pattern)) {
        const auto keys = make_keys<TestType>(n, pattern, 200 + n);
        const auto sort = [](auto& k, auto& v) { stable_sort_by_key_on_device(k, v); };
        check_sort_by_key<TestType, std::uint32_t>(keys, sort);
        check_sort_by_key<TestType, double>(keys, sort);
        check_sort_by_key<TestType, std::int32_t>(keys, sort, value_pattern::positions);
        check_sort_by_key<TestType, std::int32_t>(keys, sort, value_pattern::positions_but_last);
      }
    }
  }
}

#if !DPT_CUDA_DEVICE_SYSTEM
namespace {

// A value with a copy constructor of its own, so not trivially copyable: the CPU backend leaves it to Thrust.
struct copied_value {
  std::int32_t v = 0;
  copied_value() = default;
  explicit copied_value(std::size_t i) : v(static_cast<std::int32_t>(i)) {}
  copied_value(const copied_value& other) : v(other.v) {}
  copied_value& operator=(const copied_value& other) {
    v = other.v;
    return *this;
  }
};
static_assert(!std::is_trivially_copyable_v<copied_value>);

}  // namespace

// Thrust's own CPU sort radix-sorts int and floating-point keys under `<`, misordering negative ints and splitting
// −0.0 from +0.0 (dpt/detail/sortable_key.hpp): where dpt hands a sort by key to it, the order must still be dpt's.
TEST_CASE("dpt::stable_sort_by_key keeps its order where Thrust sorts: 64-bit keys, values not trivially copyable",
          "[sort]" DPT_BACKEND_TAG) {
  const auto sort = [](auto& k, auto& v) { stable_sort_by_key_on_device(k, v); };
  for (const std::size_t n : interesting_sizes) {
    for (const key_pattern pattern : {key_pattern::random, key_pattern::few_distinct}) {
      SECTION("n = " + std::to_string(n) + ", " + name(pattern)) {
        check_sort_by_key<double, std::int32_t>(make_keys<double>(n, pattern, 300 + n), sort);
        check_sort_by_key<std::int32_t, copied_value>(make_keys<std::int32_t>(n, pattern, 400 + n), sort);
        check_sort_by_key<float, copied_value>(make_keys<float>(n, pattern, 500 + n), sort);
      }
    }
  }
  SECTION("the lecture's zeros: 0.0, −0.0 and 0.0 are one key, and keep their order") {
    std::vector<double> keys{0.0, -5.0, -0.0, 0.0};
    std::vector<std::int32_t> values{0, 1, 2, 3};
    stable_sort_by_key_on_device(keys, values);
    CHECK(values == std::vector<std::int32_t>{1, 0, 2, 3});
    CHECK((std::signbit(keys[2]) && !std::signbit(keys[1]) && !std::signbit(keys[3])));
  }
}
#endif

#if DPT_CPU_SORT
#  include <hwy/targets.h>

TEMPLATE_TEST_CASE("the CPU sort merges any number of sorted chunks", "[sort]" DPT_BACKEND_TAG, std::uint32_t, float,
                   std::int64_t) {
  const std::size_t n = dpt::test::sanitized_build ? 20011 : 300007;
  for (const std::ptrdiff_t chunks : {1, 2, 3, 4, 5, 7, 8, 13}) {
    for (const key_pattern pattern : {key_pattern::random, key_pattern::few_distinct, key_pattern::descending}) {
      SECTION(std::to_string(chunks) + " chunks, " + name(pattern)) {
        dpt::cpu::sort_tuning tuning{chunks};
        tuning.method = dpt::cpu::sort_method::vqsort_merge;
        const auto keys = make_keys<TestType>(n, pattern, 300 + chunks);
        check_sort(keys, [&](auto& k) { dpt::cpu::sort(thrust::device, k.begin(), k.end(), tuning); });
        if constexpr (sizeof(TestType) <= 4) {
          check_sort_by_key<TestType, int>(keys, [&](auto& k, auto& v) {
            dpt::cpu::stable_sort_by_key(thrust::device, k.begin(), k.end(), v.begin(), tuning);
          });
        }
      }
    }
  }
}

// Keys that vary in few bits, as a histogram's bin ids do: [0, 300).
template <class Key>
std::vector<Key> make_narrow_keys(std::size_t n, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<Key> keys(n);
  for (auto& key : keys) key = static_cast<Key>(rng() % 300);
  return keys;
}

TEMPLATE_TEST_CASE("the CPU radix sort scatters any number of chunks and sorts every bucket",
                   "[sort][radix]" DPT_BACKEND_TAG, std::uint32_t, std::int32_t, float, std::int16_t) {
  // sizes with the default top digit of the fewest bits (16 buckets, three lower passes of 9 or 10 bits), each also
  // with the widest top digit (2048 buckets, two lower passes: most buckets' runs share their lines with other
  // chunks' runs), and, outside the sanitizer build, a size past the streaming bound (256 buckets)
  const std::vector<std::size_t> sizes = dpt::test::sanitized_build ? std::vector<std::size_t>{2, 3, 4099, 20011}
                                                                    : std::vector<std::size_t>{2, 3, 4099, 300007};
  const std::size_t large = (std::size_t(1) << 23) + 9;
  dpt::cpu::sort_tuning tuning{};
  tuning.method = dpt::cpu::sort_method::radix;
  const auto sort = [&](auto& k) { dpt::cpu::sort(thrust::device, k.begin(), k.end(), tuning); };
  const auto sort_by_key = [&](auto& k, auto& v) {
    dpt::cpu::stable_sort_by_key(thrust::device, k.begin(), k.end(), v.begin(), tuning);
  };
  for (const std::size_t n : sizes) {
    for (const std::ptrdiff_t chunks : {1, 2, 3, 8}) {
      for (const key_pattern pattern : all_patterns) {
        SECTION("n = " + std::to_string(n) + ", " + std::to_string(chunks) + " chunks, " + name(pattern)) {
          tuning.chunks = chunks;
          const auto keys = make_keys<TestType>(n, pattern, 500 + n + chunks);
          check_sort(keys, sort);
          if constexpr (std::is_integral_v<TestType>) {
            check_sort_by_key<TestType, std::uint32_t>(keys, sort_by_key);
            check_sort_by_key<TestType, float>(keys, sort_by_key);
            check_sort_by_key<TestType, std::uint8_t>(keys, sort_by_key);
          }
        }
      }
      SECTION("n = " + std::to_string(n) + ", " + std::to_string(chunks) + " chunks, keys in [0, 300)") {
        tuning.chunks = chunks;
        const auto keys = make_narrow_keys<TestType>(n, 600 + n + chunks);
        check_sort(keys, sort);
        if constexpr (std::is_integral_v<TestType>) check_sort_by_key<TestType, std::int32_t>(keys, sort_by_key);
      }
      SECTION("n = " + std::to_string(n) + ", " + std::to_string(chunks) + " chunks, 2048 buckets, random") {
        tuning.chunks = chunks;
        tuning.radix_top_bits = dpt::cpu::detail::radix_max_top_bits;
        const auto keys = make_keys<TestType>(n, key_pattern::random, 800 + n + chunks);
        check_sort(keys, sort);
        if constexpr (std::is_integral_v<TestType>) check_sort_by_key<TestType, std::uint32_t>(keys, sort_by_key);
      }
    }
  }
  if (!dpt::test::sanitized_build && std::is_same_v<TestType, std::uint32_t>) {
    SECTION("n = 2^23 + 9, random, on every core") {
      const auto keys = make_keys<TestType>(large, key_pattern::random, 700);
      check_sort(keys, sort);
      check_sort_by_key<TestType, std::uint32_t>(keys, sort_by_key);
    }
  }
}

TEST_CASE("the CPU sort is right on every Highway target this processor runs", "[sort]" DPT_BACKEND_TAG) {
  for (const std::int64_t target : hwy::SupportedAndGeneratedTargets()) {
    // the scalar target is there for correctness, at a hundredth of the speed: it sorts less
    const std::size_t n = target == HWY_SCALAR ? 4099 : 65537;
    SECTION(hwy::TargetName(target)) {
      const dpt::cpu::sort_tuning tuning{3, target, dpt::cpu::sort_method::vqsort_merge};
      check_sort(make_keys<std::uint32_t>(n, key_pattern::random, 400),
                 [&](auto& k) { dpt::cpu::sort(thrust::device, k.begin(), k.end(), tuning); });
      check_sort(make_keys<double>(n, key_pattern::random, 401),
                 [&](auto& k) { dpt::cpu::sort(thrust::device, k.begin(), k.end(), tuning); });
      check_sort_by_key<float, std::uint32_t>(make_keys<float>(n, key_pattern::random, 402), [&](auto& k, auto& v) {
        dpt::cpu::stable_sort_by_key(thrust::device, k.begin(), k.end(), v.begin(), tuning);
      });
    }
  }
}
#endif
