// dpt::scatter_reduce against a sequential loop and against the same scatter done with atomics.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cuda/atomic>
#include <cuda/functional>
#include <cuda/std/functional>
#include <limits>
#include <stdexcept>
#include <thrust/device_vector.h>
#include <thrust/for_each.h>
#include <thrust/host_vector.h>
#include <thrust/iterator/counting_iterator.h>
#include <vector>

#include <dpt/scatter_reduce.hpp>
#include "test_support/random_inputs.hpp"

namespace {

enum class reduction { sum, min, max };

const char* name(reduction r) {
  return r == reduction::sum ? "sum" : r == reduction::min ? "min" : "max";
}

// Host reference: the definition, one element at a time.
template <class T>
std::vector<T> reference_scatter_reduce(std::vector<T> out, const std::vector<T>& in, const std::vector<int>& idx,
                                        reduction r) {
  for (std::size_t i = 0; i < in.size(); ++i) {
    T& o = out[idx[i]];
    o = r == reduction::sum ? o + in[i] : r == reduction::min ? std::min(o, in[i]) : std::max(o, in[i]);
  }
  return out;
}

// dpt::scatter_reduce on the device; the values may be of another type than out's.
template <class Out, class In>
std::vector<Out> run_scatter_reduce(std::vector<Out> out, const std::vector<In>& in, const std::vector<int>& idx,
                                    reduction r) {
  const thrust::device_vector<In> d_in(in.begin(), in.end());
  const thrust::device_vector<int> d_idx(idx.begin(), idx.end());
  thrust::device_vector<Out> d_out(out.begin(), out.end());
  const auto call = [&](auto op) {
    dpt::scatter_reduce(thrust::device, d_in.begin(), d_in.end(), d_idx.begin(), d_out.begin(), d_out.end(), op);
  };
  if (r == reduction::sum) call(::cuda::std::plus<>{});
  if (r == reduction::min) call(::cuda::minimum<>{});
  if (r == reduction::max) call(::cuda::maximum<>{});
  const thrust::host_vector<Out> h = d_out;
  return std::vector<Out>(h.begin(), h.end());
}

// The rival: every element updates its destination with one atomic read-modify-write.
template <class T>
struct atomic_update {
  const T* in;
  const int* idx;
  T* out;
  reduction r;
  DPT_HOST_DEVICE void operator()(std::ptrdiff_t i) const {
    ::cuda::atomic_ref<T, ::cuda::thread_scope_device> o(out[idx[i]]);
    if (r == reduction::sum) o.fetch_add(in[i], ::cuda::memory_order_relaxed);
    if (r == reduction::min) o.fetch_min(in[i], ::cuda::memory_order_relaxed);
    if (r == reduction::max) o.fetch_max(in[i], ::cuda::memory_order_relaxed);
  }
};

template <class T>
std::vector<T> run_atomic_scatter_reduce(std::vector<T> out, const std::vector<T>& in, const std::vector<int>& idx,
                                         reduction r) {
  const thrust::device_vector<T> d_in(in.begin(), in.end());
  const thrust::device_vector<int> d_idx(idx.begin(), idx.end());
  thrust::device_vector<T> d_out(out.begin(), out.end());
  const auto i = thrust::make_counting_iterator<std::ptrdiff_t>(0);
  thrust::for_each(thrust::device, i, i + static_cast<std::ptrdiff_t>(in.size()),
                   atomic_update<T>{thrust::raw_pointer_cast(d_in.data()), thrust::raw_pointer_cast(d_idx.data()),
                                    thrust::raw_pointer_cast(d_out.data()), r});
  const thrust::host_vector<T> h = d_out;
  return std::vector<T>(h.begin(), h.end());
}

// n ones scattered into a 4-element output with index 1, but `bad` at position `at`: scatter_reduce must throw
// std::out_of_range and write nothing.
template <class Index>
void check_index_rejected(std::size_t n, std::size_t at, Index bad) {
  CAPTURE(bad);
  const std::vector<int> out{1, 2, 3, 4};
  const thrust::device_vector<int> in(n, 1);
  std::vector<Index> idx(n, 1);
  idx[at] = bad;
  const thrust::device_vector<Index> d_idx(idx.begin(), idx.end());
  thrust::device_vector<int> d_out(out.begin(), out.end());
  CHECK_THROWS_AS(dpt::scatter_reduce(thrust::device, in.begin(), in.end(), d_idx.begin(), d_out.begin(), d_out.end(),
                                      ::cuda::std::plus<>{}),
                  std::out_of_range);
  const thrust::host_vector<int> after = d_out;
  CHECK(std::vector<int>(after.begin(), after.end()) == out);  // nothing written
}

}  // namespace

