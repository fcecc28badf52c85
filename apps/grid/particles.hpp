// dpt-grid's particles on the host: read from a CSV file or generated, kept in double precision with the line each
// came from, and checked to fit the precision of the run (--precision float or double).
#pragma once

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <string>
#include <vector>

#include "grid/options.hpp"
#include "app_support/errors.hpp"

namespace dpt::app {

// The particles, on the host in double precision, and where they came from (for error messages).
struct particle_source {
  std::string name;  // the file, or "--generate KIND"
  std::vector<double> axis[3];
  std::vector<long long> lines;  // each particle's line in a CSV file; empty for raw files and generated ones
  std::size_t size() const { return axis[0].size(); }
};

// The particles of --input or --generate. A CSV file's header must match --dims; a raw .f32 or .f64 file holds
// each particle's --dims coordinates one after another (x, y[, z], as numpy's tofile writes an n × d array), so its
// size must be a whole number of particles. --generate makes N of them, seeded, uniform in the unit square or
// cube, or clustered (four tight Gaussian clusters, clamped to it).
particle_source load_particles(const grid_options& o);

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

inline const char* precision_name(float) {
  return "float";
}
inline const char* precision_name(double) {
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
      if (p.lines.empty()) throw input_error(p.name + ": particle " + std::to_string(i) + ": " + what);
      throw file_error(p.name, p.lines[i], what);
    }
  }
}

}  // namespace dpt::app
