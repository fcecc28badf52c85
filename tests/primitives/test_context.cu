// A dpt::context's policy (dpt/context.hpp): the answers of thrust::device, call after call, as the pool hands the
// same blocks out again at other sizes; read back with no synchronize(), as the context promises for its default
// stream. On CUDA also: its calls run on the context's stream without a synchronisation after each (checked on the
// policy's type, so the CUDA compile check fails without a GPU if it regresses), and a non-blocking stream is
// refused.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdint>
#include <iterator>
#include <numeric>
#include <thrust/device_vector.h>
#include <thrust/host_vector.h>
#include <type_traits>
#include <vector>

#include <dpt/compact.hpp>
#include <dpt/context.hpp>
#include <dpt/scan.hpp>
#include <dpt/sort.hpp>
#include "test_support/random_inputs.hpp"

#if DPT_CUDA_DEVICE_SYSTEM
#  include <stdexcept>
#  include <thrust/system/cuda/execution_policy.h>

#  include <dpt/detail/cuda_check.hpp>

using context_policy = decltype(std::declval<dpt::context&>().policy());
static_assert(std::is_base_of_v<thrust::cuda_cub::execute_on_stream_nosync_base<context_policy>, context_policy>,
              "on CUDA a context's calls must not synchronise their stream after each call");
#endif

namespace {

struct is_odd_int64 {
  DPT_HOST_DEVICE bool operator()(std::int64_t x) const { return x % 2 != 0; }
};

// What the three calls must give for `values`: the running sums, the odd values in order, the values sorted.
struct references {
  std::vector<std::int64_t> sums, odd, sorted;
  explicit references(const std::vector<std::int64_t>& values) : sums(values.size()), sorted(values) {
    std::partial_sum(values.begin(), values.end(), sums.begin());
    std::copy_if(values.begin(), values.end(), std::back_inserter(odd), is_odd_int64{});
    std::sort(sorted.begin(), sorted.end());
  }
};

template <class Context>
void check_calls_through(Context& context, const std::vector<std::int64_t>& values) {
  const references expected(values);
  const thrust::device_vector<std::int64_t> in(values.begin(), values.end());
  thrust::device_vector<std::int64_t> sums(values.size()), odd(values.size()), sorted(in);
  // scan, compact and sort queued one after another; the host waits only for compact's count
  dpt::inclusive_scan(context.policy(), in.begin(), in.end(), sums.begin());
  const auto odd_end = dpt::compact(context.policy(), in.begin(), in.end(), odd.begin(), is_odd_int64{});
  dpt::sort(context.policy(), sorted.begin(), sorted.end());
  REQUIRE(std::vector<std::int64_t>(sums.begin(), sums.end()) == expected.sums);
  REQUIRE(std::vector<std::int64_t>(odd.begin(), odd_end) == expected.odd);
  REQUIRE(std::vector<std::int64_t>(sorted.begin(), sorted.end()) == expected.sorted);
}

}  // namespace

TEST_CASE("A context's calls give thrust::device's answers while its pool hands blocks out again at other sizes",
          "[context]" DPT_BACKEND_TAG) {
  dpt::context context;
  std::vector<std::size_t> sizes = dpt::test::interesting_sizes;
  // up and down again: each size finds blocks cached by larger and by smaller calls before it
  sizes.insert(sizes.end(), dpt::test::interesting_sizes.rbegin(), dpt::test::interesting_sizes.rend());
  std::uint64_t seed = 7;
  for (const std::size_t n : sizes) {
    CAPTURE(n);
    check_calls_through(context, dpt::test::random_values<std::int64_t>(n, ++seed, -1000000, 1000000));
  }
  context.release();
  SECTION("and again after the pool gave its blocks back") {
    check_calls_through(context, dpt::test::random_values<std::int64_t>(65537, 99, -5, 5));
  }
}

#if DPT_CUDA_DEVICE_SYSTEM
TEST_CASE("On CUDA a context's calls run on its stream; a stream that skips the default stream's order is refused",
          "[context]" DPT_BACKEND_TAG) {
  SECTION("a stream of the caller's") {
    cudaStream_t stream = nullptr;
    REQUIRE(cudaStreamCreate(&stream) == cudaSuccess);
    {
      dpt::context context(stream);
      REQUIRE(context.stream() == stream);
      REQUIRE(dpt::detail::stream_of(context.policy()) == stream);
      const auto values = dpt::test::random_values<std::int64_t>(1000003, 5, -1000, 1000);
      thrust::device_vector<std::int64_t> in(values.begin(), values.end()), sums(values.size());
      dpt::inclusive_scan(context.policy(), in.begin(), in.end(), sums.begin());
      context.synchronize();
      REQUIRE(std::vector<std::int64_t>(sums.begin(), sums.end()) == references(values).sums);
    }
    REQUIRE(cudaStreamDestroy(stream) == cudaSuccess);
  }
  SECTION("a non-blocking stream") {
    cudaStream_t stream = nullptr;
    REQUIRE(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking) == cudaSuccess);
    REQUIRE_THROWS_AS(dpt::context(stream), std::invalid_argument);
    REQUIRE(cudaStreamDestroy(stream) == cudaSuccess);
  }
}
#endif
