// Test operators: an associative but non-commutative one, so that a scan that combines in the wrong order
// gives a wrong answer instead of a lucky right one.
#pragma once

#include <cstdint>
#include <ostream>

#include <dpt/config.hpp>

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

}  // namespace dpt::test
