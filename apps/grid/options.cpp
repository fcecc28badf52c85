// dpt-grid's options: the --help text and the parser, which checks each option and how they go together.
#include "grid/options.hpp"

#include <cmath>
#include <cstdint>
#include <limits>

#include "app_support/command_line.hpp"
#include "app_support/errors.hpp"

namespace dpt::app {

const char* const grid_usage =
    "usage: dpt-grid [--input FILE.csv|.f64|.f32 | --generate uniform|clustered --n N [--seed S]]\n"
    "                --dims 4x4 | 4x4x4 [--domain x0,y0[,z0]:x1,y1[,z1]] [--clamp] [--radius R]\n"
    "                [--solution 1..5|all] [--cells-out FILE] [--neighbors-out FILE] [--png FILE] [--check]\n"
    "                [--precision double|float]\n"
    "\n"
    "Puts particles into a uniform grid with the lecture's data-parallel solution — map each particle to its\n"
    "cell, sort by cell, find where each cell starts and ends — on this build's device system.\n"
    "\n"
    "  --input FILE.csv     particles from CSV: a header 'x,y' or 'x,y,z', then one particle per line\n"
    "  --input FILE.f64     particles as raw little-endian float64 (.f32: float32), x,y[,z] of each in turn\n"
    "  --generate KIND      N particles in the unit square/cube: uniform, or clustered (four tight clusters)\n"
    "  --n N, --seed S      how many particles to generate, and the generator's seed (default 1)\n"
    "  --dims 4x4 | 4x4x4   cells along x, y (and z); the number of parts sets the dimension\n"
    "  --domain LO:HI       the grid's box, e.g. 0,0:1,1 (default: the input's bounding box; generated: the\n"
    "                       unit box); a particle outside it is an error unless --clamp\n"
    "  --clamp              put particles outside the domain into the nearest cell instead\n"
    "  --radius R           count, for every particle, the others within distance <= R (0 < R <= cell size,\n"
    "                       up to 4 ulps of rounding)\n"
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
    "Prints the cell counts (as a table for small grids), the time of each stage (map, sort, boundary, query;\n"
    "the first three with GB/s of the bytes each must move: map reads the coordinates and writes a cell id per\n"
    "particle, sort reads and writes each (cell, particle) pair, boundary reads the cell ids and writes each\n"
    "cell's start and end) and of each solution. Exit status: 0 ok, 1 check failed or the run could not finish\n"
    "(not enough memory, a failed write), 2 bad input (one line naming the file and line; no output file is\n"
    "left behind).\n"
    "\n"
    "Under mpiexec -n N (builds with MPI) the cells are cut into slabs along the last axis, each rank owning\n"
    "slabs with about N-th of the particles and receiving those within two slabs for --radius; rank 0 reads and\n"
    "writes: the same files, byte for byte, as one process writes. Only solution 5 runs across ranks. On CUDA\n"
    "the particles go through pinned host buffers unless the MPI is CUDA-aware; the report says which.\n";

namespace {

// "4x4" or "4x4x4"
std::vector<int> parse_dims(const std::string& text) {
  std::vector<int> dims;
  std::string::size_type start = 0;
  while (true) {
    const auto x = text.find('x', start);
    const auto part = text.substr(start, x == std::string::npos ? std::string::npos : x - start);
    const long long cells = parse_int(part, "--dims");
    if (cells < 1 || cells > (1 << 30))
      throw input_error("--dims: every axis needs 1 to 2^30 cells (got " + part + ")");
    dims.push_back(static_cast<int>(cells));
    if (x == std::string::npos) break;
    start = x + 1;
  }
  if (dims.size() != 2 && dims.size() != 3) throw input_error("--dims must be AxB or AxBxC (got " + text + ")");
  // cell ids, counts and offsets are 32-bit (grid_index); the product in double, which cannot overflow here
  double cells = 1;
  for (const int d : dims) cells *= d;
  if (cells > std::numeric_limits<std::int32_t>::max()) {
    throw input_error("--dims: " + text + " is more cells than dpt-grid supports (2^31 - 1)");
  }
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
      bounds.push_back(parse_double(corner.substr(start, comma - start), "--domain"));
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

}  // namespace

std::optional<grid_options> parse_grid_options(int argc, const char* const argv[]) {
  command_line app{"dpt-grid"};
  std::string n, seed, dims, domain, radius, solution = "5", precision = "double";
  bool help = false;
  grid_options o;
  add_value_option(app, "input", o.input_path);
  add_value_option(app, "generate", o.generate);
  add_value_option(app, "n", n);
  add_value_option(app, "seed", seed);
  add_value_option(app, "dims", dims);
  add_value_option(app, "domain", domain);
  add_value_option(app, "radius", radius);
  add_value_option(app, "solution", solution);
  add_value_option(app, "cells-out", o.cells_out);
  add_value_option(app, "neighbors-out", o.neighbors_out);
  add_value_option(app, "png", o.png_out);
  add_value_option(app, "precision", precision);
  add_flag_option(app, "clamp", o.clamp);
  add_flag_option(app, "check", o.check);
  add_flag_option(app, "help", help);
  const auto positionals = parse_command_line(app, argc, argv);
  if (help) return std::nullopt;

  if (!positionals.empty()) throw input_error("unexpected argument " + quote_token(positionals[0]) + " (try --help)");
  if (given(app, "input") == given(app, "generate"))
    throw input_error("give either --input FILE.csv or --generate KIND");
  if (given(app, "generate")) {
    if (o.generate != "uniform" && o.generate != "clustered") {
      throw input_error("--generate must be uniform or clustered (got " + o.generate + ")");
    }
    if (!given(app, "n")) throw input_error("--generate needs --n N");
    o.n = parse_int_in(n, "--n", 0, std::numeric_limits<std::int32_t>::max());
    if (given(app, "seed"))
      o.seed = static_cast<std::uint64_t>(parse_int_in(seed, "--seed", 0, std::numeric_limits<long long>::max()));
  } else if (given(app, "n") || given(app, "seed")) {
    throw input_error("--n and --seed go with --generate");
  }
  if (!given(app, "dims")) throw input_error("--dims is required, e.g. --dims 4x4 (try --help)");
  o.dims = parse_dims(dims);
  if (given(app, "domain")) o.domain = parse_domain(domain, o.dims.size());
  if (given(app, "radius")) o.radius = parse_double(radius, "--radius");
  if (solution == "all") {
    o.solutions = {1, 2, 3, 4, 5};
  } else {
    const long long s = parse_int(solution, "--solution");
    if (s < 1 || s > 5) throw input_error("--solution must be 1 to 5 or all (got " + solution + ")");
    o.solutions = {static_cast<int>(s)};
  }
  if (!o.neighbors_out.empty() && !o.radius) throw input_error("--neighbors-out needs --radius R");
  if (precision != "double" && precision != "float") {
    throw input_error("--precision must be double or float (got " + precision + ")");
  }
  o.single_precision = precision == "float";
  return o;
}

}  // namespace dpt::app
