// dpt-histogram --generate's values, from std::mt19937_64 and the standard distributions.
#include "histogram/generate_values.hpp"

#include <algorithm>
#include <cmath>
#include <random>
#include <stdexcept>

namespace dpt::app {

std::vector<double> generate_values(const std::string& kind, long long n, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<double> values(static_cast<std::size_t>(n));
  if (kind == "normal") {
    std::normal_distribution<double> dist(0.0, 1.0);
    for (auto& v : values) v = dist(rng);
  } else if (kind == "uniform") {
    std::uniform_real_distribution<double> dist(0.0, 1.0);
    for (auto& v : values) v = dist(rng);
  } else if (kind == "zipf") {
    // Zipf by inverting the cumulative distribution: the first rank whose cumulative weight reaches a uniform draw.
    std::vector<double> cumulative(1000);
    double total = 0;
    for (int k = 1; k <= 1000; ++k) cumulative[k - 1] = total += std::pow(k, -1.1);
    std::uniform_real_distribution<double> dist(0.0, total);
    for (auto& v : values) {
      const auto rank = std::lower_bound(cumulative.begin(), cumulative.end(), dist(rng)) - cumulative.begin() + 1;
      v = static_cast<double>(rank);
    }
  } else {
    throw std::invalid_argument("generate_values: no distribution '" + kind + "'");
  }
  return values;
}

}  // namespace dpt::app
