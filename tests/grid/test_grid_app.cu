// dpt-grid's own pieces, beside the algorithms they drive: --check's references (every particle's cell by a
// sequential loop, neighbour counts by brute force or a sample) pass right answers and count every wrong one they
// look at; --generate's particles are seeded, in the unit box, and as many as asked for.
#include <catch2/catch.hpp>

#include <cstdint>
#include <thrust/device_vector.h>
#include <thrust/execution_policy.h>
#include <vector>

#include <dpt/grid.hpp>
#include <dpt/grid_neighbors.hpp>
#include "grid/grid_reference.hpp"
#include "grid/options.hpp"
#include "grid/particles.hpp"
#include "grid/sequential_check.hpp"
#include "test_support/to_std.hpp"

namespace {

using index_type = std::uint32_t;

// The particles as dpt-grid holds them: doubles on the host (exact for float coordinates too).
template <int Dim, class Real>
dpt::app::particle_source as_source(const dpt::test::host_particles<Dim, Real>& p) {
  dpt::app::particle_source source;
  source.name = "test";
  for (int a = 0; a < Dim; ++a) source.axis[a].assign(p.axis[a].begin(), p.axis[a].end());
  return source;
}

// Counts from the all-pairs reference.
std::vector<index_type> neighbor_counts(const std::vector<std::vector<std::int64_t>>& lists) {
  std::vector<index_type> counts;
  for (const auto& list : lists) counts.push_back(static_cast<index_type>(list.size()));
  return counts;
}

// Makes every `step`-th entry wrong (one more); returns how many it changed.
std::ptrdiff_t plant_errors(std::vector<index_type>& values, std::size_t step) {
  std::ptrdiff_t planted = 0;
  for (std::size_t i = 0; i < values.size(); i += step, ++planted) ++values[i];
  return planted;
}

// Particles in clusters (crowded cells, empty cells) in a 7×7(×7) grid over the unit box, radius one cell.
template <int Dim, class Real>
struct check_case {
  dpt::test::host_particles<Dim, Real> particles;
  dpt::app::particle_source source;
  dpt::uniform_grid<Dim, Real> grid = dpt::test::unit_grid<Dim, Real>(std::vector<int>(Dim, 7));
  Real radius = Real(1) / 7;

  check_case(std::size_t n, std::uint64_t seed)
      : particles(dpt::test::random_particles<Dim, Real>(n, seed, dpt::test::spread::clustered)),
        source(as_source(particles)) {}
};

template <int Dim, class Real>
void check_cells(std::size_t n) {
  const check_case<Dim, Real> c(n, 40 + n);
  std::vector<index_type> cells;
  for (const auto cell : dpt::test::reference_cells(c.grid, c.particles))
    cells.push_back(static_cast<index_type>(cell));
  CHECK(dpt::app::count_wrong_cells(c.grid, c.source, cells) == 0);
  const std::ptrdiff_t planted = plant_errors(cells, 3);
  CHECK(dpt::app::count_wrong_cells(c.grid, c.source, cells) == planted);
}

template <int Dim, class Real>
void check_neighbor_counts(std::size_t n) {
  const check_case<Dim, Real> c(n, 80 + n);
  auto counts = neighbor_counts(dpt::test::brute_force_neighbors(c.particles, c.radius));
  const auto right = dpt::app::check_neighbor_counts<Dim>(c.source, c.radius, counts);
  CHECK(right.checked == static_cast<std::ptrdiff_t>(n));
  CHECK(right.wrong == 0);
  const std::ptrdiff_t planted = plant_errors(counts, 5);
  const auto wrong = dpt::app::check_neighbor_counts<Dim>(c.source, c.radius, counts);
  CHECK(wrong.checked == static_cast<std::ptrdiff_t>(n));
  CHECK(wrong.wrong == planted);
}

}  // namespace

TEMPLATE_TEST_CASE("dpt-grid's check passes right cells and neighbour counts and counts wrong ones",
                   "[grid][app]" DPT_BACKEND_TAG, float, double) {
  const std::size_t n = GENERATE(0, 1, 2, 97, 1000);
  const int dimensions = GENERATE(2, 3);
  CAPTURE(n, dimensions);
  SECTION("every particle in its right cell is passed, and each one in a wrong cell is counted") {
    dimensions == 2 ? check_cells<2, TestType>(n) : check_cells<3, TestType>(n);
  }
  SECTION("right neighbour counts are passed, and each wrong one is counted, every particle checked") {
    dimensions == 2 ? check_neighbor_counts<2, TestType>(n) : check_neighbor_counts<3, TestType>(n);
  }
}

TEST_CASE("dpt-grid's check samples neighbour counts above 20000 particles and finds wrong ones in the sample",
          "[grid][app][large]" DPT_BACKEND_TAG) {
  const std::size_t n = 25000;  // 20000² / n = 16000 particles sampled, each against all others
  const auto particles = dpt::test::random_particles<2, double>(n, 7);
  const auto grid = dpt::test::unit_grid<2, double>({64, 64});
  const double radius = 1.0 / 64;
  // the counts under test: dpt's own query (test_grid checks it against all pairs)
  const dpt::test::device_particles<2, double> device(particles);
  thrust::device_vector<index_type> sorted_cells(n), sorted_particles(n), start(grid.cell_count()),
      end(grid.cell_count()), counts(n);
  const auto sorted = dpt::build_grid(thrust::device, grid, device.positions(), device.size(), sorted_cells.begin(),
                                      sorted_particles.begin(), start.begin(), end.begin());
  dpt::count_neighbors(thrust::device, grid, device.positions(), sorted, radius, counts.begin());
  auto host_counts = dpt::test::to_std(counts);

  const auto source = as_source(particles);
  const auto right = dpt::app::check_neighbor_counts<2>(source, radius, host_counts);
  CHECK(right.checked == 16000);
  CHECK(right.wrong == 0);
  for (auto& count : host_counts) ++count;
  const auto wrong = dpt::app::check_neighbor_counts<2>(source, radius, host_counts);
  CHECK(wrong.checked == 16000);
  CHECK(wrong.wrong == 16000);
}

TEST_CASE("dpt-grid's generated particles are seeded, as many as asked for, and in the unit box",
          "[grid][app]" DPT_BACKEND_TAG) {
  for (const char* kind : {"uniform", "clustered"}) {
    for (const int dimensions : {2, 3}) {
      CAPTURE(kind, dimensions);
      dpt::app::grid_options o;
      o.generate = kind;
      o.n = 1001;
      o.seed = 5;
      o.dims.assign(dimensions, 4);
      const auto first = dpt::app::load_particles(o), again = dpt::app::load_particles(o);
      o.seed = 6;
      const auto other = dpt::app::load_particles(o);
      REQUIRE(first.size() == 1001);
      CHECK(first.lines.empty());
      for (int a = 0; a < dimensions; ++a) {
        CHECK(first.axis[a] == again.axis[a]);
        CHECK(first.axis[a] != other.axis[a]);
        for (const double x : first.axis[a]) {
          REQUIRE(x >= 0);
          REQUIRE(x <= 1);
        }
      }
      CHECK(first.axis[dimensions == 2 ? 2 : 0].size() == (dimensions == 2 ? 0u : 1001u));
    }
  }
}
