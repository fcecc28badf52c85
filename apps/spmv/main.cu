// dpt-spmv — y = A·x for a sparse matrix from a Matrix Market file, computed by dpt::spmv (the lecture's
// gather + map + segmented reduction) on this build's device system, timed, and optionally checked against a
// sequential double-precision CSR loop.
#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <limits>
#include <random>
#include <optional>
#include <string>
#include <thrust/device_vector.h>
#include <thrust/execution_policy.h>
#include <thrust/fill.h>
#include <thrust/host_vector.h>
#include <vector>

#include <dpt/config.hpp>
#include <dpt/context.hpp>
#include <dpt/coo_to_csr.hpp>
#include <dpt/spmv.hpp>
#include <dpt/spmv_plan.hpp>
#if DPT_CUDA_DEVICE_SYSTEM
#  include <dpt/kernels/spmv.hpp>
#  define DPT_SPMV_HAS_FUSED_KERNEL 1
#else
#  define DPT_SPMV_HAS_FUSED_KERNEL 0
#endif
#include "spmv/options.hpp"
#include "spmv/spmv_check.hpp"
#include "spmv/spmv_run.hpp"
#include "app_support/device_csr.hpp"
#include "app_support/device_memory.hpp"
#include "app_support/errors.hpp"
#include "app_support/matrix_market.hpp"
#include "app_support/memory.hpp"
#include "app_support/output_file.hpp"
#include "app_support/timing.hpp"
#if DPT_WITH_MPI
#  include "spmv/across_ranks.hpp"
#endif

