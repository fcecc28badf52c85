// What one histogram costs, by method: the bytes it takes through a counting allocator against
// dpt::histogram_temporary_bytes (test_support/counting_allocator.hpp), the calls after the first through a
// dpt::context, which must allocate nothing, and its Thrust calls and host reads against the budget histogram.hpp
// states (test_support/counting_policy.hpp).
#include <catch2/catch.hpp>

#include <cstddef>
#include <thrust/device_vector.h>
#include <thrust/host_vector.h>

#include <dpt/histogram.hpp>
#include "test_support/counting_allocator.hpp"
#include "test_support/counting_policy.hpp"

namespace {

// n values spread over [0, 1.5): a third above the range [0, 1] the tests bin.
thrust::host_vector<double> spread_values(std::ptrdiff_t n) {
  thrust::host_vector<double> values(n);
  for (std::ptrdiff_t i = 0; i < n; ++i) values[i] = static_cast<double>(i * 7919 % 1500) / 1000;
  return values;
}

// Runs check(method, bins, n, values, counts) for every method this device system has, 1 and 1000 bins, and every
// size of temporary_bytes_sizes, with spread_values(n) to count into bins over [0, 1].
template <class Check>
void for_every_histogram(Check check) {
  using method = dpt::histogram_method;
  for (const method m :
       {method::sort, method::upper_bound, method::reduce_by_key, method::atomic, method::privatized, method::cub}) {
    if (!dpt::histogram_method_available(m)) continue;
    for (const int bins : {1, 1000}) {
      for (const std::ptrdiff_t n : dpt::test::temporary_bytes_sizes) {
        CAPTURE(dpt::histogram_method_name(m), bins, n);
        const thrust::device_vector<double> values = spread_values(n);
        thrust::device_vector<unsigned long long> counts(bins);
        check(m, dpt::even_bins<double>{bins, 0.0, 1.0}, n, values, counts);
      }
    }
  }
}

// Every method checks the edges (find_if: read), counts into the K + 3 slots, and copies the K bins out; the
// three dropped counts then come back in one copy from a plain device pointer, which the count does not see.
dpt::test::primitive_calls histogram_budget(dpt::histogram_method m) {
  using method = dpt::histogram_method;
  const int edges_and_bins_out = 2, edge_read = 1;
  switch (m) {
    case method::sort:  // map, sort, fill the starts, scatter the run heads, scan the empty starts, differences
      return {edges_and_bins_out + 6, edge_read};
    case method::upper_bound:  // map, sort, search the ends, differences
      return {edges_and_bins_out + 4, edge_read};
    case method::reduce_by_key:  // map, sort, reduce by bin (read: how many runs), zero, scatter
      return {edges_and_bins_out + 5, edge_read + 1};
    case method::atomic:  // zero, one atomic increment per value
      return {edges_and_bins_out + 2, edge_read};
    case method::privatized:  // zero, and on CUDA one kernel of dpt's own (not a Thrust call); on a CPU zero the
                              // chunks' private bins, count each chunk, sum the chunks
      return {edges_and_bins_out + (DPT_CUDA_DEVICE_SYSTEM ? 1 : 3), edge_read};
    default:  // cub: CUB's DeviceHistogram, called directly (not a Thrust call)
      return {edges_and_bins_out, edge_read};
  }
}

}  // namespace

TEST_CASE("histogram_temporary_bytes bounds what every method takes from its policy, and a context serves it again",
          "[histogram][temporary_bytes][context]" DPT_BACKEND_TAG) {
  for_every_histogram([](dpt::histogram_method m, const dpt::even_bins<double>& range, std::ptrdiff_t n,
                         const thrust::device_vector<double>& values,
                         thrust::device_vector<unsigned long long>& counts) {
    dpt::test::check_scratch(
        [&](const auto& policy) { dpt::histogram(policy, values.begin(), values.end(), range, counts.begin(), m); },
        dpt::histogram_temporary_bytes(n, range.count, m));
  });
}

TEST_CASE("every histogram method stays within its budget of Thrust calls and host reads",
          "[histogram][budget]" DPT_BACKEND_TAG) {
  using dpt::test::counted;
  for_every_histogram([](dpt::histogram_method m, const dpt::even_bins<double>& range, std::ptrdiff_t n,
                         const thrust::device_vector<double>& values,
                         thrust::device_vector<unsigned long long>& counts) {
    dpt::test::check_budget("histogram", dpt::test::calls_of([&](auto policy) {
                              dpt::histogram(policy, counted(values), counted(values) + n, range, counted(counts), m);
                            }),
                            histogram_budget(m));
  });
}
