// What dpt-grid's two forms share — one process (main.cu) and particles spread over MPI ranks (across_ranks.hpp):
// the memory a run needs, the radius, bad input turned into "FILE:LINE: …", the output files, the cell-count table,
// --check's references and the files' contents. Include it from grid/main.cu only (it instantiates dpt's device
// algorithms).
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <limits>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include <dpt/config.hpp>
#include <dpt/grid.hpp>
#include <dpt/grid_neighbors.hpp>
#include "grid/choose_grid.hpp"
#include "grid/grid_png.hpp"
#include "grid/options.hpp"
#include "grid/particles.hpp"
#include "grid/sequential_check.hpp"
#include "app_support/device_memory.hpp"
#include "app_support/errors.hpp"
#include "app_support/memory.hpp"
#include "app_support/output_file.hpp"

namespace dpt::app {

using grid_index = std::uint32_t;  // cells, particles and counts in dpt-grid

// The cell counts: a table per z-slice for grids up to 16×16 (the lecture's 4×4 view), else a summary.
inline void print_cell_counts(const std::vector<int>& dims, const std::vector<grid_index>& counts) {
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
  grid_index most = 0;
  for (const auto c : counts) {
    empty += c == 0;
    most = std::max(most, c);
  }
  std::printf("\ncell counts: %zu cells, %zu empty, the fullest holds %u particles\n", counts.size(), empty, most);
}

// Turns an algorithm's position error into "FILE:LINE: …" for CSV input.
[[noreturn]] inline void rethrow_with_line(const dpt::grid_position_error& e, const particle_source& p) {
  if (!p.lines.empty()) {
    throw file_error(p.name, p.lines[e.particle], e.what());
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
std::vector<memory_need> grid_memory_needs(const grid_options& o, double n, double cells, bool with_input) {
  const double index = sizeof(grid_index);
  const auto scratch = dpt::build_grid_temporary_bytes<grid_index, grid_index>(static_cast<std::ptrdiff_t>(n));
  return {{(with_input ? 8.0 * Dim * n : 0) + 3 * index * cells,
           (Dim * sizeof(Real) + (o.radius ? 3 : 2) * index) * n + 2 * index * cells + static_cast<double>(scratch)}};
}

// --radius in Real: it must fit Real (a nonzero radius must not round to 0) and reach only the next cells.
template <int Dim, class Real>
Real neighbor_radius(const grid_options& o, const dpt::uniform_grid<Dim, Real>& grid) {
  const Real radius = static_cast<Real>(out_of_range<Real>(*o.radius) ? 0 : *o.radius);
  if (out_of_range<Real>(*o.radius) || (*o.radius != 0 && radius == 0)) {
    throw input_error("--radius: " + shortest(*o.radius) + " is out of range for --precision " +
                      precision_name(Real()));
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
  std::unique_ptr<output_file> cells, neighbors, png;

  explicit output_files(const grid_options& o) {
    const std::vector<named_path> inputs{{"--input", o.input_path}};
    const auto open = [&](const char* option, const std::string& path) {
      return path.empty() ? nullptr : std::make_unique<output_file>(named_path{option, path}, inputs);
    };
    cells = open("--cells-out", o.cells_out);
    neighbors = open("--neighbors-out", o.neighbors_out);
    png = open("--png", o.png_out);
  }
  // all or none (dpt::app::commit_together)
  void commit() { commit_together({cells.get(), neighbors.get(), png.get()}); }
};

// --check: every particle's cell against a sequential loop and, with --radius, the neighbour counts by brute
// force; adds what is wrong to `failures`.
template <int Dim, class Real>
void check_against_references(const grid_options& o, const dpt::uniform_grid<Dim, Real>& grid,
                              const particle_source& source, Real radius, const std::vector<grid_index>& particle_cell,
                              const std::vector<grid_index>& neighbor_counts, std::vector<std::string>& failures) {
  const std::ptrdiff_t wrong_cells = count_wrong_cells(grid, source, particle_cell);
  if (wrong_cells) failures.push_back(std::to_string(wrong_cells) + " particles in the wrong cell");
  sampled_check neighbors;
  if (o.radius) {
    neighbors = check_neighbor_counts<Dim>(source, radius, neighbor_counts);
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

// Everything before the work, in one process or on rank 0: the particles read (or generated) and refused if they do
// not fit the precision, the grid chosen and checked, the memory a run needs checked, the radius checked, the output
// files opened.
template <int Dim, class Real>
struct grid_run_setup {
  particle_source source;
  dpt::uniform_grid<Dim, Real> grid;
  dpt::out_of_domain outside = dpt::out_of_domain::error;
  Real radius = 0;  // 0 without --radius
  std::unique_ptr<output_files> files;
};

template <int Dim, class Real>
grid_run_setup<Dim, Real> prepare_run(const grid_options& o) {
  double cells = 1;  // at most 2^31 - 1 (parse_dims)
  for (const int d : o.dims) cells *= d;
  // --generate's particles are checked before they are made
  if (o.input_path.empty()) {
    require_memory(grid_memory_needs<Dim, Real>(o, static_cast<double>(o.n), cells, true),
                   std::to_string(o.n) + " particles in " + std::to_string(static_cast<long long>(cells)) + " cells",
                   this_builds_device_memory());
  }
  grid_run_setup<Dim, Real> setup;
  setup.source = load_particles(o);
  const particle_source& source = setup.source;
  const std::ptrdiff_t n = static_cast<std::ptrdiff_t>(source.size());
  require_representable<Real>(source, Dim);
  setup.grid = choose_grid<Dim, Real>(o, source);
  const auto& grid = setup.grid;
  setup.outside = o.clamp ? dpt::out_of_domain::clamp : dpt::out_of_domain::error;
  const std::int64_t cell_count = grid.cell_count();
  // a CSV's particles, once read (the file bounds their number)
  if (!o.input_path.empty()) {
    require_memory(grid_memory_needs<Dim, Real>(o, static_cast<double>(n), static_cast<double>(cell_count), false),
                   o.input_path + " (" + std::to_string(n) + " particles) in " + std::to_string(cell_count) + " cells",
                   this_builds_device_memory());
  }
  setup.radius = o.radius ? neighbor_radius(o, grid) : Real(0);
  setup.files = std::make_unique<output_files>(o);
  return setup;
}

// The run's first line; `ranks` is empty for one process, ", N ranks" under mpiexec.
template <int Dim, class Real>
void print_run_header(const grid_options& o, const grid_run_setup<Dim, Real>& setup, const std::string& ranks) {
  const auto& grid = setup.grid;
  std::printf("dpt-grid: %zu particles (%s), %dD grid of %lld cells", setup.source.size(), setup.source.name.c_str(),
              Dim, static_cast<long long>(grid.cell_count()));
  for (int a = 0; a < Dim; ++a) {
    std::printf("%s[%s, %s]", a ? " x " : " over ", shortest(grid.lower[a]).c_str(), shortest(grid.upper[a]).c_str());
  }
  std::printf(", %s precision, %s device system%s\n", o.single_precision ? "single" : "double",
              dpt::device_system_name(), ranks.c_str());
}

// The run's files, from rank 0's (or the one process's) results: --cells-out one count per cell, --neighbors-out one
// count per particle in input order, --png the particles coloured by cell.
template <int Dim, class Real>
void write_outputs(const grid_options& o, const dpt::uniform_grid<Dim, Real>& grid, const particle_source& source,
                   const std::vector<grid_index>& counts, const std::vector<grid_index>& neighbor_counts,
                   const std::vector<grid_index>& particle_cell, output_files& files) {
  if (files.cells) {
    for (const auto c : counts) files.cells->stream() << c << '\n';
  }
  if (files.neighbors) {
    for (const auto c : neighbor_counts) files.neighbors->stream() << c << '\n';
  }
  if (files.png) {
    const grid_picture picture{{double(grid.lower[0]), double(grid.lower[1])},
                               {double(grid.upper[0]), double(grid.upper[1])},
                               {o.dims[0], Dim > 1 ? o.dims[1] : 1},
                               &source.axis[0],
                               &source.axis[1],
                               &particle_cell};
    write_grid_png(files.png->stream(), picture);
  }
}

// What --check and --solution found wrong, as one check failure.
inline void throw_if_failed(const std::vector<std::string>& failures) {
  if (failures.empty()) return;
  std::string message = failures.front();
  for (std::size_t i = 1; i < failures.size(); ++i) message += "; " + failures[i];
  throw check_failure(message);
}

}  // namespace dpt::app
