// The CPU backend's vector bin map (dpt/cpu/histogram_bins.hpp) against numpy_bin_index one value at a time, on
// the values where a map can go wrong: every edge and its neighbours, the dropped values, and random ones; at
// every alignment and tail length of a vector step (16 float or 8 double lanes). dpt::histogram's own tests compare the
// whole histogram with the sequential reference (test_histogram.cu); this one names the first value whose bin differs.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <random>
#include <sstream>
#include <string>
#include <thrust/device_vector.h>
#include <thrust/type_traits/unwrap_contiguous_iterator.h>
#include <type_traits>
#include <vector>

#include <dpt/cpu/histogram_bins.hpp>
#include <dpt/detail/temporary_array.hpp>
#include "test_support/fma_build.hpp"
#include "test_support/sliced_cpu_policy.hpp"

namespace dpt::test {
// numpy_bins_with_fma.cpp: the vector bin map built with -mfma -ffp-contract=fast where tests/CMakeLists.txt can
void map_bins_built_with_fma(const float* values, std::ptrdiff_t n, const dpt::even_bins<float>& bins, int* ids);
void map_bins_built_with_fma(const double* values, std::ptrdiff_t n, const dpt::even_bins<double>& bins, int* ids);
void map_bins_built_with_fma(const float* values, std::ptrdiff_t n, const dpt::even_bins<double>& bins, int* ids);
}  // namespace dpt::test

namespace {

// The value and bound types of a bin map.
template <class V, class B>
struct types {
  using value = V;
  using bound = B;
};

// Values that reach every branch of a bin map for `bin_of`: up to 4,000 edges, each with its neighbours one and two
// ulps away; as many random values over the range and a tenth beyond each end; NaN, ±Inf, ±0, the smallest
// subnormal and ±max. Shuffled, so that each kind meets every lane of a vector.
template <class Value, class Bound>
std::vector<Value> bin_map_inputs(const dpt::numpy_bin_index<Value, Bound>& bin_of, std::uint64_t seed) {
  constexpr Value inf = std::numeric_limits<Value>::infinity();
  std::vector<Value> values{std::numeric_limits<Value>::quiet_NaN(),
                            inf,
                            -inf,
                            Value(0),
                            -Value(0),
                            std::numeric_limits<Value>::denorm_min(),
                            std::numeric_limits<Value>::max(),
                            -std::numeric_limits<Value>::max()};
  std::vector<int> edge_ids;
  for (int i = 0; i < bin_of.bins; i += 1 + bin_of.bins / 4000) edge_ids.push_back(i);
  edge_ids.push_back(bin_of.bins);
  for (const int i : edge_ids) {
    const Value edge = bin_of.edge(i);
    const Value down = std::nextafter(edge, -inf), up = std::nextafter(edge, inf);
    for (const Value x : {std::nextafter(down, -inf), down, edge, up, std::nextafter(up, inf)}) values.push_back(x);
  }
  std::mt19937_64 rng(seed);
  const double margin = (double(bin_of.hi) - double(bin_of.lo)) / 10;
  std::uniform_real_distribution<double> range(double(bin_of.lo) - margin, double(bin_of.hi) + margin);
  for (std::size_t i = 0, edges = values.size(); i < edges; ++i) values.push_back(static_cast<Value>(range(rng)));
  std::shuffle(values.begin(), values.end(), rng);
  return values;
}

// "equal", or the first position where got and numpy_bin_index disagree, with the value and both bins.
template <class Value, class Bound>
std::string first_wrong_bin(const std::vector<Value>& values, std::ptrdiff_t begin, const std::vector<int>& got,
                            const dpt::numpy_bin_index<Value, Bound>& bin_of) {
  for (std::size_t i = 0; i < got.size(); ++i) {
    const Value x = values[begin + i];
    if (got[i] != bin_of(x)) {
      std::ostringstream text;
      text.precision(17);
      text << "position " << begin + i << ": value " << x << " mapped to " << got[i] << ", numpy_bin_index says "
           << bin_of(x);
      return text.str();
    }
  }
  return "equal";
}

}  // namespace

