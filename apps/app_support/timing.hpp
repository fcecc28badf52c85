// Wall-clock timing for the apps. Thrust's algorithms on the default policies return when their work is done;
// CUDA builds synchronise the device around each timed run anyway, so that a time never includes work that
// was queued before it (or leaves out work still running).
#pragma once

#include <algorithm>
#include <chrono>
#include <stdexcept>
#include <string>
#include <vector>

#include <dpt/config.hpp>

#if DPT_CUDA_DEVICE_SYSTEM
#  include <cuda_runtime_api.h>
#endif

namespace dpt::app {

// Waits for the device to finish its queued work (CUDA builds); a no-op on the CPU device systems.
inline void synchronize_device() {
#if DPT_CUDA_DEVICE_SYSTEM
  const cudaError_t status = cudaDeviceSynchronize();
  if (status != cudaSuccess) throw std::runtime_error(std::string("CUDA: ") + cudaGetErrorString(status));
#endif
}

// Milliseconds that one call of `body` takes.
template <class Body>
double time_ms(Body&& body) {
  synchronize_device();
  const auto start = std::chrono::steady_clock::now();
  body();
  synchronize_device();
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
}

// Median time of `repeat` calls of `body` after one untimed warm-up call, in milliseconds, each call timed by
// `time(body)` (under mpiexec: from a barrier to a barrier, app_support/ranks.hpp).
template <class Body, class Time>
double median_ms(int repeat, Body&& body, Time&& time) {
  body();
  std::vector<double> ms;
  for (int i = 0; i < repeat; ++i) ms.push_back(time(body));
  std::sort(ms.begin(), ms.end());
  const auto n = ms.size();
  return n % 2 ? ms[n / 2] : 0.5 * (ms[n / 2 - 1] + ms[n / 2]);
}

// The same, each call timed alone (time_ms).
template <class Body>
double median_ms(int repeat, Body&& body) {
  return median_ms(repeat, body, [](auto& b) { return time_ms(b); });
}

}  // namespace dpt::app
