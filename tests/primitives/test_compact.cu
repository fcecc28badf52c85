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
