// dpt-grid's grid: the box it covers, in the run's precision, from --domain or from the particles.
#pragma once

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>

#include <dpt/grid.hpp>
#include "grid/options.hpp"
#include "grid/particles.hpp"
#include "app_support/errors.hpp"

namespace dpt::app {

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
dpt::uniform_grid<Dim, Real> choose_grid(const grid_options& o, const particle_source& p) {
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

}  // namespace dpt::app
