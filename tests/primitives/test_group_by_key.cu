// dpt::group_by_key against a std::map of vectors.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <map>
#include <thrust/device_vector.h>
#include <thrust/host_vector.h>
#include <vector>

#include <dpt/group_by_key.hpp>
#include "test_support/random_inputs.hpp"

namespace {

// Host reference: an ordered map from key to the values in input order.
template <class Key>
std::map<Key, std::vector<int>> reference_groups(const std::vector<Key>& keys, const std::vector<int>& values) {
  std::map<Key, std::vector<int>> groups;
  for (std::size_t i = 0; i < keys.size(); ++i) groups[keys[i]].push_back(values[i]);
  return groups;
}

template <class Key>
std::map<Key, std::vector<int>> run_group_by_key(const std::vector<Key>& keys, const std::vector<int>& values) {
  const std::size_t n = keys.size();
  const thrust::device_vector<Key> d_keys(keys.begin(), keys.end());
  const thrust::device_vector<int> d_values(values.begin(), values.end());
  thrust::device_vector<Key> d_keys_out(n);
  thrust::device_vector<long long> d_offsets(n + 1);
  thrust::device_vector<int> d_values_out(n);
  const auto ends = dpt::group_by_key(thrust::device, d_keys.begin(), d_keys.end(), d_values.begin(),
                                      d_keys_out.begin(), d_offsets.begin(), d_values_out.begin());
  const auto groups = ends.keys_end - d_keys_out.begin();
  REQUIRE(ends.offsets_end - d_offsets.begin() == groups + 1);

  const thrust::host_vector<Key> k(d_keys_out.begin(), ends.keys_end);
  const thrust::host_vector<long long> offsets(d_offsets.begin(), ends.offsets_end);
  const thrust::host_vector<int> v = d_values_out;
  REQUIRE(offsets.front() == 0);
  REQUIRE(offsets.back() == static_cast<long long>(n));
  std::map<Key, std::vector<int>> result;
  for (long long g = 0; g < groups; ++g) {
    REQUIRE(offsets[g] < offsets[g + 1]);  // no empty groups
    if (g > 0) REQUIRE(k[g - 1] < k[g]);   // ascending keys, each once
    result[k[g]].assign(v.begin() + offsets[g], v.begin() + offsets[g + 1]);
  }
  return result;
}

}  // namespace

TEST_CASE("group_by_key reproduces the lecture's example", "[primitives][group_by_key]" DPT_BACKEND_TAG) {
  const std::vector<int> keys{1, 2, 2, 1, 3, 1, 1, 2};
  const std::vector<int> values{3, 8, 4, 6, 3, 9, 2, 8};
  const std::map<int, std::vector<int>> expected{{1, {3, 6, 9, 2}}, {2, {8, 4, 8}}, {3, {3}}};
  CHECK(run_group_by_key(keys, values) == expected);
}

TEST_CASE("group_by_key matches the sequential reference on random pairs",
          "[primitives][group_by_key]" DPT_BACKEND_TAG) {
  for (const std::size_t n : dpt::test::interesting_sizes) {
    // Few distinct keys (long groups), many (short groups), and all keys equal (one group).
    for (const int distinct : {1, 7, 100000}) {
      CAPTURE(n, distinct);
      const auto keys = dpt::test::random_values<int>(n, 41 + n, 0, distinct - 1);
      std::vector<int> values(n);
      for (std::size_t i = 0; i < n; ++i) values[i] = static_cast<int>(i);  // input order, to check stability
      CHECK(run_group_by_key(keys, values) == reference_groups(keys, values));
    }
  }
}

TEST_CASE("group_by_key orders negative keys before positive ones", "[primitives][group_by_key]" DPT_BACKEND_TAG) {
  // CCCL 3.0.1's CPU sorts order negative int keys wrongly; dpt sorts them with their sign bit flipped
  const std::size_t n = GENERATE(2u, 97u, 1000003u);
  CAPTURE(n);
  auto keys = dpt::test::random_values<int>(n, 43 + n, -500, 500);
  keys[0] = std::numeric_limits<int>::min();
  keys[n - 1] = std::numeric_limits<int>::max();
  std::vector<int> values(n);
  for (std::size_t i = 0; i < n; ++i) values[i] = static_cast<int>(i);
  CHECK(run_group_by_key(keys, values) == reference_groups(keys, values));
}

