// dpt-histogram's own pieces, beside the algorithm they drive: --check's sequential count passes dpt::histogram's
// answers and names the first bin (or dropped count) of a wrong one; --generate's values are seeded, as many as
// asked for, and of the distribution named.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <numeric>
#include <optional>
#include <stdexcept>
#include <string>
#include <thrust/device_vector.h>
#include <thrust/execution_policy.h>
#include <thrust/host_vector.h>
#include <utility>
#include <vector>

#include <dpt/histogram.hpp>
#include "histogram/generate_values.hpp"
#include "histogram/sequential_histogram.hpp"
#include "test_support/random_inputs.hpp"

namespace {

using dpt::app::histogram_counts;

// dpt::histogram's answer (the lecture's sort method), as dpt-histogram holds it.
template <class Value, class Bound>
histogram_counts dpt_histogram(const std::vector<Value>& values, const dpt::even_bins<Bound>& bins) {
  const thrust::device_vector<Value> d_values(values.begin(), values.end());
  thrust::device_vector<unsigned long long> d_counts(bins.count);
  const auto dropped = dpt::histogram(thrust::device, d_values.begin(), d_values.end(), bins, d_counts.begin());
  const thrust::host_vector<unsigned long long> counts = d_counts;
  return {{counts.begin(), counts.end()}, dropped.below, dropped.above, dropped.nan};
}

}  // namespace

TEST_CASE("dpt-histogram's sequential count gives the worked example's counts", "[histogram][app]") {
  const std::vector<double> values{0.1, 0.7, 0.3, 0.9, 0.35, 0.6, 1.4};
  const dpt::even_bins<double> bins{4, 0.0, 1.0};
  const histogram_counts expected{{1, 2, 2, 1}, 0, 1, 0};
  const std::vector<double> edges{0, 0.25, 0.5, 0.75, 1};
  CHECK(dpt::app::sequential_histogram(values, bins) == expected);
  CHECK(dpt::app::first_difference(expected, expected, edges).empty());
  CHECK(dpt::app::first_difference({{1, 2, 1, 2}, 0, 1, 0}, expected, edges) ==
        "bin 2, [0.5, 0.75): 1 value where the sequential count has 2");
  CHECK(dpt::app::first_difference({{1, 2, 2, 0}, 0, 1, 0}, expected, edges, "method sort") ==
        "bin 3, [0.75, 1]: 0 values where method sort has 1");
}

