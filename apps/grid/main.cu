// dpt-grid — particles into a uniform 2-D or 3-D grid with the lecture's sort-based solution (map, sort,
// boundary detection), optionally the other four solutions for comparison, and the radius-R neighbour counts;
// timed per stage, checked against sequential references on request.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <memory>
#include <optional>
#include <random>
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
#include "grid/grid_png.hpp"
#include "grid/particles_csv.hpp"
#include "support/cli.hpp"
#include "support/device_memory.hpp"
#include "support/errors.hpp"
#include "support/memory.hpp"
#include "support/output_file.hpp"
#include "support/timing.hpp"

namespace {

using dpt::app::input_error;
using dpt::app::time_ms;

const char* const usage =
    "usage: dpt-grid [--input FILE.csv | --generate uniform|clustered --n N [--seed S]] --dims 4x4 | 4x4x4\n"
    "                [--domain x0,y0[,z0]:x1,y1[,z1]] [--clamp] [--radius R] [--solution 1..5|all]\n"
    "                [--cells-out FILE] [--neighbors-out FILE] [--png FILE] [--check] [--precision double|float]\n"
    "\n"
    "Puts particles into a uniform grid with the lecture's data-parallel solution — map each particle to its\n"
    "cell, sort by cell, find where each cell starts and ends — on this build's device system.\n"
    "\n"
    "  --input FILE.csv     particles from CSV: a header 'x,y' or 'x,y,z', then one particle per line\n"
    "  --generate KIND      N particles in the unit square/cube: uniform, or clustered (four tight clusters)\n"
    "  --n N, --seed S      how many particles to generate, and the generator's seed (default 1)\n"
    "  --dims 4x4 | 4x4x4   cells along x, y (and z); the number of parts sets the dimension\n"
    "  --domain LO:HI       the grid's box, e.g. 0,0:1,1 (default: the input's bounding box; generated: the\n"
    "                       unit box); a particle outside it is an error unless --clamp\n"
    "  --clamp              put particles outside the domain into the nearest cell instead\n"
    "  --radius R           count, for every particle, the others within distance <= R (R <= cell size)\n"
    "  --solution S         also run solution S of the lecture (1 global lock, 2 lock per cell, 3 task per\n"
    "                       cell, 4 partial grids + merge, 5 sort) or all of them; each is timed and compared\n"
    "                       with solution 5 (default: 5)\n"
    "  --cells-out FILE     one line per cell, row-major with x fastest: its number of particles\n"
    "  --neighbors-out FILE one line per particle, in input order: its neighbour count (needs --radius)\n"
    "  --png FILE           the particles coloured by cell, grid lines over them (3-D: seen from above)\n"
    "  --check              check every particle's cell against a sequential loop, the solutions against each\n"
    "                       other, and the neighbour counts by brute force (all pairs up to 20000 particles,\n"
    "                       above that a random sample of particles against all others)\n"
    "  --precision P        double (default) or float coordinates\n"
    "\n"
    "Prints the cell counts (as a table for small grids), the time of each stage (map, sort, boundary, query)\n"
    "and of each solution. Exit status: 0 ok, 1 check failed, 2 bad input (one line naming the file and line;\n"
    "no output file is left behind).\n";

struct options {
  std::string input_path, generate;
  long long n = 0;
  std::uint64_t seed = 1;
  std::vector<int> dims;
  std::optional<std::vector<double>> domain;  // lower then upper, dims.size() each
  bool clamp = false, check = false, single_precision = false;
  std::optional<double> radius;
  std::vector<int> solutions;
  std::string cells_out, neighbors_out, png_out;
};

// "4x4" or "4x4x4"
std::vector<int> parse_dims(const std::string& text) {
  std::vector<int> dims;
  std::string::size_type start = 0;
  while (true) {
    const auto x = text.find('x', start);
    const auto part = text.substr(start, x == std::string::npos ? std::string::npos : x - start);
    const long long cells = dpt::app::parse_int(part, "--dims");
    if (cells < 1 || cells > (1 << 30))
      throw input_error("--dims: every axis needs 1 to 2^30 cells (got " + part + ")");
    dims.push_back(static_cast<int>(cells));
    if (x == std::string::npos) break;
    start = x + 1;
  }
  if (dims.size() != 2 && dims.size() != 3) throw input_error("--dims must be AxB or AxBxC (got " + text + ")");
  return dims;
}

// "x0,y0[,z0]:x1,y1[,z1]"
std::vector<double> parse_domain(const std::string& text, std::size_t dimensions) {
  const auto colon = text.find(':');
  if (colon == std::string::npos) throw input_error("--domain must be LO:HI, e.g. 0,0:1,1 (got " + text + ")");
  std::vector<double> bounds;
  for (const auto& corner : {text.substr(0, colon), text.substr(colon + 1)}) {
    std::string::size_type start = 0;
    std::size_t count = 0;
    while (true) {
      const auto comma = corner.find(',', start);
      bounds.push_back(dpt::app::parse_double(corner.substr(start, comma - start), "--domain"));
      ++count;
      if (comma == std::string::npos) break;
      start = comma + 1;
    }
    if (count != dimensions) {
      throw input_error("--domain: each corner needs " + std::to_string(dimensions) +
                        " coordinates, like --dims (got " + text + ")");
    }
  }
  for (std::size_t a = 0; a < dimensions; ++a) {
    if (!(std::isfinite(bounds[a]) && std::isfinite(bounds[dimensions + a]) && bounds[a] < bounds[dimensions + a])) {
      throw input_error("--domain: each axis needs finite bounds with lower < upper (got " + text + ")");
    }
  }
  return bounds;
}

options parse_options(const dpt::app::cli& args) {
  options o;
  if (!args.positionals().empty())
    throw input_error("unexpected argument '" + args.positionals()[0] + "' (try --help)");
  if (args.has("input") == args.has("generate")) throw input_error("give either --input FILE.csv or --generate KIND");
  o.input_path = args.get_or("input", "");
  o.generate = args.get_or("generate", "");
  if (args.has("generate")) {
    if (o.generate != "uniform" && o.generate != "clustered") {
      throw input_error("--generate must be uniform or clustered (got " + o.generate + ")");
    }
    if (!args.has("n")) throw input_error("--generate needs --n N");
    o.n = args.get_int("n", 0, 0, std::numeric_limits<std::int32_t>::max());
    o.seed = static_cast<std::uint64_t>(args.get_int("seed", 1, 0, std::numeric_limits<long long>::max()));
  } else if (args.has("n") || args.has("seed")) {
    throw input_error("--n and --seed go with --generate");
  }
  if (!args.has("dims")) throw input_error("--dims is required, e.g. --dims 4x4 (try --help)");
  o.dims = parse_dims(*args.get("dims"));
  if (args.has("domain")) o.domain = parse_domain(*args.get("domain"), o.dims.size());
  o.clamp = args.has("clamp");
  o.check = args.has("check");
  if (args.has("radius")) o.radius = args.get_double("radius", 0);
  const std::string solution = args.get_or("solution", "5");
  if (solution == "all") {
    o.solutions = {1, 2, 3, 4, 5};
  } else {
    const long long s = dpt::app::parse_int(solution, "--solution");
    if (s < 1 || s > 5) throw input_error("--solution must be 1 to 5 or all (got " + solution + ")");
    o.solutions = {static_cast<int>(s)};
  }
  o.cells_out = args.get_or("cells-out", "");
  o.neighbors_out = args.get_or("neighbors-out", "");
  o.png_out = args.get_or("png", "");
  if (!o.neighbors_out.empty() && !o.radius) throw input_error("--neighbors-out needs --radius R");
  const std::string precision = args.get_or("precision", "double");
  if (precision != "double" && precision != "float") {
    throw input_error("--precision must be double or float (got " + precision + ")");
  }
  o.single_precision = precision == "float";
  return o;
}

// The particles, on the host in double precision, and where they came from (for error messages).
struct particle_source {
  std::string name;  // the file, or "--generate"
  std::vector<double> axis[3];
  std::vector<long long> lines;  // empty when generated
  std::size_t size() const { return axis[0].size(); }
};

particle_source load_particles(const options& o) {
  particle_source source;
  const int dimensions = static_cast<int>(o.dims.size());
  if (!o.input_path.empty()) {
    auto table = dpt::app::read_particles_csv(o.input_path);
    if (table.dimensions != dimensions) {
      throw dpt::app::file_error(o.input_path, 1,
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

// The shortest decimal that reads back as x in T, for messages that must tell close numbers apart.
template <class T>
std::string shortest(T x) {
  char text[64];
  for (int digits = 1;; ++digits) {
    std::snprintf(text, sizeof text, "%.*g", digits, static_cast<double>(x));
    if (digits >= std::numeric_limits<T>::max_digits10 || static_cast<T>(std::strtod(text, nullptr)) == x) {
      return text;
    }
  }
}

const char* precision_name(float) {
  return "float";
}
const char* precision_name(double) {
  return "double";
}

// Whether a finite double lies beyond Real's range (converting it would be undefined).
template <class Real>
bool out_of_range(double x) {
  return std::isfinite(x) && std::abs(x) > static_cast<double>(std::numeric_limits<Real>::max());
}

// Every coordinate must fit Real; an infinite or NaN one is left for the grid to report.
template <class Real>
void require_representable(const particle_source& p, int dimensions) {
  for (int a = 0; a < dimensions; ++a) {
    for (std::size_t i = 0; i < p.size(); ++i) {
      if (!out_of_range<Real>(p.axis[a][i])) continue;
      const std::string what = std::string(1, "xyz"[a]) + ": " + shortest(p.axis[a][i]) +
                               " is out of range for --precision " + precision_name(Real());
      if (p.lines.empty()) throw input_error(p.name + ": " + what);
      throw dpt::app::file_error(p.name, p.lines[i], what);
    }
  }
}

// An axis of zero width around v: the wider of v ± 0.5 and the Reals next to v (farther apart where Real is
// coarse), only upwards from the lowest finite Real and downwards from the highest.
template <class Real>
void widen(Real& lower, Real& upper) {
  const Real v = lower, inf = std::numeric_limits<Real>::infinity();
  lower = std::min<Real>(v - Real(0.5), std::nextafter(v, -inf));
  upper = std::max<Real>(v + Real(0.5), std::nextafter(v, inf));
  if (!std::isfinite(lower)) lower = v;  // v is the lowest finite Real: widen upwards only
  if (!std::isfinite(upper)) upper = v;  // v is the highest: downwards only
}

// The grid, in Real: over --domain, else the unit box for generated (or no) particles, else the bounding box
// of the finite coordinates as Real holds them, an axis of zero width (one distinct value in Real) widened by
// widen(). Bad input: a --domain bound beyond Real's range, --domain bounds that become equal in Real, or a
// box whose width upper − lower overflows Real.
template <int Dim, class Real>
dpt::uniform_grid<Dim, Real> choose_grid(const options& o, const particle_source& p) {
  dpt::uniform_grid<Dim, Real> grid;
  for (int a = 0; a < Dim; ++a) {
    const std::string axis(1, "xyz"[a]);
    Real lo = std::numeric_limits<Real>::infinity(), hi = -lo;
    if (o.domain) {
      const double lower = (*o.domain)[a], upper = (*o.domain)[Dim + a];
      for (const double bound : {lower, upper}) {
        if (out_of_range<Real>(bound)) {
          throw input_error("--domain: " + shortest(bound) + " is out of range for --precision " +
                            precision_name(Real()));
        }
      }
      lo = static_cast<Real>(lower);
      hi = static_cast<Real>(upper);
      if (!(lo < hi)) {
        throw input_error("--domain: the bounds " + shortest(lower) + " and " + shortest(upper) + " of axis " + axis +
                          " are both " + shortest(lo) + " in " + precision_name(Real()) + " precision");
      }
    } else {
      for (const double x : p.axis[a]) {
        if (std::isfinite(x)) {
          lo = std::min(lo, static_cast<Real>(x));
          hi = std::max(hi, static_cast<Real>(x));
        }
      }
      if (!o.generate.empty() || lo > hi) {
        lo = 0;
        hi = 1;
      } else if (lo == hi) {
        widen(lo, hi);
      }
    }
    if (!std::isfinite(hi - lo)) {
      const std::string box = o.domain ? std::string("--domain") : p.name + ": the particles' bounding box";
      throw input_error(box + " is too wide along " + axis + ": " + shortest(hi) + " - " + shortest(lo) +
                        " overflows " + precision_name(Real()) + (o.domain ? "" : " (give a narrower --domain)"));
    }
    grid.lower[a] = lo;
    grid.upper[a] = hi;
    grid.cells[a] = o.dims[a];
  }
  return grid;
}

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

// A lower bound on what dpt-grid holds at once for n particles in `cells` cells (`with_input`: the particles
// themselves too, as generated doubles): on the device the positions, each particle's cell and index (and
// neighbour count), each cell's start and end; on the host the starts, ends and counts copied back.
template <int Dim, class Real>
std::vector<dpt::app::memory_need> grid_memory_needs(const options& o, double n, double cells, bool with_input) {
  const double index = sizeof(index_type);
  return {{(with_input ? 8.0 * Dim * n : 0) + 3 * index * cells,
           (Dim * sizeof(Real) + (o.radius ? 3 : 2) * index) * n + 2 * index * cells}};
}

template <int Dim, class Real>
int run(const options& o) {
  double cells = 1;
  for (const int d : o.dims) cells *= d;
  // --generate's particles are checked before they are made (more cells than dpt-grid supports are refused below)
  if (o.input_path.empty() && cells <= std::numeric_limits<std::int32_t>::max()) {
    dpt::app::require_memory(
        grid_memory_needs<Dim, Real>(o, static_cast<double>(o.n), cells, true),
        std::to_string(o.n) + " particles in " + std::to_string(static_cast<long long>(cells)) + " cells",
        dpt::app::this_builds_device_memory());
  }
  const particle_source source = load_particles(o);
  const std::ptrdiff_t n = static_cast<std::ptrdiff_t>(source.size());
  require_representable<Real>(source, Dim);
  const auto grid = choose_grid<Dim, Real>(o, source);
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
  Real radius = 0;
  if (o.radius) {
    radius = static_cast<Real>(out_of_range<Real>(*o.radius) ? 0 : *o.radius);
    if (out_of_range<Real>(*o.radius) || (*o.radius != 0 && radius == 0)) {
      throw input_error("--radius: " + shortest(*o.radius) + " is out of range for --precision " +
                        precision_name(Real()));
    }
    try {
      dpt::validate_neighbor_radius(grid, radius);
    } catch (const std::invalid_argument& e) {
      throw input_error(std::string("--radius: ") + e.what());
    }
  }
  // Output files are opened before the work, so that an unwritable path fails fast; they appear only on commit.
  std::unique_ptr<dpt::app::output_file> cells_file, neighbors_file, png_file;
  if (!o.cells_out.empty()) cells_file = std::make_unique<dpt::app::output_file>(o.cells_out);
  if (!o.neighbors_out.empty()) neighbors_file = std::make_unique<dpt::app::output_file>(o.neighbors_out);
  if (!o.png_out.empty()) png_file = std::make_unique<dpt::app::output_file>(o.png_out);

  std::printf("dpt-grid: %td particles (%s), %dD grid of %lld cells", n, source.name.c_str(), Dim,
              static_cast<long long>(cell_count));
  for (int a = 0; a < Dim; ++a)
    std::printf("%s[%s, %s]", a ? " x " : " over ", shortest(grid.lower[a]).c_str(), shortest(grid.upper[a]).c_str());
  std::printf(", %s precision, %s device system\n", o.single_precision ? "single" : "double",
              dpt::device_system_name());

  thrust::device_vector<Real> axis[Dim];
  for (int a = 0; a < Dim; ++a) axis[a] = thrust::device_vector<Real>(source.axis[a].begin(), source.axis[a].end());
  dpt::soa_positions<Dim, typename thrust::device_vector<Real>::const_iterator> positions;
  for (int a = 0; a < Dim; ++a) positions.axis[a] = axis[a].cbegin();

  // The lecture's solution 5, one stage at a time.
  thrust::device_vector<index_type> sorted_cells(n), sorted_particles(n), cell_start(cell_count), cell_end(cell_count);
  double map_ms = 0, sort_ms = 0, boundary_ms = 0;
  map_ms = rejecting_bad_input(source, [&] {
    return time_ms(
        [&] { dpt::map_particles_to_cells(thrust::device, grid, positions, n, sorted_cells.begin(), outside); });
  });
  sort_ms = time_ms([&] {
    dpt::sort_particles_by_cell(thrust::device, sorted_cells.begin(), sorted_cells.end(), sorted_particles.begin());
  });
  boundary_ms = time_ms([&] {
    dpt::find_cell_boundaries(thrust::device, sorted_cells.begin(), sorted_cells.end(), cell_count, cell_start.begin(),
                              cell_end.begin());
  });
  const dpt::sorted_grid<decltype(sorted_cells.begin()), decltype(sorted_particles.begin()),
                         decltype(cell_start.begin())>
      sorted{sorted_cells.begin(), sorted_particles.begin(), n, cell_start.begin(), cell_end.begin()};

  thrust::device_vector<index_type> neighbor_counts;
  double query_ms = 0;
  if (o.radius) {
    neighbor_counts.resize(n);
    query_ms = rejecting_bad_input(source, [&] {
      return time_ms(
          [&] { dpt::count_neighbors(thrust::device, grid, positions, sorted, radius, neighbor_counts.begin()); });
    });
  }

  const auto starts = to_host(cell_start), ends = to_host(cell_end);
  std::vector<index_type> counts(cell_count);
  for (std::int64_t c = 0; c < cell_count; ++c) counts[c] = ends[c] - starts[c];
  print_cell_counts(o.dims, counts);

  std::printf("\nstages (solution 5: map, sort, boundary detection%s):\n", o.radius ? "; neighbour query" : "");
  std::printf("  map       %10.3f ms\n  sort      %10.3f ms\n  boundary  %10.3f ms\n", map_ms, sort_ms, boundary_ms);
  if (o.radius) {
    std::printf("  query     %10.3f ms   (radius %g; %.2f neighbours per particle)\n", query_ms, *o.radius,
                n ? thrust::reduce(thrust::device, neighbor_counts.begin(), neighbor_counts.end(), 0.0) / n : 0.0);
  }

  // The lecture's solutions, each timed, each compared in canonical form with solution 5.
  std::vector<std::string> failures;
  if (!o.solutions.empty()) {
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
  }

  std::vector<index_type> host_counts;
  if (o.radius) host_counts = to_host(neighbor_counts);
  std::vector<index_type> particle_cell;  // every particle's cell, for --check and --png
  if (o.check || png_file) {
    const auto cells_sorted = to_host(sorted_cells);
    const auto particles_sorted = to_host(sorted_particles);
    particle_cell.resize(n);
    for (std::ptrdiff_t k = 0; k < n; ++k) particle_cell[particles_sorted[k]] = cells_sorted[k];
  }

  if (o.check) {
    // every particle's cell by a sequential loop, in the same arithmetic
    std::ptrdiff_t wrong_cells = 0;
    for (std::ptrdiff_t i = 0; i < n; ++i) {
      std::int64_t cell = 0, stride = 1;
      for (int a = 0; a < Dim; ++a) {
        const Real x = static_cast<Real>(source.axis[a][i]);
        const Real t = (x - grid.lower[a]) / (grid.upper[a] - grid.lower[a]) * Real(grid.cells[a]);
        const auto k = static_cast<std::int64_t>(std::clamp<Real>(std::floor(t), 0, Real(grid.cells[a] - 1)));
        cell += k * stride;
        stride *= grid.cells[a];
      }
      wrong_cells += cell != particle_cell[i];
    }
    if (wrong_cells) failures.push_back(std::to_string(wrong_cells) + " particles in the wrong cell");
    // neighbour counts by brute force: all pairs up to 20000 particles, else a sample costing as much
    std::ptrdiff_t sampled = 0, wrong_counts = 0;
    if (o.radius && n > 0) {
      const std::ptrdiff_t budget = 20000LL * 20000LL;
      const std::ptrdiff_t samples = n <= 20000 ? n : std::max<std::ptrdiff_t>(1, budget / n);
      std::mt19937_64 rng(12345);
      std::uniform_int_distribution<std::ptrdiff_t> pick(0, n - 1);
      for (std::ptrdiff_t s = 0; s < samples; ++s) {
        const std::ptrdiff_t i = samples == n ? s : pick(rng);
        Real p[Dim];
        for (int a = 0; a < Dim; ++a) p[a] = static_cast<Real>(source.axis[a][i]);
        index_type count = 0;
        for (std::ptrdiff_t j = 0; j < n; ++j) {
          if (j == i) continue;
          Real q[Dim];
          for (int a = 0; a < Dim; ++a) q[a] = static_cast<Real>(source.axis[a][j]);
          // distance <= R as the query decides it: in Real, from the Real positions
          count += dpt::within_radius(p, q, radius);
        }
        wrong_counts += count != host_counts[i];
      }
      sampled = samples;
      if (wrong_counts)
        failures.push_back(std::to_string(wrong_counts) + " of " + std::to_string(samples) + " neighbour counts wrong");
    }
    std::printf("\ncheck: %td particles' cells against a sequential loop: %td wrong", n, wrong_cells);
    if (o.radius) std::printf("; neighbour counts of %td particles by brute force: %td wrong", sampled, wrong_counts);
    std::printf("\n");
  }

  if (cells_file) {
    for (const auto c : counts) cells_file->stream() << c << '\n';
  }
  if (neighbors_file) {
    for (const auto c : host_counts) neighbors_file->stream() << c << '\n';
  }
  if (png_file) {
    const int cells_y = Dim > 1 ? o.dims[1] : 1;
    const dpt::app::grid_picture picture{{double(grid.lower[0]), double(grid.lower[1])},
                                         {double(grid.upper[0]), double(grid.upper[1])},
                                         {o.dims[0], cells_y},
                                         &source.axis[0],
                                         &source.axis[1],
                                         &particle_cell};
    dpt::app::write_grid_png(png_file->stream(), picture);
  }
  if (!failures.empty()) {
    std::string message = failures.front();
    for (std::size_t i = 1; i < failures.size(); ++i) message += "; " + failures[i];
    throw dpt::app::check_failure(message);
  }
  for (auto* file : {cells_file.get(), neighbors_file.get(), png_file.get()}) {
    if (file) file->commit();
  }
  return 0;
}

}  // namespace

int main(int argc, char* argv[]) {
  return dpt::app::run_app("dpt-grid", [&] {
    const dpt::app::cli args(argc, argv,
                             {"input", "generate", "n", "seed", "dims", "domain", "radius", "solution", "cells-out",
                              "neighbors-out", "png", "precision"},
                             {"clamp", "check", "help"});
    if (args.has("help")) {
      std::fputs(usage, stdout);
      return 0;
    }
    const options o = parse_options(args);
    const bool three_d = o.dims.size() == 3;
    if (o.single_precision) return three_d ? run<3, float>(o) : run<2, float>(o);
    return three_d ? run<3, double>(o) : run<2, double>(o);
  });
}
