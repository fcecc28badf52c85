// dpt::segmented_inclusive_scan / segmented_exclusive_scan against a sequential loop over the segments.
#include <catch2/catch.hpp>

#include <thrust/device_vector.h>
#include <thrust/host_vector.h>
#include <vector>

#include <dpt/segmented_scan.hpp>
#include "support/operators.hpp"
#include "support/random_inputs.hpp"

namespace {

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

template <class T>
std::vector<T> to_std(const thrust::device_vector<T>& d) {
  thrust::host_vector<T> h = d;
  return {h.begin(), h.end()};
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
}

TEST_CASE("segmented scan keeps the order of a non-commutative operator",
          "[primitives][segmented_scan]" DPT_BACKEND_TAG) {
  using dpt::test::affine;
  using dpt::test::compose;
  const std::size_t n = GENERATE(0u, 1u, 97u, 65537u);
  CAPTURE(n);
  const auto a = dpt::test::random_values<std::uint32_t>(n, 3 + n, 0, 1u << 30);
  const auto b = dpt::test::random_values<std::uint32_t>(n, 5 + n, 0, 1u << 30);
  std::vector<affine> data(n);
  for (std::size_t i = 0; i < n; ++i) data[i] = {a[i] | 1u, b[i]};
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
