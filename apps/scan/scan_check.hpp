// dpt-scan --check's reference: the sequential scan, exact for integers and for floats with a bound on each
// element's rounding error, refusing inputs whose outputs overflow; and the comparison of an answer with it.
//
//   values 3 1 -4 1 5 (i32), inclusive  →  reference 3 4 0 1 6;  an answer 3 4 0 2 6 first differs at element 3
#pragma once

#include <cmath>
#include <cstdint>
#include <iomanip>
#include <limits>
#include <sstream>
#include <string>
#include <type_traits>
#include <vector>

#include "scan/scan_values.hpp"
#include "app_support/rounding_error.hpp"

namespace dpt::app {

// The sequential scan of the input, and for floats each element's bound on its rounding error.
template <class T>
struct scan_reference {
  std::vector<T> values;
  std::vector<double> bound;  // floats only: |answer − values[i]| ≤ bound[i] passes
};

// The sequential scan, and for floats the bound on each element's rounding error. An output that overflows the
// type is refused as bad input, at the first such element: an integer sum past the type's range is no answer
// (and undefined in C++), nor is a float sum that overflows to an infinity. Only outputs count: output i is
// x[0] + … + x[i], or for an exclusive scan x[0] + … + x[i − 1], so x[i] first reaches output i + 1 there, and
// the exclusive scan's total, never written, may overflow. dpt-scan adds integers as their unsigned twins, whose
// wrap-around is defined, so a total or a run that overflows on the way spoils no output that fits; for a float,
// an infinity in the total reaches no output.
template <class T>
scan_reference<T> reference_scan(const input_values<T>& in, bool exclusive) {
  const std::vector<T>& x = in.values;
  scan_reference<T> ref;
  ref.values.resize(x.size());
  const std::string wider = std::is_same_v<T, std::int32_t> ? "; use --type i64"
                            : std::is_same_v<T, float>      ? "; use --type f64"
                                                            : "";
  if constexpr (std::is_integral_v<T>) {
    T running = 0;
    for (std::size_t i = 0; i < x.size(); ++i) {
      if (exclusive) ref.values[i] = running;
      if (exclusive && i + 1 == x.size()) break;  // the total
      if (__builtin_add_overflow(running, x[i], &running)) {
        const std::string sum = exclusive ? " (the sum of x[0.." + std::to_string(i) + "])" : "";
        throw in.error_at(i, std::string("the prefix sums overflow ") + type_name<T>() + " at element " +
                                 std::to_string(exclusive ? i + 1 : i) + sum + wider);
      }
      if (!exclusive) ref.values[i] = running;
    }
  } else {
    // Summed in long double; any order of summing k terms in T is within γ_k(u)·Σ|x| of the exact sum
    // (Higham, Accuracy and Stability of Numerical Algorithms, §4.2). ×1.01 covers the rounding in the bound.
    // A parallel scan adds x[a..b] for runs [a, b] of its choosing, not only the prefixes, so an output is safe
    // only while every run within its terms (x[0..i] for inclusive output i, x[0..i − 1] for exclusive) sums to a
    // finite T: while the largest minus the smallest prefix sum (0, the empty prefix, included) does. [-3e38, 3e38,
    // 3e38] as f32 is refused at element 2 although its prefix sums fit, since x[1] + x[2] overflows.
    ref.bound.resize(x.size());
    const double u = std::numeric_limits<T>::epsilon() / 2;
    long double running = 0, magnitude = 0, highest = 0, lowest = 0;
    std::ptrdiff_t highest_at = -1, lowest_at = -1;  // where those prefixes end (-1: the empty prefix)
    for (std::size_t i = 0; i < x.size(); ++i) {
      const double terms = static_cast<double>(exclusive ? i : i + 1);
      if (exclusive) {
        ref.values[i] = static_cast<T>(running);
        ref.bound[i] = 1.01 * rounding_gamma(terms + 1, u) * static_cast<double>(magnitude);
        if (i + 1 == x.size()) break;  // the total
      }
      running += x[i];
      magnitude += std::fabs(static_cast<long double>(x[i]));
      if (running > highest) highest = running, highest_at = static_cast<std::ptrdiff_t>(i);
      if (running < lowest) lowest = running, lowest_at = static_cast<std::ptrdiff_t>(i);
      if (!std::isfinite(static_cast<T>(highest - lowest))) {
        const bool rising = highest_at > lowest_at;  // the run is (lowest_at, highest_at], or the reverse
        const std::ptrdiff_t from = (rising ? lowest_at : highest_at) + 1, to = rising ? highest_at : lowest_at;
        std::ostringstream os;
        os << "the prefix sums overflow " << type_name<T>() << " at element " << (exclusive ? i + 1 : i) << " (x["
           << from << ".." << to << "] sums to " << std::setprecision(3)
           << (rising ? highest - lowest : lowest - highest)
           << (from > 0 ? ", and a parallel scan may add up that run)" : ")") << wider;
        throw in.error_at(i, os.str());
      }
      if (!exclusive) {
        ref.values[i] = static_cast<T>(running);
        ref.bound[i] = 1.01 * rounding_gamma(terms + 1, u) * static_cast<double>(magnitude);
      }
    }
  }
  return ref;
}

// The first element where `got` and the reference disagree, or -1.
template <class T>
std::int64_t first_mismatch(const std::vector<T>& got, const scan_reference<T>& ref) {
  for (std::size_t i = 0; i < got.size(); ++i) {
    const bool ok = std::is_integral_v<T>
                        ? got[i] == ref.values[i]
                        : std::fabs(static_cast<double>(got[i]) - static_cast<double>(ref.values[i])) <= ref.bound[i];
    if (!ok) return static_cast<std::int64_t>(i);
  }
  return -1;
}

// --check's column for an answer: "   ok", or "   MISMATCH at i: got …, expected …". `ok` says which.
template <class T>
std::string check_verdict(const std::vector<T>& got, const scan_reference<T>& ref, bool& ok) {
  const auto bad = first_mismatch(got, ref);
  ok = bad < 0;
  if (ok) return "   ok";
  std::ostringstream os;
  os << std::setprecision(std::numeric_limits<T>::max_digits10) << "   MISMATCH at " << bad << ": got "
     << +got[static_cast<std::size_t>(bad)] << ", expected " << +ref.values[static_cast<std::size_t>(bad)];
  return os.str();
}

}  // namespace dpt::app
