// dpt::scan_temporary_bytes and compact_temporary_bytes against what the calls take through a counting allocator
// (test_support/counting_allocator.hpp), and the calls after the first through a dpt::context, which must
// allocate nothing.
#include <catch2/catch.hpp>

#include <cstddef>
#include <cstdint>
#include <thrust/device_vector.h>
#include <thrust/sequence.h>

#include <dpt/compact.hpp>
#include <dpt/scan.hpp>
#include "test_support/counting_allocator.hpp"

namespace {

struct is_odd {
  template <class T>
  DPT_HOST_DEVICE bool operator()(T x) const {
    return x % 2 != 0;
  }
};

}  // namespace

TEMPLATE_TEST_CASE(
    "scan_temporary_bytes and compact_temporary_bytes bound what the calls take, and a context serves them again",
    "[scan][compact][temporary_bytes][context]" DPT_BACKEND_TAG, std::int32_t, std::int64_t) {
  using dpt::test::check_scratch;
  for (const std::ptrdiff_t n : dpt::test::temporary_bytes_sizes) {
    CAPTURE(n);
    thrust::device_vector<TestType> in(n), out(n);
    thrust::sequence(in.begin(), in.end());
    const auto query = dpt::scan_temporary_bytes<TestType>(n);
    check_scratch([&](const auto& policy) { dpt::inclusive_scan(policy, in.begin(), in.end(), out.begin()); }, query);
    check_scratch(
        [&](const auto& policy) { dpt::exclusive_scan(policy, in.begin(), in.end(), out.begin(), TestType(0)); },
        query);
    check_scratch([&](const auto& policy) { dpt::compact(policy, in.begin(), in.end(), out.begin(), is_odd{}); },
                  dpt::compact_temporary_bytes(n));
  }
}
