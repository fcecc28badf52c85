// What one call of a scan, a segmented scan or compact costs: the bytes it takes through a counting allocator
// against dpt::scan_temporary_bytes and compact_temporary_bytes (test_support/counting_allocator.hpp), the calls
// after the first through a dpt::context, which must allocate nothing, and the Thrust calls and host reads each
// makes against the budget its header states (test_support/counting_policy.hpp).
#include <catch2/catch.hpp>

#include <cstddef>
#include <cstdint>
#include <thrust/device_vector.h>
#include <thrust/sequence.h>

#include <dpt/compact.hpp>
#include <dpt/scan.hpp>
#include <dpt/segmented_scan.hpp>
#include <dpt/sort.hpp>
#include "test_support/counting_allocator.hpp"
#include "test_support/counting_policy.hpp"

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

TEMPLATE_TEST_CASE("scans, segmented scans and compact stay within their budgets of Thrust calls and host reads",
                   "[scan][segmented_scan][compact][budget]" DPT_BACKEND_TAG, std::int32_t, std::int64_t) {
  using dpt::test::calls_of;
  using dpt::test::check_budget;
  using dpt::test::counted;
  for (const std::ptrdiff_t n : dpt::test::temporary_bytes_sizes) {
    CAPTURE(n);
    // ones, so that no sum overflows; one segment
    thrust::device_vector<TestType> in_vector(n, TestType(1)), out_vector(n);
    thrust::device_vector<int> flag_vector(n, 0);
    if (n > 0) flag_vector[0] = 1;
    const auto in = counted(in_vector), out = counted(out_vector);
    const auto flags = counted(flag_vector);
    // a scan is one scan
    check_budget("inclusive_scan", calls_of([&](auto policy) { dpt::inclusive_scan(policy, in, in + n, out); }),
                 {1, 0});
    check_budget("exclusive_scan",
                 calls_of([&](auto policy) { dpt::exclusive_scan(policy, in, in + n, out, TestType(0)); }), {1, 0});
    // a segmented scan is one scan by key
    check_budget("segmented_inclusive_scan",
                 calls_of([&](auto policy) { dpt::segmented_inclusive_scan(policy, in, in + n, flags, out); }), {1, 0});
    check_budget("segmented_exclusive_scan", calls_of([&](auto policy) {
                   dpt::segmented_exclusive_scan(policy, in, in + n, flags, out, TestType(0));
                 }),
                 {1, 0});
    // compact is one scan and one read of the count, and nothing at all for no input
    check_budget("compact", calls_of([&](auto policy) { dpt::compact(policy, in, in + n, out, is_odd{}); }),
                 n == 0 ? dpt::test::primitive_calls{0, 0} : dpt::test::primitive_calls{1, 1});
  }
}

TEMPLATE_TEST_CASE(
    "sort_temporary_bytes bounds what the sorts take, which make one call each and a context serves again",
    "[sort][temporary_bytes][context][budget]" DPT_BACKEND_TAG, std::uint32_t, float) {
  using dpt::test::calls_of;
  using dpt::test::check_budget;
  using dpt::test::check_scratch;
  using dpt::test::counted;
  for (const std::ptrdiff_t n : dpt::test::temporary_bytes_sizes) {
    CAPTURE(n);
    thrust::device_vector<TestType> keys(n);
    thrust::device_vector<std::uint32_t> values(n);
    // descending keys: every call has work to do, the repeated ones included
    const auto refill = [&] {
      thrust::sequence(keys.begin(), keys.end(), TestType(n), TestType(-1));
      thrust::sequence(values.begin(), values.end());
    };
    check_scratch(
        [&](const auto& policy) {
          refill();
          dpt::sort(policy, keys.begin(), keys.end());
        },
        dpt::sort_temporary_bytes<TestType>(n));
    check_scratch(
        [&](const auto& policy) {
          refill();
          dpt::stable_sort_by_key(policy, keys.begin(), keys.end(), values.begin());
        },
        dpt::sort_temporary_bytes<TestType, std::uint32_t>(n));
    refill();
    check_budget("sort", calls_of([&](auto policy) { dpt::sort(policy, counted(keys), counted(keys) + n); }), {1, 0});
    check_budget("stable_sort_by_key", calls_of([&](auto policy) {
                   dpt::stable_sort_by_key(policy, counted(keys), counted(keys) + n, counted(values));
                 }),
                 {1, 0});
  }
}
