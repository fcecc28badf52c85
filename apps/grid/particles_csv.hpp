// Particle positions from a CSV file: a header line `x,y` or `x,y,z`, then one particle per line. Errors are
// input_errors naming the file and line, so dpt-grid exits with status 2.
#pragma once

#include <string>
#include <vector>

namespace dpt::app {

struct particle_table {
  int dimensions = 0;                   // 2 or 3, from the header
  std::vector<double> axis[3];          // coordinate a of particle i is axis[a][i]
  std::vector<long long> line_numbers;  // the line of the file each particle came from
  std::size_t size() const { return axis[0].size(); }
};

// Reads FILE. Blank lines are skipped; fields may have spaces around them; "nan" and "inf" parse (the grid
// rejects them later, with the line). A line with the wrong number of fields or a field that is not a number
// is an error.
particle_table read_particles_csv(const std::string& path);

}  // namespace dpt::app
