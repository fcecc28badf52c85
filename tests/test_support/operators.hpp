// Test operators: an associative but non-commutative one, so that a scan that combines in the wrong order
// gives a wrong answer instead of a lucky right one.
#pragma once

#include <cstddef>
#include <cstdint>
#include <ostream>
#include <vector>

#include <dpt/config.hpp>
#include "test_support/random_inputs.hpp"

namespace dpt::test {

// The affine map x → a·x + b over unsigned 32-bit integers (exact, wrapping arithmetic).
struct affine {
  std::uint32_t a = 1, b = 0;  // the identity map by default
  DPT_HOST_DEVICE friend bool operator==(const affine& f, const affine& g) { return f.a == g.a && f.b == g.b; }
  friend std::ostream& operator<<(std::ostream& os, const affine& f) { return os << f.a << "x+" << f.b; }
};

// compose(f, g) = "f, then g": x → g.a·(f.a·x + f.b) + g.b. Associative, not commutative.
struct compose {
  DPT_HOST_DEVICE affine operator()(const affine& f, const affine& g) const { return {g.a * f.a, g.a * f.b + g.b}; }
};

// n seeded random maps, with odd multipliers: an odd a is invertible modulo 2^32, so compositions never
// collapse to a constant map that would hide a wrong order.
inline std::vector<affine> random_affine_maps(std::size_t n, std::uint64_t seed) {
  const auto a = random_values<std::uint32_t>(n, seed, 0, 0xffffffffu);
  const auto b = random_values<std::uint32_t>(n, seed + 1, 0, 0xffffffffu);
  std::vector<affine> maps(n);
  for (std::size_t i = 0; i < n; ++i) maps[i] = {a[i] | 1u, b[i]};
  return maps;
}

}  // namespace dpt::test
