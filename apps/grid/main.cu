// dpt-grid — particles into a uniform 2-D or 3-D grid with the lecture's sort-based solution (map, sort,
// boundary detection), optionally the other four solutions for comparison, and the radius-R neighbour counts;
// timed per stage, checked against sequential references on request.
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <limits>
#include <memory>
#include <stdexcept>
#include <string>
#include <thrust/device_vector.h>
#include <thrust/execution_policy.h>
#include <thrust/host_vector.h>
#include <thrust/reduce.h>
#include <vector>

#include <dpt/config.hpp>
#include <dpt/grid.hpp>
#include <dpt/grid_neighbors.hpp>
#include <dpt/grid_solutions.hpp>
#include "grid/choose_grid.hpp"
#include "grid/grid_png.hpp"
#include "grid/options.hpp"
#include "grid/particles.hpp"
#include "grid/sequential_check.hpp"
#include "app_support/device_memory.hpp"
#include "app_support/errors.hpp"
#include "app_support/memory.hpp"
#include "app_support/output_file.hpp"
#include "app_support/timing.hpp"

namespace {

using dpt::app::grid_options;
using dpt::app::input_error;
using dpt::app::particle_source;
using dpt::app::time_ms;
using index_type = std::uint32_t;

template <class T>
std::vector<T> to_host(const thrust::device_vector<T>& d) {
  const thrust::host_vector<T> h = d;
  return std::vector<T>(h.begin(), h.end());
}

// The cell counts: a table per z-slice for grids up to 16×16 (the lecture's 4×4 view), else a summary.
void print_cell_counts(const std::vector<int>& dims, const std::vector<index_type>& counts) {
  const int nx = dims[0], ny = dims[1], nz = dims.size() == 3 ? dims[2] : 1;
  if (nx <= 16 && ny <= 16 && nz <= 4) {
    for (int z = 0; z < nz; ++z) {
      std::printf(dims.size() == 3 ? "\ncell counts, z = %d (y up, x right):\n" : "\ncell counts (y up, x right):\n",
                  z);
      for (int y = ny - 1; y >= 0; --y) {
        std::printf("  y=%-3d|", y);
        for (int x = 0; x < nx; ++x) std::printf(" %9u", counts[x + nx * (y + static_cast<std::size_t>(ny) * z)]);
        std::printf("\n");
      }
    }
    return;
  }
  std::size_t empty = 0;
  index_type most = 0;
  for (const auto c : counts) {
    empty += c == 0;
    most = std::max(most, c);
  }
  std::printf("\ncell counts: %zu cells, %zu empty, the fullest holds %u particles\n", counts.size(), empty, most);
}

// Turns an algorithm's position error into "FILE:LINE: …" for CSV input.
[[noreturn]] void rethrow_with_line(const dpt::grid_position_error& e, const particle_source& p) {
  if (!p.lines.empty()) {
    throw dpt::app::file_error(p.name, p.lines[e.particle], e.what());
  }
  throw input_error(p.name + ": " + e.what());
}

// Runs one of dpt's algorithms so that what it rejects is bad input (exit status 2): a particle without a cell
// becomes "FILE:LINE: …", any other std::invalid_argument (a grid or a radius) a plain input_error.
template <class Body>
auto rejecting_bad_input(const particle_source& p, Body&& body) {
  try {
    return body();
  } catch (const dpt::grid_position_error& e) {
    rethrow_with_line(e, p);
  } catch (const std::invalid_argument& e) {
    throw input_error(e.what());
  }
}

// What dpt-grid holds at once for n particles in `cells` cells (`with_input`: the particles themselves too, as
// generated doubles): on the device the positions, each particle's cell and index (and neighbour count), each
// cell's start and end, and the scratch the grid's build reports (dpt::build_grid_temporary_bytes); on the host
// the starts, ends and counts copied back.
template <int Dim, class Real>
std::vector<dpt::app::memory_need> grid_memory_needs(const grid_options& o, double n, double cells, bool with_input) {
  const double index = sizeof(index_type);
  const auto scratch = dpt::build_grid_temporary_bytes<index_type, index_type>(static_cast<std::ptrdiff_t>(n));
  return {{(with_input ? 8.0 * Dim * n : 0) + 3 * index * cells,
           (Dim * sizeof(Real) + (o.radius ? 3 : 2) * index) * n + 2 * index * cells + static_cast<double>(scratch)}};
}

// --radius in Real: it must fit Real (a nonzero radius must not round to 0) and reach only the next cells.
template <int Dim, class Real>
Real neighbor_radius(const grid_options& o, const dpt::uniform_grid<Dim, Real>& grid) {
  using dpt::app::out_of_range;
  const Real radius = static_cast<Real>(out_of_range<Real>(*o.radius) ? 0 : *o.radius);
  if (out_of_range<Real>(*o.radius) || (*o.radius != 0 && radius == 0)) {
    throw input_error("--radius: " + dpt::app::shortest(*o.radius) + " is out of range for --precision " +
                      dpt::app::precision_name(Real()));
  }
  try {
    dpt::validate_neighbor_radius(grid, radius);
  } catch (const std::invalid_argument& e) {
    throw input_error(std::string("--radius: ") + e.what());
  }
  return radius;
}

// The run's output files, opened before the work so that an unwritable path fails fast; they appear only on commit.
struct output_files {
  std::unique_ptr<dpt::app::output_file> cells, neighbors, png;

