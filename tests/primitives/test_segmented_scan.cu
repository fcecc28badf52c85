// dpt::segmented_inclusive_scan / segmented_exclusive_scan against a sequential loop over the segments.
#include <catch2/catch.hpp>

#include <thrust/device_vector.h>
#include <thrust/host_vector.h>
#include <vector>

#include <dpt/segmented_scan.hpp>
#include "support/operators.hpp"
#include "support/random_inputs.hpp"
#include "support/sliced_cpu_policy.hpp"
#include "support/to_std.hpp"
#include <dpt/detail/streaming_store.hpp>

namespace {

using dpt::test::to_std;

// Host reference: restart the running value at every head flag (and at the first element).
template <class T, class Op>
std::vector<T> reference_segmented_scan(const std::vector<T>& data, const std::vector<int>& flags, Op op,
                                        bool inclusive, T init) {
  std::vector<T> out(data.size());
  T running = init;
  for (std::size_t i = 0; i < data.size(); ++i) {
    if (i == 0 || flags[i]) running = init;
    if (inclusive) {
      running = (i == 0 || flags[i]) ? data[i] : op(running, data[i]);
      out[i] = running;
    } else {
      out[i] = running;
      running = op(running, data[i]);
    }
  }
  return out;
}

}  // namespace

TEST_CASE("segmented scan matches the sequential reference on random segments",
          "[primitives][segmented_scan]" DPT_BACKEND_TAG) {
  using dpt::test::segment_layout;
  const auto layout = GENERATE(segment_layout::one_segment, segment_layout::every_element, segment_layout::random_runs,
                               segment_layout::first_unflagged);
  const std::size_t n = GENERATE(from_range(dpt::test::interesting_sizes));
  CAPTURE(dpt::test::name(layout), n);
  const auto data = dpt::test::random_values<int>(n, 17 + n, -1000, 1000);
  const auto flags = dpt::test::head_flags(n, layout, 29 + n);
  const thrust::device_vector<int> d_data(data.begin(), data.end());
  const thrust::device_vector<int> d_flags(flags.begin(), flags.end());
  thrust::device_vector<int> d_out(n);

  SECTION("inclusive sums restart at every head flag") {
    const auto end =
        dpt::segmented_inclusive_scan(thrust::device, d_data.begin(), d_data.end(), d_flags.begin(), d_out.begin());
    CHECK(end == d_out.end());
    CHECK(to_std(d_out) == reference_segmented_scan(data, flags, std::plus<>{}, true, 0));
  }
  SECTION("exclusive sums start every segment from the identity") {
    const auto end =
        dpt::segmented_exclusive_scan(thrust::device, d_data.begin(), d_data.end(), d_flags.begin(), d_out.begin(), 0);
    CHECK(end == d_out.end());
    CHECK(to_std(d_out) == reference_segmented_scan(data, flags, std::plus<>{}, false, 0));
  }
  SECTION("inclusive sums in place") {
    thrust::device_vector<int> d_inout = d_data;
    dpt::segmented_inclusive_scan(thrust::device, d_inout.begin(), d_inout.end(), d_flags.begin(), d_inout.begin());
    CHECK(to_std(d_inout) == reference_segmented_scan(data, flags, std::plus<>{}, true, 0));
  }
}

TEST_CASE("segmented scan keeps the order of a non-commutative operator",
          "[primitives][segmented_scan]" DPT_BACKEND_TAG) {
  using dpt::test::affine;
  using dpt::test::compose;
  const std::size_t n = GENERATE(0u, 1u, 97u, 65537u);
  CAPTURE(n);
  const auto data = dpt::test::random_affine_maps(n, 3 + n);
  const auto flags = dpt::test::head_flags(n, dpt::test::segment_layout::random_runs, 7 + n);
  const thrust::device_vector<affine> d_data(data.begin(), data.end());
  const thrust::device_vector<int> d_flags(flags.begin(), flags.end());
  thrust::device_vector<affine> d_out(n);

  SECTION("inclusive composition applies maps left to right within each segment") {
    dpt::segmented_inclusive_scan(thrust::device, d_data.begin(), d_data.end(), d_flags.begin(), d_out.begin(),
                                  compose{});
    CHECK(to_std(d_out) == reference_segmented_scan(data, flags, compose{}, true, affine{}));
  }
  SECTION("exclusive composition starts each segment from the identity map") {
    dpt::segmented_exclusive_scan(thrust::device, d_data.begin(), d_data.end(), d_flags.begin(), d_out.begin(),
                                  affine{}, compose{});
    CHECK(to_std(d_out) == reference_segmented_scan(data, flags, compose{}, false, affine{}));
  }
}

