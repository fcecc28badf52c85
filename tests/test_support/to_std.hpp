// Copies a device vector into a std::vector, for comparing with host references.
#pragma once

#include <thrust/device_vector.h>
#include <thrust/host_vector.h>
#include <vector>

namespace dpt::test {

template <class T>
std::vector<T> to_std(const thrust::device_vector<T>& d) {
  const thrust::host_vector<T> h = d;
  return std::vector<T>(h.begin(), h.end());
}

}  // namespace dpt::test