  explicit output_files(const grid_options& o) {
    const std::vector<dpt::app::named_path> inputs{{"--input", o.input_path}};
    const auto open = [&](const char* option, const std::string& path) {
      return path.empty() ? nullptr
                          : std::make_unique<dpt::app::output_file>(dpt::app::named_path{option, path}, inputs);
    };
    cells = open("--cells-out", o.cells_out);
    neighbors = open("--neighbors-out", o.neighbors_out);
    png = open("--png", o.png_out);
  }
  void commit() {
    for (auto* file : {cells.get(), neighbors.get(), png.get()}) {
      if (file) file->commit();
    }
  }
};

// The particles on the device, one array per axis (structure of arrays), and the positions view over them.
template <int Dim, class Real>
struct device_particles {
  thrust::device_vector<Real> axis[Dim];

  explicit device_particles(const particle_source& p) {
    for (int a = 0; a < Dim; ++a) axis[a] = thrust::device_vector<Real>(p.axis[a].begin(), p.axis[a].end());
  }
  auto positions() const {
    dpt::soa_positions<Dim, typename thrust::device_vector<Real>::const_iterator> view;
    for (int a = 0; a < Dim; ++a) view.axis[a] = axis[a].cbegin();
    return view;
  }
};

// Solution 5's arrays: the particles sorted by cell, and where each cell starts and ends; each stage timed.
struct cell_sorted_particles {
  using iterator = thrust::device_vector<index_type>::iterator;
  thrust::device_vector<index_type> cells, particles, start, end;
  double map_ms = 0, sort_ms = 0, boundary_ms = 0;

