// dpt::inclusive_scan / exclusive_scan (the multicore CPU path on OMP and TBB) against a sequential loop.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdint>
#include <functional>
#include <limits>
#include <type_traits>
#include <thrust/device_vector.h>
#include <thrust/execution_policy.h>
#include <thrust/host_vector.h>
#include <vector>

#include <dpt/scan.hpp>
#include "test_support/first_difference.hpp"
#include "test_support/offset_output.hpp"
#include "test_support/operators.hpp"
#include "test_support/random_inputs.hpp"
#include "test_support/sliced_cpu_policy.hpp"
#include "test_support/to_std.hpp"
#include <dpt/cpu/streaming_store.hpp>

namespace {

using dpt::test::to_std;

// Host reference: one running value, left to right.
template <class T, class Op>
std::vector<T> reference_inclusive_scan(const std::vector<T>& data, Op op) {
  std::vector<T> out(data.size());
  for (std::size_t i = 0; i < data.size(); ++i) out[i] = i == 0 ? data[0] : op(out[i - 1], data[i]);
  return out;
}

template <class T, class Op>
std::vector<T> reference_exclusive_scan(const std::vector<T>& data, T init, Op op) {
  std::vector<T> out(data.size());
  T running = init;
  for (std::size_t i = 0; i < data.size(); ++i) {
    out[i] = running;
    running = op(running, data[i]);
  }
  return out;
}

}  // namespace

TEST_CASE("scan matches the sequential reference on random integers", "[primitives][scan]" DPT_BACKEND_TAG) {
  const std::size_t n = GENERATE(from_range(dpt::test::interesting_sizes));
  CAPTURE(n);
  const auto data = dpt::test::random_values<int>(n, 41 + n, -1000, 1000);
  const thrust::device_vector<int> d_data(data.begin(), data.end());
  thrust::device_vector<int> d_out(n, -7);

  SECTION("inclusive sums") {
    const auto end = dpt::inclusive_scan(thrust::device, d_data.begin(), d_data.end(), d_out.begin());
    CHECK(end == d_out.end());
    CHECK(dpt::test::first_difference(to_std(d_out), reference_inclusive_scan(data, std::plus<>{})) == "equal");
  }
  SECTION("exclusive sums from a non-zero start") {
    const auto end = dpt::exclusive_scan(thrust::device, d_data.begin(), d_data.end(), d_out.begin(), 5);
    CHECK(end == d_out.end());
    CHECK(dpt::test::first_difference(to_std(d_out), reference_exclusive_scan(data, 5, std::plus<>{})) == "equal");
  }
  SECTION("inclusive sums in place") {
    thrust::device_vector<int> d_inout = d_data;
    dpt::inclusive_scan(thrust::device, d_inout.begin(), d_inout.end(), d_inout.begin());
    CHECK(dpt::test::first_difference(to_std(d_inout), reference_inclusive_scan(data, std::plus<>{})) == "equal");
  }
  SECTION("exclusive sums in place") {
    thrust::device_vector<int> d_inout = d_data;
    dpt::exclusive_scan(thrust::device, d_inout.begin(), d_inout.end(), d_inout.begin(), 0);
    CHECK(dpt::test::first_difference(to_std(d_inout), reference_exclusive_scan(data, 0, std::plus<>{})) == "equal");
  }
}

TEST_CASE("scan keeps the order of a non-commutative operator", "[primitives][scan]" DPT_BACKEND_TAG) {
  using dpt::test::affine;
  using dpt::test::compose;
  const std::size_t n = GENERATE(from_range(dpt::test::interesting_sizes));
  CAPTURE(n);
  const auto data = dpt::test::random_affine_maps(n, 43 + n);
  const thrust::device_vector<affine> d_data(data.begin(), data.end());
  thrust::device_vector<affine> d_out(n);

  SECTION("inclusive composition applies maps left to right") {
    dpt::inclusive_scan(thrust::device, d_data.begin(), d_data.end(), d_out.begin(), compose{});
    CHECK(to_std(d_out) == reference_inclusive_scan(data, compose{}));
  }
  SECTION("exclusive composition starts from a given map") {
    const affine start{3, 1};
    dpt::exclusive_scan(thrust::device, d_data.begin(), d_data.end(), d_out.begin(), start, compose{});
    CHECK(to_std(d_out) == reference_exclusive_scan(data, start, compose{}));
  }
}

