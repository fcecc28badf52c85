// dpt-scan's implementations, each run on a device copy of the values (Thrust, the hand-written kernels of
// custom_kernels and, on CUDA builds, CUB), and the memory a run holds.
#pragma once

#include <cstdint>
#include <string>
#include <thrust/device_vector.h>
#include <thrust/execution_policy.h>
#include <thrust/scan.h>
#include <type_traits>
#include <vector>

#include <dpt/config.hpp>
#if DPT_CUDA_DEVICE_SYSTEM
#  include <cub/device/device_scan.cuh>
#endif
#include <dpt/kernels/device_scan.hpp>
#include <dpt/scan.hpp>
#include "app_support/memory.hpp"

namespace dpt::app {

#if DPT_CUDA_DEVICE_SYSTEM
template <class T>
void cub_scan(const T* in, T* out, std::int64_t n, bool exclusive) {
  std::size_t bytes = 0;
  auto call = [&](void* temp) {
    return exclusive ? cub::DeviceScan::ExclusiveSum(temp, bytes, in, out, n)
                     : cub::DeviceScan::InclusiveSum(temp, bytes, in, out, n);
  };
  dpt::kernels::detail::check(call(nullptr), "cub::DeviceScan (size query)");
  thrust::device_vector<unsigned char> temp(bytes);
  dpt::kernels::detail::check(call(thrust::raw_pointer_cast(temp.data())), "cub::DeviceScan");
}
#endif

// What the implementations add in: a float itself, an integer as its unsigned twin. The same bits and the same
// sums where they fit, but wrap-around is defined where signed overflow is not: an exclusive scan's total (which
// every implementation computes) or a run a parallel scan adds first may overflow, and no written output that fits
// changes. reference_scan refuses the outputs that do not fit.
template <class T, bool = std::is_integral_v<T>>
struct summed_as {
  using type = T;
};
template <class T>
struct summed_as<T, true> {
  using type = std::make_unsigned_t<T>;
};

// Runs one implementation on the device copy of the input.
template <class T>
void run_impl(const std::string& impl, const thrust::device_vector<T>& in, thrust::device_vector<T>& out,
              bool exclusive) {
  namespace k = dpt::kernels;
  using S = typename summed_as<T>::type;  // an int may be read and written as its unsigned type ([basic.lval])
  const S* d_in = reinterpret_cast<const S*>(thrust::raw_pointer_cast(in.data()));
  S* d_out = reinterpret_cast<S*>(thrust::raw_pointer_cast(out.data()));
  const auto n = static_cast<std::int64_t>(in.size());
  if (impl == "thrust") {
    // Raw pointers, not device_vector iterators: Thrust 3.0's sequential scan (the OMP/TBB backends for
    // scans) binds a null policy reference when it dereferences device_reference, which UBSan rejects.
    if (exclusive)
      thrust::exclusive_scan(thrust::device, d_in, d_in + n, d_out);
    else
      thrust::inclusive_scan(thrust::device, d_in, d_in + n, d_out);
    return;
  }
  if (impl == "cub") {
#if DPT_CUDA_DEVICE_SYSTEM
    cub_scan(d_in, d_out, n, exclusive);
#endif
    return;
  }
  const auto algorithm = impl == "lecture"    ? k::device_scan_algorithm::three_launch_lecture
                         : impl == "shfl"     ? k::device_scan_algorithm::three_launch_shuffle
                         : impl == "blelloch" ? k::device_scan_algorithm::three_launch_blelloch
                                              : k::device_scan_algorithm::single_pass;
  if (exclusive)
    k::exclusive_scan(algorithm, d_in, d_out, n, S{0}, k::sum{});
  else
    k::inclusive_scan(algorithm, d_in, d_out, n, k::sum{});
}

// What dpt-scan holds at once, for n values of type T (`with_input`: the values themselves too): the sequential
// reference (and floats' error bounds), the input, the output and a scan's scratch on the device
// (dpt::scan_temporary_bytes, which bounds Thrust's scan and CUB's), and an output back on the host twice (as
// copied, then as a vector; with several implementations the first one's is kept for --out).
template <class T>
std::vector<dpt::app::memory_need> scan_memory_needs(std::int64_t n, std::size_t impls, bool with_input) {
  const double bytes = static_cast<double>(n) * sizeof(T);
  const double bounds = std::is_floating_point_v<T> ? 8.0 * static_cast<double>(n) : 0;
  const auto scratch = static_cast<double>(dpt::scan_temporary_bytes<T>(n));
  return {{(with_input ? bytes : 0) + bytes * (impls > 1 ? 4 : 3) + bounds, 2 * bytes + scratch}};
}

}  // namespace dpt::app
