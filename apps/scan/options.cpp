// dpt-scan's options: the --help text and the parser, which checks each option and how they go together.
#include "scan/options.hpp"

#include <algorithm>
#include <limits>

#include <dpt/config.hpp>
#include "scan/scan_values.hpp"
#include "app_support/command_line.hpp"
#include "app_support/errors.hpp"

namespace dpt::app {

const char* const scan_usage =
    "usage: dpt-scan [--n N --seed S | --input FILE[.i32|.i64|.f32|.f64]] [--type i32|i64|f32|f64]\n"
    "                [--impl thrust|lecture|shfl|blelloch|single-pass|cub|all] [--exclusive] [--check]\n"
    "                [--out FILE]\n"
    "\n"
    "Prefix sums (inclusive, or exclusive from 0) of a whole array, by several implementations:\n"
    "  thrust       thrust::inclusive_scan / exclusive_scan on this build's device system\n"
    "  lecture      the lecture's three launches (scan tiles, scan tile totals, add bases); inside each tile\n"
    "               the lecture's scan_block over the shared-memory Hillis-Steele warp scan\n"
    "  shfl         the same three launches; scan_block over the __shfl_up_sync warp scan\n"
    "  blelloch     the same three launches; the work-efficient up-sweep/down-sweep block scan\n"
    "  single-pass  one launch, decoupled look-back with a dynamic tile counter (Merrill & Garland 2016)\n"
    "  cub          cub::DeviceScan (CUDA builds only)\n"
    "  all          every one of these this build has (the default)\n"
    "\n"
    "  --n N          N seeded random values (default 1048576): integers in [-1000, 1000], floats in [-1, 1)\n"
    "  --seed S       the generator's seed (default 1)\n"
    "  --input FILE   values from a text file, one per line (blank lines ignored); a file named .i32, .i64,\n"
    "                 .f32 or .f64 holds raw little-endian values of that type (numpy's tofile)\n"
    "  --type T       i32 (default), i64, f32 or f64; a raw file's own type by default\n"
    "  --exclusive    exclusive scan (out[0] = 0) instead of inclusive\n"
    "  --check        compare every implementation with a sequential scan: integers exactly, floats within\n"
    "                 the bound gamma_(i+1) * sum |x_j| on element i; exit 1 on a mismatch\n"
    "  --out FILE     write the result (of the first implementation run) one value per line\n"
    "\n"
    "Prints implementation, time and GB/s (one read and one write of every element). On CPU builds the\n"
    "hand-written kernels run on the host SIMT runner (one fiber per CUDA thread), so their times measure\n"
    "the emulation, not a GPU. Exit status: 0 ok, 1 check failed or the run could not finish (not enough memory,\n"
    "a failed write), 2 bad input (nothing is written).\n"
    "\n"
    "Under mpiexec -n N (builds with MPI) each rank scans a slice and the ranks exchange slice totals, rank 0\n"
    "reading the values and writing --out: integers give one process's file byte for byte, floats agree within\n"
    "--check's bound.\n";

namespace {

const std::vector<std::string> all_impls{"thrust", "lecture", "shfl", "blelloch", "single-pass", "cub"};

#if DPT_CUDA_DEVICE_SYSTEM
constexpr bool have_cub = true;
#else
constexpr bool have_cub = false;
#endif

}  // namespace

std::optional<scan_options> parse_scan_options(int argc, const char* const argv[]) {
  command_line app{"dpt-scan"};
  std::string n, seed, type = "i32", impl = "all";
  bool help = false;
  scan_options opt;
  add_value_option(app, "n", n);
  add_value_option(app, "seed", seed);
  add_value_option(app, "input", opt.input);
  add_value_option(app, "type", type);
  add_value_option(app, "impl", impl);
  add_value_option(app, "out", opt.out);
  add_flag_option(app, "exclusive", opt.exclusive);
  add_flag_option(app, "check", opt.check);
  add_flag_option(app, "help", help);
  const auto positionals = parse_command_line(app, argc, argv);
  if (help) return std::nullopt;

  if (!positionals.empty()) throw input_error("unexpected argument " + positionals.front());
  if (given(app, "input") && (given(app, "n") || given(app, "seed")))
    throw input_error("--input excludes --n and --seed");
  if (given(app, "n")) opt.n = parse_int_in(n, "--n", 0, std::int64_t{1} << 34);
  if (given(app, "seed"))
    opt.seed = static_cast<std::uint64_t>(parse_int_in(seed, "--seed", 0, std::numeric_limits<long long>::max()));
  opt.type = type;
  // a raw file's values are of the type its name ends in
  if (const auto raw = raw_value_type(opt.input)) {
    if (given(app, "type") && opt.type != *raw)
      throw input_error("--type " + opt.type + " does not match " + opt.input + " (" + *raw + " values)");
    opt.type = *raw;
  }
  if (opt.type != "i32" && opt.type != "i64" && opt.type != "f32" && opt.type != "f64")
    throw input_error("--type must be i32, i64, f32 or f64 (got " + opt.type + ")");
  if (impl == "all") {
    for (const auto& name : all_impls)
      if (name != "cub" || have_cub) opt.impls.push_back(name);
  } else if (std::find(all_impls.begin(), all_impls.end(), impl) == all_impls.end()) {
    throw input_error("--impl must be thrust, lecture, shfl, blelloch, single-pass, cub or all (got " + impl + ")");
  } else if (impl == "cub" && !have_cub) {
    throw input_error("--impl cub needs a CUDA build (this one is " + std::string(device_system_name()) + ")");
  } else {
    opt.impls.push_back(impl);
  }
  return opt;
}

}  // namespace dpt::app