TEST_CASE("scan reproduces the lecture's example", "[primitives][scan]" DPT_BACKEND_TAG) {
  const thrust::device_vector<int> d_data(std::vector<int>{3, 8, 4, 6, 3, 9, 2, 8});
  thrust::device_vector<int> d_out(8);
  dpt::inclusive_scan(thrust::device, d_data.begin(), d_data.end(), d_out.begin());
  CHECK(to_std(d_out) == std::vector<int>{3, 11, 15, 21, 24, 33, 35, 43});
  dpt::exclusive_scan(thrust::device, d_data.begin(), d_data.end(), d_out.begin(), 0);
  CHECK(to_std(d_out) == std::vector<int>{0, 3, 11, 15, 21, 24, 33, 35});
}

TEST_CASE("the sliced CPU scan is right for every slice length and round count", "[primitives][scan]" DPT_BACKEND_TAG) {
  using dpt::test::affine;
  using dpt::test::compose;
  using dpt::test::sliced_cpu_policy;
  const std::size_t n = GENERATE(0u, 1u, 2u, 3u, 31u, 97u, 1009u, 65537u);
  const std::ptrdiff_t slice_length = GENERATE(from_range(dpt::test::tiny_slice_lengths));
  CAPTURE(n, slice_length);
  const auto data = dpt::test::random_affine_maps(n, 47 + n);
  const auto slices = dpt::test::tiny_slices(slice_length);
  std::vector<affine> out(n);

  SECTION("inclusive") {
    const auto end = dpt::cpu::scan<false>(sliced_cpu_policy, data.data(), data.data() + n, out.data(), affine{},
                                           compose{}, {slices});
    CHECK(end == out.data() + n);
    CHECK(out == reference_inclusive_scan(data, compose{}));
  }
  SECTION("exclusive") {
    const affine start{5, 2};
    const auto end =
        dpt::cpu::scan<true>(sliced_cpu_policy, data.data(), data.data() + n, out.data(), start, compose{}, {slices});
    CHECK(end == out.data() + n);
    CHECK(out == reference_exclusive_scan(data, start, compose{}));
  }
  SECTION("inclusive, in place") {
    out = data;
    dpt::cpu::scan<false>(sliced_cpu_policy, out.data(), out.data() + n, out.data(), affine{}, compose{}, {slices});
    CHECK(out == reference_inclusive_scan(data, compose{}));
  }
}

TEST_CASE("scan streams outputs larger than the caches and stays right", "[primitives][scan]" DPT_BACKEND_TAG) {
  const std::size_t n = 9000011;  // > 32 MiB of int32: the multicore path writes with streaming stores
  REQUIRE(dpt::cpu::should_stream<int*>(static_cast<std::ptrdiff_t>(n)) == bool(DPT_HAVE_STREAMING_STORES));
  const auto data = dpt::test::random_values<int>(n, 53, -1000, 1000);
  const thrust::device_vector<int> d_data(data.begin(), data.end());
  thrust::device_vector<int> d_out(n, -7);

  SECTION("inclusive sums") {
    dpt::inclusive_scan(thrust::device, d_data.begin(), d_data.end(), d_out.begin());
    CHECK(dpt::test::first_difference(to_std(d_out), reference_inclusive_scan(data, std::plus<>{})) == "equal");
  }
  SECTION("exclusive sums in place") {
    thrust::device_vector<int> d_inout = d_data;
    dpt::exclusive_scan(thrust::device, d_inout.begin(), d_inout.end(), d_inout.begin(), 3);
    CHECK(dpt::test::first_difference(to_std(d_inout), reference_exclusive_scan(data, 3, std::plus<>{})) == "equal");
  }
}