TEST_CASE("dpt-histogram's check passes dpt::histogram's counts and names the first wrong one",
          "[histogram][app]" DPT_BACKEND_TAG) {
  const auto n = GENERATE(from_range(dpt::test::interesting_sizes));
  const int k = GENERATE(1, 7, 256);
  CAPTURE(n, k);
  // uniform values over [−3, 5], half of them outside the bins' [−1, 3], and every 50th one NaN or ±Inf
  auto values = dpt::test::random_values<double>(n, 40 + n, -3.0, 5.0);
  for (std::size_t i = 49; i < values.size(); i += 50) {
    const double special[] = {std::numeric_limits<double>::quiet_NaN(), std::numeric_limits<double>::infinity(),
                              -std::numeric_limits<double>::infinity()};
    values[i] = special[(i / 50) % 3];
  }
  const dpt::even_bins<double> bins{k, -1.0, 3.0};
  const histogram_counts right = dpt_histogram(values, bins);
  const histogram_counts expected = dpt::app::sequential_histogram(values, bins);
  const auto edges = dpt::app::numpy_linspace_edges<double>(bins.lo, bins.hi, bins.count);
  REQUIRE(dpt::app::first_difference(right, expected, edges).empty());
  const auto total = std::accumulate(expected.counts.begin(), expected.counts.end(), 0ULL) + expected.below +
                     expected.above + expected.nan;
  CHECK(total == n);

  SECTION("a value counted in a neighbouring bin is found in the first of the two") {
    for (int b = 0; b + 1 < k; ++b) {
      if (expected.counts[b] == 0) continue;
      histogram_counts wrong = right;
      --wrong.counts[b], ++wrong.counts[b + 1];
      CAPTURE(b);
      CHECK(dpt::app::first_difference(wrong, expected, edges).rfind("bin " + std::to_string(b) + ", [", 0) == 0);
    }
  }
  SECTION("a value moved from a bin to the dropped ones, or back, is found") {
    histogram_counts wrong = right;
    ++wrong.counts[k - 1];
    CHECK(dpt::app::first_difference(wrong, expected, edges).rfind("bin " + std::to_string(k - 1), 0) == 0);
    for (auto dropped : {&histogram_counts::below, &histogram_counts::above, &histogram_counts::nan}) {
      wrong = right;
      ++(wrong.*dropped);
      const std::string difference = dpt::app::first_difference(wrong, expected, edges);
      CAPTURE(difference);
      const std::string what = dropped == &histogram_counts::nan     ? "NaN"
                               : dropped == &histogram_counts::below ? "below the range"
                                                                     : "above the range";
      CHECK(difference == what + ": " + std::to_string(wrong.*dropped) + (wrong.*dropped == 1 ? " value" : " values") +
                              " where the sequential count has " + std::to_string(expected.*dropped));
    }
  }
  SECTION("counts for a different number of bins are wrong") {
    histogram_counts wrong = right;
    wrong.counts.push_back(0);
    CHECK(dpt::app::first_difference(wrong, expected, edges) ==
          std::to_string(k + 1) + " bins where the sequential count has " + std::to_string(k));
  }
}

TEST_CASE("dpt-histogram's sequential count compares float data with float edges, as NumPy does", "[histogram][app]") {
  // np.histogram(np.float32([0.3, 0.6]), 10, range=(0, 1)) → bins 3 and 6; as doubles 0.3 and 0.6 fall in 2 and 5
  const dpt::even_bins<double> bins{10, 0.0, 1.0};
  CHECK(dpt::app::sequential_histogram(std::vector<float>{0.3f, 0.6f}, bins).counts ==
        std::vector<unsigned long long>{0, 0, 0, 1, 0, 0, 1, 0, 0, 0});
  CHECK(dpt::app::sequential_histogram(std::vector<double>{0.3, 0.6}, bins).counts ==
        std::vector<unsigned long long>{0, 0, 1, 0, 0, 1, 0, 0, 0, 0});
}

