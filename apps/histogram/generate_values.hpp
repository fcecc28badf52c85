// dpt-histogram --generate: N seeded values of a known distribution, to count without an input file.
//
//   generate_values("uniform", 3, 1)  →  three doubles in [0, 1), the same three for seed 1 on every run
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace dpt::app {

// `kind`: normal (mean 0, sd 1), uniform [0, 1), or zipf (the ranks 1..1000 as doubles, P(k) ∝ k^-1.1, so that
// most values share the first few bins: the case where plain atomics contend hardest).
std::vector<double> generate_values(const std::string& kind, long long n, std::uint64_t seed);

}  // namespace dpt::app
