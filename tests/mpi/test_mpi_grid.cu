// dpt::mpi::build_grid on 1, 2 or 3 ranks against the single-process grid: every rank makes the same seeded particles,
// holds a slice of them (cut evenly, all on the last rank, or at random), and checks what it owns — each particle's
// cell and neighbour count, each owned cell's count — against dpt::build_grid and dpt::count_neighbors over all the
// particles on this rank (which tests/grid checks against brute force); collectively, that every particle and every
// cell is owned exactly once.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdint>
#include <optional>
#include <random>
#include <string>
#include <thrust/device_vector.h>
#include <thrust/execution_policy.h>
#include <thrust/host_vector.h>
#include <vector>

#include <dpt/grid.hpp>
#include <dpt/grid_neighbors.hpp>
#include <dpt/mpi/grid.hpp>
#include <dpt/mpi/partition.hpp>

namespace {

enum class layout { uniform, clustered, one_cell };

// n particles in [0, 1]^Dim: uniform, in four tight clusters, or all at one point.
template <int Dim>
std::vector<std::vector<double>> make_particles(std::int64_t n, layout how, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> uniform(0.0, 1.0);
  std::normal_distribution<double> spread(0.0, 0.02);
  std::vector<std::vector<double>> axis(Dim, std::vector<double>(static_cast<std::size_t>(n)));
  for (std::int64_t i = 0; i < n; ++i) {
    const int cluster = static_cast<int>(i % 4);
    for (int a = 0; a < Dim; ++a) {
      double x = how == layout::uniform    ? uniform(rng)
                 : how == layout::one_cell ? 0.3
                                           : 0.25 + 0.5 * ((cluster >> a) & 1) + spread(rng);
      axis[static_cast<std::size_t>(a)][static_cast<std::size_t>(i)] = std::clamp(x, 0.0, 1.0);
    }
  }
  return axis;
}

// The single-process answers: each particle's cell and neighbour count, each cell's count.
struct one_process {
  std::vector<std::int64_t> cell, neighbors, cell_counts;
};

template <int Dim>
one_process reference(const dpt::uniform_grid<Dim, double>& grid, const std::vector<std::vector<double>>& axis,
                      std::optional<double> radius) {
  const auto n = static_cast<std::ptrdiff_t>(axis[0].size());
  std::vector<thrust::device_vector<double>> d;
  for (const auto& a : axis) d.emplace_back(a.begin(), a.end());
  dpt::soa_positions<Dim, thrust::device_vector<double>::const_iterator> at;
  for (int a = 0; a < Dim; ++a) at.axis[a] = d[static_cast<std::size_t>(a)].cbegin();
  const auto cells = grid.cell_count();
  thrust::device_vector<std::int64_t> sorted_cells(n), sorted_particles(n), start(cells), end(cells), counts(n);
  const auto sorted = dpt::build_grid(thrust::device, grid, at, n, sorted_cells.begin(), sorted_particles.begin(),
                                      start.begin(), end.begin());
  if (radius) dpt::count_neighbors(thrust::device, grid, at, sorted, *radius, counts.begin());
  one_process r;
  const thrust::host_vector<std::int64_t> c = sorted_cells, p = sorted_particles, s = start, e = end, k = counts;
  r.cell.resize(static_cast<std::size_t>(n));
  for (std::ptrdiff_t i = 0; i < n; ++i) r.cell[static_cast<std::size_t>(p[i])] = c[i];
  r.neighbors.assign(k.begin(), k.end());
  for (std::int64_t i = 0; i < cells; ++i) r.cell_counts.push_back(e[i] - s[i]);
  return r;
}

template <int Dim>
void check_across_ranks(const dpt::uniform_grid<Dim, double>& grid, std::int64_t n, layout how, int cut,
                        bool with_radius) {
  // random cuts exchange through host buffers (exchange_path): the CPU systems run the staging code too
  const dpt::mpi::communicator comm(
      MPI_COMM_WORLD, cut == 2 ? dpt::mpi::exchange_path::host_staged : dpt::mpi::default_exchange_path());
  const int ranks = comm.size(), me = comm.rank();
  const auto axis = make_particles<Dim>(n, how, 61 + static_cast<std::uint64_t>(n));
  // the largest radius the query takes: neighbours a whole cell away along the slabs' axis
  double radius = dpt::largest_neighbor_radius(grid, 0);
  for (int a = 1; a < Dim; ++a) radius = std::min(radius, dpt::largest_neighbor_radius(grid, a));
  const auto ref = reference(grid, axis, with_radius ? std::optional<double>(radius) : std::nullopt);

  // this rank's slice: cut evenly, all on the last rank, or at random (the same cut on every rank)
  std::vector<std::int64_t> starts(static_cast<std::size_t>(ranks) + 1, n);
  std::mt19937_64 rng(67 + static_cast<std::uint64_t>(n));
  for (int r = 0; r < ranks; ++r) {
    starts[static_cast<std::size_t>(r)] = cut == 0   ? dpt::mpi::block_partition{n, ranks}.start(r)
                                          : cut == 1 ? 0
                                                     : std::uniform_int_distribution<std::int64_t>(0, n)(rng);
  }
  starts[0] = 0;
  std::sort(starts.begin(), starts.end() - 1);
  const auto first = starts[static_cast<std::size_t>(me)], last = starts[static_cast<std::size_t>(me) + 1];
  std::vector<thrust::device_vector<double>> slice;
  for (const auto& a : axis) slice.emplace_back(a.begin() + first, a.begin() + last);
  dpt::soa_positions<Dim, thrust::device_vector<double>::const_iterator> at;
  for (int a = 0; a < Dim; ++a) at.axis[a] = slice[static_cast<std::size_t>(a)].cbegin();

  const auto block =
      dpt::mpi::build_grid(comm, thrust::device, grid, at, last - first, first, dpt::out_of_domain::error,
                           with_radius ? std::optional<double>(radius) : std::nullopt);

  // what this rank owns is what one process computes for those particles and cells
  REQUIRE(block.ids.size() == block.cells.size());
  REQUIRE(block.neighbor_counts.size() == (with_radius ? block.ids.size() : 0));
  std::int64_t wrong_cells = 0, wrong_counts = 0;
  for (std::size_t k = 0; k < block.ids.size(); ++k) {
    const auto id = static_cast<std::size_t>(block.ids[k]);
    wrong_cells += block.cells[k] != ref.cell[id];
    if (with_radius) wrong_counts += block.neighbor_counts[k] != ref.neighbors[id];
  }
  CHECK(wrong_cells == 0);
  CHECK(wrong_counts == 0);
  CHECK(std::is_sorted(block.cells.begin(), block.cells.end()));
  const std::vector<std::int64_t> expected_counts(
      ref.cell_counts.begin() + block.first_cell,
      ref.cell_counts.begin() + block.first_cell + static_cast<std::ptrdiff_t>(block.cell_counts.size()));
  CHECK(block.cell_counts == expected_counts);
  const auto end_cell = block.first_cell + static_cast<std::int64_t>(block.cell_counts.size());
  CHECK(std::all_of(block.cells.begin(), block.cells.end(),
                    [&](std::int64_t cell) { return cell >= block.first_cell && cell < end_cell; }));

  // together, the ranks own every particle once and every cell once, in rank order
  std::int64_t totals[3] = {static_cast<std::int64_t>(block.ids.size()), 0,
                            static_cast<std::int64_t>(block.cell_counts.size())};
  for (const auto id : block.ids) totals[1] += id;
  dpt::mpi::check(MPI_Allreduce(MPI_IN_PLACE, totals, 3, MPI_INT64_T, MPI_SUM, comm.get()), "MPI_Allreduce");
  CHECK(totals[0] == n);
  CHECK(totals[1] == n * (n - 1) / 2);
  CHECK(totals[2] == grid.cell_count());
  std::int64_t next_first = block.first_cell + static_cast<std::int64_t>(block.cell_counts.size()),
               mine = block.first_cell;
  std::vector<std::int64_t> firsts(static_cast<std::size_t>(ranks)), nexts(static_cast<std::size_t>(ranks));
  dpt::mpi::check(MPI_Allgather(&mine, 1, MPI_INT64_T, firsts.data(), 1, MPI_INT64_T, comm.get()), "MPI_Allgather");
  dpt::mpi::check(MPI_Allgather(&next_first, 1, MPI_INT64_T, nexts.data(), 1, MPI_INT64_T, comm.get()),
                  "MPI_Allgather");
  CHECK(firsts[0] == 0);
  for (int r = 1; r < ranks; ++r) CHECK(firsts[static_cast<std::size_t>(r)] == nexts[static_cast<std::size_t>(r) - 1]);
}

// Every grid shape, cut and radius for n particles laid out as `how`.
void check_every_grid(std::int64_t n, layout how) {
  const int cut = GENERATE(0, 1, 2);
  const bool with_radius = GENERATE(true, false);
  CAPTURE(n, static_cast<int>(how), cut, with_radius);
  SECTION("2-D, 16 x 16 cells") {
    check_across_ranks(dpt::uniform_grid<2, double>{{0, 0}, {1, 1}, {16, 16}}, n, how, cut, with_radius);
  }
  SECTION("2-D, 7 x 200 cells: thin slabs, ranks whose runs are one or two slabs") {
    check_across_ranks(dpt::uniform_grid<2, double>{{0, 0}, {1, 1}, {7, 200}}, n, how, cut, with_radius);
  }
  SECTION("3-D, 8 x 8 x 8 cells") {
    check_across_ranks(dpt::uniform_grid<3, double>{{0, 0, 0}, {1, 1, 1}, {8, 8, 8}}, n, how, cut, with_radius);
  }
  SECTION("2-D, 32 x 1 cells: one slab, owned by one rank") {
    check_across_ranks(dpt::uniform_grid<2, double>{{0, 0}, {1, 1}, {32, 1}}, n, how, cut, with_radius);
  }
}

}  // namespace

