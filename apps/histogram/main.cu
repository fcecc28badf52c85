// dpt-histogram — NumPy's histogram(a, bins=K, range=(lo, hi)) computed with the lecture's data-parallel recipe
// (map to bin ids, sort, find where each bin starts, sizes from the starts) and its rivals (binary search,
// reduce_by_key, atomics, privatised atomics, CUB); every method timed, all checked to agree.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <memory>
#include <optional>
#include <random>
#include <stdexcept>
#include <string>
#include <thrust/device_vector.h>
#include <thrust/execution_policy.h>
#include <thrust/host_vector.h>
#include <type_traits>
#include <variant>
#include <vector>

#include <dpt/config.hpp>
#include <dpt/histogram.hpp>
#include "histogram/histogram_png.hpp"
#include "histogram/values_file.hpp"
#include "support/cli.hpp"
#include "support/device_memory.hpp"
#include "support/errors.hpp"
#include "support/memory.hpp"
#include "support/output_file.hpp"
#include "support/timing.hpp"

namespace {

using dpt::histogram_method;
using dpt::app::input_error;

const char* const usage =
    "usage: dpt-histogram [--input FILE | --generate normal|uniform|zipf --n N [--seed S]] --bins K\n"
    "                     [--range LO:HI] [--method sort|upper-bound|reduce-by-key|atomic|privatized|cub|all]\n"
    "                     [--out FILE] [--png FILE]\n"
    "\n"
    "Counts values in K equal-width bins exactly as numpy.histogram(a, bins=K, range=(LO, HI)) does: bins are\n"
    "[edge i, edge i+1) with the last one closed, a value on an edge goes where NumPy puts it, and values\n"
    "below LO, above HI or NaN are dropped and counted.\n"
    "\n"
    "  --input FILE       values, one number per line; raw little-endian binary when FILE ends in .f32\n"
    "                     (float32), .f64 (float64) or .u8 (bytes, e.g. pixels)\n"
    "  --generate KIND    N values: normal (mean 0, sd 1), uniform [0, 1) or zipf (ranks 1..1000, exponent 1.1)\n"
    "  --n N, --seed S    how many values to generate, and the generator's seed (default 1)\n"
    "  --bins K           the number of bins (1 or more)\n"
    "  --range LO:HI      the bins' range (LO <= HI, both finite; LO = HI is widened to LO-0.5:HI+0.5, as\n"
    "                     NumPy does); default: the data's min and max as NumPy takes them (0:1 for no data;\n"
    "                     a single value v gives v-0.5:v+0.5; NaN or Inf in the data is then an error)\n"
    "  --method M         sort (default: map, sort, find starts, sizes), upper-bound, reduce-by-key, atomic,\n"
    "                     privatized, cub (CUDA builds only), or all of them; each is timed after a warm-up\n"
    "                     run and all must give the same counts\n"
    "  --out FILE         the counts, one per line, bin 0 first\n"
    "  --png FILE         the histogram as a bar chart\n"
    "\n"
    "Prints the histogram as bars, the dropped values and the time of each method. Exit status: 0 ok, 1 the\n"
    "methods disagree, 2 bad input (one line naming the file and line; no output file is left behind).\n";

struct method_name {
  histogram_method method;
  const char* name;
};
constexpr method_name method_names[] = {{histogram_method::sort, "sort"},
                                        {histogram_method::upper_bound, "upper-bound"},
                                        {histogram_method::reduce_by_key, "reduce-by-key"},
                                        {histogram_method::atomic, "atomic"},
                                        {histogram_method::privatized, "privatized"},
                                        {histogram_method::cub, "cub"}};

struct options {
  std::string input_path, generate, out_path, png_path;
  long long n = 0;
  std::uint64_t seed = 1;
  int bins = 0;
  std::optional<std::pair<double, double>> range;
  std::vector<method_name> methods;
};

options parse_options(const dpt::app::cli& args) {
  options o;
  if (!args.positionals().empty()) throw input_error("unexpected argument '" + args.positionals()[0] + "'");
  o.input_path = args.get_or("input", "");
  o.generate = args.get_or("generate", "");
  if (o.input_path.empty() == o.generate.empty()) throw input_error("give exactly one of --input and --generate");
  if (!o.generate.empty()) {
    if (o.generate != "normal" && o.generate != "uniform" && o.generate != "zipf") {
      throw input_error("--generate must be normal, uniform or zipf (got '" + o.generate + "')");
    }
    if (!args.has("n")) throw input_error("--generate needs --n");
    o.n = args.get_int("n", 0, 0, 2'000'000'000);
    o.seed = static_cast<std::uint64_t>(args.get_int("seed", 1, 0, INT64_MAX));
  } else if (args.has("n") || args.has("seed")) {
    throw input_error("--n and --seed go with --generate");
  }
  if (!args.has("bins")) throw input_error("--bins is required");
  o.bins = static_cast<int>(args.get_int("bins", 0, 1, 100'000'000));
  if (const auto range = args.get("range")) {
    const auto colon = range->find(':', 1);  // from 1: LO may start with a sign, never with ':'
    if (colon == std::string::npos) throw input_error("--range must be LO:HI (got '" + *range + "')");
    const double lo = dpt::app::parse_double(range->substr(0, colon), "--range LO");
    const double hi = dpt::app::parse_double(range->substr(colon + 1), "--range HI");
    if (!std::isfinite(lo) || !std::isfinite(hi)) throw input_error("--range must be finite (got '" + *range + "')");
    if (hi < lo) throw input_error("--range needs LO <= HI (got '" + *range + "')");
    o.range = std::make_pair(lo, hi);
  }
  const std::string method = args.get_or("method", "sort");
  for (const auto& m : method_names) {
    if (method == m.name || (method == "all" && dpt::histogram_method_available(m.method))) o.methods.push_back(m);
  }
  if (o.methods.empty()) {
    throw input_error("--method must be sort, upper-bound, reduce-by-key, atomic, privatized, cub or all (got '" +
                      method + "')");
  }
  if (!dpt::histogram_method_available(o.methods.front().method)) {
    throw input_error(std::string("--method cub needs a CUDA build of dpt (this one runs on ") +
                      dpt::device_system_name() + ")");
  }
  o.out_path = args.get_or("out", "");
  o.png_path = args.get_or("png", "");
  return o;
}

// A lower bound on what dpt-histogram holds at once for n values of `value_bytes` each and `bins` bins
// (`with_input`: the values themselves too, as generated doubles): the values and the counts on the device, and
// on the host the reference counts and a method's counts, as copied back and as a vector.
std::vector<dpt::app::memory_need> histogram_memory_needs(std::int64_t n, double value_bytes, int bins,
                                                          bool with_input) {
  const double counts = 8.0 * bins;
  return {
      {(with_input ? 8.0 * static_cast<double>(n) : 0) + 3 * counts, value_bytes * static_cast<double>(n) + counts}};
}

dpt::app::value_array generate_values(const options& o) {
  std::mt19937_64 rng(o.seed);
  std::vector<double> values(static_cast<std::size_t>(o.n));
  if (o.generate == "normal") {
    std::normal_distribution<double> dist(0.0, 1.0);
    for (auto& v : values) v = dist(rng);
  } else if (o.generate == "uniform") {
    std::uniform_real_distribution<double> dist(0.0, 1.0);
    for (auto& v : values) v = dist(rng);
  } else {
    // Zipf over ranks 1..1000: P(k) ∝ k^-1.1, by inverting the cumulative distribution — most values share
    // the first few bins, the case where plain atomics contend hardest.
    std::vector<double> cumulative(1000);
    double total = 0;
    for (int k = 1; k <= 1000; ++k) cumulative[k - 1] = total += std::pow(k, -1.1);
    std::uniform_real_distribution<double> dist(0.0, total);
    for (auto& v : values) {
      v = static_cast<double>(std::lower_bound(cumulative.begin(), cumulative.end(), dist(rng)) - cumulative.begin() +
                              1);
    }
  }
  return values;
}

// NumPy's default range: the data's min and max (0..1 for no data), widened by 0.5 each way when they are
// equal (dpt::widen_empty_range, which dpt::histogram applies too; widened here so the range printed is the
// one counted). NumPy computes the edges in the data's type when it takes the range from the data, so float data
// gets float bounds here.
template <class T>
auto default_bins(const std::vector<T>& values, int bins, const std::string& source) {
  using bound = std::conditional_t<std::is_same_v<T, float>, float, double>;
  bound lo = 0, hi = 1;
  if (!values.empty()) {
    const auto [min, max] = std::minmax_element(values.begin(), values.end());
    lo = static_cast<bound>(*min), hi = static_cast<bound>(*max);
    const bool finite =
        std::all_of(values.begin(), values.end(), [](T v) { return std::isfinite(static_cast<double>(v)); });
    if (!finite) {
      throw input_error(source +
                        ": the data contain NaN or Inf, so they have no range of their own (NumPy refuses "
                        "too); give --range LO:HI to count them as dropped");
    }
  }
  return dpt::widen_empty_range(dpt::even_bins<bound>{bins, lo, hi});
}

// "▉▉▉▍": a bar of `eighths` eighths of a character cell, in Unicode block elements.
std::string bar(long long eighths) {
  static const char* const partial[] = {"", "▏", "▎", "▍", "▌", "▋", "▊", "▉"};
  std::string s;
  for (long long i = 0; i < eighths / 8; ++i) s += "█";
  return s + partial[eighths % 8];
}

void print_bars(const std::vector<unsigned long long>& counts, double lo, double hi) {
  constexpr long long max_rows = 40, bar_cells = 50;
  const auto bins = static_cast<long long>(counts.size());
  const long long rows = std::min(bins, max_rows);
  std::vector<unsigned long long> row_counts(rows, 0);
  for (long long b = 0; b < bins; ++b) row_counts[b * rows / bins] += counts[b];
  if (rows < bins) std::printf("(%lld bins shown as %lld rows; each row sums neighbouring bins)\n", bins, rows);
  const unsigned long long tallest =
      std::max<unsigned long long>(1, *std::max_element(row_counts.begin(), row_counts.end()));
  for (long long r = 0; r < rows; ++r) {
    // the row covers bins [first, last]; label it with their outer edges
    const long long first = (r * bins + rows - 1) / rows, last = ((r + 1) * bins + rows - 1) / rows - 1;
    const double from = lo + (hi - lo) * first / bins, to = last + 1 == bins ? hi : lo + (hi - lo) * (last + 1) / bins;
    const auto eighths = static_cast<long long>(std::llround(8.0 * bar_cells * row_counts[r] / tallest));
    char label[64];
    std::snprintf(label, sizeof label, "[%.4g, %.4g%s", from, to, last + 1 == bins ? "]" : ")");
    std::printf("%-24s %12llu %s\n", label, row_counts[r], bar(eighths).c_str());
  }
}

template <class T>
int run(const options& o, const std::vector<T>& values, const std::string& source) {
  // open the outputs first, so an unwritable path fails before the work; they appear only on success
  std::unique_ptr<dpt::app::output_file> out_file, png_file;
  if (!o.out_path.empty()) out_file = std::make_unique<dpt::app::output_file>(o.out_path);
  if (!o.png_path.empty()) png_file = std::make_unique<dpt::app::output_file>(o.png_path);

  const thrust::device_vector<T> d_values(values.begin(), values.end());
  thrust::device_vector<unsigned long long> d_counts(o.bins);
  const auto count_with = [&](const auto& bins) {
    std::printf("dpt-histogram: %zu values from %s, %d bins over [%.9g, %.9g], %s device system\n\n", values.size(),
                source.c_str(), o.bins, static_cast<double>(bins.lo), static_cast<double>(bins.hi),
                dpt::device_system_name());
    std::vector<unsigned long long> reference;
    dpt::histogram_result dropped;
    std::vector<std::pair<const char*, double>> times;
    // dpt::histogram refuses bins it cannot tell apart (edges not distinct, as NumPy does) with
    // std::invalid_argument: bad input, like a bad --range
    const auto histogram = [&](histogram_method method) {
      try {
        return dpt::histogram(thrust::device, d_values.begin(), d_values.end(), bins, d_counts.begin(), method);
      } catch (const std::invalid_argument& e) {
        throw input_error(e.what());
      }
    };
    for (const auto& m : o.methods) {
      histogram(m.method);  // warm-up
      dpt::histogram_result result;
      times.emplace_back(m.name, dpt::app::time_ms([&] { result = histogram(m.method); }));
      const thrust::host_vector<unsigned long long> h = d_counts;
      const std::vector<unsigned long long> counts(h.begin(), h.end());
      if (reference.empty()) {
        reference = counts;
        dropped = result;
      } else if (counts != reference || result.dropped() != dropped.dropped()) {
        throw dpt::app::check_failure(std::string("method ") + m.name + " disagrees with method " + o.methods[0].name);
      }
    }
    print_bars(reference, static_cast<double>(bins.lo), static_cast<double>(bins.hi));
    std::printf("\ndropped: %llu (below the range %llu, above it %llu, NaN %llu)\n\n", dropped.dropped(), dropped.below,
                dropped.above, dropped.nan);
    std::printf("%-14s %12s %14s\n", "method", "time (ms)", "values/s");
    for (const auto& [name, ms] : times) {
      std::printf("%-14s %12.3f %14.3g\n", name, ms, ms > 0 ? values.size() / (ms / 1000) : 0.0);
    }
    if (o.methods.size() > 1) std::printf("all %zu methods agree\n", o.methods.size());

    // All outputs or none: render both before committing either (a failed PNG encoding leaves no --out), and
    // should the PNG's commit fail after --out's, remove --out again.
    if (out_file) {
      for (const auto c : reference) out_file->stream() << c << '\n';
    }
    if (png_file) {
      char title[160];
      std::snprintf(title, sizeof title, "%zu values, %d bins, %llu dropped", values.size(), o.bins, dropped.dropped());
      dpt::app::write_histogram_png(png_file->stream(),
                                    {reference, static_cast<double>(bins.lo), static_cast<double>(bins.hi), title});
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
  };
  if (o.range) {
    count_with(dpt::widen_empty_range(dpt::even_bins<double>{o.bins, o.range->first, o.range->second}));
  } else {
    count_with(default_bins(values, o.bins, source));
  }
  return 0;
}

}  // namespace

int main(int argc, char* argv[]) {
  return dpt::app::run_app("dpt-histogram", [&] {
    const dpt::app::cli args(argc, argv, {"input", "generate", "n", "seed", "bins", "range", "method", "out", "png"},
                             {"help"});
    if (args.has("help")) {
      std::fputs(usage, stdout);
      return 0;
    }
    const options o = parse_options(args);
    // --n is checked before its values are made; a file's values are read first (the file bounds their number)
    if (o.input_path.empty()) {
      dpt::app::require_memory(histogram_memory_needs(o.n, 8, o.bins, true),
                               "a histogram of " + std::to_string(o.n) + " values",
                               dpt::app::this_builds_device_memory());
    }
    const auto values = o.input_path.empty() ? generate_values(o) : dpt::app::read_values(o.input_path);
    const std::string source = o.input_path.empty() ? "--generate " + o.generate : o.input_path;
    if (!o.input_path.empty()) {
      std::visit(
          [&](const auto& v) {
            dpt::app::require_memory(
                histogram_memory_needs(static_cast<std::int64_t>(v.size()), sizeof(v[0]), o.bins, false),
                o.input_path + " (" + std::to_string(v.size()) + " values)", dpt::app::this_builds_device_memory());
          },
          values);
    }
    return std::visit([&](const auto& v) { return run(o, v, source); }, values);
  });
}
