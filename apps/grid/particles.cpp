// dpt-grid's particles: a CSV file's, a raw .f32/.f64 file's, or generated ones.
#include "grid/particles.hpp"

#include <algorithm>
#include <cstdint>
#include <random>
#include <utility>

#include "grid/particles_csv.hpp"
#include "app_support/raw_file.hpp"

namespace dpt::app {
namespace {

// A raw .f32 or .f64 file's particles: each one's coordinates in turn, x, y[, z], kept as doubles (exact for
// floats).
template <class Coordinate>
particle_source read_raw_particles(const std::string& path, int dimensions, const char* type) {
  const std::vector<Coordinate> coordinates = read_raw_file<Coordinate>(
      path, "particles of " + std::to_string(dimensions) + " " + type + " coordinates", dimensions);
  particle_source source;
  source.name = path;
  const std::size_t n = coordinates.size() / dimensions;
  for (int a = 0; a < dimensions; ++a) {
    source.axis[a].resize(n);
    for (std::size_t i = 0; i < n; ++i) source.axis[a][i] = coordinates[i * dimensions + a];
  }
  return source;
}

particle_source read_csv_particles(const std::string& path, int dimensions) {
  particle_table table = read_particles_csv(path);
  if (table.dimensions != dimensions) {
    throw file_error(
        path, 1,
        "the header has " + std::to_string(table.dimensions) + " coordinates but --dims " + std::to_string(dimensions));
  }
  particle_source source;
  source.name = path;
  for (int a = 0; a < 3; ++a) source.axis[a] = std::move(table.axis[a]);
  source.lines = std::move(table.line_numbers);
  return source;
}

particle_source generate_particles(const std::string& kind, long long n, std::uint64_t seed, int dimensions) {
  particle_source source;
  source.name = "--generate " + kind;
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  std::normal_distribution<double> jitter(0.0, 0.04);
  double centres[4][3];
  for (auto& centre : centres)
    for (auto& c : centre) c = 0.15 + 0.7 * unit(rng);
  for (int a = 0; a < dimensions; ++a) source.axis[a].resize(n);
  for (long long i = 0; i < n; ++i) {
    for (int a = 0; a < dimensions; ++a) {
      source.axis[a][i] = kind == "uniform" ? unit(rng) : std::clamp(centres[i % 4][a] + jitter(rng), 0.0, 1.0);
    }
  }
  return source;
}

}  // namespace

particle_source load_particles(const grid_options& o) {
  const int dimensions = static_cast<int>(o.dims.size());
  if (o.input_path.empty()) return generate_particles(o.generate, o.n, o.seed, dimensions);
  if (ends_with(o.input_path, ".f32")) return read_raw_particles<float>(o.input_path, dimensions, "float32");
  if (ends_with(o.input_path, ".f64")) return read_raw_particles<double>(o.input_path, dimensions, "float64");
  return read_csv_particles(o.input_path, dimensions);
}

}  // namespace dpt::app