TEST_CASE("segmented scan reproduces the lecture's example", "[primitives][segmented_scan]" DPT_BACKEND_TAG) {
  const std::vector<int> data{1, 2, 6, 1, 2, 3, 4};  // [[1,2],[6],[1,2,3,4]]
  const std::vector<int> flags{1, 0, 1, 1, 0, 0, 0};
  const thrust::device_vector<int> d_data(data.begin(), data.end());
  const thrust::device_vector<int> d_flags(flags.begin(), flags.end());
  thrust::device_vector<int> d_out(data.size());
  dpt::segmented_exclusive_scan(thrust::device, d_data.begin(), d_data.end(), d_flags.begin(), d_out.begin(), 0);
  CHECK(to_std(d_out) == std::vector<int>{0, 1, 0, 0, 1, 3, 6});
}

TEST_CASE("the sliced CPU segmented scan is right for every slice length and round count",
          "[primitives][segmented_scan]" DPT_BACKEND_TAG) {
  using dpt::test::affine;
  using dpt::test::compose;
  using dpt::test::segment_layout;
  using dpt::test::sliced_cpu_policy;
  const auto layout = GENERATE(segment_layout::one_segment, segment_layout::every_element, segment_layout::random_runs,
                               segment_layout::first_unflagged);
  const std::size_t n = GENERATE(0u, 1u, 2u, 3u, 31u, 97u, 1009u);
  const std::ptrdiff_t slice_length = GENERATE(from_range(dpt::test::tiny_slice_lengths));
  CAPTURE(dpt::test::name(layout), n, slice_length);
  const auto data = dpt::test::random_affine_maps(n, 13 + n);
  const auto flags = dpt::test::head_flags(n, layout, 23 + n);
  const auto slices = dpt::test::tiny_slices(slice_length);
  std::vector<affine> out(n);

  SECTION("inclusive") {
    const auto end = dpt::detail::multicore_segmented_scan<false>(sliced_cpu_policy, data.data(), n, flags.data(),
                                                                  out.data(), affine{}, compose{}, slices);
    CHECK(end == out.data() + n);
    CHECK(out == reference_segmented_scan(data, flags, compose{}, true, affine{}));
  }
  SECTION("exclusive from a start that is not the identity") {
    const affine start{3, 7};
    const auto end = dpt::detail::multicore_segmented_scan<true>(sliced_cpu_policy, data.data(), n, flags.data(),
                                                                 out.data(), start, compose{}, slices);
    CHECK(end == out.data() + n);
    CHECK(out == reference_segmented_scan(data, flags, compose{}, false, start));
  }
  SECTION("inclusive, in place") {
    out = data;
    dpt::detail::multicore_segmented_scan<false>(sliced_cpu_policy, out.data(), n, flags.data(), out.data(), affine{},
                                                 compose{}, slices);
    CHECK(out == reference_segmented_scan(data, flags, compose{}, true, affine{}));
  }
}

TEST_CASE("segmented scan streams outputs larger than the caches and stays right",
          "[primitives][segmented_scan]" DPT_BACKEND_TAG) {
  const std::size_t n = 9000011;  // > 32 MiB of int32: the multicore path writes with streaming stores
  REQUIRE(dpt::detail::should_stream<int*>(static_cast<std::ptrdiff_t>(n)) == bool(DPT_HAVE_STREAMING_STORES));
  const auto data = dpt::test::random_values<int>(n, 59, -1000, 1000);
  const auto flags = dpt::test::head_flags(n, dpt::test::segment_layout::random_runs, 61);
  const thrust::device_vector<int> d_data(data.begin(), data.end());
  const thrust::device_vector<int> d_flags(flags.begin(), flags.end());
  thrust::device_vector<int> d_out(n);

  SECTION("inclusive") {
    dpt::segmented_inclusive_scan(thrust::device, d_data.begin(), d_data.end(), d_flags.begin(), d_out.begin());
    CHECK(to_std(d_out) == reference_segmented_scan(data, flags, std::plus<>{}, true, 0));
  }
  SECTION("exclusive") {
    dpt::segmented_exclusive_scan(thrust::device, d_data.begin(), d_data.end(), d_flags.begin(), d_out.begin(), 0);
    CHECK(to_std(d_out) == reference_segmented_scan(data, flags, std::plus<>{}, false, 0));
  }
}
