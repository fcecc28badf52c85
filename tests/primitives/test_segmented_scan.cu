// dpt::segmented_inclusive_scan / segmented_exclusive_scan against a sequential loop over the segments.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdint>
#include <functional>
#include <limits>
#include <memory>
#include <type_traits>
#include <utility>
#include <thrust/device_vector.h>
#include <thrust/host_vector.h>
#include <vector>

#include <dpt/segmented_scan.hpp>
#include "test_support/first_difference.hpp"
#include "test_support/offset_output.hpp"
#include "test_support/operators.hpp"
#include "test_support/random_inputs.hpp"
#include "test_support/sliced_cpu_policy.hpp"
#include "test_support/to_std.hpp"
#include <dpt/cpu/streaming_store.hpp>

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
    CHECK(dpt::test::first_difference(to_std(d_out), reference_segmented_scan(data, flags, std::plus<>{}, true, 0)) ==
          "equal");
  }
  SECTION("exclusive sums start every segment from the identity") {
    const auto end =
        dpt::segmented_exclusive_scan(thrust::device, d_data.begin(), d_data.end(), d_flags.begin(), d_out.begin(), 0);
    CHECK(end == d_out.end());
    CHECK(dpt::test::first_difference(to_std(d_out), reference_segmented_scan(data, flags, std::plus<>{}, false, 0)) ==
          "equal");
  }
  SECTION("inclusive sums in place") {
    thrust::device_vector<int> d_inout = d_data;
    dpt::segmented_inclusive_scan(thrust::device, d_inout.begin(), d_inout.end(), d_flags.begin(), d_inout.begin());
    CHECK(dpt::test::first_difference(to_std(d_inout), reference_segmented_scan(data, flags, std::plus<>{}, true, 0)) ==
          "equal");
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

namespace {

// max over negative values: T{} = 0 is no identity here (max(0, x) = 0), so a scan that seeds a segment with T{}
// instead of its first element gives zeros, where sums and maps (whose T{} is the identity) hide it.
struct max_of {
  DPT_HOST_DEVICE int operator()(int a, int b) const { return a < b ? b : a; }
};

}  // namespace

TEST_CASE("an inclusive segmented scan starts each segment from its first element, not from T{}",
          "[primitives][segmented_scan]" DPT_BACKEND_TAG) {
  using dpt::test::segment_layout;
  const auto layout =
      GENERATE(segment_layout::one_segment, segment_layout::random_runs, segment_layout::first_unflagged);
  const std::size_t n = GENERATE(1u, 2u, 97u, 1009u, 65537u);
  CAPTURE(dpt::test::name(layout), n);
  const auto data = dpt::test::random_values<int>(n, 43 + n, -1000, -1);
  const auto flags = dpt::test::head_flags(n, layout, 47 + n);
  const auto expected = reference_segmented_scan(data, flags, max_of{}, true, 0);

  SECTION("through the public algorithm") {
    const thrust::device_vector<int> d_data(data.begin(), data.end());
    const thrust::device_vector<int> d_flags(flags.begin(), flags.end());
    thrust::device_vector<int> d_out(n);
    dpt::segmented_inclusive_scan(thrust::device, d_data.begin(), d_data.end(), d_flags.begin(), d_out.begin(),
                                  max_of{});
    CHECK(dpt::test::first_difference(to_std(d_out), expected) == "equal");
  }
  SECTION("through the sliced CPU recipe, with every tiny slice length") {
    for (const auto slice_length : dpt::test::tiny_slice_lengths) {
      CAPTURE(slice_length);
      std::vector<int> out(n);
      dpt::cpu::segmented_scan<false>(dpt::test::sliced_cpu_policy, data.data(), n, flags.data(), out.data(), int{},
                                      max_of{}, {dpt::test::tiny_slices(slice_length)});
      CHECK(dpt::test::first_difference(out, expected) == "equal");
    }
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
    const auto end = dpt::cpu::segmented_scan<false>(sliced_cpu_policy, data.data(), n, flags.data(), out.data(),
                                                     affine{}, compose{}, {slices});
    CHECK(end == out.data() + n);
    CHECK(out == reference_segmented_scan(data, flags, compose{}, true, affine{}));
  }
  SECTION("exclusive from a start that is not the identity") {
    const affine start{3, 7};
    const auto end = dpt::cpu::segmented_scan<true>(sliced_cpu_policy, data.data(), n, flags.data(), out.data(), start,
                                                    compose{}, {slices});
    CHECK(end == out.data() + n);
    CHECK(out == reference_segmented_scan(data, flags, compose{}, false, start));
  }
  SECTION("inclusive, in place") {
    out = data;
    dpt::cpu::segmented_scan<false>(sliced_cpu_policy, out.data(), n, flags.data(), out.data(), affine{}, compose{},
                                    {slices});
    CHECK(out == reference_segmented_scan(data, flags, compose{}, true, affine{}));
  }
}

TEST_CASE("segmented scan streams outputs larger than the caches and stays right",
          "[primitives][segmented_scan]" DPT_BACKEND_TAG) {
  const std::size_t n = 9000011;  // > 32 MiB of int32: the multicore path writes with streaming stores
  REQUIRE(dpt::cpu::should_stream<int*>(static_cast<std::ptrdiff_t>(n)) == bool(DPT_HAVE_STREAMING_STORES));
  const auto data = dpt::test::random_values<int>(n, 59, -1000, 1000);
  const auto flags = dpt::test::head_flags(n, dpt::test::segment_layout::random_runs, 61);
  const thrust::device_vector<int> d_data(data.begin(), data.end());
  const thrust::device_vector<int> d_flags(flags.begin(), flags.end());
  thrust::device_vector<int> d_out(n);

  SECTION("inclusive") {
    dpt::segmented_inclusive_scan(thrust::device, d_data.begin(), d_data.end(), d_flags.begin(), d_out.begin());
    CHECK(dpt::test::first_difference(to_std(d_out), reference_segmented_scan(data, flags, std::plus<>{}, true, 0)) ==
          "equal");
  }
  SECTION("exclusive") {
    dpt::segmented_exclusive_scan(thrust::device, d_data.begin(), d_data.end(), d_flags.begin(), d_out.begin(), 0);
    CHECK(dpt::test::first_difference(to_std(d_out), reference_segmented_scan(data, flags, std::plus<>{}, false, 0)) ==
          "equal");
  }
}

namespace {

// The multicore segmented sum of `data` (heads where `flags` is set, stored as F) through `walk` and `sizes`,
// written `offset` elements into its output; checks against the sequential loop and that nothing else was
// written.
template <bool Exclusive, class T, class F>
void check_segmented_sum_walk(const std::vector<T>& data, const std::vector<int>& flags, std::ptrdiff_t offset,
                              dpt::cpu::slice_sizes sizes, dpt::cpu::scan_walk walk, bool in_place) {
  const T init = Exclusive ? static_cast<T>(3) : T{};
  const auto heads = std::make_unique<F[]>(flags.size());  // not std::vector: vector<bool> holds no bool array
  std::copy(flags.begin(), flags.end(), heads.get());
  dpt::test::offset_output<T> output(data, offset, in_place);
  const auto n = static_cast<std::ptrdiff_t>(data.size());
  const auto end = dpt::cpu::segmented_scan<Exclusive>(dpt::test::sliced_cpu_policy, output.in(), n, heads.get(),
                                                       output.out(), init, std::plus<T>{}, {sizes, walk});
  CHECK(end == output.out() + n);
  CHECK(dpt::test::first_difference(
            output.written(), reference_segmented_scan(data, flags, std::plus<T>{}, !Exclusive, init)) == "equal");
  CHECK(output.guard_untouched());
}

}  // namespace

// (value type, head flag type): the vector walk reads 1- and 4-byte flags under 4- and 8-byte lanes.
TEMPLATE_TEST_CASE("segmented integer sums are the same through every walk, slicing and output alignment",
                   "[primitives][segmented_scan]" DPT_BACKEND_TAG, (std::pair<std::int32_t, int>),
                   (std::pair<std::uint32_t, std::uint8_t>), (std::pair<std::int64_t, bool>),
                   (std::pair<std::int64_t, std::int32_t>)) {
  using T = typename TestType::first_type;
  using F = typename TestType::second_type;
  using dpt::test::segment_layout;
  const auto layout = GENERATE(segment_layout::one_segment, segment_layout::every_element, segment_layout::random_runs,
                               segment_layout::first_unflagged);
  const std::size_t n = GENERATE(0u, 1u, 8u, 9u, 16u, 17u, 33u, 97u, 1009u, 65537u);
  const std::ptrdiff_t slice_length = GENERATE(7, 1000, 0);  // 0: the library's own slices
  const std::ptrdiff_t offset = GENERATE(0, 3);
  const auto walk = GENERATE(from_range(dpt::test::available_scan_walks()));
  CAPTURE(dpt::test::name(layout), n, slice_length, offset, dpt::test::name(walk));
  const auto data = std::is_unsigned_v<T> ? dpt::test::random_values<T>(n, 29 + n, 0, std::numeric_limits<T>::max())
                                          : dpt::test::random_values<T>(n, 29 + n, -1000, 1000);
  const auto flags = dpt::test::head_flags(n, layout, 31 + n);
  const auto sizes = dpt::test::walk_test_slices(slice_length, sizeof(T) + sizeof(F));

  SECTION("inclusive") {
    check_segmented_sum_walk<false, T, F>(data, flags, offset, sizes, walk, false);
  }
  SECTION("exclusive from a start that is not the identity") {
    check_segmented_sum_walk<true, T, F>(data, flags, offset, sizes, walk, false);
  }
  SECTION("inclusive, in place") {
    check_segmented_sum_walk<false, T, F>(data, flags, offset, sizes, walk, true);
  }
}

TEST_CASE("segmented integer sums through every walk stay right when the output is streamed",
          "[primitives][segmented_scan]" DPT_BACKEND_TAG) {
  const std::size_t n = 9000011;  // > 32 MiB of int32: written with streaming stores
  const auto walk = GENERATE(from_range(dpt::test::available_scan_walks()));
  CAPTURE(dpt::test::name(walk));
  const auto data = dpt::test::random_values<int>(n, 37, -1000, 1000);
  const auto flags = dpt::test::head_flags(n, dpt::test::segment_layout::random_runs, 41);
  const auto sizes = dpt::cpu::slice_sizes::for_element_bytes(sizeof(int) + sizeof(int));

  SECTION("inclusive, output one element past a line boundary") {
    check_segmented_sum_walk<false, int, int>(data, flags, 1, sizes, walk, false);
  }
  SECTION("exclusive") {
    check_segmented_sum_walk<true, int, int>(data, flags, 0, sizes, walk, false);
  }
}
