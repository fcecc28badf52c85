// What dpt-histogram does around the counting, in one process or across ranks (histogram/across_ranks.hpp): the
// memory a run holds, each method's result, the comparison of the methods (with --check, against the sequential
// count), the report and the outputs.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <stdexcept>
#include <string>
#include <vector>

#include <thrust/device_vector.h>
#include <thrust/host_vector.h>

#include <dpt/histogram.hpp>
#include "histogram/histogram_bars.hpp"
#include "histogram/histogram_png.hpp"
#include "histogram/options.hpp"
#include "histogram/sequential_histogram.hpp"
#include "app_support/errors.hpp"
#include "app_support/memory.hpp"
#include "app_support/output_file.hpp"

namespace dpt::app {

// What dpt-histogram holds at once for n values of `value_bytes` each and o.bins bins (`with_input`: the values
// themselves too, as generated doubles): on the device the values, the counts and the scratch the most demanding
// of o.methods reports (dpt::histogram_temporary_bytes), and on the host the first method's counts, a method's
// counts as copied back and as a vector, and --check's counts and edges.
inline std::vector<dpt::app::memory_need> histogram_memory_needs(const histogram_options& o, std::int64_t n,
                                                                 double value_bytes, bool with_input) {
  const double counts = 8.0 * o.bins;
  std::size_t scratch = 0;
  for (const auto& m : o.methods) scratch = std::max(scratch, dpt::histogram_temporary_bytes(n, o.bins, m.method));
  return {{(with_input ? 8.0 * static_cast<double>(n) : 0) + (o.check ? 5 : 3) * counts,
           value_bytes * static_cast<double>(n) + counts + static_cast<double>(scratch)}};
}

// One method's counts and the time it took (after a warm-up run).
struct method_run {
  const char* name;
  histogram_counts result;
  double ms;
};

// Every method of --method in turn: `count(method)` counts into `d_counts` (dpt::histogram, or its form across
// ranks) once untimed, then once timed by `time_ms_of(body)`; `after_each()` runs after each method. The
// std::invalid_argument by which dpt::histogram refuses bins it cannot tell apart (edges not distinct, as NumPy
// refuses them) is bad input, like a bad --range, blamed on `bins_from` (the file whose values gave the range, or
// --range).
template <class Count, class Time, class After>
std::vector<method_run> count_with_every_method(const histogram_options& o,
                                                const thrust::device_vector<unsigned long long>& d_counts,
                                                const std::string& bins_from, Count count, Time time_ms_of,
                                                After after_each) {
  const auto histogram = [&](dpt::histogram_method method) {
    try {
      return count(method);
    } catch (const std::invalid_argument& e) {
      throw input_error(bins_from + ": " + e.what());
    }
  };
  std::vector<method_run> runs;
  for (const auto& m : o.methods) {
    histogram(m.method);  // warm-up
    dpt::histogram_result dropped;
    const double ms = time_ms_of([&] { dropped = histogram(m.method); });
    const thrust::host_vector<unsigned long long> counts = d_counts;
    runs.push_back({m.name, {{counts.begin(), counts.end()}, dropped.below, dropped.above, dropped.nan}, ms});
    after_each();
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
inline void print_report(const histogram_options& o, std::size_t n, std::size_t value_bytes, double lo, double hi,
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

// All outputs or none: render both, then commit them together (a failed PNG encoding or write leaves no --out).
inline void write_outputs(const histogram_options& o, std::size_t n, double lo, double hi,
                          const histogram_counts& counts, dpt::app::output_file* out_file,
                          dpt::app::output_file* png_file) {
  if (out_file) {
    for (const auto c : counts.counts) out_file->stream() << c << '\n';
  }
  if (png_file) {
    char title[160];
    std::snprintf(title, sizeof title, "%zu values, %d bins, %llu dropped", n, o.bins, counts.dropped());
    dpt::app::write_histogram_png(png_file->stream(), {counts.counts, lo, hi, title});
  }
  dpt::app::commit_together({out_file, png_file});
}

// Data with a NaN or an infinity have no range of their own: NumPy refuses them unless given one.
inline input_error no_range_of_their_own(const std::string& source) {
  return input_error(source +
                     ": the data contain NaN or Inf, so they have no range of their own (NumPy refuses too); give "
                     "--range LO:HI to count them as dropped");
}

// The end of a run: the methods compared, the report printed, a check_failure if a method disagrees, else the
// outputs written.
template <class T>
void report_and_write(const histogram_options& o, const std::vector<T>& values, double lo, double hi,
                      const std::vector<method_run>& runs, output_file* out_file, output_file* png_file) {
  const auto differences = compare_methods(o, values, runs);
  print_report(o, values.size(), sizeof(T), lo, hi, runs, differences);
  for (std::size_t i = 0; i < runs.size(); ++i) {
    if (!differences[i].empty())
      throw check_failure(std::string("method ") + runs[i].name + " disagrees: " + differences[i]);
  }
  write_outputs(o, values.size(), lo, hi, runs.front().result, out_file, png_file);
}

}  // namespace dpt::app
