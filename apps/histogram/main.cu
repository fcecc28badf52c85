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
#include "app_support/device_memory.hpp"
#include "app_support/errors.hpp"
#include "app_support/memory.hpp"
#include "app_support/output_file.hpp"
#include "app_support/timing.hpp"

namespace {

using dpt::app::histogram_counts;
using dpt::app::histogram_options;
using dpt::app::input_error;

// What dpt-histogram holds at once for n values of `value_bytes` each and o.bins bins (`with_input`: the values
// themselves too, as generated doubles): on the device the values, the counts and the scratch the most demanding
// of o.methods reports (dpt::histogram_temporary_bytes), and on the host the first method's counts, a method's
// counts as copied back and as a vector, and --check's counts and edges.
std::vector<dpt::app::memory_need> histogram_memory_needs(const histogram_options& o, std::int64_t n,
                                                          double value_bytes, bool with_input) {
  const double counts = 8.0 * o.bins;
  std::size_t scratch = 0;
  for (const auto& m : o.methods) scratch = std::max(scratch, dpt::histogram_temporary_bytes(n, o.bins, m.method));
  return {{(with_input ? 8.0 * static_cast<double>(n) : 0) + (o.check ? 5 : 3) * counts,
           value_bytes * static_cast<double>(n) + counts + static_cast<double>(scratch)}};
}

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
    throw input_error(source +
                      ": the data contain NaN or Inf, so they have no range of their own (NumPy refuses "
                      "too); give --range LO:HI to count them as dropped");
  }
  const auto [min, max] = std::minmax_element(values.begin(), values.end());
  const auto lo = static_cast<bound>(*min), hi = static_cast<bound>(*max);
  return dpt::widen_empty_range(dpt::even_bins<bound>{bins, lo, hi});
}

// One method's counts and the time it took (after a warm-up run).
struct method_run {
  const char* name;
  histogram_counts result;
  double ms;
};

// Every method of --method in turn, on the same values and bins. dpt::histogram refuses bins it cannot tell apart
// (edges not distinct, as NumPy does) with std::invalid_argument: bad input, like a bad --range, blamed on
// `bins_from` (the file whose values gave the range, or --range).
template <class T, class Bins>
std::vector<method_run> count_with_every_method(const histogram_options& o, const thrust::device_vector<T>& values,
                                                const Bins& bins, const std::string& bins_from) {
  thrust::device_vector<unsigned long long> d_counts(o.bins);
  // the timed call takes its scratch from the pool the warm-up filled; each method's is given back before the next
  // method runs, so that the memory estimate (the largest method's) holds
  dpt::context context;
  const auto histogram = [&](dpt::histogram_method method) {
    try {
      return dpt::histogram(context.policy(), values.begin(), values.end(), bins, d_counts.begin(), method);
    } catch (const std::invalid_argument& e) {
      throw input_error(bins_from + ": " + e.what());
    }
  };
  std::vector<method_run> runs;
  for (const auto& m : o.methods) {
    histogram(m.method);  // warm-up
    dpt::histogram_result dropped;
    const double ms = dpt::app::time_ms([&] { dropped = histogram(m.method); });
    const thrust::host_vector<unsigned long long> counts = d_counts;
    runs.push_back({m.name, {{counts.begin(), counts.end()}, dropped.below, dropped.above, dropped.nan}, ms});
    context.release();
  }
  return runs;
}

// Each method's first difference from the reference (empty where it agrees): with --check the sequential count,
// which works out NumPy's edges from the values and the options alone, not from `bins`; else the first method's
// counts.
template <class T>
std::vector<std::string> compare_methods(const histogram_options& o, const std::vector<T>& values,
                                         const std::vector<method_run>& runs) {
  std::vector<dpt::app::numpy_bin_type<T>> edges;
  try {
    edges = dpt::app::numpy_bin_edges(values, o.bins, o.range);
  } catch (const std::invalid_argument& e) {
    throw dpt::app::check_failure(std::string("the sequential count refuses the bins that dpt accepted: ") + e.what());
  }
  const histogram_counts reference =
      o.check ? dpt::app::sequential_histogram(values, o.bins, o.range) : runs.front().result;
  const std::string reference_name = o.check ? "the sequential count" : std::string("method ") + runs.front().name;
  std::vector<std::string> differences;
  for (const auto& run : runs) differences.push_back(first_difference(run.result, reference, edges, reference_name));
  return differences;
}

