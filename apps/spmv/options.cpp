// dpt-spmv's options: the --help text and the parser, which checks each option and how they go together.
#include "spmv/options.hpp"

#include <limits>

#include "app_support/command_line.hpp"
#include "app_support/errors.hpp"

namespace dpt::app {

const char* const spmv_usage =
    "usage: dpt-spmv MATRIX.mtx [--x FILE.mtx | --x-ones | --x-random SEED] [--out Y.mtx] [--check]\n"
    "                [--repeat N] [--precision double|float]\n"
    "\n"
    "Computes y = A*x for the sparse matrix A in MATRIX.mtx (Matrix Market coordinate real, integer or\n"
    "pattern; general, symmetric or skew-symmetric; duplicate entries are summed) with dpt::spmv, the\n"
    "lecture's gather + map + segmented reduction, on this build's device system.\n"
    "\n"
    "  --x FILE.mtx        x from a Matrix Market array file with one column and as many rows as A has columns\n"
    "  --x-ones            x = 1 everywhere (the default)\n"
    "  --x-random SEED     x uniform in [-1, 1) from a seeded generator\n"
    "  --out Y.mtx         write y as a Matrix Market array, 17 significant digits\n"
    "  --check             compare y with a sequential double-precision CSR loop; fail (exit 1) if any row's\n"
    "                      error exceeds its rounding-error bound (--out is written all the same, to inspect)\n"
    "  --repeat N          time N runs and report the median (default 10)\n"
    "  --precision P       double (default) or float values and arithmetic\n"
    "\n"
    "Prints the matrix size, stored and expanded non-zeros, the backend, the median time per SpMV, GFLOP/s\n"
    "(2 flops per non-zero) and effective GB/s (the bytes a CSR SpMV must move: values, column indices, row\n"
    "offsets, x and y, each once). In CUDA builds it also times the hand-written fused kernel\n"
    "dpt::kernels::spmv, and --check checks its y too. A y that can overflow the precision (a row whose positive\n"
    "or negative terms sum past its range) is bad input. Exit status: 0 ok, 1 check failed or the run could not\n"
    "finish (not enough memory, a failed write), 2 bad input (one line naming the file and line or row; no\n"
    "output file is left behind).\n"
    "\n"
    "Under mpiexec -n N (builds with MPI) each rank multiplies a block of rows with about equal non-zeros, rank 0\n"
    "reading the inputs and writing --out: on the CPU device systems the same file, byte for byte, as one\n"
    "process writes; on CUDA, whose reduction adds in tiles that follow each rank's rows, the same y within\n"
    "--check's bound. On CUDA the halo goes through pinned host buffers unless the MPI is CUDA-aware; the\n"
    "report's \"halo memory\" says which.\n";

std::optional<spmv_options> parse_spmv_options(int argc, const char* const argv[]) {
  command_line app{"dpt-spmv"};
  std::string x_random, repeat, precision = "double";
  bool x_ones = false, help = false;
  spmv_options opt;
  add_value_option(app, "x", opt.x_path);
  add_flag_option(app, "x-ones", x_ones);
  add_value_option(app, "x-random", x_random);
  add_value_option(app, "out", opt.out_path);
  add_flag_option(app, "check", opt.check);
  add_value_option(app, "repeat", repeat);
  add_value_option(app, "precision", precision);
  add_flag_option(app, "help", help);
  const auto positionals = parse_command_line(app, argc, argv);
  if (help) return std::nullopt;

  if (positionals.size() != 1) throw input_error("expected one MATRIX.mtx argument (try --help)");
  opt.matrix_path = positionals.front();
  const int x_sources = given(app, "x") + x_ones + given(app, "x-random");
  if (x_sources > 1) throw input_error("--x, --x-ones and --x-random exclude each other");
  if (given(app, "x-random")) {
    opt.x_random = true;
    opt.seed =
        static_cast<std::uint64_t>(parse_int_in(x_random, "--x-random", 0, std::numeric_limits<long long>::max()));
  }
  if (given(app, "repeat")) opt.repeat = static_cast<int>(parse_int_in(repeat, "--repeat", 1, 1000000));
  if (precision != "double" && precision != "float") {
    throw input_error("--precision must be double or float (got " + precision + ")");
  }
  opt.single_precision = precision == "float";
  return opt;
}

}  // namespace dpt::app
