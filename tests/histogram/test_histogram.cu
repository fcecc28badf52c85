// dpt::histogram, every method, against a sequential reference that finds each value's bin by binary search
// over NumPy's edges (dpt-histogram --check's, apps/histogram/sequential_histogram.hpp); and both against counts
// computed by numpy.histogram itself for values on and next to edges (hard-coded below, generated with NumPy 2.4:
// `np.histogram(a, bins=K, range=(lo, hi))`).
#include <catch2/catch.hpp>

#include <algorithm>
#include <climits>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <stdexcept>
#include <thrust/device_vector.h>
#include <thrust/host_vector.h>
#include <type_traits>
#include <vector>

#include <dpt/histogram.hpp>
#include "histogram/sequential_histogram.hpp"
#include "test_support/fma_build.hpp"
#include "test_support/random_inputs.hpp"

namespace {

using dpt::histogram_method;

using dpt::app::histogram_counts;

std::vector<histogram_method> available_methods() {
  std::vector<histogram_method> methods;
  for (auto m : {histogram_method::sort, histogram_method::upper_bound, histogram_method::reduce_by_key,
                 histogram_method::atomic, histogram_method::privatized, histogram_method::cub}) {
    if (dpt::histogram_method_available(m)) methods.push_back(m);
  }
  return methods;
}

// Counts written as Count (the header allows any integer type), every bin set to Count(-1) first: a bin never
// written reads back as 2^64 - 1 (signed) or 2^32 - 1 (uint32), which no expected count is.
template <class Count, class Value, class Bound>
histogram_counts run_histogram_into(const std::vector<Value>& values, const dpt::even_bins<Bound>& bins,
                                    histogram_method method) {
  const thrust::device_vector<Value> d_values(values.begin(), values.end());
  thrust::device_vector<Count> d_counts(bins.count, static_cast<Count>(-1));
  const auto result = dpt::histogram(thrust::device, d_values.begin(), d_values.end(), bins, d_counts.begin(), method);
  const thrust::host_vector<Count> counts = d_counts;
  return {std::vector<unsigned long long>(counts.begin(), counts.end()), result.below, result.above, result.nan};
}

template <class Value, class Bound>
histogram_counts run_histogram(const std::vector<Value>& values, const dpt::even_bins<Bound>& bins,
                               histogram_method method) {
  return run_histogram_into<long long>(values, bins, method);
}

// Normal values around the middle of [lo, hi], wide enough that some fall outside; every 97th value is made
// NaN, +Inf or −Inf for floating types.
template <class Value>
std::vector<Value> random_sample(std::size_t n, std::uint64_t seed, double lo, double hi) {
  std::mt19937_64 rng(seed);
  std::normal_distribution<double> dist((lo + hi) / 2, (hi - lo) / 3);
  std::vector<Value> values(n);
  for (std::size_t i = 0; i < n; ++i) {
    if constexpr (std::is_floating_point_v<Value>) {
      const Value special[] = {std::numeric_limits<Value>::quiet_NaN(), std::numeric_limits<Value>::infinity(),
                               -std::numeric_limits<Value>::infinity()};
      values[i] = i % 97 == 96 ? special[(i / 97) % 3] : static_cast<Value>(dist(rng));
    } else {
      values[i] = static_cast<Value>(std::llround(dist(rng)));
    }
  }
  return values;
}

template <class Value, class Bound>
void check_methods(const std::vector<Value>& values, const dpt::even_bins<Bound>& bins,
                   const histogram_counts& expected) {
  for (const auto method : available_methods()) {
    INFO("method " << dpt::histogram_method_name(method));
    CHECK(run_histogram(values, bins, method) == expected);
  }
}

// Counts worked out by hand or by NumPy: every method, and the sequential reference too, must give them.
template <class Value, class Bound>
void check_every_method(const std::vector<Value>& values, const dpt::even_bins<Bound>& bins,
                        const histogram_counts& expected) {
  CHECK(dpt::app::sequential_histogram(values, bins) == expected);
  check_methods(values, bins, expected);
}

}  // namespace

TEST_CASE("histogram reproduces the lecture's example", "[histogram]" DPT_BACKEND_TAG) {
  const std::vector<double> values{0.1, 0.7, 0.3, 0.9, 0.35, 0.6, 1.4};
  check_every_method(values, dpt::even_bins{4, 0.0, 1.0}, {{1, 2, 2, 1}, 0, 1, 0});
}

