// A consumer of the installed dpt package: the lecture's segmented scan (dpt::algorithms), checked against the
// slide, and the hand-written single-pass scan (dpt::custom_kernels: on the SIMT runner unless the package is
// for CUDA), checked against std::partial_sum.
#include <cstdio>
#include <numeric>
#include <thrust/device_vector.h>
#include <thrust/host_vector.h>
#include <vector>

#include <dpt/config.hpp>
#include <dpt/kernels/device_scan.hpp>
#include <dpt/segmented_scan.hpp>

#if DPT_CUDA_DEVICE_SYSTEM
#  include <cuda_runtime_api.h>
#endif

int main() {
#if DPT_CUDA_DEVICE_SYSTEM
  int devices = 0;
  if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
    std::puts("skipped: no device");
    return 77;
  }
#endif
  const std::vector<int> data{1, 2, 6, 1, 2, 3, 4}, flags{1, 0, 1, 1, 0, 0, 0};
  const thrust::device_vector<int> d_data(data.begin(), data.end()), d_flags(flags.begin(), flags.end());
  thrust::device_vector<int> d_out(data.size());
  dpt::segmented_exclusive_scan(thrust::device, d_data.begin(), d_data.end(), d_flags.begin(), d_out.begin(), 0);
  const thrust::host_vector<int> out = d_out;
  const std::vector<int> expected{0, 1, 0, 0, 1, 3, 6};
  const bool ok = std::vector<int>(out.begin(), out.end()) == expected;
  std::printf("consumer (%s): segmented exclusive scan %s\n", dpt::device_system_name(), ok ? "matches" : "DIFFERS");

  std::vector<int> values(5000);
  std::iota(values.begin(), values.end(), -2500);
  std::vector<int> sums(values.size());
  std::partial_sum(values.begin(), values.end(), sums.begin());
  const thrust::device_vector<int> d_values(values.begin(), values.end());
  thrust::device_vector<int> d_sums(values.size());
  dpt::kernels::inclusive_scan(dpt::kernels::device_scan_algorithm::single_pass,
                               thrust::raw_pointer_cast(d_values.data()), thrust::raw_pointer_cast(d_sums.data()),
                               static_cast<std::int64_t>(values.size()), dpt::kernels::sum{});
  const thrust::host_vector<int> got = d_sums;
  const bool kernel_ok = std::vector<int>(got.begin(), got.end()) == sums;
  std::printf("consumer (%s): single-pass kernel scan %s\n", dpt::device_system_name(),
              kernel_ok ? "matches" : "DIFFERS");
  return ok && kernel_ok ? 0 : 1;
}