TEST_CASE("the grid across ranks owns every particle and cell once, as one process bins and counts them",
          "[mpi][grid]") {
  // the small shapes every build runs, the sanitizer build included
  const auto [n, how] = GENERATE(table<std::int64_t, layout>({{0, layout::uniform},
                                                              {1, layout::uniform},
                                                              {2, layout::one_cell},
                                                              {7, layout::clustered},
                                                              {61, layout::clustered}}));
  check_every_grid(n, how);
}

// Tagged [large]: the sanitizer build leaves it out. All particles at one point cost n² distance tests: that layout
// stays small.
TEST_CASE("the grid across ranks bins and counts thousands of particles as one process does", "[mpi][grid][large]") {
  const auto [n, how] = GENERATE(table<std::int64_t, layout>({{1009, layout::one_cell},
                                                              {1009, layout::clustered},
                                                              {4099, layout::uniform},
                                                              {20011, layout::uniform},
                                                              {20011, layout::clustered}}));
  check_every_grid(n, how);
}

TEST_CASE("a particle outside the grid on one rank fails every rank, naming its global number", "[mpi][grid]") {
  const dpt::mpi::communicator comm;
  const int me = comm.rank();
  // two particles per rank; the last rank's second one lies outside the unit square
  const bool last = me == comm.size() - 1;
  const std::vector<double> x{0.5, last ? 1.5 : 0.25}, y{0.5, 0.75};
  const thrust::device_vector<double> dx(x.begin(), x.end()), dy(y.begin(), y.end());
  const dpt::uniform_grid<2, double> grid{{0, 0}, {1, 1}, {4, 4}};
  const std::int64_t bad = 2 * static_cast<std::int64_t>(comm.size() - 1) + 1;
  try {
    dpt::mpi::build_grid(comm, thrust::device, grid, dpt::make_positions(dx.cbegin(), dy.cbegin()), 2, 2 * me);
    FAIL("no error");
  } catch (const dpt::grid_position_error& e) {
    CHECK(e.particle == bad);
    CHECK(std::string(e.what()).rfind("particle " + std::to_string(bad) + " at (1.5, 0.75) lies outside", 0) == 0);
  }
}