TEST_CASE("every histogram method matches the sequential reference", "[histogram]" DPT_BACKEND_TAG) {
  const auto method = GENERATE(from_range(available_methods()));
  const auto n = GENERATE(from_range(dpt::test::interesting_sizes));
  const int bins = GENERATE(1, 7, 1000);
  INFO("method " << dpt::histogram_method_name(method) << ", n " << n << ", bins " << bins);

  SECTION("double values, range given as doubles") {
    const auto values = random_sample<double>(n, 11 + n, -2.5, 7.0);
    const dpt::even_bins<double> spec{bins, -2.5, 7.0};
    CHECK(run_histogram(values, spec, method) == dpt::app::sequential_histogram(values, spec));
  }
  SECTION("float values, range given as doubles") {
    const auto values = random_sample<float>(n, 12 + n, 0.1, 0.7);
    const dpt::even_bins<double> spec{bins, 0.1, 0.7};
    CHECK(run_histogram(values, spec, method) == dpt::app::sequential_histogram(values, spec));
  }
  SECTION("float values, range given as floats") {
    const auto values = random_sample<float>(n, 13 + n, -1.0, 3.0);
    const dpt::even_bins<float> spec{bins, -1.0f, 3.0f};
    CHECK(run_histogram(values, spec, method) == dpt::app::sequential_histogram(values, spec));
  }
  SECTION("integer values") {
    const auto values = random_sample<int>(n, 14 + n, -40.0, 1200.0);
    const dpt::even_bins<double> spec{bins, -40.0, 1200.0};
    CHECK(run_histogram(values, spec, method) == dpt::app::sequential_histogram(values, spec));
  }
  SECTION("counts written as 32-bit integers, signed and unsigned") {
    const auto values = random_sample<double>(n, 15 + n, 0.0, 1.0);
    const dpt::even_bins<double> spec{bins, 0.0, 1.0};
    const auto expected = dpt::app::sequential_histogram(values, spec);
    CHECK(run_histogram_into<std::int32_t>(values, spec, method) == expected);
    CHECK(run_histogram_into<std::uint32_t>(values, spec, method) == expected);
  }
}

TEST_CASE("histogram puts values on bin edges where NumPy does", "[histogram]" DPT_BACKEND_TAG) {
  SECTION("tenths in ten bins over [0, 1]: 0.3 and 0.6 fall below their edges in double") {
    const std::vector<double> tenths{0.0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0};
    check_every_method(tenths, dpt::even_bins{10, 0.0, 1.0}, {{1, 1, 2, 0, 1, 2, 1, 0, 1, 2}, 0, 0, 0});
  }
  SECTION("the same tenths as float: compared with float edges, each lands in its own bin") {
    const std::vector<float> tenths{0.0f, 0.1f, 0.2f, 0.3f, 0.4f, 0.5f, 0.6f, 0.7f, 0.8f, 0.9f, 1.0f};
    check_every_method(tenths, dpt::even_bins{10, 0.0, 1.0}, {{1, 1, 1, 1, 1, 1, 1, 1, 1, 2}, 0, 0, 0});
  }
  SECTION("i·0.1 in seven bins over [0, 0.7]: 7·0.1 is above 0.7 in double, not in float") {
    std::vector<double> d;
    std::vector<float> f;
    for (int i = 0; i < 8; ++i) {
      d.push_back(i * 0.1);
      f.push_back(static_cast<float>(i * 0.1));
    }
    check_every_method(d, dpt::even_bins{7, 0.0, 0.7}, {{1, 1, 1, 1, 1, 1, 1}, 0, 1, 0});
    check_every_method(f, dpt::even_bins{7, 0.0, 0.7}, {{1, 1, 1, 1, 1, 1, 2}, 0, 0, 0});
  }
  SECTION("edges of three bins over [-1, 2] and their neighbours") {
    const std::vector<double> values{-1.0,
                                     std::nextafter(-1.0, -2.0),
                                     0.0,
                                     std::nextafter(0.0, -1.0),
                                     1.0,
                                     std::nextafter(1.0, 0.0),
                                     2.0,
                                     std::nextafter(2.0, 3.0),
                                     std::nextafter(2.0, 0.0)};
    check_every_method(values, dpt::even_bins{3, -1.0, 2.0}, {{2, 2, 3}, 1, 1, 0});
  }
  SECTION("float data with its own min and max as float bounds: edges computed in float, as NumPy does") {
    const std::vector<float> values{0.47f, 2.89f, 0x1.0aaaaap+1f};
    check_every_method(values, dpt::even_bins{6, 0.47f, 2.89f}, {{1, 0, 0, 0, 1, 1}, 0, 0, 0});
    // the same bounds as doubles (NumPy's range=(0.47…, 2.89…)) put the middle value one bin lower
    check_every_method(values, dpt::even_bins{6, double(0.47f), double(2.89f)}, {{1, 0, 0, 1, 0, 1}, 0, 0, 0});
  }
}

