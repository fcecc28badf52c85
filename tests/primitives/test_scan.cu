// dpt::inclusive_scan / exclusive_scan (the multicore CPU path on OMP and TBB) against a sequential loop.
#include <catch2/catch.hpp>

#include <cstdint>
#include <thrust/device_vector.h>
#include <thrust/execution_policy.h>
#include <thrust/host_vector.h>
#include <vector>

#include <dpt/scan.hpp>
#include "support/operators.hpp"
#include "support/random_inputs.hpp"
#include "support/sliced_cpu_policy.hpp"
#include "support/to_std.hpp"
#include <dpt/detail/streaming_store.hpp>

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
    CHECK(to_std(d_out) == reference_inclusive_scan(data, std::plus<>{}));
  }
  SECTION("exclusive sums from a non-zero start") {
    const auto end = dpt::exclusive_scan(thrust::device, d_data.begin(), d_data.end(), d_out.begin(), 5);
    CHECK(end == d_out.end());
    CHECK(to_std(d_out) == reference_exclusive_scan(data, 5, std::plus<>{}));
  }
  SECTION("inclusive sums in place") {
    thrust::device_vector<int> d_inout = d_data;
    dpt::inclusive_scan(thrust::device, d_inout.begin(), d_inout.end(), d_inout.begin());
    CHECK(to_std(d_inout) == reference_inclusive_scan(data, std::plus<>{}));
  }
  SECTION("exclusive sums in place") {
    thrust::device_vector<int> d_inout = d_data;
    dpt::exclusive_scan(thrust::device, d_inout.begin(), d_inout.end(), d_inout.begin(), 0);
    CHECK(to_std(d_inout) == reference_exclusive_scan(data, 0, std::plus<>{}));
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
    const auto end = dpt::detail::multicore_scan<false>(sliced_cpu_policy, data.data(), data.data() + n, out.data(),
                                                        affine{}, compose{}, slices);
    CHECK(end == out.data() + n);
    CHECK(out == reference_inclusive_scan(data, compose{}));
  }
  SECTION("exclusive") {
    const affine start{5, 2};
    const auto end = dpt::detail::multicore_scan<true>(sliced_cpu_policy, data.data(), data.data() + n, out.data(),
                                                       start, compose{}, slices);
    CHECK(end == out.data() + n);
    CHECK(out == reference_exclusive_scan(data, start, compose{}));
  }
  SECTION("inclusive, in place") {
    out = data;
    dpt::detail::multicore_scan<false>(sliced_cpu_policy, out.data(), out.data() + n, out.data(), affine{}, compose{},
                                       slices);
    CHECK(out == reference_inclusive_scan(data, compose{}));
  }
}

TEST_CASE("scan streams outputs larger than the caches and stays right", "[primitives][scan]" DPT_BACKEND_TAG) {
  const std::size_t n = 9000011;  // > 32 MiB of int32: the multicore path writes with streaming stores
  REQUIRE(dpt::detail::should_stream<int*>(static_cast<std::ptrdiff_t>(n)) == bool(DPT_HAVE_STREAMING_STORES));
  const auto data = dpt::test::random_values<int>(n, 53, -1000, 1000);
  const thrust::device_vector<int> d_data(data.begin(), data.end());
  thrust::device_vector<int> d_out(n, -7);

  SECTION("inclusive sums") {
    dpt::inclusive_scan(thrust::device, d_data.begin(), d_data.end(), d_out.begin());
    CHECK(to_std(d_out) == reference_inclusive_scan(data, std::plus<>{}));
  }
  SECTION("exclusive sums in place") {
    thrust::device_vector<int> d_inout = d_data;
    dpt::exclusive_scan(thrust::device, d_inout.begin(), d_inout.end(), d_inout.begin(), 3);
    CHECK(to_std(d_inout) == reference_exclusive_scan(data, 3, std::plus<>{}));
  }
}
