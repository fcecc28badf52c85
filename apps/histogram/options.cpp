// dpt-histogram's options: the --help text and the parser, which checks each option and how they go together.
#include "histogram/options.hpp"

#include <cmath>
#include <cstdint>
#include <string>

#include <dpt/config.hpp>
#include "app_support/command_line.hpp"
#include "app_support/errors.hpp"

namespace dpt::app {

const char* const histogram_usage =
    "usage: dpt-histogram [--input FILE | --generate normal|uniform|zipf --n N [--seed S]] --bins K\n"
    "                     [--range LO:HI] [--method sort|upper-bound|reduce-by-key|atomic|privatized|cub|all]\n"
    "                     [--check] [--out FILE] [--png FILE]\n"
    "\n"
    "Counts values in K equal-width bins exactly as NumPy 2's numpy.histogram(a, bins=K, range=(LO, HI)) does:\n"
    "bins are [edge i, edge i+1) with the last one closed, a value on an edge goes where NumPy puts it, and values\n"
    "below LO, above HI or NaN are dropped and counted. Bins NumPy 2 refuses are bad input.\n"
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
    "  --check            also count sequentially, by binary search over NumPy's edges worked out apart from\n"
    "                     dpt's, and check every method's counts and dropped values against that\n"
    "  --out FILE         the counts, one per line, bin 0 first\n"
    "  --png FILE         the histogram as a bar chart\n"
    "\n"
    "Prints the histogram as bars, the dropped values, and each method's time, values/s and GB/s (each value\n"
    "read once and each count written once: the least any method must move). Exit status: 0 ok, 1 the methods\n"
    "disagree (with each other or with --check) or the run could not finish (not enough memory, a failed\n"
    "write), 2 bad input (one line naming the file and line; no output file is left behind).\n"
    "\n"
    "Under mpiexec -n N (builds with MPI) each rank counts a slice and the counts are summed over the ranks, rank 0\n"
    "reading the values and writing --out and --png: the same files, byte for byte, as one process writes.\n";

namespace {

constexpr method_option method_options[] = {{histogram_method::sort, "sort"},
                                            {histogram_method::upper_bound, "upper-bound"},
                                            {histogram_method::reduce_by_key, "reduce-by-key"},
                                            {histogram_method::atomic, "atomic"},
                                            {histogram_method::privatized, "privatized"},
                                            {histogram_method::cub, "cub"}};

// --range LO:HI, both finite, LO <= HI.
std::pair<double, double> parse_range(const std::string& range) {
  const auto colon = range.find(':', 1);  // from 1: LO may start with a sign, never with ':'
  if (colon == std::string::npos) throw input_error("--range must be LO:HI (got " + quote_token(range) + ")");
  const double lo = parse_double(range.substr(0, colon), "--range LO");
  const double hi = parse_double(range.substr(colon + 1), "--range HI");
  if (!std::isfinite(lo) || !std::isfinite(hi))
    throw input_error("--range must be finite (got " + quote_token(range) + ")");
  if (hi < lo) throw input_error("--range needs LO <= HI (got " + quote_token(range) + ")");
  return {lo, hi};
}

// --method M: one method, or all that this build has.
std::vector<method_option> parse_methods(const std::string& method) {
  std::vector<method_option> methods;
  for (const auto& m : method_options) {
    if (method == m.name || (method == "all" && histogram_method_available(m.method))) methods.push_back(m);
  }
  if (methods.empty()) {
    throw input_error("--method must be sort, upper-bound, reduce-by-key, atomic, privatized, cub or all (got '" +
                      method + "')");
  }
  if (!histogram_method_available(methods.front().method)) {
    throw input_error(std::string("--method cub needs a CUDA build of dpt (this one runs on ") + device_system_name() +
                      ")");
  }
  return methods;
}

}  // namespace

std::optional<histogram_options> parse_histogram_options(int argc, const char* const argv[]) {
  command_line app{"dpt-histogram"};
  std::string n, seed, bins, range, method = "sort";
  bool help = false;
  histogram_options o;
  add_value_option(app, "input", o.input_path);
  add_value_option(app, "generate", o.generate);
  add_value_option(app, "n", n);
  add_value_option(app, "seed", seed);
  add_value_option(app, "bins", bins);
  add_value_option(app, "range", range);
  add_value_option(app, "method", method);
  add_value_option(app, "out", o.out_path);
  add_value_option(app, "png", o.png_path);
  add_flag_option(app, "check", o.check);
  add_flag_option(app, "help", help);
  const auto positionals = parse_command_line(app, argc, argv);
  if (help) return std::nullopt;

  if (!positionals.empty()) throw input_error("unexpected argument " + quote_token(positionals[0]));
  if (o.input_path.empty() == o.generate.empty()) throw input_error("give exactly one of --input and --generate");
  if (!o.generate.empty()) {
    if (o.generate != "normal" && o.generate != "uniform" && o.generate != "zipf") {
      throw input_error("--generate must be normal, uniform or zipf (got " + quote_token(o.generate) + ")");
    }
    if (!given(app, "n")) throw input_error("--generate needs --n");
    o.n = parse_int_in(n, "--n", 0, 2'000'000'000);
    if (given(app, "seed")) o.seed = static_cast<std::uint64_t>(parse_int_in(seed, "--seed", 0, INT64_MAX));
  } else if (given(app, "n") || given(app, "seed")) {
    throw input_error("--n and --seed go with --generate");
  }
  if (!given(app, "bins")) throw input_error("--bins is required");
  o.bins = static_cast<int>(parse_int_in(bins, "--bins", 1, 100'000'000));
  if (given(app, "range")) o.range = parse_range(range);
  o.methods = parse_methods(method);
  return o;
}

}  // namespace dpt::app