TEST_CASE("histogram counts every input type without a range as NumPy 2 does", "[histogram]" DPT_BACKEND_TAG) {
  // dpt-histogram's bins without --range: the data's min and max, in float for float data (NumPy 2's float32
  // linspace), in double for the rest. Counts from NumPy 2.4.6; NumPy 1.24.2's differ where noted.
  // np.linspace(-3.3, 7.7, 11).astype(np.float32)
  const std::vector<float> f32{-3.3f, -2.2f, -1.1f, 4.440892e-16f, 1.1f, 2.2f, 3.3f, 4.4f, 5.5f, 6.6f, 7.7f};
  SECTION("float32: edges in float32 arithmetic") {
    // np.histogram(f32, bins=10) → [2 1 1 1 0 2 1 0 2 1] (NumPy 1.24.2, float64 linspace: [1 1 1 1 1 1 1 1 1 2])
    check_every_method(f32, dpt::even_bins{10, f32.front(), f32.back()}, {{2, 1, 1, 1, 0, 2, 1, 0, 2, 1}, 0, 0, 0});
    // np.histogram(np.float32([0.02]), bins=2) → [1 0]: widened to 0.02 ± 0.5 in float32 (NumPy 1.24.2: [0 1])
    check_every_method(std::vector<float>{0.02f}, dpt::even_bins{2, 0.02f, 0.02f}, {{1, 0}, 0, 0, 0});
  }
  SECTION("float64: the same values as doubles") {
    // np.histogram(f32.astype(np.float64), bins=10) → [2 1 0 1 1 1 1 1 1 2]
    const std::vector<double> f64(f32.begin(), f32.end());
    check_every_method(f64, dpt::even_bins{10, f64.front(), f64.back()}, {{2, 1, 0, 1, 1, 1, 1, 1, 1, 2}, 0, 0, 0});
    // np.histogram(np.float64([0.02]), bins=2) → [1 0]
    check_every_method(std::vector<double>{0.02}, dpt::even_bins{2, 0.02, 0.02}, {{1, 0}, 0, 0, 0});
  }
  SECTION("uint8: float64 edges") {
    // np.histogram(np.uint8([0, 1, 255]), bins=3) → [2 0 1]; np.histogram(np.uint8([7, 7]), bins=4) → [0 0 2 0]
    check_every_method(std::vector<std::uint8_t>{0, 1, 255}, dpt::even_bins{3, 0.0, 255.0}, {{2, 0, 1}, 0, 0, 0});
    check_every_method(std::vector<std::uint8_t>{7, 7}, dpt::even_bins{4, 7.0, 7.0}, {{0, 0, 2, 0}, 0, 0, 0});
  }
}

TEST_CASE("histogram counts ranges a few subnormals wide as NumPy 2 does", "[histogram]" DPT_BACKEND_TAG) {
  // The edges are uneven by whole bins there, NumPy 2's first guess ((x - lo) / (hi - lo)) * K is more than one
  // bin off, and its one step leaves values where the edges alone would not: its counts, not the edges', are the
  // answer.
  SECTION("float64: K / (hi - lo) overflows") {
    // np.histogram(np.arange(8) * 5e-324, 5): edges 0 1 2 3 4 7 (times 5e-324); 4 is guessed in bin 2, steps to 3
    std::vector<double> values;
    for (int i = 0; i < 8; ++i) values.push_back(i * std::numeric_limits<double>::denorm_min());
    check_every_method(values, dpt::even_bins{5, values.front(), values.back()}, {{1, 1, 1, 2, 3}, 0, 0, 0});
  }
  SECTION("float32: guessed in float32, where a guess in float64 may land on the other side of an integer") {
    // np.histogram((np.arange(8) * np.float32(1e-45)).astype(np.float32), 5)
    std::vector<float> values;
    for (int i = 0; i < 8; ++i) values.push_back(i * std::numeric_limits<float>::denorm_min());
    check_every_method(values, dpt::even_bins{5, values.front(), values.back()}, {{1, 1, 1, 2, 3}, 0, 0, 0});
    // np.histogram((np.arange(28, 73) * np.float32(1e-45)).astype(np.float32), 30): 50·1e-45 is guessed in bin 15
    // (float32: 15.0), which steps to 16; a float64 guess, 14.999…, would step only to 15
    values.clear();
    for (int i = 28; i < 73; ++i) values.push_back(i * std::numeric_limits<float>::denorm_min());
    check_every_method(
        values, dpt::even_bins{30, values.front(), values.back()},
        {{1, 1, 1, 2, 1, 2, 1, 2, 1, 2, 1, 2, 1, 2, 1, 1, 2, 1, 2, 1, 2, 1, 2, 1, 2, 1, 2, 1, 2, 3}, 0, 0, 0});
  }
}

