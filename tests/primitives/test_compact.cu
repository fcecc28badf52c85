// dpt::compact (map + scan + scatter) against std::copy_if and thrust::copy_if.
#include <catch2/catch.hpp>

#include <algorithm>
#include <iterator>
#include <thrust/copy.h>
#include <thrust/device_vector.h>
#include <thrust/host_vector.h>
#include <vector>

#include <dpt/compact.hpp>
#include "support/random_inputs.hpp"
#include "support/sliced_cpu_policy.hpp"
#include <dpt/detail/streaming_store.hpp>

namespace {

struct is_even {
  DPT_HOST_DEVICE bool operator()(int x) const { return x % 2 == 0; }
};

struct greater_than {
  int threshold;
  DPT_HOST_DEVICE bool operator()(int x) const { return x > threshold; }
};

template <class Predicate>
void check_compact(const std::vector<int>& data, Predicate pred) {
  std::vector<int> expected;
  std::copy_if(data.begin(), data.end(), std::back_inserter(expected), pred);

  const thrust::device_vector<int> d_data(data.begin(), data.end());
  thrust::device_vector<int> d_out(data.size(), -1);
  const auto end = dpt::compact(thrust::device, d_data.begin(), d_data.end(), d_out.begin(), pred);
  REQUIRE(end - d_out.begin() == static_cast<std::ptrdiff_t>(expected.size()));
  const thrust::host_vector<int> got(d_out.begin(), end);
  CHECK(std::vector<int>(got.begin(), got.end()) == expected);

  // The library's fused filter agrees.
  thrust::device_vector<int> d_fused(data.size());
  const auto fused_end = thrust::copy_if(thrust::device, d_data.begin(), d_data.end(), d_fused.begin(), pred);
  CHECK(fused_end - d_fused.begin() == end - d_out.begin());
}

}  // namespace

TEST_CASE("compact keeps the lecture's even numbers in order", "[primitives][compact]" DPT_BACKEND_TAG) {
  check_compact({3, 8, 4, 6, 3, 9, 2, 8}, is_even{});
}

TEST_CASE("compact matches std::copy_if on random inputs", "[primitives][compact]" DPT_BACKEND_TAG) {
  const std::size_t n = GENERATE(from_range(dpt::test::interesting_sizes));
  CAPTURE(n);
  const auto data = dpt::test::random_values<int>(n, 11 + n, -1000, 1000);
  SECTION("about half kept") {
    check_compact(data, is_even{});
  }
  SECTION("nothing kept") {
    check_compact(data, greater_than{1000});
  }
  SECTION("everything kept") {
    check_compact(data, greater_than{-1001});
  }
  SECTION("a few kept") {
    check_compact(data, greater_than{990});
  }
}

TEST_CASE("the sliced CPU compaction is right for every slice length and round count",
          "[primitives][compact]" DPT_BACKEND_TAG) {
  const std::size_t n = GENERATE(0u, 1u, 2u, 3u, 31u, 97u, 1009u, 65537u);
  const std::ptrdiff_t slice_length = GENERATE(from_range(dpt::test::tiny_slice_lengths));
  const int threshold = GENERATE(-1001, 0, 990, 1000);  // keep all, about half, a few, none
  CAPTURE(n, slice_length, threshold);
  const auto data = dpt::test::random_values<int>(n, 31 + n, -1000, 1000);
  std::vector<int> expected;
  std::copy_if(data.begin(), data.end(), std::back_inserter(expected), greater_than{threshold});

  std::vector<int> out(n, -1);
  const auto end = dpt::detail::multicore_compact(dpt::test::sliced_cpu_policy, data.data(), n, out.data(),
                                                  greater_than{threshold}, dpt::test::tiny_slices(slice_length));
  REQUIRE(end - out.data() == static_cast<std::ptrdiff_t>(expected.size()));
  CHECK(std::vector<int>(out.data(), end) == expected);
  CHECK(std::all_of(end, out.data() + n, [](int x) { return x == -1; }));  // nothing written past the end
}

TEST_CASE("compact streams outputs larger than the caches and stays right", "[primitives][compact]" DPT_BACKEND_TAG) {
  const std::size_t n = 9000011;  // > 32 MiB of int32: the multicore path writes with streaming stores
  REQUIRE(dpt::detail::should_stream<int*>(static_cast<std::ptrdiff_t>(n)) == bool(DPT_HAVE_STREAMING_STORES));
  const auto data = dpt::test::random_values<int>(n, 67, -1000, 1000);
  check_compact(data, is_even{});
}
