// dpt::find_repeats (flags + exclusive scan + scatter) and dpt::find_repeats_copy_if against a loop.
#include <catch2/catch.hpp>

#include <thrust/device_vector.h>
#include <thrust/host_vector.h>
#include <vector>

#include <dpt/find_repeats.hpp>
#include "test_support/random_inputs.hpp"

namespace {

std::vector<long long> reference_repeats(const std::vector<int>& a) {
  std::vector<long long> out;
  for (std::size_t i = 0; i + 1 < a.size(); ++i) {
    if (a[i] == a[i + 1]) out.push_back(static_cast<long long>(i));
  }
  return out;
}

enum class way { flags_scan_scatter, copy_if };

std::vector<long long> run_find_repeats(const std::vector<int>& a, way w) {
  const thrust::device_vector<int> d_a(a.begin(), a.end());
  thrust::device_vector<long long> d_out(a.size(), -1);
  const auto end = w == way::flags_scan_scatter
                       ? dpt::find_repeats(thrust::device, d_a.begin(), d_a.end(), d_out.begin())
                       : dpt::find_repeats_copy_if(thrust::device, d_a.begin(), d_a.end(), d_out.begin());
  const thrust::host_vector<long long> h(d_out.begin(), end);
  return std::vector<long long>(h.begin(), h.end());
}

}  // namespace

TEST_CASE("find_repeats reproduces the assignment's example", "[find_repeats]" DPT_BACKEND_TAG) {
  const std::vector<int> a{1, 2, 2, 1, 1, 1, 3, 5, 3, 3};
  const auto w = GENERATE(way::flags_scan_scatter, way::copy_if);
  CHECK(run_find_repeats(a, w) == std::vector<long long>{1, 3, 4, 8});
}

TEST_CASE("find_repeats matches the sequential loop both ways", "[find_repeats]" DPT_BACKEND_TAG) {
  const auto w = GENERATE(way::flags_scan_scatter, way::copy_if);
  const auto n = GENERATE(from_range(dpt::test::interesting_sizes));
  // two symbols (many repeats), a hundred (few), and all equal (every index a repeat)
  const int symbols = GENERATE(1, 2, 100);
  INFO("n " << n << ", symbols " << symbols << ", way " << (w == way::copy_if ? "copy_if" : "flags + scan + scatter"));
  const auto a = dpt::test::random_values<int>(n, 5 + n, 0, symbols - 1);
  CHECK(run_find_repeats(a, w) == reference_repeats(a));
}

TEST_CASE("find_repeats finds nothing in a strictly increasing sequence", "[find_repeats]" DPT_BACKEND_TAG) {
  std::vector<int> a(65537);
  for (std::size_t i = 0; i < a.size(); ++i) a[i] = static_cast<int>(i);
  CHECK(run_find_repeats(a, way::flags_scan_scatter).empty());
  CHECK(run_find_repeats(a, way::copy_if).empty());
}