TEST_CASE("histogram counts uint8 pixels", "[histogram]" DPT_BACKEND_TAG) {
  std::vector<std::uint8_t> ramp(256);
  for (int i = 0; i < 256; ++i) ramp[i] = static_cast<std::uint8_t>(i);
  SECTION("256 bins over [0, 256]: one bin per pixel value") {
    check_every_method(ramp, dpt::even_bins{256, 0.0, 256.0}, {std::vector<unsigned long long>(256, 1), 0, 0, 0});
  }
  SECTION("256 bins over the data's range [0, 255]: still one value per bin") {
    check_every_method(ramp, dpt::even_bins{256, 0.0, 255.0}, {std::vector<unsigned long long>(256, 1), 0, 0, 0});
  }
  SECTION("ten bins over [0, 255], as np.histogram(range(256), bins=10)") {
    check_every_method(ramp, dpt::even_bins{10, 0.0, 255.0}, {{26, 25, 26, 25, 26, 25, 26, 25, 26, 26}, 0, 0, 0});
  }
  SECTION("seven bins over [0, 255]") {
    check_every_method(ramp, dpt::even_bins{7, 0.0, 255.0}, {{37, 36, 37, 36, 37, 36, 37}, 0, 0, 0});
  }
}

TEST_CASE("histogram counts a million random pixels as the reference does", "[histogram][large]" DPT_BACKEND_TAG) {
  const auto pixels = dpt::test::random_values<std::uint8_t>(1000003, 99, 0, 255);
  const dpt::even_bins<double> spec{256, 0.0, 256.0};
  check_methods(pixels, spec, dpt::app::sequential_histogram(pixels, spec));
}

TEST_CASE("histogram handles degenerate shapes", "[histogram]" DPT_BACKEND_TAG) {
  SECTION("no values: every bin empty, nothing dropped") {
    check_every_method(std::vector<double>{}, dpt::even_bins{5, 0.0, 1.0},
                       {std::vector<unsigned long long>(5, 0), 0, 0, 0});
  }
  SECTION("one bin takes everything in range, both ends included") {
    const std::vector<double> values{0.0, 0.5, 1.0, 1.5, -0.5};
    check_every_method(values, dpt::even_bins{1, 0.0, 1.0}, {{3}, 1, 1, 0});
  }
  SECTION("all values in one middle bin") {
    const std::vector<double> values(100003, 4.5);
    std::vector<unsigned long long> counts(10, 0);
    counts[4] = 100003;
    check_every_method(values, dpt::even_bins{10, 0.0, 10.0}, {counts, 0, 0, 0});
  }
  SECTION("empty bins first, last and in the middle") {
    // 1000 bins of width 1; data only in bins 200 … 299 and 700 … 799
    std::vector<double> values;
    for (int i = 0; i < 20000; ++i) values.push_back(200 + (i % 100) + (i % 2 ? 500 : 0) + 0.25);
    const dpt::even_bins<double> spec{1000, 0.0, 1000.0};
    const auto expected = dpt::app::sequential_histogram(values, spec);
    REQUIRE(expected.counts.front() == 0);
    REQUIRE(expected.counts[500] == 0);
    REQUIRE(expected.counts.back() == 0);
    check_methods(values, spec, expected);
  }
  SECTION("only the first and last bins used, a million empty bins between") {
    const std::vector<double> values{0.0, 0.0, 1.0};
    std::vector<unsigned long long> counts(1000000, 0);
    counts.front() = 2;
    counts.back() = 1;
    check_every_method(values, dpt::even_bins{1000000, 0.0, 1.0}, {counts, 0, 0, 0});
  }
  SECTION("NaN and infinities are dropped and counted apart") {
    const double inf = std::numeric_limits<double>::infinity(), nan = std::numeric_limits<double>::quiet_NaN();
    const std::vector<double> values{nan, inf, -inf, 0.5, nan, 2.0, -3.0};
    check_every_method(values, dpt::even_bins{2, 0.0, 1.0}, {{0, 1}, 2, 2, 2});
  }
}

