// dpt-grid's particles: a CSV file's, or generated ones.
#include "grid/particles.hpp"

#include <algorithm>
#include <random>
#include <utility>

#include "grid/particles_csv.hpp"
#include "support/raw_file.hpp"

namespace dpt::app {
namespace {

// A raw .f32 or .f64 file's coordinates as doubles (exact for floats), particle after particle: x, y[, z].
std::vector<double> read_coordinates(const std::string& path, int dimensions) {
  const std::string records = "particles of " + std::to_string(dimensions) + " " +
                              (ends_with(path, ".f32") ? "float32" : "float64") + " coordinates";
  if (ends_with(path, ".f64")) return read_raw_file<double>(path, records, dimensions);
  const std::vector<float> coordinates = read_raw_file<float>(path, records, dimensions);
  return std::vector<double>(coordinates.begin(), coordinates.end());
}

}  // namespace

particle_source load_particles(const grid_options& o) {
  particle_source source;
  const int dimensions = static_cast<int>(o.dims.size());
  if (ends_with(o.input_path, ".f32") || ends_with(o.input_path, ".f64")) {
    const std::vector<double> coordinates = read_coordinates(o.input_path, dimensions);
    source.name = o.input_path;
    const std::size_t n = coordinates.size() / dimensions;
    for (int a = 0; a < dimensions; ++a) {
      source.axis[a].resize(n);
      for (std::size_t i = 0; i < n; ++i) source.axis[a][i] = coordinates[i * dimensions + a];
    }
    return source;
  }
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
