// dpt-histogram's own pieces, beside the algorithm they drive: --check's sequential count passes dpt::histogram's
// answers and names the first bin (or dropped count) of a wrong one; --generate's values are seeded, as many as
// asked for, and of the distribution named.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <stdexcept>
#include <string>
#include <thrust/device_vector.h>
#include <thrust/execution_policy.h>
#include <thrust/host_vector.h>
#include <vector>

#include <dpt/histogram.hpp>
#include "histogram/generate_values.hpp"
#include "histogram/sequential_histogram.hpp"
#include "support/random_inputs.hpp"

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
  CHECK(dpt::app::sequential_histogram(values, bins) == expected);
  CHECK(dpt::app::first_difference(expected, expected, bins).empty());
  CHECK(dpt::app::first_difference({{1, 2, 1, 2}, 0, 1, 0}, expected, bins) ==
        "bin 2, [0.5, 0.75): 1 value where the sequential count has 2");
  CHECK(dpt::app::first_difference({{1, 2, 2, 0}, 0, 1, 0}, expected, bins, "method sort") ==
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
  REQUIRE(dpt::app::first_difference(right, expected, bins).empty());
  const auto total = std::accumulate(expected.counts.begin(), expected.counts.end(), 0ULL) + expected.below +
                     expected.above + expected.nan;
  CHECK(total == n);

  SECTION("a value counted in a neighbouring bin is found in the first of the two") {
    for (int b = 0; b + 1 < k; ++b) {
      if (expected.counts[b] == 0) continue;
      histogram_counts wrong = right;
      --wrong.counts[b], ++wrong.counts[b + 1];
      CAPTURE(b);
      CHECK(dpt::app::first_difference(wrong, expected, bins).rfind("bin " + std::to_string(b) + ", [", 0) == 0);
    }
  }
  SECTION("a value moved from a bin to the dropped ones, or back, is found") {
    histogram_counts wrong = right;
    ++wrong.counts[k - 1];
    CHECK(dpt::app::first_difference(wrong, expected, bins).rfind("bin " + std::to_string(k - 1), 0) == 0);
    for (auto dropped : {&histogram_counts::below, &histogram_counts::above, &histogram_counts::nan}) {
      wrong = right;
      ++(wrong.*dropped);
      const std::string difference = dpt::app::first_difference(wrong, expected, bins);
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
    CHECK(dpt::app::first_difference(wrong, expected, bins) ==
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