namespace dpt::test {
int numpy_bin_built_with_fma(double value, const dpt::even_bins<double>& bins);  // numpy_bins_with_fma.cpp
}

TEST_CASE("NumPy's bins stay where they are in a build that fuses multiply-adds", "[histogram]" DPT_BACKEND_TAG) {
  if (!dpt::test::fma_build_runs_here()) return;
  // np.histogram([-25.209999999999997], 100, range=(-91, 38)) counts it in bin 50; a fused 51·step − 91
  // rounds edge 51 once instead of twice, below the value, and the bin becomes 51
  CHECK(dpt::test::numpy_bin_built_with_fma(-25.209999999999997, dpt::even_bins{100, -91.0, 38.0}) == 50);
  // and every value on, just below and just above an edge lands in the same bin in both builds
  std::mt19937_64 rng(97);
  for (int trial = 0; trial < 200; ++trial) {
    const double lo = std::uniform_real_distribution<double>(-100, 100)(rng);
    const double hi = lo + std::uniform_real_distribution<double>(1e-3, 300)(rng);
    const dpt::even_bins<double> spec{std::uniform_int_distribution<int>(1, 1000)(rng), lo, hi};
    const auto bin_of = dpt::make_numpy_bin_index<double>(spec);
    // the reference's own edges and binary search, so that the loop tests something in a build without the FMA file
    const auto edges = dpt::app::numpy_linspace_edges<double>(spec.lo, spec.hi, spec.count);
    const auto reference_bin = [&](double x) -> long {
      if (x < edges.front() || x > edges.back()) return -1;
      if (x == edges.back()) return spec.count - 1;
      return std::upper_bound(edges.begin(), edges.end(), x) - edges.begin() - 1;
    };
    for (int i = 0; i <= spec.count; i += 1 + spec.count / 50) {
      for (const double x :
           {std::nextafter(bin_of.edge(i), -1e300), bin_of.edge(i), std::nextafter(bin_of.edge(i), 1e300)}) {
        INFO("bins " << spec.count << " over [" << lo << ", " << hi << "], x " << x);
        REQUIRE(dpt::test::numpy_bin_built_with_fma(x, spec) == bin_of(x));
        if (reference_bin(x) >= 0) REQUIRE(bin_of(x) == reference_bin(x));
      }
    }
  }
}

TEST_CASE("histogram widens an empty range as NumPy does, given or not", "[histogram]" DPT_BACKEND_TAG) {
  // np.histogram([1.0, 0.6, 1.4, 0.5, 1.5, 0.4], 2, range=(1, 1)) → [2, 3]: edges 0.5, 1, 1.5; 0.4 is below
  check_every_method(std::vector<double>{1.0, 0.6, 1.4, 0.5, 1.5, 0.4}, dpt::even_bins{2, 1.0, 1.0}, {{2, 3}, 1, 0, 0});
  // in float bounds too: np.linspace(np.float32(3) - 0.5, np.float32(3) + 0.5, 3) = [2.5, 3, 3.5]
  check_every_method(std::vector<float>{3.0f, 2.5f, 3.5f, 2.9f}, dpt::even_bins{2, 3.0f, 3.0f}, {{2, 2}, 0, 0, 0});
}

