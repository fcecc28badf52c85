// dpt::build_grid (map + sort + boundary detection) and the radius-R neighbour query against sequential
// references: a loop that computes each particle's cell, and all pairs for the neighbours. 2-D and 3-D, float
// and double, and every kind of bad input.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <stdexcept>
#include <thrust/device_vector.h>
#include <vector>

#include <dpt/grid.hpp>
#include <dpt/grid_neighbors.hpp>
#include "grid/grid_reference.hpp"
#include "test_support/fma_build.hpp"
#include "test_support/random_inputs.hpp"

namespace {

using dpt::test::host_particles;
using cell_lists = std::vector<std::vector<std::int64_t>>;

// What build_grid produced, on the host.
struct built_grid {
  std::vector<std::uint32_t> sorted_cells, sorted_particles;
  std::vector<std::int64_t> cell_start, cell_end;

  // The particles of every cell, read through [cell_start, cell_end).
  cell_lists lists() const {
    cell_lists out(cell_start.size());
    for (std::size_t c = 0; c < out.size(); ++c) {
      for (auto i = cell_start[c]; i < cell_end[c]; ++i) out[c].push_back(sorted_particles[i]);
    }
    return out;
  }
};

template <int Dim, class Real>
built_grid run_build_grid(const dpt::uniform_grid<Dim, Real>& grid, const host_particles<Dim, Real>& p,
                          dpt::out_of_domain outside = dpt::out_of_domain::error) {
  const dpt::test::device_particles<Dim, Real> d(p);
  thrust::device_vector<std::uint32_t> cells(p.size()), particles(p.size());
  thrust::device_vector<std::int64_t> start(grid.cell_count()), end(grid.cell_count());
  dpt::build_grid(thrust::device, grid, d.positions(), d.size(), cells.begin(), particles.begin(), start.begin(),
                  end.begin(), outside);
  using dpt::test::to_std;
  return {to_std(cells), to_std(particles), to_std(start), to_std(end)};
}

// Fails the test with `what` and the slot or cell where a per-element check first fails (one Catch assertion
// per element would dominate the run time on a million particles).
#define GRID_EXPECT(condition, where)                                                 \
  do {                                                                                \
    if (!(condition)) FAIL(#condition << " fails at " << #where << " = " << (where)); \
  } while (false)

// Checks everything build_grid promises against the reference cells, in O(n + cells) (no list per cell, so
// that 10^7 cells stay cheap).
void check_against_reference(const built_grid& built, const std::vector<std::int64_t>& reference) {
  const auto n = static_cast<std::int64_t>(reference.size());
  REQUIRE(built.sorted_cells.size() == reference.size());
  std::vector<char> seen(reference.size(), 0);
  for (std::int64_t i = 0; i < n; ++i) {
    const auto p = built.sorted_particles[i];
    GRID_EXPECT(p < reference.size() && !seen[p], i);  // a permutation of the particles
    seen[p] = 1;
    GRID_EXPECT(built.sorted_cells[i] == reference[p], i);
    // cells ascending, ids ascending within a cell: the sort is stable
    GRID_EXPECT(i == 0 || built.sorted_cells[i - 1] < built.sorted_cells[i] ||
                    (built.sorted_cells[i - 1] == built.sorted_cells[i] && built.sorted_particles[i - 1] < p),
                i);
  }
  std::int64_t covered = 0;
  for (std::int64_t c = 0; c < static_cast<std::int64_t>(built.cell_start.size()); ++c) {
    const auto start = built.cell_start[c], end = built.cell_end[c];
    if (start == end) {
      GRID_EXPECT(start == 0, c);  // the documented empty range [0, 0)
      continue;
    }
    GRID_EXPECT(0 <= start && start < end && end <= n, c);
    GRID_EXPECT(built.sorted_cells[start] == c && built.sorted_cells[end - 1] == c, c);
    GRID_EXPECT(start == 0 || built.sorted_cells[start - 1] != c, c);
    GRID_EXPECT(end == n || built.sorted_cells[end] != c, c);
    covered += end - start;
  }
  REQUIRE(covered == n);  // the non-empty ranges are disjoint and hold every particle
}

struct neighbors_result {
  std::vector<std::int64_t> counts;
  cell_lists lists;  // each sorted ascending
};

template <int Dim, class Real>
neighbors_result run_neighbors(const dpt::uniform_grid<Dim, Real>& grid, const host_particles<Dim, Real>& p,
                               Real radius) {
  const dpt::test::device_particles<Dim, Real> d(p);
  const auto n = d.size();
  thrust::device_vector<std::uint32_t> cells(n), particles(n);
  thrust::device_vector<std::int64_t> start(grid.cell_count()), end(grid.cell_count());
  const auto sorted = dpt::build_grid(thrust::device, grid, d.positions(), n, cells.begin(), particles.begin(),
                                      start.begin(), end.begin());
  thrust::device_vector<std::int64_t> counts(n), offsets(n + 1);
  dpt::count_neighbors(thrust::device, grid, d.positions(), sorted, radius, counts.begin());
  const auto total = dpt::neighbor_list_offsets(thrust::device, grid, d.positions(), sorted, radius, offsets.begin());
  thrust::device_vector<int> lists(total);
  dpt::fill_neighbor_lists(thrust::device, grid, d.positions(), sorted, radius, offsets.begin(), lists.begin());

  neighbors_result result{dpt::test::to_std(counts), cell_lists(n)};
  const auto o = dpt::test::to_std(offsets);
  const auto l = dpt::test::to_std(lists);
  REQUIRE(o.back() == total);
  for (std::ptrdiff_t i = 0; i < n; ++i) {
    GRID_EXPECT(o[i + 1] - o[i] == result.counts[i], i);  // the scan of the counts
    result.lists[i].assign(l.begin() + o[i], l.begin() + o[i + 1]);
    std::sort(result.lists[i].begin(), result.lists[i].end());
  }
  return result;
}

template <int Dim, class Real>
void check_neighbors(const dpt::uniform_grid<Dim, Real>& grid, const host_particles<Dim, Real>& p, Real radius) {
  const auto expected = dpt::test::brute_force_neighbors(p, radius);
  const auto result = run_neighbors(grid, p, radius);
  REQUIRE(result.lists.size() == expected.size());
  for (std::size_t i = 0; i < p.size(); ++i) {
    GRID_EXPECT(result.lists[i] == expected[i], i);
    GRID_EXPECT(result.counts[i] == static_cast<std::int64_t>(expected[i].size()), i);
  }
}

// The same at sizes where all pairs would take too long: every particle's count and list agree with each other
// and with the offsets (run_neighbors), and `samples` particles drawn at random are checked by brute force.
template <int Dim, class Real>
void check_sampled_neighbors(const dpt::uniform_grid<Dim, Real>& grid, const host_particles<Dim, Real>& p, Real radius,
                             int samples, std::uint64_t seed) {
  const auto result = run_neighbors(grid, p, radius);
  REQUIRE(result.lists.size() == p.size());
  std::mt19937_64 rng(seed);
  std::int64_t found = 0;
  for (int s = 0; s < samples; ++s) {
    const std::size_t i = rng() % p.size();
    const auto expected = dpt::test::brute_force_neighbors_of(p, i, radius);
    GRID_EXPECT(result.lists[i] == expected, i);
    found += static_cast<std::int64_t>(expected.size());
  }
  REQUIRE(found > samples);  // the sample is not vacuous: most particles have neighbours
}

template <int Dim>
std::vector<int> cells_of(int layout) {
  // a few shapes per dimension: one cell, square/cubic, lopsided with primes
  static const std::vector<int> shapes2[] = {{1, 1}, {4, 4}, {7, 3}, {64, 1}};
  static const std::vector<int> shapes3[] = {{1, 1, 1}, {4, 4, 4}, {5, 2, 3}, {1, 13, 1}};
  return Dim == 2 ? shapes2[layout] : shapes3[layout];
}

// A grid of 1 to 7 cells per axis over a box with awkward bounds (no multiples of its cell side), sometimes
// far from the origin compared with its width, where coordinates are coarse.
template <int Dim, class Real>
dpt::uniform_grid<Dim, Real> awkward_grid(std::mt19937_64& rng) {
  dpt::uniform_grid<Dim, Real> grid;
  for (int a = 0; a < Dim; ++a) {
    const double width = std::uniform_real_distribution<double>(0.01, 5)(rng) *
                         std::pow(10.0, std::uniform_int_distribution<int>(-3, 3)(rng));
    const double offset = rng() % 4 == 0 ? 1e4 : 1;
    const double lower = std::uniform_real_distribution<double>(-3, 3)(rng) * width * offset;
    grid.lower[a] = static_cast<Real>(lower);
    grid.upper[a] = static_cast<Real>(lower + width);
    grid.cells[a] = std::uniform_int_distribution<int>(1, 7)(rng);
  }
  return grid;
}

// n particles of `grid` on its cell edges as Real computes them (lower + k · side) or a few ulps off them,
// every second one `radius` from the one before along one axis: where rounding decides a particle's cell, and
// pairs at distance R whose cells rounding can put two apart.
template <int Dim, class Real>
host_particles<Dim, Real> edge_particles(const dpt::uniform_grid<Dim, Real>& grid, Real radius, std::size_t n,
                                         std::mt19937_64& rng) {
  const Real inf = std::numeric_limits<Real>::infinity();
  const auto nudge = [&](Real x, int a, int most) {
    for (int k = std::uniform_int_distribution<int>(-most, most)(rng); k != 0; k -= k > 0 ? 1 : -1)
      x = std::nextafter(x, k > 0 ? inf : -inf);
    return std::clamp(x, grid.lower[a], grid.upper[a]);
  };
  host_particles<Dim, Real> p;
  for (auto& a : p.axis) a.resize(n);
  for (std::size_t i = 0; i < n; ++i) {
    const int moved = std::uniform_int_distribution<int>(0, Dim - 1)(rng);
    for (int a = 0; a < Dim; ++a) {
      if (i % 2 == 0) {
        const int k = std::uniform_int_distribution<int>(0, grid.cells[a])(rng);
        p.axis[a][i] = nudge(grid.lower[a] + Real(k) * grid.cell_size(a), a, 3);
      } else if (a == moved) {
        const Real x = p.axis[a][i - 1];
        p.axis[a][i] = nudge(rng() % 2 ? x + radius : x - radius, a, 2);
      } else {
        p.axis[a][i] = p.axis[a][i - 1];
      }
    }
  }
  return p;
}

template <int Dim, class Real>
void check_neighbors_on_edges(std::mt19937_64& rng) {
  const auto grid = awkward_grid<Dim, Real>(rng);
  Real side = grid.cell_size(0);
  for (int a = 1; a < Dim; ++a) side = std::min(side, grid.cell_size(a));
  const int which = static_cast<int>(rng() % 3);
  const Real radius = which == 0 ? side : which == 1 ? std::nextafter(side, Real(0)) : side / 2;
  CAPTURE(grid.lower, grid.upper, grid.cells, radius);
  check_neighbors(grid, edge_particles(grid, radius, 200, rng), radius);
}

}  // namespace

TEST_CASE("build_grid reproduces the worked example", "[grid]" DPT_BACKEND_TAG) {
  host_particles<2, double> p;
  p.axis[0] = {2.5, 0.5, 3.5, 2.2, 0.7, 1.2};
  p.axis[1] = {1.5, 0.5, 3.5, 1.8, 3.2, 0.4};
  const dpt::uniform_grid<2, double> grid{{0, 0}, {4, 4}, {4, 4}};
  const auto built = run_build_grid(grid, p);
  CHECK(built.sorted_cells == std::vector<std::uint32_t>{0, 1, 6, 6, 12, 15});
  CHECK(built.sorted_particles == std::vector<std::uint32_t>{1, 5, 0, 3, 4, 2});
  CHECK(built.cell_start == std::vector<std::int64_t>{0, 1, 0, 0, 0, 0, 2, 0, 0, 0, 0, 0, 4, 0, 0, 5});
  CHECK(built.cell_end == std::vector<std::int64_t>{1, 2, 0, 0, 0, 0, 4, 0, 0, 0, 0, 0, 5, 0, 0, 6});
  const auto neighbors = run_neighbors(grid, p, 1.0);
  CHECK(neighbors.counts == std::vector<std::int64_t>{1, 1, 0, 1, 0, 1});
}

// The random tests below come in two sizes: up to 97 particles for every build, the sanitizer one included, and
// the larger sizes tagged [large], which the sanitizer build skips (dpt_add_test).
template <int Dim, class Real>
void check_build_grid(std::size_t n, int layout, dpt::test::spread how) {
  CAPTURE(n, layout, how == dpt::test::spread::uniform);
  const auto grid = dpt::test::unit_grid<Dim, Real>(cells_of<Dim>(layout));
  const auto p = dpt::test::random_particles<Dim, Real>(n, (Dim == 2 ? 7 : 11) + n, how);
  const auto expected = dpt::test::reference_cells(grid, p);
  CHECK(dpt::test::first_cell_off_exact(grid, p, expected) == -1);  // the reference's own formula, checked apart
  check_against_reference(run_build_grid(grid, p), expected);
}

TEMPLATE_TEST_CASE("build_grid matches the sequential reference in 2-D", "[grid]" DPT_BACKEND_TAG, float, double) {
  const std::size_t n = GENERATE(0, 1, 2, 3, 31, 97);
  check_build_grid<2, TestType>(n, GENERATE(0, 1, 2, 3),
                                GENERATE(dpt::test::spread::uniform, dpt::test::spread::clustered));
}

TEMPLATE_TEST_CASE("build_grid matches the sequential reference in 2-D, large", "[grid][large]" DPT_BACKEND_TAG, float,
                   double) {
  const std::size_t n = GENERATE(1009, 65537, 1000003);
  check_build_grid<2, TestType>(n, GENERATE(0, 1, 2, 3),
                                GENERATE(dpt::test::spread::uniform, dpt::test::spread::clustered));
}

TEMPLATE_TEST_CASE("build_grid matches the sequential reference in 3-D", "[grid]" DPT_BACKEND_TAG, float, double) {
  const std::size_t n = GENERATE(0, 1, 2, 31);
  check_build_grid<3, TestType>(n, GENERATE(0, 1, 2, 3),
                                GENERATE(dpt::test::spread::uniform, dpt::test::spread::clustered));
}

TEMPLATE_TEST_CASE("build_grid matches the sequential reference in 3-D, large", "[grid][large]" DPT_BACKEND_TAG, float,
                   double) {
  const std::size_t n = GENERATE(1009, 65537);
  check_build_grid<3, TestType>(n, GENERATE(0, 1, 2, 3),
                                GENERATE(dpt::test::spread::uniform, dpt::test::spread::clustered));
}

// Radius a fraction of the cell side; a radius that exactly equals the cell size is allowed: the cells p ± R
// overlaps still hold every neighbour.
template <class Real>
void check_neighbors_2d(std::size_t n, int side, Real radius_fraction, dpt::test::spread how) {
  CAPTURE(n, side, radius_fraction, how == dpt::test::spread::uniform);
  const auto grid = dpt::test::unit_grid<2, Real>({side, side});
  check_neighbors(grid, dpt::test::random_particles<2, Real>(n, 5 + n, how), grid.cell_size(0) * radius_fraction);
}

TEMPLATE_TEST_CASE("neighbour counts and lists match all pairs in 2-D", "[grid][neighbors]" DPT_BACKEND_TAG, float,
                   double) {
  const std::size_t n = GENERATE(0, 1, 2, 3, 31, 97);
  const int side = GENERATE(1, 4, 10);
  check_neighbors_2d<TestType>(n, side, GENERATE(TestType(1), TestType(0.37)),
                               GENERATE(dpt::test::spread::uniform, dpt::test::spread::clustered));
}

TEMPLATE_TEST_CASE("neighbour counts and lists match all pairs in 2-D, large",
                   "[grid][neighbors][large]" DPT_BACKEND_TAG, float, double) {
  const std::size_t n = GENERATE(1009, 3001);
  const int side = GENERATE(1, 4, 10);
  check_neighbors_2d<TestType>(n, side, GENERATE(TestType(1), TestType(0.37)),
                               GENERATE(dpt::test::spread::uniform, dpt::test::spread::clustered));
}

// R the smallest cell side
template <class Real>
void check_neighbors_3d(std::size_t n, int side, dpt::test::spread how) {
  CAPTURE(n, side, how == dpt::test::spread::uniform);
  const auto grid = dpt::test::unit_grid<3, Real>({side, side, side + 1});
  check_neighbors(grid, dpt::test::random_particles<3, Real>(n, 3 + n, how), grid.cell_size(2));
}

TEMPLATE_TEST_CASE("neighbour counts and lists match all pairs in 3-D", "[grid][neighbors]" DPT_BACKEND_TAG, float,
                   double) {
  const std::size_t n = GENERATE(0, 1, 2, 97);
  check_neighbors_3d<TestType>(n, GENERATE(1, 3, 6),
                               GENERATE(dpt::test::spread::uniform, dpt::test::spread::clustered));
}

TEMPLATE_TEST_CASE("neighbour counts and lists match all pairs in 3-D, large",
                   "[grid][neighbors][large]" DPT_BACKEND_TAG, float, double) {
  const std::size_t n = GENERATE(2003);
  check_neighbors_3d<TestType>(n, GENERATE(1, 3, 6),
                               GENERATE(dpt::test::spread::uniform, dpt::test::spread::clustered));
}

TEMPLATE_TEST_CASE("neighbour queries over a large number of particles match all pairs on a sample",
                   "[grid][neighbors][large]" DPT_BACKEND_TAG, float, double) {
  SECTION("2-D: 200003 particles in 120 × 120 cells, R the cell side") {
    const auto grid = dpt::test::unit_grid<2, TestType>({120, 120});
    check_sampled_neighbors(grid, dpt::test::random_particles<2, TestType>(200003, 41), grid.cell_size(0), 300, 42);
  }
  SECTION("3-D: 100003 particles in 24 × 24 × 25 cells, R the smallest cell side") {
    const auto grid = dpt::test::unit_grid<3, TestType>({24, 24, 25});
    check_sampled_neighbors(grid, dpt::test::random_particles<3, TestType>(100003, 43), grid.cell_size(2), 300, 44);
  }
}

TEST_CASE("particles exactly on cell edges and the domain's upper edge", "[grid]" DPT_BACKEND_TAG) {
  host_particles<2, double> p;
  p.axis[0] = {0.0, 1.0, 2.0, 4.0, 4.0, 3.0};
  p.axis[1] = {0.0, 1.0, 4.0, 0.0, 4.0, 2.0};
  const dpt::uniform_grid<2, double> grid{{0, 0}, {4, 4}, {4, 4}};
  const auto built = run_build_grid(grid, p);
  // an edge belongs to the cell above it; the upper edge of the domain to the last cell
  CHECK(built.lists() == dpt::test::reference_lists({0, 5, 14, 3, 15, 11}, 16));
  check_neighbors(grid, p, 1.0);
}

TEMPLATE_TEST_CASE("neighbour queries find every pair within R when particles lie on cell edges",
                   "[grid][neighbors]" DPT_BACKEND_TAG, float, double) {
  std::mt19937_64 rng(2024);
  SECTION("2-D grids, R the smallest cell side, one ulp less or half of it") {
    for (int trial = 0; trial < 150; ++trial) {
      CAPTURE(trial);
      check_neighbors_on_edges<2, TestType>(rng);
    }
  }
  SECTION("3-D grids, R the smallest cell side, one ulp less or half of it") {
    for (int trial = 0; trial < 150; ++trial) {
      CAPTURE(trial);
      check_neighbors_on_edges<3, TestType>(rng);
    }
  }
}

TEST_CASE("a pair at distance R is found where rounding puts its cells two apart",
          "[grid][neighbors]" DPT_BACKEND_TAG) {
  SECTION("double: cells 1 and 3 of 5 over [0.001, 0.011]") {
    host_particles<2, double> p;
    p.axis[0] = {0.004999999999999999, 0.006999999999999998};
    p.axis[1] = {0.5, 0.5};
    const dpt::uniform_grid<2, double> grid{{0.001, 0}, {0.011, 1}, {5, 1}};
    CHECK(run_build_grid(grid, p).sorted_cells == std::vector<std::uint32_t>{1, 3});
    CHECK(run_neighbors(grid, p, 0.0019999999999999996).counts == std::vector<std::int64_t>{1, 1});
  }
  SECTION("float: cells 0 and 2 of 3 over [0.086, 1.676]") {
    host_particles<2, float> p;
    p.axis[0] = {0.616f, 1.146f};
    p.axis[1] = {0.5f, 0.5f};
    const dpt::uniform_grid<2, float> grid{{0.086f, 0}, {1.676f, 1}, {3, 1}};
    CHECK(run_build_grid(grid, p).sorted_cells == std::vector<std::uint32_t>{0, 2});
    CHECK(run_neighbors(grid, p, grid.cell_size(0)).counts == std::vector<std::int64_t>{1, 1});
  }
}

// R = 0.1 over cells whose side rounds below it: 3 cells of [0, 0.3] in double, 9 of [0, 0.9] in float. The
// largest radius accepted is 4 ulps above the side (dpt/grid_neighbors.hpp); at that radius some pairs within R lie
// two cells apart: p a few ulps below the edge x = 0.1 (cell 0), q about R above p (cell 2). The query must find
// every neighbour, as all pairs do.
TEMPLATE_TEST_CASE("a radius equal to the cell side up to rounding is accepted, and every neighbour found",
                   "[grid][neighbors]" DPT_BACKEND_TAG, float, double) {
  using Real = TestType;
  const auto nudged = [](Real v, int ulps) {  // v moved by `ulps` Reals, downwards if negative
    for (int i = 0; i < std::abs(ulps); ++i) v = std::nextafter(v, ulps < 0 ? Real(-1) : Real(1));
    return v;
  };
  const Real tenth = Real(0.1), upper = std::is_same_v<Real, float> ? Real(0.9) : Real(0.3);
  const int cells = std::is_same_v<Real, float> ? 9 : 3;
  const dpt::uniform_grid<2, Real> grid{{0, 0}, {upper, upper}, {cells, cells}};
  REQUIRE(grid.cell_size(0) < tenth);
  const Real largest = nudged(grid.cell_size(0), 4);
  CHECK_NOTHROW(dpt::validate_neighbor_radius(grid, tenth));
  CHECK_NOTHROW(dpt::validate_neighbor_radius(grid, largest));
  CHECK_THROWS_WITH(dpt::validate_neighbor_radius(grid, nudged(largest, 1)), Catch::Contains("exceeds the cell size"));

  // random particles in the box, and for every p within 40 ulps of x = 0.1 the farthest q within `largest` along
  // x, at a height y of its own: (p, y) and (q, y), and transposed, (y, p) and (y, q)
  auto p = dpt::test::random_particles<2, Real>(300, 7);
  for (auto& axis : p.axis)
    for (auto& v : axis) v *= upper;
  int two_apart = 0;
  Real y = Real(0.001);
  for (Real x = nudged(tenth, -40); x < nudged(tenth, 40); x = nudged(x, 1), y += Real(0.0035)) {
    Real q = nudged(x + largest, 8);
    while (!dpt::within_radius<2, Real>({x, y}, {q, y}, largest)) q = nudged(q, -1);
    two_apart += grid.cell_index(0, q) - grid.cell_index(0, x) == 2;
    p.axis[0].insert(p.axis[0].end(), {x, q, y, y});
    p.axis[1].insert(p.axis[1].end(), {y, y, x, q});
  }
  REQUIRE(two_apart > 0);
  check_neighbors(grid, p, largest);
  check_neighbors(grid, p, tenth);
}

namespace dpt::test {  // within_radius_with_fma.cpp
bool within_radius_built_with_fma(const double (&p)[3], const double (&q)[3], double radius);
bool within_radius_built_with_fma(const float (&p)[2], const float (&q)[2], float radius);
}  // namespace dpt::test

// Σ (q_a − p_a)² ≤ R², each operation rounded once: every value goes through memory before the next step.
template <int Dim, class Real>
bool within_radius_reference(const Real (&p)[Dim], const Real (&q)[Dim], Real radius) {
  volatile Real sum = 0;
  for (int a = 0; a < Dim; ++a) {
    volatile Real d = q[a] - p[a];
    volatile Real square = d * d;
    sum = sum + square;
  }
  volatile Real radius_squared = radius * radius;
  return sum <= radius_squared;
}

TEST_CASE("within_radius decides as in a build that fuses multiply-adds", "[grid][neighbors]" DPT_BACKEND_TAG) {
  if (!dpt::test::fma_build_runs_here()) return;
  // pairs at distance R and one ulp of R either side, where a fused d·d + sum (one rounding instead of two)
  // flips about one answer in ten
  std::mt19937_64 rng(41);
  std::uniform_real_distribution<double> coordinate(-10, 10);
  for (int trial = 0; trial < 20000; ++trial) {
    double p[3], q[3];
    float pf[2], qf[2];
    for (int a = 0; a < 3; ++a) p[a] = coordinate(rng), q[a] = coordinate(rng);
    for (int a = 0; a < 2; ++a) pf[a] = float(coordinate(rng)), qf[a] = float(coordinate(rng));
    const double r =
        std::sqrt((q[0] - p[0]) * (q[0] - p[0]) + (q[1] - p[1]) * (q[1] - p[1]) + (q[2] - p[2]) * (q[2] - p[2]));
    const float rf = std::sqrt((qf[0] - pf[0]) * (qf[0] - pf[0]) + (qf[1] - pf[1]) * (qf[1] - pf[1]));
    for (const double radius : {std::nextafter(r, 0.0), r, std::nextafter(r, 100.0)}) {
      INFO("3-D double, trial " << trial);
      REQUIRE(dpt::within_radius(p, q, radius) == within_radius_reference(p, q, radius));
      REQUIRE(dpt::test::within_radius_built_with_fma(p, q, radius) == within_radius_reference(p, q, radius));
    }
    for (const float radius : {std::nextafter(rf, 0.0f), rf, std::nextafter(rf, 100.0f)}) {
      INFO("2-D float, trial " << trial);
      REQUIRE(dpt::within_radius(pf, qf, radius) == within_radius_reference(pf, qf, radius));
      REQUIRE(dpt::test::within_radius_built_with_fma(pf, qf, radius) == within_radius_reference(pf, qf, radius));
    }
  }
}

TEMPLATE_TEST_CASE("cell_index keeps any coordinate in the grid and never decreases as it grows",
                   "[grid]" DPT_BACKEND_TAG, float, double) {
  using limits = std::numeric_limits<TestType>;
  std::mt19937_64 rng(99);
  for (int trial = 0; trial < 200; ++trial) {
    const auto grid = awkward_grid<2, TestType>(rng);
    CAPTURE(trial, grid.lower[0], grid.upper[0], grid.cells[0]);
    std::vector<TestType> xs = {-limits::infinity(), -limits::max(), limits::max(), limits::infinity()};
    for (int k = 0; k <= grid.cells[0]; ++k) {
      TestType x = grid.lower[0] + TestType(k) * grid.cell_size(0);
      for (int i = 0; i < 4; ++i) x = std::nextafter(x, -limits::infinity());
      for (int i = 0; i < 8; ++i) xs.push_back(x = std::nextafter(x, limits::infinity()));
    }
    std::sort(xs.begin(), xs.end());
    int previous = 0;
    for (const TestType x : xs) {
      const int cell = grid.cell_index(0, x);
      GRID_EXPECT(previous <= cell && cell < grid.cells[0], x);
      previous = cell;
    }
    CHECK(grid.cell_index(0, grid.upper[0]) == grid.cells[0] - 1);  // the upper edge is the last cell's
  }
  // a NaN gets no cell from the map step; cell_index alone still gives one inside the grid
  CHECK(dpt::test::unit_grid<2, TestType>({4, 4}).cell_index(1, limits::quiet_NaN()) == 0);
}

TEST_CASE("bad positions are reported with the first offending particle", "[grid][errors]" DPT_BACKEND_TAG) {
  const auto nan = std::numeric_limits<double>::quiet_NaN();
  const auto inf = std::numeric_limits<double>::infinity();
  const dpt::uniform_grid<2, double> grid{{0, 0}, {1, 1}, {4, 4}};
  auto p = dpt::test::random_particles<2, double>(1009, 3);
  const auto expect_error = [&](std::ptrdiff_t particle, const char* words, dpt::out_of_domain outside) {
    try {
      run_build_grid(grid, p, outside);
      FAIL("no error");
    } catch (const dpt::grid_position_error& e) {
      CHECK(e.particle == particle);
      CHECK_THAT(e.what(), Catch::Contains(words) && Catch::Contains("particle " + std::to_string(particle)));
    }
  };
  SECTION("a NaN coordinate is an error, even when clamping") {
    p.axis[1][500] = nan;
    p.axis[0][700] = nan;
    expect_error(500, "is not finite", dpt::out_of_domain::error);
    expect_error(500, "is not finite", dpt::out_of_domain::clamp);
  }
  SECTION("an infinite coordinate is an error, even when clamping") {
    p.axis[0][1008] = -inf;
    expect_error(1008, "is not finite", dpt::out_of_domain::error);
    expect_error(1008, "is not finite", dpt::out_of_domain::clamp);
  }
  SECTION("a particle outside the domain is an error by default") {
    p.axis[0][3] = 1.0000001;
    p.axis[1][9] = -0.5;
    expect_error(3, "lies outside the grid's domain [0, 1] x [0, 1]", dpt::out_of_domain::error);
  }
  SECTION("clamping puts particles outside the domain into the nearest cell") {
    p.axis[0][3] = 7.5;
    p.axis[1][9] = -0.5;
    p.axis[0][10] = -1e300;
    p.axis[1][10] = 1e300;
    const auto built = run_build_grid(grid, p, dpt::out_of_domain::clamp);
    check_against_reference(built, dpt::test::reference_cells(grid, p));
    CHECK(built.lists()[12].front() == 10);  // (−∞-ish, +∞-ish) → top-left cell
  }
}

TEST_CASE("edge cases: empty input, one cell, one crowded cell, many cells", "[grid][errors]" DPT_BACKEND_TAG) {
  SECTION("no particles: every cell empty, no neighbours") {
    const auto grid = dpt::test::unit_grid<2, double>({4, 4});
    const host_particles<2, double> none;
    const auto built = run_build_grid(grid, none);
    CHECK(built.cell_start == std::vector<std::int64_t>(16, 0));
    CHECK(built.cell_end == std::vector<std::int64_t>(16, 0));
    CHECK(run_neighbors(grid, none, 0.25).counts.empty());
  }
  SECTION("a single cell holds everything") {
    const auto grid = dpt::test::unit_grid<3, float>({1, 1, 1});
    const auto p = dpt::test::random_particles<3, float>(1009, 17);
    const auto built = run_build_grid(grid, p);
    CHECK(built.cell_start == std::vector<std::int64_t>{0});
    CHECK(built.cell_end == std::vector<std::int64_t>{1009});
    check_neighbors(grid, p, 0.1f);
  }
  SECTION("all particles in one cell of many, at the same point") {
    const auto grid = dpt::test::unit_grid<2, double>({16, 16});
    host_particles<2, double> p;
    p.axis[0].assign(500, 0.3);
    p.axis[1].assign(500, 0.9);
    const auto built = run_build_grid(grid, p);
    check_against_reference(built, dpt::test::reference_cells(grid, p));
    const auto neighbors = run_neighbors(grid, p, 0.01);
    CHECK(neighbors.counts == std::vector<std::int64_t>(500, 499));
  }
  SECTION("10^7 cells and a few particles (memory is proportional to the cells)") {
    const auto grid = dpt::test::unit_grid<2, double>({3163, 3163});  // 10,004,569 cells
    const auto p = dpt::test::random_particles<2, double>(97, 23);
    check_against_reference(run_build_grid(grid, p), dpt::test::reference_cells(grid, p));
    check_neighbors(grid, p, grid.cell_size(0));
  }
}

TEST_CASE("bad grids and radii are rejected before any work", "[grid][errors]" DPT_BACKEND_TAG) {
  const auto p = dpt::test::random_particles<2, double>(31, 1);
  const auto grid = dpt::test::unit_grid<2, double>({4, 4});
  SECTION("a radius of zero, below zero or NaN") {
    const double radius =
        GENERATE(0.0, -0.1, std::numeric_limits<double>::quiet_NaN(), std::numeric_limits<double>::infinity());
    CHECK_THROWS_WITH(run_neighbors(grid, p, radius), Catch::Contains("must be finite and > 0"));
  }
  SECTION("a radius larger than a cell") {
    const auto lopsided = dpt::test::unit_grid<2, double>({2, 8});
    CHECK_THROWS_WITH(run_neighbors(lopsided, p, 0.2), Catch::Contains("exceeds the cell size 0.125 along axis y"));
  }
  SECTION("a radius 4 ulps above the cell size passes as rounding, 5 ulps above is refused with the rule") {
    // 0.25 + 4 and + 5 ulps of 2^-54 (double) and 2^-25 (float), printed in their shortest forms
    CHECK_NOTHROW(run_neighbors(grid, p, 0.2500000000000002));
    CHECK_THROWS_WITH(run_neighbors(grid, p, 0.2500000000000003),
                      Catch::Contains("radius 0.2500000000000003 exceeds the cell size 0.25 along axis x, (1 - 0) / 4 "
                                      "in double, by more than rounding: the radius may be at most "
                                      "0.2500000000000002, that size rounded up by 4 ulps"));
    const auto grid_f = dpt::test::unit_grid<2, float>({4, 4});
    CHECK_NOTHROW(dpt::validate_neighbor_radius(grid_f, 0.25000012f));
    CHECK_THROWS_WITH(dpt::validate_neighbor_radius(grid_f, 0.25000015f),
                      Catch::Contains("radius 0.25000015 exceeds the cell size 0.25 along axis x, (1 - 0) / 4 in float, "
                                      "by more than rounding: the radius may be at most 0.25000012,"));
  }
  SECTION("a radius whose square overflows or is not a normal number") {
    dpt::uniform_grid<2, float> wide{{0, 0}, {3e38f, 3e38f}, {1, 1}};
    CHECK_THROWS_WITH(dpt::validate_neighbor_radius(wide, 1e20f), Catch::Contains("its square overflows float"));
    const auto tiny = dpt::test::unit_grid<2, double>({2, 2});
    CHECK_THROWS_WITH(dpt::validate_neighbor_radius(tiny, 1e-160), Catch::Contains("its square underflows double"));
    CHECK_NOTHROW(dpt::validate_neighbor_radius(tiny, std::sqrt(std::numeric_limits<double>::min())));
  }
  SECTION("an axis without cells, an empty or inverted box, a NaN bound") {
    auto bad = grid;
    const int which = GENERATE(0, 1, 2, 3);
    if (which == 0) bad.cells[1] = 0;
    if (which == 1) bad.upper[0] = bad.lower[0];
    if (which == 2) bad.upper[1] = -1;
    if (which == 3) bad.lower[0] = std::numeric_limits<double>::quiet_NaN();
    // the grid's own message: a grid_position_error for the particles outside a bad box would also be an
    // invalid_argument
    CHECK_THROWS_WITH(run_build_grid(bad, p), Catch::Contains(which == 0 ? "every axis needs at least one cell"
                                                                         : "must be finite with lower < upper"));
  }
  SECTION("a box whose width upper - lower overflows its number type") {
    dpt::uniform_grid<2, double> wide{{-1e308, 0}, {1e308, 1}, {2, 2}};
    host_particles<2, double> ends;
    ends.axis[0] = {-1e308, 1e308};
    ends.axis[1] = {0, 1};
    CHECK_THROWS_WITH(run_build_grid(wide, ends),
                      Catch::Contains("is too wide: upper - lower along x overflows double"));
    const dpt::uniform_grid<3, float> wide_f{{0, 0, -2e38f}, {1, 1, 2e38f}, {2, 2, 2}};
    CHECK_THROWS_WITH(run_build_grid(wide_f, dpt::test::random_particles<3, float>(5, 1)),
                      Catch::Contains("along z overflows float"));
  }
  SECTION("more cells along an axis than float counts exactly") {
    // past 2^24, cells − 1 rounds to cells in float: the upper edge would land in a cell past the grid
    host_particles<2, float> edges;
    edges.axis[0] = {1.0f, 0.0f};
    edges.axis[1] = {0.5f, 1.0f};
    const int too_many = GENERATE((1 << 24) + 1, (1 << 24) + 4);
    const dpt::uniform_grid<2, float> fine{{0, 0}, {1, 1}, {1, too_many}};
    CHECK_THROWS_WITH(run_build_grid(fine, edges),
                      Catch::Contains(std::to_string(too_many) + " cells along y are more than float counts exactly "
                                                                 "(at most 16777216)"));
    // 2^24 cells: every cell index is exact, and the upper edge is in the last cell
    const dpt::uniform_grid<2, float> finest{{0, 0}, {1, 1}, {1 << 24, 1}};
    const auto built = run_build_grid(finest, edges);
    CHECK(built.sorted_cells == std::vector<std::uint32_t>{0, (1u << 24) - 1});
  }
  SECTION("more cells than the cell id type can number") {
    const auto huge = dpt::test::unit_grid<3, double>({2000, 2000, 2000});
    const dpt::test::device_particles<3, double> d(dpt::test::random_particles<3, double>(3, 1));
    thrust::device_vector<std::uint32_t> cells(3);
    CHECK_THROWS_WITH(dpt::map_particles_to_cells(thrust::device, huge, d.positions(), 3, cells.begin()),
                      Catch::Contains("2000 x 2000 x 2000 cells are too many for its cell id type"));
    // 64-bit cell ids: the axes' product (about 2^93) overflows any integer, and the message names the axes
    const auto beyond = dpt::test::unit_grid<3, double>({2147483647, 2147483647, 2147483647});
    thrust::device_vector<std::int64_t> wide_cells(3);
    CHECK_THROWS_WITH(dpt::map_particles_to_cells(thrust::device, beyond, d.positions(), 3, wide_cells.begin()),
                      Catch::Contains("2147483647 x 2147483647 x 2147483647 cells are too many for its cell id type "
                                      "(fewer than 9223372036854775807)"));
  }
}
