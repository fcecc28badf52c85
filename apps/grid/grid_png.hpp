// A picture of a particle grid: every particle a dot coloured by its cell, the cell boundaries drawn over them.
// 3-D grids are seen from above (projected onto x–y), the colour still that of the 3-D cell. A particle beyond
// the domain (--clamp) is drawn at the domain's nearest edge, beside the cell it was put into.
#pragma once

#include <cstdint>
#include <ostream>
#include <vector>

namespace dpt::app {

struct grid_picture {
  double lower[2], upper[2];  // the x–y extent of the domain
  int cells[2];               // cells along x and y
  const std::vector<double>* x;
  const std::vector<double>* y;
  const std::vector<std::uint32_t>* cell;  // the cell id of every particle
};

// Writes the picture as a PNG (stb_image_write), at most 1024 pixels on its longer side.
void write_grid_png(std::ostream& out, const grid_picture& picture);

}  // namespace dpt::app