TEST_CASE("histogram rejects bins and ranges NumPy rejects", "[histogram]" DPT_BACKEND_TAG) {
  const thrust::device_vector<double> values(3, 0.5);
  thrust::device_vector<long long> counts(1000);
  const auto run = [&](auto spec) {
    dpt::histogram(thrust::device, values.begin(), values.end(), spec, counts.begin());
  };
  const double inf = std::numeric_limits<double>::infinity(), nan = std::numeric_limits<double>::quiet_NaN();
  // each with its own message: a bad range also fails the later edge check, whose message would mislead
  using Catch::Contains;
  CHECK_THROWS_WITH(run(dpt::even_bins{0, 0.0, 1.0}), Contains("the number of bins must be at least 1 (got 0)"));
  CHECK_THROWS_WITH(run(dpt::even_bins{-3, 0.0, 1.0}), Contains("the number of bins must be at least 1 (got -3)"));
  CHECK_THROWS_WITH(run(dpt::even_bins{INT_MAX - 2, 0.0, 1.0}), "histogram: too many bins");
  CHECK_THROWS_WITH(run(dpt::even_bins{4, 2.0, 1.0}), "histogram: the range [2, 1] needs lo <= hi");
  CHECK_THROWS_WITH(run(dpt::even_bins{4, 0.0, inf}), Contains("is not finite"));
  CHECK_THROWS_WITH(run(dpt::even_bins{4, -inf, 0.0}), Contains("is not finite"));
  CHECK_THROWS_WITH(run(dpt::even_bins{4, nan, 1.0}), Contains("is not finite"));

  SECTION("an empty range that widening leaves empty: NumPy 2's 'Too many bins for data range'") {
    // np.histogram([1e20], 4) and np.histogram([1e20], 4, range=(1e20, 1e20)): 1e20 ± 0.5 == 1e20
    CHECK_THROWS_WITH(run(dpt::even_bins{4, 1e20, 1e20}),
                      "histogram: the range [1e+20, 1e+20] is empty, and widening it by 0.5 each way (as NumPy does) "
                      "leaves it empty at this magnitude, so its bins would have zero width (NumPy: too many bins "
                      "for data range)");
    // np.histogram(np.float32([1e8]), 4): 1e8 ± 0.5 == 1e8 in float32
    const thrust::device_vector<float> f(1, 1e8f);
    CHECK_THROWS_WITH(dpt::histogram(thrust::device, f.begin(), f.end(), dpt::even_bins{4, 1e8f, 1e8f}, counts.begin()),
                      Contains("the range [1e+08, 1e+08] is empty"));
    // numbers in the fewest digits that read back, not in %f's hundreds
    CHECK_THROWS_WITH(run(dpt::even_bins{4, 1e300, 1e300}), Contains("the range [1e+300, 1e+300] is empty"));
  }
  SECTION("a range whose width overflows: NumPy's edges are NaN and Inf") {
    CHECK_THROWS_WITH(run(dpt::even_bins{1, -1e308, 1e308}),
                      "histogram: the range [-1e+308, 1e+308] is too wide: its width hi - lo overflows float64, so "
                      "its bins have no finite width");
    const thrust::device_vector<float> f(1, 0.0f);
    CHECK_THROWS_WITH(
        dpt::histogram(thrust::device, f.begin(), f.end(), dpt::even_bins{2, -3e38f, 3e38f}, counts.begin()),
        Contains("overflows float32"));
  }
  SECTION("edges 1 ulp apart: NumPy 2 refuses what NumPy 1.24 counted as [0 1 0 1 1]") {
    // np.histogram([1.0, 1.0000000000000002, 1.0000000000000004], 5): 'Too many bins for data range. Cannot
    // create 5 finite-sized bins.'
    CHECK_THROWS_WITH(run(dpt::even_bins{5, 1.0, std::nextafter(std::nextafter(1.0, 2.0), 2.0)}),
                      "histogram: too many bins for the data range [1, 1.0000000000000004]: cannot create 5 "
                      "finite-sized bins (edges 0 and 1 are 1 and 1)");
  }
  SECTION("too many bins for a float range: its edges collapse (NumPy: 'Too many bins for data range')") {
    const thrust::device_vector<float> f(3, 1.0f);
    CHECK_THROWS_WITH(
        dpt::histogram(thrust::device, f.begin(), f.end(), dpt::even_bins{1000, 1.0, 1.0 + 1e-6}, counts.begin()),
        Contains("cannot create 1000 finite-sized bins"));
    // the same range is fine for double data
    CHECK_NOTHROW(run(dpt::even_bins{1000, 1.0, 1.0 + 1e-6}));
  }
  if (!dpt::histogram_method_available(histogram_method::cub)) {
    SECTION("the cub method on a CPU device system") {
      CHECK_THROWS_AS(dpt::histogram(thrust::device, values.begin(), values.end(), dpt::even_bins{4, 0.0, 1.0},
                                     counts.begin(), histogram_method::cub),
                      std::invalid_argument);
    }
  }
}