TEST_CASE("dpt-histogram's sequential count takes NumPy 2's range and edges from the data itself", "[histogram][app]") {
  // NumPy 2.4.6's counts, not dpt's bins: --check catches dpt's bins if they stray from NumPy's
  const std::vector<float> f32{-3.3f, -2.2f, -1.1f, 4.440892e-16f, 1.1f, 2.2f, 3.3f, 4.4f, 5.5f, 6.6f, 7.7f};
  const std::vector<double> f64(f32.begin(), f32.end());
  // np.histogram(np.linspace(-3.3, 7.7, 11).astype(np.float32), bins=10): float32 edges
  CHECK(dpt::app::sequential_histogram(f32, 10, std::nullopt).counts ==
        std::vector<unsigned long long>{2, 1, 1, 1, 0, 2, 1, 0, 2, 1});
  // the same with range=(-3.3, 7.7): Python floats, float64 edges rounded to float32
  CHECK(dpt::app::sequential_histogram(f32, 10, std::pair{-3.3, 7.7}).counts ==
        std::vector<unsigned long long>{1, 1, 1, 1, 1, 1, 1, 1, 1, 2});
  // np.histogram(np.float32([0.02]), bins=2): widened in float32; as float64, the same counts
  CHECK(dpt::app::sequential_histogram(std::vector<float>{0.02f}, 2, std::nullopt).counts ==
        std::vector<unsigned long long>{1, 0});
  // np.histogram(f32.astype(np.float64), bins=10)
  CHECK(dpt::app::sequential_histogram(f64, 10, std::nullopt).counts ==
        std::vector<unsigned long long>{2, 1, 0, 1, 1, 1, 1, 1, 1, 2});
  // np.histogram(np.uint8([0, 1, 255]), bins=3), np.histogram(np.uint8([7, 7]), bins=4), np.histogram([], 3)
  CHECK(dpt::app::sequential_histogram(std::vector<std::uint8_t>{0, 1, 255}, 3, std::nullopt).counts ==
        std::vector<unsigned long long>{2, 0, 1});
  CHECK(dpt::app::sequential_histogram(std::vector<std::uint8_t>{7, 7}, 4, std::nullopt).counts ==
        std::vector<unsigned long long>{0, 0, 2, 0});
  CHECK(dpt::app::numpy_bin_edges(std::vector<float>{}, 4, std::nullopt) == std::vector<float>{0, 0.25, 0.5, 0.75, 1});
  // np.histogram([1.0, 1.0000000000000002, 1.0000000000000004], 5) and np.histogram([1e20], 4) refuse
  const double one_up = std::nextafter(1.0, 2.0);
  CHECK_THROWS_WITH(
      dpt::app::numpy_bin_edges(std::vector<double>{1.0, one_up, std::nextafter(one_up, 2.0)}, 5, std::nullopt),
      "Too many bins for data range. Cannot create 5 finite-sized bins.");
  CHECK_THROWS_AS(dpt::app::numpy_bin_edges(std::vector<double>{1e20}, 4, std::nullopt), std::invalid_argument);
}

TEST_CASE("dpt-histogram's generated values are seeded, as many as asked for, and of their distribution",
          "[histogram][app]") {
  for (const char* kind : {"normal", "uniform", "zipf"}) {
    CAPTURE(kind);
    CHECK(dpt::app::generate_values(kind, 0, 1).empty());
    CHECK(dpt::app::generate_values(kind, 1, 1).size() == 1);
    const auto first = dpt::app::generate_values(kind, 100003, 7), again = dpt::app::generate_values(kind, 100003, 7);
    CHECK(first.size() == 100003);
    CHECK(first == again);
    CHECK(first != dpt::app::generate_values(kind, 100003, 8));
    const double mean = std::accumulate(first.begin(), first.end(), 0.0) / static_cast<double>(first.size());
    double square = 0;
    for (const double v : first) square += (v - mean) * (v - mean);
    const double sd = std::sqrt(square / static_cast<double>(first.size()));
    const std::string name = kind;
    if (name == "normal") {
      // the mean of 10^5 standard normals is within 0.02 of 0 (6 standard errors), the sd within 0.02 of 1
      CHECK(std::abs(mean) < 0.02);
      CHECK(std::abs(sd - 1) < 0.02);
    } else if (name == "uniform") {
      CHECK(*std::min_element(first.begin(), first.end()) >= 0.0);
      CHECK(*std::max_element(first.begin(), first.end()) < 1.0);
      CHECK(std::abs(mean - 0.5) < 0.01);
    } else {
      // ranks 1..1000, whole numbers, rank 1 with probability 1 / Σ k^-1.1 (about 0.16)
      double weights = 0;
      for (int k = 1; k <= 1000; ++k) weights += std::pow(k, -1.1);
      CHECK(
          std::all_of(first.begin(), first.end(), [](double v) { return v >= 1 && v <= 1000 && v == std::floor(v); }));
      const double ones = static_cast<double>(std::count(first.begin(), first.end(), 1.0));
      CHECK(std::abs(ones / static_cast<double>(first.size()) - 1 / weights) < 0.01);
      CHECK(std::count(first.begin(), first.end(), 1000.0) < std::count(first.begin(), first.end(), 2.0));
    }
  }
  CHECK_THROWS_AS(dpt::app::generate_values("cauchy", 10, 1), std::invalid_argument);
}
