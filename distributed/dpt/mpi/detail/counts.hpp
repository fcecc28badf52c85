// dpt/mpi/detail/counts.hpp — MPI's int element counts, and the displacements an MPI_Alltoallv takes.
#pragma once

#include <climits>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

namespace dpt::mpi::detail {

// n as an MPI count; std::length_error naming `what` ("dpt::mpi::spmv: a halo") past INT_MAX.
inline int as_count(std::int64_t n, const char* what) {
  if (n > INT_MAX) throw std::length_error(std::string(what) + " exceeds MPI's int counts");
  return static_cast<int>(n);
}

// The exclusive scan of the counts: where each rank's elements start.   [3, 0, 2] → [0, 3, 3]
inline std::vector<int> offsets_of(const std::vector<int>& counts) {
  std::vector<int> offsets(counts.size(), 0);
  for (std::size_t r = 1; r < counts.size(); ++r) offsets[r] = offsets[r - 1] + counts[r - 1];
  return offsets;
}

}  // namespace dpt::mpi::detail