TEST_CASE("group_by_key gives every element its own group when keys are distinct",
          "[primitives][group_by_key]" DPT_BACKEND_TAG) {
  std::vector<int> keys(1009), values(1009);
  for (int i = 0; i < 1009; ++i) {
    keys[i] = 1008 - i;
    values[i] = i;
  }
  const auto groups = run_group_by_key(keys, values);
  CHECK(groups.size() == 1009);
  CHECK(groups == reference_groups(keys, values));
}

// Only int keys are re-encoded for CCCL's CPU sorts (dpt/detail/sortable_key.hpp); the other signed keys go to
// the sort as they are, and must come out in order too. Keys from [-spread, spread] (scaled past 32 bits for
// 64-bit keys) and the type's two extremes.
TEMPLATE_TEST_CASE("group_by_key orders negative keys of other signed types",
                   "[primitives][group_by_key]" DPT_BACKEND_TAG, std::int64_t, short, signed char) {
  const long long max = std::numeric_limits<TestType>::max();
  const long long scale = sizeof(TestType) == 8 ? (1LL << 40) + 1 : 1;
  const std::size_t n = GENERATE(0u, 1u, 1009u, 100003u);
  const long long spread = GENERATE_COPY(7LL, std::min(max, 100000LL));
  CAPTURE(n, spread);
  const auto drawn = dpt::test::random_values<long long>(n, 47 + n + spread, -spread, spread);
  std::vector<TestType> keys(n);
  for (std::size_t i = 0; i < n; ++i) keys[i] = static_cast<TestType>(drawn[i] * scale);
  if (n > 2) {
    keys[n / 2] = std::numeric_limits<TestType>::min();
    keys[n - 1] = std::numeric_limits<TestType>::max();
  }
  std::vector<int> values(n);
  for (std::size_t i = 0; i < n; ++i) values[i] = static_cast<int>(i);  // input order, to check stability
  const auto expected = reference_groups(keys, values);
  if (n > 2) REQUIRE(expected.begin()->first < 0);
  CHECK(run_group_by_key(keys, values) == expected);
}

// −0.0 == +0.0, so they are one key; a radix sort by bits would put every −0.0 before every +0.0 and interleave
// the group's values (dpt/detail/sortable_key.hpp). The group's key is written +0.0.
TEMPLATE_TEST_CASE("group_by_key takes -0.0 and +0.0 as one key and keeps its values in input order",
                   "[primitives][group_by_key]" DPT_BACKEND_TAG, float, double) {
  const auto zero_group_key = [](const std::map<TestType, std::vector<int>>& groups) {
    const auto zero = groups.find(TestType(0));
    REQUIRE(zero != groups.end());
    return zero->first;
  };
  SECTION("the worked example") {
    const std::vector<TestType> keys{0.0, -0.0, 0.0, -0.0};
    const auto groups = run_group_by_key(keys, {1, 2, 3, 4});
    CHECK(groups == std::map<TestType, std::vector<int>>{{TestType(0), {1, 2, 3, 4}}});
    CHECK_FALSE(std::signbit(zero_group_key(groups)));
  }
  SECTION("zeros of both signs among other keys") {
    const std::size_t n = GENERATE(2u, 1009u, 100003u);
    CAPTURE(n);
    const TestType choices[] = {TestType(-0.0), TestType(0.0), TestType(-1.5), TestType(2.5)};
    std::vector<TestType> keys;
    for (const int c : dpt::test::random_values<int>(n, 91 + n, 0, 3)) keys.push_back(choices[c]);
    keys[0] = TestType(-0.0);  // the zero group's first key is negative: the reference writes −0.0
    std::vector<int> values(n);
    for (std::size_t i = 0; i < n; ++i) values[i] = static_cast<int>(i);
    const auto groups = run_group_by_key(keys, values);
    CHECK(groups == reference_groups(keys, values));
    CHECK_FALSE(std::signbit(zero_group_key(groups)));
  }
}
