// An exception from the caller's operator or predicate reaches the caller, on every CPU path, as it does from
// std::inclusive_scan: the multicore recipe (dpt/cpu/slice_scan.hpp) must neither hang (a failed slice never
// publishes its prefix, and TBB's other cores wait for it) nor end the program (an exception leaving an OpenMP
// parallel region calls std::terminate). GPU code cannot throw, so CUDA builds have nothing to test here.
#include <catch2/catch.hpp>

#include <cstddef>
#include <numeric>
#include <stdexcept>
#include <thrust/device_vector.h>
#include <vector>

#include <dpt/compact.hpp>
#include <dpt/config.hpp>
#include <dpt/scan.hpp>
#include <dpt/segmented_scan.hpp>
#include "test_support/sliced_cpu_policy.hpp"

#if !DPT_CUDA_DEVICE_SYSTEM

namespace {

// a + b, except that meeting `poison` as the right operand throws. 64-bit: the sums of 0, 1, 2, … up to 2^21
// do not fit an int.
struct sum_unless_poisoned {
  long long poison;
  long long operator()(long long a, long long b) const {
    if (b == poison) throw std::runtime_error("poisoned operand");
    return a + b;
  }
};

// Keeps odd values; throws at `poison`.
struct odd_unless_poisoned {
  long long poison;
  bool operator()(long long x) const {
    if (x == poison) throw std::runtime_error("poisoned element");
    return x % 2 != 0;
  }
};

// 0, 1, 2, …: element i holds i, so the poison names the element that throws.
std::vector<long long> iota_values(std::size_t n) {
  std::vector<long long> values(n);
  std::iota(values.begin(), values.end(), 0LL);
  return values;
}

}  // namespace

TEST_CASE("an operator that throws in one slice stops the sliced CPU scans and reaches the caller",
          "[primitives][exceptions]" DPT_BACKEND_TAG) {
  const std::size_t n = 100003;
  const auto data = iota_values(n);
  const std::vector<int> flags(n, 0);
  std::vector<long long> out(n);
  // in the first slice, in the middle of the chain, and in the last slice
  const long long poison = GENERATE(1LL, 50001LL, 100002LL);
  const std::ptrdiff_t slice_length = GENERATE(1, 64, 5000);
  CAPTURE(poison, slice_length);
  const auto slices = dpt::test::tiny_slices(slice_length);

  SECTION("inclusive scan") {
    CHECK_THROWS_WITH(dpt::cpu::scan<false>(dpt::test::sliced_cpu_policy, data.data(), data.data() + n, out.data(), 0LL,
                                            sum_unless_poisoned{poison}, {slices}),
                      "poisoned operand");
  }
  SECTION("exclusive scan") {
    CHECK_THROWS_WITH(dpt::cpu::scan<true>(dpt::test::sliced_cpu_policy, data.data(), data.data() + n, out.data(), 0LL,
                                           sum_unless_poisoned{poison}, {slices}),
                      "poisoned operand");
  }
  SECTION("segmented scan") {
    CHECK_THROWS_WITH(dpt::cpu::segmented_scan<false>(dpt::test::sliced_cpu_policy, data.data(), n, flags.data(),
                                                      out.data(), 0LL, sum_unless_poisoned{poison}, {slices}),
                      "poisoned operand");
  }
  SECTION("compaction") {
    CHECK_THROWS_WITH(dpt::cpu::compact(dpt::test::sliced_cpu_policy, data.data(), static_cast<std::ptrdiff_t>(n),
                                        out.data(), odd_unless_poisoned{poison}, {slices}),
                      "poisoned element");
  }
}

TEST_CASE("an operator that throws reaches the caller of the public algorithms on large inputs",
          "[primitives][exceptions]" DPT_BACKEND_TAG) {
  const std::size_t n = std::size_t(1) << 21;  // past every serial threshold: all cores take part on OMP and TBB
  const auto values = iota_values(n);
  const thrust::device_vector<long long> data(values.begin(), values.end());
  const thrust::device_vector<int> flags(n, 0);
  thrust::device_vector<long long> out(n);
  const auto poison = static_cast<long long>(n / 2 + 11);

  CHECK_THROWS_WITH(
      dpt::inclusive_scan(thrust::device, data.begin(), data.end(), out.begin(), sum_unless_poisoned{poison}),
      "poisoned operand");
  CHECK_THROWS_WITH(dpt::segmented_inclusive_scan(thrust::device, data.begin(), data.end(), flags.begin(), out.begin(),
                                                  sum_unless_poisoned{poison}),
                    "poisoned operand");
  CHECK_THROWS_WITH(dpt::compact(thrust::device, data.begin(), data.end(), out.begin(), odd_unless_poisoned{poison}),
                    "poisoned element");
}

#endif