  dpt::sorted_grid<iterator, iterator, iterator> view() {
    return {cells.begin(), particles.begin(), static_cast<std::ptrdiff_t>(cells.size()), start.begin(), end.begin()};
  }
  // Each particle's cell, in input order (for --check and --png).
  std::vector<index_type> cell_of_each_particle() const {
    const auto cells_sorted = to_host(cells), particles_sorted = to_host(particles);
    std::vector<index_type> cell(cells_sorted.size());
    for (std::size_t k = 0; k < cell.size(); ++k) cell[particles_sorted[k]] = cells_sorted[k];
    return cell;
  }
};

// The lecture's solution 5, one stage at a time.
template <int Dim, class Real, class Positions>
cell_sorted_particles sort_into_cells(const dpt::uniform_grid<Dim, Real>& grid, Positions positions,
                                      const particle_source& source, dpt::out_of_domain outside) {
  const auto n = static_cast<std::ptrdiff_t>(source.size());
  cell_sorted_particles s{thrust::device_vector<index_type>(n), thrust::device_vector<index_type>(n),
                          thrust::device_vector<index_type>(grid.cell_count()),
                          thrust::device_vector<index_type>(grid.cell_count())};
  s.map_ms = rejecting_bad_input(source, [&] {
    return time_ms([&] { dpt::map_particles_to_cells(thrust::device, grid, positions, n, s.cells.begin(), outside); });
  });
  s.sort_ms = time_ms(
      [&] { dpt::sort_particles_by_cell(thrust::device, s.cells.begin(), s.cells.end(), s.particles.begin()); });
  s.boundary_ms = time_ms([&] {
    dpt::find_cell_boundaries(thrust::device, s.cells.begin(), s.cells.end(), grid.cell_count(), s.start.begin(),
                              s.end.begin());
  });
  return s;
}

// The solutions of --solution, each timed and compared in canonical form with solution 5's cell lists; returns
// what differs.
template <int Dim, class Real, class Positions>
std::vector<std::string> compare_solutions(const grid_options& o, const dpt::uniform_grid<Dim, Real>& grid,
                                           Positions positions, const particle_source& source,
                                           dpt::out_of_domain outside) {
  std::vector<std::string> failures;
  if (o.solutions.empty()) return failures;
  const auto n = static_cast<std::ptrdiff_t>(source.size());
  const std::int64_t cell_count = grid.cell_count();
  std::printf("\nsolutions (cell -> particle lists):\n");
  thrust::device_vector<index_type> reference_offsets(cell_count + 1), reference_ids(n);
  rejecting_bad_input(source, [&] {
    dpt::bin_particles_sort(thrust::device, grid, positions, n, reference_offsets.begin(), reference_ids.begin(),
                            outside);
  });
  for (const int s : o.solutions) {
    const auto solution = static_cast<dpt::grid_solution>(s);
    if (solution == dpt::grid_solution::task_per_cell && static_cast<double>(cell_count) * n > 1e9) {
      std::printf("  %-26s skipped: %lld cells each scanning %td particles is over 10^9 steps\n", dpt::name(solution),
                  static_cast<long long>(cell_count), n);
      continue;
    }
    thrust::device_vector<index_type> offsets(cell_count + 1), ids(n);
    const double ms = rejecting_bad_input(source, [&] {
      return time_ms([&] {
        dpt::bin_particles(thrust::device, solution, grid, positions, n, offsets.begin(), ids.begin(), outside);
      });
    });
    dpt::sort_within_cells(thrust::device, offsets.begin(), cell_count, ids.begin(), ids.end());
    const bool same = offsets == reference_offsets && ids == reference_ids;
    std::printf("  %-26s %10.3f ms   %s\n", dpt::name(solution), ms,
                same ? "same cell lists as solution 5" : "DIFFERENT cell lists from solution 5");
    if (!same) failures.push_back(std::string("solution ") + dpt::name(solution) + " differs from solution 5");
  }
  return failures;
}

// --check: every particle's cell against a sequential loop and, with --radius, the neighbour counts by brute
// force; adds what is wrong to `failures`.
template <int Dim, class Real>
void check_against_references(const grid_options& o, const dpt::uniform_grid<Dim, Real>& grid,
                              const particle_source& source, Real radius, const std::vector<index_type>& particle_cell,
                              const std::vector<index_type>& neighbor_counts, std::vector<std::string>& failures) {
  const std::ptrdiff_t wrong_cells = dpt::app::count_wrong_cells(grid, source, particle_cell);
  if (wrong_cells) failures.push_back(std::to_string(wrong_cells) + " particles in the wrong cell");
  dpt::app::sampled_check neighbors;
  if (o.radius) {
    neighbors = dpt::app::check_neighbor_counts<Dim>(source, radius, neighbor_counts);
    if (neighbors.wrong) {
      failures.push_back(std::to_string(neighbors.wrong) + " of " + std::to_string(neighbors.checked) +
                         " neighbour counts wrong");
    }
  }
  std::printf("\ncheck: %zu particles' cells against a sequential loop: %td wrong", source.size(), wrong_cells);
  if (o.radius) {
    std::printf("; neighbour counts of %td particles by brute force: %td wrong", neighbors.checked, neighbors.wrong);
  }
  std::printf("\n");
}

template <int Dim, class Real>
int run(const grid_options& o) {
  double cells = 1;
  for (const int d : o.dims) cells *= d;
  // --generate's particles are checked before they are made (more cells than dpt-grid supports are refused below)
  if (o.input_path.empty() && cells <= std::numeric_limits<std::int32_t>::max()) {
    dpt::app::require_memory(
        grid_memory_needs<Dim, Real>(o, static_cast<double>(o.n), cells, true),
        std::to_string(o.n) + " particles in " + std::to_string(static_cast<long long>(cells)) + " cells",
        dpt::app::this_builds_device_memory());
  }
  const particle_source source = dpt::app::load_particles(o);
  const std::ptrdiff_t n = static_cast<std::ptrdiff_t>(source.size());
  dpt::app::require_representable<Real>(source, Dim);
  const auto grid = dpt::app::choose_grid<Dim, Real>(o, source);
  const auto outside = o.clamp ? dpt::out_of_domain::clamp : dpt::out_of_domain::error;
  const std::int64_t cell_count = grid.cell_count();
  if (cell_count > std::numeric_limits<std::int32_t>::max()) {
    throw input_error("--dims: " + std::to_string(cell_count) + " cells are more than dpt-grid supports (2^31 - 1)");
  }
  // a CSV's particles, once read (the file bounds their number)
  if (!o.input_path.empty()) {
    dpt::app::require_memory(
        grid_memory_needs<Dim, Real>(o, static_cast<double>(n), static_cast<double>(cell_count), false),
        o.input_path + " (" + std::to_string(n) + " particles) in " + std::to_string(cell_count) + " cells",
        dpt::app::this_builds_device_memory());
  }
  const Real radius = o.radius ? neighbor_radius(o, grid) : Real(0);
  output_files files(o);

  std::printf("dpt-grid: %td particles (%s), %dD grid of %lld cells", n, source.name.c_str(), Dim,
              static_cast<long long>(cell_count));
  for (int a = 0; a < Dim; ++a) {
    std::printf("%s[%s, %s]", a ? " x " : " over ", dpt::app::shortest(grid.lower[a]).c_str(),
                dpt::app::shortest(grid.upper[a]).c_str());
  }
  std::printf(", %s precision, %s device system\n", o.single_precision ? "single" : "double",
              dpt::device_system_name());

  const device_particles<Dim, Real> particles(source);
  cell_sorted_particles sorted = sort_into_cells(grid, particles.positions(), source, outside);
  thrust::device_vector<index_type> neighbor_counts;
  double query_ms = 0;
  if (o.radius) {
    neighbor_counts.resize(n);
    query_ms = rejecting_bad_input(source, [&] {
      return time_ms([&] {
        dpt::count_neighbors(thrust::device, grid, particles.positions(), sorted.view(), radius,
                             neighbor_counts.begin());
      });
    });
  }

  const auto starts = to_host(sorted.start), ends = to_host(sorted.end);
  std::vector<index_type> counts(cell_count);
  for (std::int64_t c = 0; c < cell_count; ++c) counts[c] = ends[c] - starts[c];
  print_cell_counts(o.dims, counts);

  // Each stage's GB/s counts the bytes it cannot avoid moving: map reads every coordinate and writes a cell id,
  // sort reads and writes every (cell, particle) pair once, boundary reads every cell id and writes every cell's
  // start and end.
  const auto gbps = [](double bytes, double ms) { return ms > 0 ? bytes / (ms / 1000) / 1e9 : 0.0; };
  const double particles_n = static_cast<double>(n), index_bytes = sizeof(index_type);
  std::printf("\nstages (solution 5: map, sort, boundary detection%s):\n", o.radius ? "; neighbour query" : "");
  std::printf("  map       %10.3f ms %9.3f GB/s\n", sorted.map_ms,
              gbps(particles_n * (Dim * sizeof(Real) + index_bytes), sorted.map_ms));
  std::printf("  sort      %10.3f ms %9.3f GB/s\n", sorted.sort_ms,
              gbps(particles_n * 4 * index_bytes, sorted.sort_ms));
  std::printf("  boundary  %10.3f ms %9.3f GB/s\n", sorted.boundary_ms,
              gbps(particles_n * index_bytes + 2 * index_bytes * static_cast<double>(cell_count), sorted.boundary_ms));
  if (o.radius) {
    std::printf("  query     %10.3f ms   (radius %g; %.2f neighbours per particle)\n", query_ms, *o.radius,
                n ? thrust::reduce(thrust::device, neighbor_counts.begin(), neighbor_counts.end(), 0.0) / n : 0.0);
  }

  std::vector<std::string> failures = compare_solutions(o, grid, particles.positions(), source, outside);
  const std::vector<index_type> host_neighbor_counts = o.radius ? to_host(neighbor_counts) : std::vector<index_type>();
  const std::vector<index_type> particle_cell =
      o.check || files.png ? sorted.cell_of_each_particle() : std::vector<index_type>();
  if (o.check) check_against_references(o, grid, source, radius, particle_cell, host_neighbor_counts, failures);

  if (files.cells) {
    for (const auto c : counts) files.cells->stream() << c << '\n';
  }
  if (files.neighbors) {
    for (const auto c : host_neighbor_counts) files.neighbors->stream() << c << '\n';
  }
  if (files.png) {
    const dpt::app::grid_picture picture{{double(grid.lower[0]), double(grid.lower[1])},
                                         {double(grid.upper[0]), double(grid.upper[1])},
                                         {o.dims[0], Dim > 1 ? o.dims[1] : 1},
                                         &source.axis[0],
                                         &source.axis[1],
                                         &particle_cell};
    dpt::app::write_grid_png(files.png->stream(), picture);
  }
  if (!failures.empty()) {
    std::string message = failures.front();
    for (std::size_t i = 1; i < failures.size(); ++i) message += "; " + failures[i];
    throw dpt::app::check_failure(message);
  }
  files.commit();
  return 0;
}

// The run a command line asks for, at its dimension and precision.
int run(const grid_options& o) {
  const bool three_d = o.dims.size() == 3;
  if (o.single_precision) return three_d ? run<3, float>(o) : run<2, float>(o);
  return three_d ? run<3, double>(o) : run<2, double>(o);
}

}  // namespace

int main(int argc, char* argv[]) {
  return dpt::app::run_app("dpt-grid", [&] {
    const auto o = dpt::app::parse_grid_options(argc, argv);
    if (!o) {
      std::fputs(dpt::app::grid_usage, stdout);
      return 0;
    }
    return run(*o);
  });
}
