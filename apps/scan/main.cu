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
#include "scan/options.hpp"
#include "scan/scan_check.hpp"
#include "scan/scan_impls.hpp"
#include "scan/scan_values.hpp"
#if DPT_WITH_MPI
#  include "scan/across_ranks.hpp"
#endif
#include "app_support/device_memory.hpp"
#include "app_support/errors.hpp"
#include "app_support/memory.hpp"
#include "app_support/output_file.hpp"
#include "app_support/timing.hpp"

namespace {

using dpt::app::first_mismatch;
using dpt::app::input_error;
using dpt::app::input_values;
using dpt::app::run_impl;
using dpt::app::scan_options;

template <class T>
int run(const scan_options& opt) {
  // opened first, so that an --out that cannot be written is reported before any work
  std::optional<dpt::app::output_file> out;
  if (!opt.out.empty())
    out.emplace(dpt::app::named_path{"--out", opt.out}, std::vector<dpt::app::named_path>{{"--input", opt.input}});
  // --n is checked before its values are made; a file's values are read first (the file bounds their number)
  if (opt.input.empty()) {
    dpt::app::require_memory(dpt::app::scan_memory_needs<T>(opt.n, opt.impls.size(), true),
                             "a scan of " + std::to_string(opt.n) + " " + opt.type + " values",
                             dpt::app::this_builds_device_memory());
  }
  const input_values<T> in =
      opt.input.empty() ? dpt::app::random_values<T>(opt.n, opt.seed) : dpt::app::read_values<T>(opt.input);
  const std::vector<T>& values = in.values;
  const auto n = static_cast<std::int64_t>(values.size());
  if (!opt.input.empty()) {
    dpt::app::require_memory(dpt::app::scan_memory_needs<T>(n, opt.impls.size(), false),
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
    bool ok = true;
    const std::string verdict = opt.check ? dpt::app::check_verdict(result, ref, ok) : "";
    all_ok = all_ok && ok;
    std::printf("%-12s %12.3f %10.3f%s\n", impl.c_str(), median * 1e3, gbps, verdict.c_str());
    if (first_result.empty()) first_result = std::move(result);
  }

  if (!all_ok) throw dpt::app::check_failure("an implementation disagrees with the sequential scan");
  if (out) {
    dpt::app::write_values(out->stream(), first_result);
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
#if DPT_WITH_MPI
  // started by mpiexec: every rank scans a slice (scan/across_ranks.hpp)
  if (dpt::mpi::launched_by_mpiexec()) return dpt::app::main_across_ranks(argc, argv);
#endif
  return dpt::app::run_app("dpt-scan", [&] {
    const auto opt = dpt::app::parse_scan_options(argc, argv);
    if (!opt) {
      std::fputs(dpt::app::scan_usage, stdout);
      return 0;
    }
    return run(*opt);
  });
}
