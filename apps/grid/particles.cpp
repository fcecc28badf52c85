// dpt-grid's particles: a CSV file's, or generated ones.
#include "grid/particles.hpp"

#include <algorithm>
#include <random>
#include <utility>

#include "grid/particles_csv.hpp"

namespace dpt::app {

particle_source load_particles(const grid_options& o) {
  particle_source source;
  const int dimensions = static_cast<int>(o.dims.size());
  if (!o.input_path.empty()) {
    auto table = read_particles_csv(o.input_path);
    if (table.dimensions != dimensions) {
      throw file_error(o.input_path, 1,
                       "the header has " + std::to_string(table.dimensions) + " coordinates but --dims " +
                           std::to_string(dimensions));
    }
    source.name = o.input_path;
    for (int a = 0; a < 3; ++a) source.axis[a] = std::move(table.axis[a]);
    source.lines = std::move(table.line_numbers);
    return source;
  }
  source.name = "--generate " + o.generate;
  std::mt19937_64 rng(o.seed);
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  std::normal_distribution<double> jitter(0.0, 0.04);
  double centres[4][3];
  for (auto& centre : centres)
    for (auto& c : centre) c = 0.15 + 0.7 * unit(rng);
  for (int a = 0; a < dimensions; ++a) source.axis[a].resize(o.n);
  for (long long i = 0; i < o.n; ++i) {
    for (int a = 0; a < dimensions; ++a) {
      source.axis[a][i] = o.generate == "uniform" ? unit(rng) : std::clamp(centres[i % 4][a] + jitter(rng), 0.0, 1.0);
    }
  }
  return source;
}

}  // namespace dpt::app
