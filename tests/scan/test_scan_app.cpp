// dpt-scan --check's reference and comparison, beside the app they serve: the reference is the sequential scan
// (std::partial_sum here), every planted wrong element is found where it is, float answers summed in another
// order pass within their bounds and fail just beyond them, and sums that overflow an output are refused as bad
// input (an exclusive scan's total, never written, may overflow).
#include <catch2/catch.hpp>

#include <cmath>
#include <cstdint>
#include <numeric>
#include <random>
#include <string>
#include <vector>

#include "scan/scan_check.hpp"
#include "scan/scan_values.hpp"
#include "test_support/error_of.hpp"

namespace {

using dpt::app::first_mismatch;
using dpt::app::reference_scan;

template <class T>
dpt::app::input_values<T> values_of(std::vector<T> values) {
  return {std::move(values), "", {}};
}

// The scan in the order a two-level parallel scan adds: blocks of 37 summed alone in T, then each block's base
// added to its prefixes. Another rounding order than the reference's, for floats.
template <class T>
std::vector<T> blocked_scan(const std::vector<T>& x, bool exclusive) {
  std::vector<T> out(x.size());
  T base = 0;
  for (std::size_t start = 0; start < x.size(); start += 37) {
    const std::size_t end = std::min(x.size(), start + 37);
    T running = 0;
    for (std::size_t i = start; i < end; ++i) {
      if (exclusive) out[i] = base + running;
      running += x[i];
      if (!exclusive) out[i] = base + running;
    }
    base += running;
  }
  return out;
}

// What dpt-scan says of values whose sums overflow ("no error" if it takes them).
template <class T>
std::string refusal(std::vector<T> values, bool exclusive = false) {
  return dpt::test::error_of([&] { reference_scan(values_of(std::move(values)), exclusive); });
}

}  // namespace

TEMPLATE_TEST_CASE("dpt-scan's reference is the sequential scan and finds the first wrong element", "[scan][app]",
                   std::int32_t, std::int64_t) {
  using T = TestType;
  const std::size_t n = GENERATE(0, 1, 2, 97, 1024, 1025, 65537);
  const bool exclusive = GENERATE(false, true);
  CAPTURE(n, exclusive);
  const auto in = dpt::app::random_values<T>(static_cast<std::int64_t>(n), 3 + n);
  std::vector<T> expected(n);
  std::partial_sum(in.values.begin(), in.values.end(), expected.begin());
  if (exclusive && n > 0) {
    expected.insert(expected.begin(), T{0});
    expected.pop_back();
  }
  const auto ref = reference_scan(in, exclusive);
  REQUIRE(ref.values == expected);
  CHECK(first_mismatch(expected, ref) == -1);

  SECTION("a wrong element is reported where it is, not before or after") {
    for (const std::size_t wrong : {std::size_t{0}, n / 2, n - 1}) {
      if (n == 0) break;
      auto answer = expected;
      answer[wrong] += 1;
      CHECK(first_mismatch(answer, ref) == static_cast<std::int64_t>(wrong));
    }
  }
}

TEMPLATE_TEST_CASE("dpt-scan's float check passes another summing order and fails just beyond the bound", "[scan][app]",
                   float, double) {
  using T = TestType;
  const std::size_t n = GENERATE(1, 2, 97, 4099, 100003);
  const bool exclusive = GENERATE(false, true);
  CAPTURE(n, exclusive);
  const auto in = dpt::app::random_values<T>(static_cast<std::int64_t>(n), 11 + n);
  const auto ref = reference_scan(in, exclusive);
  REQUIRE(ref.bound.size() == n);
  auto answer = blocked_scan(in.values, exclusive);
  CHECK(first_mismatch(answer, ref) == -1);

  SECTION("an element moved past its bound is the first mismatch") {
    const std::size_t wrong = n - 1 - n / 3;
    // the next T beyond reference + bound, away from the answer's side
    const double beyond = static_cast<double>(ref.values[wrong]) + 2 * ref.bound[wrong] +
                          std::fabs(static_cast<double>(ref.values[wrong])) * std::numeric_limits<T>::epsilon();
    answer[wrong] = static_cast<T>(beyond);
    if (exclusive && wrong == 0) answer[wrong] = T(1);  // the empty prefix: bound 0, any nonzero fails
    CHECK(first_mismatch(answer, ref) == static_cast<std::int64_t>(wrong));
  }
  SECTION("a NaN is never within a bound") {
    answer[n / 2] = std::numeric_limits<T>::quiet_NaN();
    CHECK(first_mismatch(answer, ref) == static_cast<std::int64_t>(n / 2));
  }
}

TEST_CASE("dpt-scan refuses sums that overflow, at the first element they spoil", "[scan][app]") {
  const std::int32_t max32 = std::numeric_limits<std::int32_t>::max();
  CHECK(refusal<std::int32_t>({max32, 0, 1, 5}) == "the prefix sums overflow i32 at element 2; use --type i64");
  CHECK(refusal<std::int32_t>({max32, 0, 1, 0}, true) ==
        "the prefix sums overflow i32 at element 3 (the sum of x[0..2]); use --type i64");
  CHECK(refusal<std::int32_t>({max32, -1, 1}) == "no error");
  CHECK(refusal<std::int64_t>({std::numeric_limits<std::int64_t>::min(), -1}) ==
        "the prefix sums overflow i64 at element 1");
  // each prefix sum fits f32, but x[1] + x[2], which a parallel scan may add first, does not
  CHECK(refusal<float>({-3e38f, 3e38f, 3e38f}) ==
        "the prefix sums overflow f32 at element 2 (x[1..2] sums to 6e+38, and a parallel scan may add up that run); "
        "use --type f64");
  CHECK(refusal<float>({3e38f, -3e38f, 3e38f}) == "no error");
}

// Output i of an exclusive scan is x[0] + … + x[i − 1]: the total of all n values is never written, and only an
// output that overflows is refused. x = {m, m} with m the type's largest or lowest value, by hand:
//   exclusive  0, m         (the total 2m is not an output)
//   inclusive  m, 2m        2m overflows at element 1
//   {m, m, 0}, exclusive    0, m, 2m: 2m overflows at element 2
TEMPLATE_TEST_CASE("dpt-scan refuses an overflow in the outputs only, not in an exclusive scan's total", "[scan][app]",
                   std::int32_t, std::int64_t, float, double) {
  using T = TestType;
  const T m = GENERATE(std::numeric_limits<T>::max(), std::numeric_limits<T>::lowest());
  CAPTURE(m);
  const std::string overflow = std::string("the prefix sums overflow ") + dpt::app::type_name<T>() + " at element ";
  CHECK(reference_scan(values_of<T>({m, m}), true).values == std::vector<T>{0, m});
  CHECK_THAT(refusal<T>({m, m}), Catch::StartsWith(overflow + "1"));
  CHECK_THAT(refusal<T>({m, m, 0}, true), Catch::StartsWith(overflow + "2 ("));
}