namespace {

using dpt::app::input_error;
using dpt::app::spmv_options;

template <class Index, class Value>
int run(const spmv_options& opt, const dpt::mtx::coo_matrix& m, const std::vector<double>& x_host,
        std::optional<dpt::app::output_file>& out) {
  const auto A = dpt::app::to_device_csr<Index, Value>(m);
  const thrust::device_vector<Value> x(x_host.begin(), x_host.end());
  thrust::device_vector<Value> y(static_cast<std::size_t>(m.rows));
  const auto view = A.view();

  // the matrix's row ids once (dpt/spmv_plan.hpp); the repetitions after the first take their scratch from the
  // context's pool, not from the allocator
  dpt::context context;
  const auto plan = dpt::make_spmv_plan(context.policy(), view);
  const double seconds =
      1e-3 * dpt::app::median_ms(opt.repeat, [&] { dpt::spmv(context.policy(), plan, view, x.data(), y.data()); });
  const thrust::host_vector<Value> y_device = y;  // the lecture composition's result, before y is reused
  const double row_per_thread_seconds = 1e-3 * dpt::app::median_ms(opt.repeat, [&] {
                                          dpt::spmv_row_per_thread(context.policy(), view, x.data(), y.data());
                                        });

  const double nnz = static_cast<double>(A.nnz());
  const double bytes = nnz * (sizeof(Value) + sizeof(Index)) + static_cast<double>(m.rows + 1) * sizeof(Index) +
                       static_cast<double>(m.cols + m.rows) * sizeof(Value);
  const auto rate = [&](double s, double amount) { return s > 0 ? amount / s / 1e9 : 0.0; };
  std::printf("dpt-spmv: %s\n", opt.matrix_path.c_str());
  std::printf("  matrix:      %lld x %lld, coordinate %s %s\n", static_cast<long long>(m.rows),
              static_cast<long long>(m.cols), dpt::mtx::name(m.value_field), dpt::mtx::name(m.kind));
  std::printf("  non-zeros:   %lld stored, %lld expanded (mirrored, duplicates summed)\n",
              static_cast<long long>(m.stored_entries()), static_cast<long long>(A.nnz()));
  std::printf("  backend:     %s, %s values, int%d indices\n", dpt::device_system_name(),
              sizeof(Value) == 4 ? "float" : "double", static_cast<int>(8 * sizeof(Index)));
  std::printf("  x:           %s\n", !opt.x_path.empty() ? opt.x_path.c_str()
                                     : opt.x_random      ? "uniform random in [-1, 1)"
                                                         : "all ones");
  std::printf(
      "  time:        %.6f ms median of %d (dpt::spmv with the matrix's plan: gather + map + segmented reduction)\n",
      seconds * 1e3, opt.repeat);
  std::printf("  throughput:  %.3f GFLOP/s, %.3f GB/s effective\n", rate(seconds, 2 * nnz), rate(seconds, bytes));
  std::printf("  comparison:  %.6f ms, %.3f GFLOP/s with one task per row (dpt::spmv_row_per_thread)\n",
              row_per_thread_seconds * 1e3, rate(row_per_thread_seconds, 2 * nnz));

#if DPT_SPMV_HAS_FUSED_KERNEL
  const auto fused_kernel = [&] {
    dpt::kernels::spmv(thrust::raw_pointer_cast(A.row_offsets.data()),
                       thrust::raw_pointer_cast(A.column_indices.data()), thrust::raw_pointer_cast(A.values.data()),
                       A.rows, A.nnz(), thrust::raw_pointer_cast(x.data()), thrust::raw_pointer_cast(y.data()));
  };
  // y holds the other variants' right answer: NaN instead, so that a row the kernel never writes fails the check
  thrust::fill(y.begin(), y.end(), std::numeric_limits<Value>::quiet_NaN());
  const double kernel_seconds = 1e-3 * dpt::app::median_ms(opt.repeat, fused_kernel);
  const thrust::host_vector<Value> y_kernel = y;
  std::printf("  fused:       %.6f ms, %.3f GFLOP/s with the hand-written kernel (dpt::kernels::spmv, one launch)\n",
              kernel_seconds * 1e3, rate(kernel_seconds, 2 * nnz));
#endif

  const std::vector<double> y_result(y_device.begin(), y_device.end());
  std::optional<dpt::app::spmv_reference> reference;
  bool passed = dpt::app::check_y<Value>(opt, m, x_host, y_result, &reference);
#if DPT_SPMV_HAS_FUSED_KERNEL
  if (reference) {  // the fused kernel's y is judged by --check alone
    const auto kernel_verdict =
        dpt::app::check_against_reference<Value>(*reference, std::vector<double>(y_kernel.begin(), y_kernel.end()));
    passed = passed && kernel_verdict.worst_ratio <= 1;
    std::printf("  check fused: max relative error %.3e; worst error/bound %.3e: %s\n",
                kernel_verdict.max_relative_error, kernel_verdict.worst_ratio,
                kernel_verdict.worst_ratio <= 1 ? "ok" : "FAILED");
  }
#endif
  dpt::app::write_y(opt, y_result, out);
  if (!passed) throw dpt::app::check_failure("an entry of y is outside its rounding-error bound");
  return 0;
}

template <class Value>
int run_with_index(const spmv_options& opt, const dpt::mtx::coo_matrix& m, const std::vector<double>& x,
                   std::optional<dpt::app::output_file>& out) {
  dpt::app::refuse_overflow<Value>(m, x, opt.matrix_path);
  if (dpt::app::index_type_fits<std::int32_t>(m)) return run<std::int32_t, Value>(opt, m, x, out);
  return run<std::int64_t, Value>(opt, m, x, out);
}

// The run a command line asks for: the matrix and x read, y computed and timed in the precision it names.
int run(const spmv_options& opt) {
  // opened first, so that an --out that cannot be written is reported before any work
  std::optional<dpt::app::output_file> out;
  if (!opt.out_path.empty()) {
    out.emplace(dpt::app::named_path{"--out", opt.out_path},
                std::vector<dpt::app::named_path>{{"MATRIX", opt.matrix_path}, {"--x", opt.x_path}});
  }
  const auto& storage = opt.single_precision ? dpt::app::float_values : dpt::mtx::as_double;
  const auto m = dpt::mtx::read_matrix(opt.matrix_path, storage);
  dpt::app::require_memory(dpt::app::spmv_memory_needs(opt, m), dpt::app::matrix_description(opt, m),
                           dpt::app::this_builds_device_memory());
  const auto x = dpt::app::make_x(opt, m.cols, storage);
  return opt.single_precision ? run_with_index<float>(opt, m, x, out) : run_with_index<double>(opt, m, x, out);
}

}  // namespace

int main(int argc, char* argv[]) {
#if DPT_WITH_MPI
  // started by mpiexec: every rank multiplies a block of rows (spmv/across_ranks.hpp)
  if (dpt::mpi::launched_by_mpiexec()) return dpt::app::main_across_ranks(argc, argv);
#endif
  return dpt::app::run_app("dpt-spmv", [&] {
    const auto opt = dpt::app::parse_spmv_options(argc, argv);
    if (!opt) {
      std::fputs(dpt::app::spmv_usage, stdout);
      return 0;
    }
    return run(*opt);
  });
}
