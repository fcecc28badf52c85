// A device vector's elements copied to the host, where the tour prints them.
#pragma once

#include <thrust/device_vector.h>
#include <thrust/host_vector.h>

namespace dpt::tour {

template <class T>
thrust::host_vector<T> to_host(const thrust::device_vector<T>& d) {
  return d;
}

}  // namespace dpt::tour