namespace {

// Values whose sums exercise every bit of T: wrapping for unsigned types, beyond 32 bits for 64-bit ones,
// bounded so that signed sums of any length tested here cannot overflow.
template <class T>
std::vector<T> sum_test_values(std::size_t n, std::uint64_t seed) {
  if constexpr (std::is_unsigned_v<T>)
    return dpt::test::random_values<T>(n, seed, 0, std::numeric_limits<T>::max());
  else if constexpr (sizeof(T) == 8)  // `else`, so that unsigned types never instantiate the negative bound
    return dpt::test::random_values<T>(n, seed, -1'000'000'000'000, 1'000'000'000'000);
  else
    return dpt::test::random_values<T>(n, seed, -1000, 1000);
}

// The multicore scan of `data` through `walk` and `sizes`, written `offset` elements into its output (the
// vector walk then starts unaligned); checks against the sequential loop and that nothing else was written.
template <bool Exclusive, class T>
void check_sum_walk(const std::vector<T>& data, std::ptrdiff_t offset, dpt::cpu::slice_sizes sizes,
                    dpt::cpu::scan_walk walk, bool in_place) {
  const T init = static_cast<T>(5);
  dpt::test::offset_output<T> output(data, offset, in_place);
  const auto end = dpt::cpu::scan<Exclusive>(dpt::test::sliced_cpu_policy, output.in(), output.in() + data.size(),
                                             output.out(), init, std::plus<T>{}, {sizes, walk});
  CHECK(end == output.out() + data.size());
  const auto expected =
      Exclusive ? reference_exclusive_scan(data, init, std::plus<T>{}) : reference_inclusive_scan(data, std::plus<T>{});
  CHECK(dpt::test::first_difference(output.written(), expected) == "equal");
  CHECK(output.guard_untouched());
}

}  // namespace

TEMPLATE_TEST_CASE("integer sums are the same through every walk, slicing and output alignment",
                   "[primitives][scan]" DPT_BACKEND_TAG, std::int32_t, std::uint32_t, std::int64_t) {
  using T = TestType;
  // around one vector (16 int32, 8 int64), primes, and more than a serial run
  const std::size_t n = GENERATE(0u, 1u, 7u, 8u, 9u, 15u, 16u, 17u, 33u, 97u, 1009u, 65537u, 300007u);
  const std::ptrdiff_t slice_length = GENERATE(7, 1000, 4099, 0);  // 0: the library's own slices
  const std::ptrdiff_t offset = GENERATE(0, 1, 3);
  const auto walk = GENERATE(from_range(dpt::test::available_scan_walks()));
  CAPTURE(n, slice_length, offset, dpt::test::name(walk));
  const auto data = sum_test_values<T>(n, 71 + n);
  const auto sizes = dpt::test::walk_test_slices(slice_length, sizeof(T));

  SECTION("inclusive") {
    check_sum_walk<false>(data, offset, sizes, walk, false);
  }
  SECTION("exclusive from a non-zero start") {
    check_sum_walk<true>(data, offset, sizes, walk, false);
  }
  SECTION("exclusive, in place") {
    check_sum_walk<true>(data, offset, sizes, walk, true);
  }
}

TEMPLATE_TEST_CASE("integer sums through every walk stay right when the output is streamed",
                   "[primitives][scan]" DPT_BACKEND_TAG, std::int32_t, std::int64_t) {
  using T = TestType;
  const std::size_t n = 9000011;  // > 32 MiB: written with streaming stores
  const auto walk = GENERATE(from_range(dpt::test::available_scan_walks()));
  CAPTURE(dpt::test::name(walk));
  const auto data = sum_test_values<T>(n, 73);
  const auto sizes = dpt::cpu::slice_sizes::for_element_bytes(sizeof(T));

  SECTION("inclusive, output one element past a line boundary") {
    check_sum_walk<false>(data, 1, sizes, walk, false);
  }
  SECTION("exclusive, in place") {
    check_sum_walk<true>(data, 0, sizes, walk, true);
  }
}
