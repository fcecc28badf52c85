// dpt-histogram — NumPy's histogram(a, bins=K, range=(lo, hi)) computed with the lecture's data-parallel recipe
// (map to bin ids, sort, find where each bin starts, sizes from the starts) and its rivals (binary search,
// reduce_by_key, atomics, privatised atomics, CUB); every method timed, all checked to agree, and with --check
// against a sequential count.
#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <memory>
#include <stdexcept>
#include <string>
#include <thrust/device_vector.h>
#include <thrust/execution_policy.h>
#include <thrust/host_vector.h>
#include <type_traits>
#include <variant>
#include <vector>

#include <dpt/config.hpp>
#include <dpt/context.hpp>
#include <dpt/histogram.hpp>
#include "histogram/generate_values.hpp"
#include "histogram/histogram_bars.hpp"
#include "histogram/histogram_png.hpp"
#include "histogram/options.hpp"
#include "histogram/sequential_histogram.hpp"
#include "histogram/values_file.hpp"
#include "histogram/run_report.hpp"
#if DPT_WITH_MPI
#  include "histogram/across_ranks.hpp"
#endif
#include "app_support/device_memory.hpp"
#include "app_support/errors.hpp"
#include "app_support/memory.hpp"
#include "app_support/output_file.hpp"
#include "app_support/timing.hpp"

namespace {

using dpt::app::histogram_counts;
using dpt::app::histogram_options;
using dpt::app::input_error;
using dpt::app::method_run;

// NumPy's default range for data: their min and max, widened by 0.5 each way when they are equal
// (dpt::widen_empty_range, which dpt::histogram applies too; widened here so the range printed is the one
// counted). NumPy 2 computes the edges in the data's type when it takes the range from the data, so float data
// gets float bounds here.
template <class T>
auto default_bins(const std::vector<T>& values, int bins, const std::string& source) {
  using bound = std::conditional_t<std::is_same_v<T, float>, float, double>;
  const bool finite =
      std::all_of(values.begin(), values.end(), [](T v) { return std::isfinite(static_cast<double>(v)); });
  if (!finite) {
    throw dpt::app::no_range_of_their_own(source);
  }
  const auto [min, max] = std::minmax_element(values.begin(), values.end());
  const auto lo = static_cast<bound>(*min), hi = static_cast<bound>(*max);
  return dpt::widen_empty_range(dpt::even_bins<bound>{bins, lo, hi});
}

// Every method of --method in turn, on the same values and bins.
template <class T, class Bins>
std::vector<method_run> count_with_every_method(const histogram_options& o, const thrust::device_vector<T>& values,
                                                const Bins& bins, const std::string& bins_from) {
  thrust::device_vector<unsigned long long> d_counts(o.bins);
  // the timed call takes its scratch from the pool the warm-up filled; each method's is given back before the next
  // method runs, so that the memory estimate (the largest method's) holds
  dpt::context context;
  return dpt::app::count_with_every_method(
      o, d_counts, bins_from,
      [&](dpt::histogram_method method) {
        return dpt::histogram(context.policy(), values.begin(), values.end(), bins, d_counts.begin(), method);
      },
      [](auto&& body) { return dpt::app::time_ms(body); }, [&] { context.release(); });
}

template <class T>
int run(const histogram_options& o, const std::vector<T>& values, const std::string& source) {
  // open the outputs first, so an unwritable path fails before the work; they appear only on success
  std::unique_ptr<dpt::app::output_file> out_file, png_file;
  const std::vector<dpt::app::named_path> inputs{{"--input", o.input_path}};
  if (!o.out_path.empty())
    out_file = std::make_unique<dpt::app::output_file>(dpt::app::named_path{"--out", o.out_path}, inputs);
  if (!o.png_path.empty())
    png_file = std::make_unique<dpt::app::output_file>(dpt::app::named_path{"--png", o.png_path}, inputs);

  const thrust::device_vector<T> d_values(values.begin(), values.end());
  const auto count_with = [&](const auto& bins) {
    const auto lo = static_cast<double>(bins.lo), hi = static_cast<double>(bins.hi);
    std::printf("dpt-histogram: %zu values from %s, %d bins over %s, %s device system\n\n", values.size(),
                source.c_str(), o.bins, dpt::detail::range_text(bins.lo, bins.hi).c_str(), dpt::device_system_name());
    const auto runs = count_with_every_method(o, d_values, bins, o.range ? std::string("--range") : source);
    dpt::app::report_and_write(o, values, lo, hi, runs, out_file.get(), png_file.get());
  };
  if (o.range) {
    count_with(dpt::widen_empty_range(dpt::even_bins<double>{o.bins, o.range->first, o.range->second}));
  } else if (values.empty()) {
    count_with(dpt::even_bins<double>{o.bins, 0.0, 1.0});  // NumPy's Python ints 0 and 1: float64 edges
  } else {
    count_with(default_bins(values, o.bins, source));
  }
  return 0;
}

// The run a command line asks for: its values generated or read, then counted.
int run(const histogram_options& o) {
  // --n is checked before its values are made; a file's values are read first (the file bounds their number)
  if (o.input_path.empty()) {
    dpt::app::require_memory(histogram_memory_needs(o, o.n, 8, true),
                             "a histogram of " + std::to_string(o.n) + " values",
                             dpt::app::this_builds_device_memory());
  }
  const dpt::app::value_array values =
      o.input_path.empty() ? dpt::app::generate_values(o.generate, o.n, o.seed) : dpt::app::read_values(o.input_path);
  const std::string source = o.input_path.empty() ? "--generate " + o.generate : o.input_path;
  if (!o.input_path.empty()) {
    std::visit(
        [&](const auto& v) {
          dpt::app::require_memory(histogram_memory_needs(o, static_cast<std::int64_t>(v.size()), sizeof(v[0]), false),
                                   o.input_path + " (" + std::to_string(v.size()) + " values)",
                                   dpt::app::this_builds_device_memory());
        },
        values);
  }
  return std::visit([&](const auto& v) { return run(o, v, source); }, values);
}

}  // namespace

int main(int argc, char* argv[]) {
#if DPT_WITH_MPI
  // started by mpiexec: every rank counts a slice (histogram/across_ranks.hpp)
  if (dpt::mpi::launched_by_mpiexec()) return dpt::app::main_across_ranks(argc, argv);
#endif
  return dpt::app::run_app("dpt-histogram", [&] {
    const auto o = dpt::app::parse_histogram_options(argc, argv);
    if (!o) {
      std::fputs(dpt::app::histogram_usage, stdout);
      return 0;
    }
    return run(*o);
  });
}
