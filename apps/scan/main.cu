// dpt-scan — prefix sums of a whole array with Thrust, with the hand-written kernels of custom_kernels (the
// lecture's three launches over three block scans, and the single-pass look-back scan) and, on CUDA builds,
// with cub::DeviceScan; timed, and optionally checked against a sequential scan.
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <iomanip>
#include <limits>
#include <sstream>
#include <optional>
#include <string>
#include <thrust/device_vector.h>
#include <thrust/execution_policy.h>
#include <thrust/fill.h>
#include <thrust/host_vector.h>
#include <thrust/scan.h>
#include <type_traits>
#include <vector>

#include <dpt/config.hpp>
#include <dpt/scan.hpp>
#if DPT_CUDA_DEVICE_SYSTEM
#  include <cub/device/device_scan.cuh>
#endif
#include <dpt/kernels/device_scan.hpp>
#include "scan/options.hpp"
#include "scan/scan_check.hpp"
#include "scan/scan_values.hpp"
#include "app_support/device_memory.hpp"
#include "app_support/errors.hpp"
#include "app_support/memory.hpp"
#include "app_support/output_file.hpp"
#include "app_support/timing.hpp"

namespace {

using dpt::app::first_mismatch;
using dpt::app::input_error;
using dpt::app::input_values;
using dpt::app::scan_options;

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

template <class T>
int run(const scan_options& opt) {
  // opened first, so that an --out that cannot be written is reported before any work
  std::optional<dpt::app::output_file> out;
  if (!opt.out.empty())
    out.emplace(dpt::app::named_path{"--out", opt.out}, std::vector<dpt::app::named_path>{{"--input", opt.input}});
  // --n is checked before its values are made; a file's values are read first (the file bounds their number)
  if (opt.input.empty()) {
    dpt::app::require_memory(scan_memory_needs<T>(opt.n, opt.impls.size(), true),
                             "a scan of " + std::to_string(opt.n) + " " + opt.type + " values",
                             dpt::app::this_builds_device_memory());
  }
  const input_values<T> in =
      opt.input.empty() ? dpt::app::random_values<T>(opt.n, opt.seed) : dpt::app::read_values<T>(opt.input);
  const std::vector<T>& values = in.values;
  const auto n = static_cast<std::int64_t>(values.size());
  if (!opt.input.empty()) {
    dpt::app::require_memory(scan_memory_needs<T>(n, opt.impls.size(), false),
                             opt.input + " (" + std::to_string(n) + " values)", dpt::app::this_builds_device_memory());
  }
  // Always computed: it is also what refuses inputs whose outputs overflow.
  const dpt::app::scan_reference<T> ref = dpt::app::reference_scan(in, opt.exclusive);

  const thrust::device_vector<T> d_in(values.begin(), values.end());
  thrust::device_vector<T> d_out(values.size());
  const bool on_gpu = DPT_CUDA_DEVICE_SYSTEM;
  std::printf("dpt-scan: %s scan (+) of %lld %s values (%s), device system %s\n",
              opt.exclusive ? "exclusive" : "inclusive", static_cast<long long>(n), opt.type.c_str(),
              opt.input.empty() ? ("seed " + std::to_string(opt.seed)).c_str() : opt.input.c_str(),
              dpt::device_system_name());
  if (!on_gpu) {
    std::string emulated;  // the hand-written kernels among the chosen implementations
    for (const auto& impl : opt.impls) {
      if (impl != "thrust" && impl != "cub") emulated += (emulated.empty() ? "" : ", ") + impl;
    }
    if (!emulated.empty()) {
      std::printf(
          "note: %s ran on the host SIMT runner (one fiber per CUDA thread on one core):\n"
          "      their times measure the emulation, not a GPU.\n",
          emulated.c_str());
    }
  }
  std::printf("%-12s %12s %10s%s\n", "impl", "time [ms]", "GB/s", opt.check ? "   check" : "");

  bool all_ok = true;
  std::vector<T> first_result;
  for (const auto& impl : opt.impls) {
    // GPU: one warm-up, then the median of 5. CPU builds: one run (the SIMT runner is slow, and exact timing
    // of an emulation says little).
    const int runs = on_gpu ? 5 : 1;
    if (on_gpu) run_impl(impl, d_in, d_out, opt.exclusive);
    dpt::app::synchronize_device();
    std::vector<double> seconds;
    for (int r = 0; r < runs; ++r) {
      thrust::fill(d_out.begin(), d_out.end(), T{0});  // every run must write every element
      dpt::app::synchronize_device();
      const auto start = std::chrono::steady_clock::now();
      run_impl(impl, d_in, d_out, opt.exclusive);
      dpt::app::synchronize_device();
      seconds.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
    }
    std::sort(seconds.begin(), seconds.end());
    const double median = seconds[seconds.size() / 2];
    const double gbps = median > 0 ? 2.0 * static_cast<double>(n) * sizeof(T) / median / 1e9 : 0;
    const thrust::host_vector<T> h_out(d_out);
    std::vector<T> result(h_out.begin(), h_out.end());
    std::string verdict;
    if (opt.check) {
      const auto bad = first_mismatch(result, ref);
      all_ok = all_ok && bad < 0;
      if (bad < 0) {
        verdict = "   ok";
      } else {
        std::ostringstream os;
        os << std::setprecision(std::numeric_limits<T>::max_digits10) << "   MISMATCH at " << bad << ": got "
           << +result[static_cast<std::size_t>(bad)] << ", expected " << +ref.values[static_cast<std::size_t>(bad)];
        verdict = os.str();
      }
    }
    std::printf("%-12s %12.3f %10.3f%s\n", impl.c_str(), median * 1e3, gbps, verdict.c_str());
    if (first_result.empty()) first_result = std::move(result);
  }

  if (!all_ok) throw dpt::app::check_failure("an implementation disagrees with the sequential scan");
  if (out) {
    out->stream() << std::setprecision(std::numeric_limits<T>::max_digits10);
    for (const T& v : first_result) out->stream() << +v << '\n';
    out->commit();
    std::printf("wrote %s (%s)\n", opt.out.c_str(), opt.impls.front().c_str());
  }
  return 0;
}

// The run a command line asks for, in the type it names.
int run(const scan_options& opt) {
  if (opt.type == "i32") return run<std::int32_t>(opt);
  if (opt.type == "i64") return run<std::int64_t>(opt);
  if (opt.type == "f32") return run<float>(opt);
  return run<double>(opt);
}

}  // namespace

int main(int argc, char* argv[]) {
  return dpt::app::run_app("dpt-scan", [&] {
    const auto opt = dpt::app::parse_scan_options(argc, argv);
    if (!opt) {
      std::fputs(dpt::app::scan_usage, stdout);
      return 0;
    }
    return run(*opt);
  });
}