TEST_CASE("scatter_reduce reproduces the worked example", "[scatter_reduce]" DPT_BACKEND_TAG) {
  const std::vector<int> out{10, 20, 30, 40}, in{1, 2, 3, 4, 5}, idx{3, 0, 3, 3, 1};
  CHECK(run_scatter_reduce(out, in, idx, reduction::sum) == std::vector<int>{12, 25, 30, 48});
  CHECK(run_scatter_reduce(out, in, idx, reduction::min) == std::vector<int>{2, 5, 30, 1});
  // the header's out is above every value, so max needs an out of its own: slots 0 and 3 rise, 1 and 2 stay
  CHECK(run_scatter_reduce(std::vector<int>{1, 20, 30, 3}, in, idx, reduction::max) == std::vector<int>{2, 20, 30, 4});
}

TEST_CASE("scatter_reduce matches the sequential loop and the atomic version", "[scatter_reduce]" DPT_BACKEND_TAG) {
  const auto r = GENERATE(reduction::sum, reduction::min, reduction::max);
  const auto n = GENERATE(from_range(dpt::test::interesting_sizes));
  // few destinations (long runs, heavy contention for atomics) and many (mostly distinct)
  const int destinations = GENERATE(1, 13, 100003);
  INFO(name(r) << ", n " << n << ", destinations " << destinations);
  const auto idx = dpt::test::random_values<int>(n, 7 + n, 0, destinations - 1);

  SECTION("64-bit integers") {
    const auto in = dpt::test::random_values<long long>(n, 8 + n, -1000000, 1000000);
    const auto out = dpt::test::random_values<long long>(destinations, 9, -1000, 1000);
    const auto expected = reference_scatter_reduce(out, in, idx, r);
    CHECK(run_scatter_reduce(out, in, idx, r) == expected);
    CHECK(run_atomic_scatter_reduce(out, in, idx, r) == expected);
  }
  SECTION("floats (min and max are exact; sums are integers small enough to be exact)") {
    auto in = dpt::test::random_values<float>(n, 10 + n, -100.0f, 100.0f);
    auto out = dpt::test::random_values<float>(destinations, 11, -5.0f, 5.0f);
    if (r == reduction::sum) {  // whole numbers: every partial sum is exact, so the order of additions is moot
      for (auto& v : in) v = std::round(v);
      for (auto& v : out) v = std::round(v);
    }
    CHECK(run_scatter_reduce(out, in, idx, r) == reference_scatter_reduce(out, in, idx, r));
  }
}

// Values are converted to out's value type before they are combined: int values whose sums overflow int32 are
// summed exactly in 64-bit integers and doubles, and float values into an int output are truncated one by one.
TEMPLATE_TEST_CASE("scatter_reduce converts values to the output's type before combining them",
                   "[scatter_reduce]" DPT_BACKEND_TAG, std::int64_t, double) {
  const std::size_t n = GENERATE(1009u, 100003u);
  const int destinations = GENERATE(1, 7);
  INFO("n " << n << ", destinations " << destinations);
  const auto in = dpt::test::random_values<int>(n, 12 + n, 1 << 30, std::numeric_limits<int>::max());
  const auto idx = dpt::test::random_values<int>(n, 13 + n, 0, destinations - 1);
  const auto start = dpt::test::random_values<int>(destinations, 14, -1000, 1000);
  const std::vector<TestType> out(start.begin(), start.end());
  std::vector<TestType> expected = out;  // the definition, in TestType: whole sums below 2^53, exact in a double
  for (std::size_t i = 0; i < n; ++i) expected[idx[i]] += static_cast<TestType>(in[i]);
  CHECK(*std::max_element(expected.begin(), expected.end()) > std::numeric_limits<int>::max());
  CHECK(run_scatter_reduce(out, in, idx, reduction::sum) == expected);
}

TEST_CASE("scatter_reduce truncates float values into an int output before summing them",
          "[scatter_reduce]" DPT_BACKEND_TAG) {
  // int(0.75) = 0 four times into slot 1 (summed as floats first: 3) and int(1.5) + int(-2.5) = 1 - 2 into
  // slot 0 (summed as floats first: -1 as well); slot 2 gets nothing
  const std::vector<float> in{0.75f, 1.5f, 0.75f, 0.75f, -2.5f, 0.75f};
  const std::vector<int> idx{1, 0, 1, 1, 0, 1}, out{10, 20, 30};
  std::vector<int> expected = out;
  for (std::size_t i = 0; i < in.size(); ++i) expected[idx[i]] += static_cast<int>(in[i]);
  REQUIRE(expected == std::vector<int>{9, 20, 30});
  CHECK(run_scatter_reduce(out, in, idx, reduction::sum) == expected);
}

TEST_CASE("scatter_reduce rejects an index outside the output", "[scatter_reduce]" DPT_BACKEND_TAG) {
  check_index_rejected(1009, 517, GENERATE(-1, 4, 1000000));
}

TEMPLATE_TEST_CASE("scatter_reduce rejects unsigned indices past the output, however large",
                   "[scatter_reduce]" DPT_BACKEND_TAG, std::uint32_t, std::uint64_t, std::int64_t) {
  // the largest index, which a signed cast would turn into −1, and the first one past the output
  check_index_rejected(97, 41, GENERATE(std::numeric_limits<TestType>::max(), TestType(4)));
}
