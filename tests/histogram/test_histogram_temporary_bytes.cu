// dpt::histogram_temporary_bytes against what each method takes through a counting allocator
// (test_support/counting_allocator.hpp), and the calls after the first through a dpt::context, which must
// allocate nothing.
#include <catch2/catch.hpp>

#include <cstddef>
#include <thrust/device_vector.h>
#include <thrust/host_vector.h>

#include <dpt/histogram.hpp>
#include "test_support/counting_allocator.hpp"

TEST_CASE("histogram_temporary_bytes bounds what every method takes from its policy, and a context serves it again",
          "[histogram][temporary_bytes][context]" DPT_BACKEND_TAG) {
  using method = dpt::histogram_method;
  for (const method m :
       {method::sort, method::upper_bound, method::reduce_by_key, method::atomic, method::privatized, method::cub}) {
    if (!dpt::histogram_method_available(m)) continue;
    for (const int bins : {1, 1000}) {
      for (const std::ptrdiff_t n : dpt::test::temporary_bytes_sizes) {
        CAPTURE(dpt::histogram_method_name(m), bins, n);
        // values spread over [0, 1.5): a third above the range
        thrust::host_vector<double> host(n);
        for (std::ptrdiff_t i = 0; i < n; ++i) host[i] = static_cast<double>(i * 7919 % 1500) / 1000;
        const thrust::device_vector<double> values = host;
        thrust::device_vector<unsigned long long> counts(bins);
        const dpt::even_bins<double> range{bins, 0.0, 1.0};
        dpt::test::check_scratch(
            [&](const auto& policy) { dpt::histogram(policy, values.begin(), values.end(), range, counts.begin(), m); },
            dpt::histogram_temporary_bytes(n, bins, m));
      }
    }
  }
}