TEMPLATE_TEST_CASE("the histogram's value and id iterators reach the vector bin map",
                   "[histogram][bin_map]" DPT_BACKEND_TAG, (types<float, float>), (types<double, double>),
                   (types<float, double>)) {
  using Value = typename TestType::value;
  using Bound = typename TestType::bound;
  // a mismatch of types here would send every histogram to the one-value-at-a-time map, silently
  using values_t = thrust::try_unwrap_contiguous_iterator_t<typename thrust::device_vector<Value>::const_iterator>;
  using ids_t = thrust::try_unwrap_contiguous_iterator_t<
      decltype(std::declval<dpt::detail::temporary_array<int, std::decay_t<decltype(thrust::device)>>&>().begin())>;
  STATIC_REQUIRE(dpt::cpu::can_map_bins_avx512_v<values_t, ids_t, dpt::numpy_bin_index<Value, Bound>> ==
                 (DPT_HAVE_AVX512 != 0));
  // double values with float bounds (NumPy compares them in double) and integer values keep the scalar map
  STATIC_REQUIRE(!dpt::cpu::can_map_bins_avx512_v<const double*, int*, dpt::numpy_bin_index<double, float>>);
  STATIC_REQUIRE(!dpt::cpu::can_map_bins_avx512_v<const int*, int*, dpt::numpy_bin_index<int, double>>);
}

TEMPLATE_TEST_CASE("the CPU's vector bin map gives numpy_bin_index's bin for every value",
                   "[histogram][bin_map]" DPT_BACKEND_TAG, (types<float, float>), (types<double, double>),
                   (types<float, double>)) {
  using Value = typename TestType::value;
  using Bound = typename TestType::bound;
  if (!dpt::cpu::cpu_has_avx512()) WARN("this CPU has no AVX-512: the map checked here is the scalar one");
  // bins and ranges: the worked example's, uneven bounds, wide and narrow ranges, ranges 128 float ulps and 64
  // double ulps wide (the second is empty in float: NumPy widens it by 0.5 each way), subnormal bounds, and 2^20 + 1
  // bins, past float's fast guess (numpy_bin_index maps float values by division there)
  const auto [count, lo, hi] = GENERATE(table<int, double, double>({{1, 0.0, 1.0},
                                                                    {4, 0.0, 1.0},
                                                                    {6, 0.47, 2.89},
                                                                    {10, 0.0, 1.0},
                                                                    {256, -4.5, 5.25},
                                                                    {1000, 1e-3, 7e4},
                                                                    {65536, -1.0, 1.0},
                                                                    {1 << 20, 0.0, 1.0},
                                                                    {(1 << 20) + 1, -2.0, 3.0},
                                                                    {3, 1.0, 1.0000152587890625},
                                                                    {3, 1.0, 1.0000000000000142},
                                                                    {5, 1e-42, 1e-38},
                                                                    {7, -3e37, 3e37}}));
  const dpt::even_bins<Bound> spec{count, Bound(lo), Bound(hi)};
  const auto bin_of = dpt::make_numpy_bin_index<Value>(spec);
  const auto values = bin_map_inputs(bin_of, 7 + count);
  CAPTURE(count, lo, hi, values.size());

  SECTION("all values at once, across the cores") {
    std::vector<int> ids(values.size(), -1);
    dpt::cpu::map_bins(dpt::test::sliced_cpu_policy, values.data(), static_cast<std::ptrdiff_t>(values.size()), bin_of,
                       ids.data());
    CHECK(first_wrong_bin(values, 0, ids, bin_of) == "equal");
  }
  SECTION("every start within a vector and every tail length up to two vectors") {
    for (std::ptrdiff_t begin = 0; begin < 16; ++begin) {
      for (std::ptrdiff_t n = 0; n <= 33; ++n) {
        std::vector<int> ids(n + 1, -1);
        dpt::cpu::map_bins(dpt::test::sliced_cpu_policy, values.data() + begin, n, bin_of, ids.data());
        CHECK(ids[n] == -1);  // nothing past the end
        ids.pop_back();
        CAPTURE(begin, n);
        CHECK(first_wrong_bin(values, begin, ids, bin_of) == "equal");
      }
    }
  }
  SECTION("the same in a build that fuses multiply-adds") {
    if (!dpt::test::fma_build_runs_here()) return;
    std::vector<int> ids(values.size(), -1);
    dpt::test::map_bins_built_with_fma(values.data(), static_cast<std::ptrdiff_t>(values.size()), spec, ids.data());
    CHECK(first_wrong_bin(values, 0, ids, bin_of) == "equal");
  }
}