// The bars, the dropped values, and a line per method: its time, values/s, GB/s (each value read once and each
// count written once, the least any method must move) and, with --check, its verdict.
void print_report(const histogram_options& o, std::size_t n, std::size_t value_bytes, double lo, double hi,
                  const std::vector<method_run>& runs, const std::vector<std::string>& differences) {
  const histogram_counts& first = runs.front().result;
  dpt::app::print_histogram_bars(first.counts, lo, hi);
  std::printf("\ndropped: %llu (below the range %llu, above it %llu, NaN %llu)\n\n", first.dropped(), first.below,
              first.above, first.nan);
  std::printf("%-14s %12s %14s %10s%s\n", "method", "time (ms)", "values/s", "GB/s", o.check ? "   check" : "");
  const double bytes = static_cast<double>(n * value_bytes) + 8.0 * o.bins;
  for (std::size_t i = 0; i < runs.size(); ++i) {
    const double seconds = runs[i].ms / 1000;
    const std::string verdict = !o.check ? "" : differences[i].empty() ? "   ok" : "   WRONG: " + differences[i];
    std::printf("%-14s %12.3f %14.3g %10.3f%s\n", runs[i].name, runs[i].ms,
                seconds > 0 ? static_cast<double>(n) / seconds : 0.0, seconds > 0 ? bytes / seconds / 1e9 : 0.0,
                verdict.c_str());
  }
  const bool agree = std::all_of(differences.begin(), differences.end(), [](const auto& d) { return d.empty(); });
  if (agree && runs.size() > 1) {
    std::printf("all %zu methods agree%s\n", runs.size(), o.check ? ", and with the sequential count" : "");
  } else if (agree && o.check) {
    std::printf("the counts agree with the sequential count\n");
  }
}

// All outputs or none: render both before committing either (a failed PNG encoding leaves no --out), and should
// the PNG's commit fail after --out's, remove --out again.
void write_outputs(const histogram_options& o, std::size_t n, double lo, double hi, const histogram_counts& counts,
                   dpt::app::output_file* out_file, dpt::app::output_file* png_file) {
  if (out_file) {
    for (const auto c : counts.counts) out_file->stream() << c << '\n';
  }
  if (png_file) {
    char title[160];
    std::snprintf(title, sizeof title, "%zu values, %d bins, %llu dropped", n, o.bins, counts.dropped());
    dpt::app::write_histogram_png(png_file->stream(), {counts.counts, lo, hi, title});
  }
  if (out_file) out_file->commit();
  if (png_file) {
    try {
      png_file->commit();
    } catch (...) {
      if (out_file) std::remove(o.out_path.c_str());
      throw;
    }
  }
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
    const auto differences = compare_methods(o, values, runs);
    print_report(o, values.size(), sizeof(T), lo, hi, runs, differences);
    for (std::size_t i = 0; i < runs.size(); ++i) {
      if (!differences[i].empty()) {
        throw dpt::app::check_failure(std::string("method ") + runs[i].name + " disagrees: " + differences[i]);
      }
    }
    write_outputs(o, values.size(), lo, hi, runs.front().result, out_file.get(), png_file.get());
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
          dpt::app::require_memory(
              histogram_memory_needs(o, static_cast<std::int64_t>(v.size()), sizeof(v[0]), false),
              o.input_path + " (" + std::to_string(v.size()) + " values)", dpt::app::this_builds_device_memory());
        },
        values);
  }
  return std::visit([&](const auto& v) { return run(o, v, source); }, values);
}

}  // namespace

int main(int argc, char* argv[]) {
  return dpt::app::run_app("dpt-histogram", [&] {
    const auto o = dpt::app::parse_histogram_options(argc, argv);
    if (!o) {
      std::fputs(dpt::app::histogram_usage, stdout);
      return 0;
    }
    return run(*o);
  });
}
