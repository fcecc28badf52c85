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
#include "app_support/device_csr.hpp"
#include "app_support/device_memory.hpp"
#include "app_support/errors.hpp"
#include "app_support/matrix_market.hpp"
#include "app_support/memory.hpp"
#include "app_support/output_file.hpp"
#include "app_support/timing.hpp"

namespace {

using dpt::app::input_error;
using dpt::app::spmv_options;

// The scratch dpt's device algorithms report they take from their policy for the stored entries of m, with the
// index and value types run picks: dpt::coo_to_csr's while converting; in the timed runs the matrix's plan and
// what making it or a planned dpt::spmv takes (a symmetric matrix's CSR form holds up to twice its stored entries).
struct device_scratch {
  double conversion, product;
};

template <class Index, class Value>
device_scratch device_scratch_of(const dpt::mtx::coo_matrix& m) {
  const auto entries = static_cast<std::ptrdiff_t>(m.stored_entries());
  const auto nnz = m.kind == dpt::mtx::symmetry::general ? entries : 2 * entries;
  const std::size_t product =
      dpt::spmv_plan_bytes<Index>(m.rows, nnz) + std::max(dpt::make_spmv_plan_temporary_bytes<Index>(m.rows, nnz),
                                                          dpt::planned_spmv_temporary_bytes<Index, Value>(m.rows, nnz));
  return {static_cast<double>(dpt::coo_to_csr_temporary_bytes<Index, Value>(entries)), static_cast<double>(product)};
}

device_scratch device_scratch_of(const spmv_options& opt, const dpt::mtx::coo_matrix& m) {
  const bool narrow = dpt::app::index_type_fits<std::int32_t>(m);
  if (opt.single_precision) {
    return narrow ? device_scratch_of<std::int32_t, float>(m) : device_scratch_of<std::int64_t, float>(m);
  }
  return narrow ? device_scratch_of<std::int32_t, double>(m) : device_scratch_of<std::int64_t, double>(m);
}

// What dpt-spmv holds at once, beyond the matrix it has read, phase by phase: R rows, C columns, E stored entries,
// I and V bytes per index and value, and the algorithms' scratch as they report it. A size line may declare
// 10^9 rows over one entry; these let require_memory refuse that before anything is allocated.
std::vector<dpt::app::memory_need> spmv_memory_needs(const spmv_options& opt, const dpt::mtx::coo_matrix& m) {
  const double I = dpt::app::index_type_fits<std::int32_t>(m) ? 4 : 8, V = opt.single_precision ? 4 : 8;
  const double R = static_cast<double>(m.rows), C = static_cast<double>(m.cols);
  const double E = static_cast<double>(m.stored_entries());
  const device_scratch scratch = device_scratch_of(opt, m);
  const double x_host = 8 * C, offsets = (R + 1) * I, y_host = R * (V + 8);  // y back as computed, and in double
  const double csr_x_y = offsets + (C + R) * V;  // the timed runs: row offsets, x, y and the product's scratch
  const dpt::app::memory_need runs{x_host + y_host, csr_x_y + scratch.product};
  std::vector<dpt::app::memory_need> needs{
      {x_host + 16 * R, 0},  // refuse_overflow: each row's positive and negative sums
      // to_device_csr: the entries as COO and as CSR, row offsets, the conversion's scratch
      {x_host, E * (3 * I + 2 * V) + offsets + scratch.conversion},
      runs};
  if (opt.check) needs.push_back({runs.host_bytes + 40 * E + 48 * R, csr_x_y});  // + reference_spmv
  return needs;
}

std::vector<double> make_x(const spmv_options& opt, std::int64_t cols, const dpt::mtx::storage& storage) {
  if (!opt.x_path.empty()) return dpt::mtx::read_vector(opt.x_path, cols, storage);
  std::vector<double> x(static_cast<std::size_t>(cols), 1.0);
  if (opt.x_random) {
    std::mt19937_64 rng(opt.seed);
    std::uniform_real_distribution<double> uniform(-1.0, 1.0);
    for (auto& v : x) v = uniform(rng);
  }
  return x;
}

// Float mode stores A and x as float: a value beyond float's range is an error on its line, not an infinity.
const dpt::mtx::storage float_values{std::numeric_limits<float>::max(), "float (use --precision double)"};

// Refuses a product whose rows can overflow Value. A row's terms a_ij·x_j reach y_i in whatever order the
// backend (or the duplicate summing of coo_to_csr) adds them, so a row is safe only while no set of its terms
// sums past Value's range: while its positive terms, and its negative ones, each sum to a finite Value. Summed
// in double, where a sum (or a product) past double's range is an infinity, refused as well.
template <class Value>
void refuse_overflow(const dpt::mtx::coo_matrix& m, const std::vector<double>& x, const std::string& path) {
  const auto rows = static_cast<std::size_t>(m.rows);
  std::vector<double> positive(rows, 0), negative(rows, 0);
  const auto add = [&](std::int64_t i, std::int64_t j, double a) {
    // the factors as the product sees them: rounded to Value
    const double term = static_cast<double>(static_cast<Value>(a)) * static_cast<Value>(x[static_cast<std::size_t>(j)]);
    (term > 0 ? positive : negative)[static_cast<std::size_t>(i)] += std::fabs(term);
  };
  for (std::size_t k = 0; k < m.values.size(); ++k) {
    const auto i = m.row_indices[k], j = m.column_indices[k];
    add(i, j, m.values[k]);
    if (m.kind != dpt::mtx::symmetry::general && i != j)
      add(j, i, m.kind == dpt::mtx::symmetry::symmetric ? m.values[k] : -m.values[k]);
  }
  for (std::size_t r = 0; r < rows; ++r) {
    const bool up = positive[r] >= negative[r];
    const double worst = up ? positive[r] : negative[r];
    if (std::isfinite(static_cast<Value>(worst))) continue;
    char sum[48];  // "to 6e+38", or "past 1.8e+308" when double overflowed too
    std::snprintf(sum, sizeof sum, "%s %s%.3g", std::isfinite(worst) ? "to" : "past", up ? "" : "-",
                  std::isfinite(worst) ? worst : std::numeric_limits<double>::max());
    throw input_error(path + ": row " + std::to_string(r + 1) + " of y = A*x overflows " +
                      (sizeof(Value) == 4 ? "float" : "double") + ": its " + (up ? "positive" : "negative") +
                      " terms a_ij*x_j sum " + sum + (sizeof(Value) == 4 ? " (use --precision double)" : ""));
  }
}

// The first entry of y that is not finite: an overflow refuse_overflow let through, the terms' sums fitting
// and their rounded sum not (at the very edge of the range). Refused as bad input too, before --check or
// --out see it.
void refuse_non_finite(const std::vector<double>& y, const std::string& path, const std::string& what) {
  const auto bad = std::find_if(y.begin(), y.end(), [](double v) { return !std::isfinite(v); });
  if (bad != y.end())
    throw input_error(path + ": row " + std::to_string(bad - y.begin() + 1) + " of y = A*x overflows " + what);
}

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
  const std::string rounded =
      sizeof(Value) == 4 ? "float once rounded (use --precision double)" : "double once rounded";
  refuse_non_finite(y_result, opt.matrix_path, rounded);  // the fused kernel's y is judged by --check alone
  bool passed = true;
  if (opt.check) {
    const auto reference = dpt::app::reference_spmv(m, x_host);
    refuse_non_finite(reference.y, opt.matrix_path, "double in the sequential reference");
    const auto verdict = dpt::app::check_against_reference<Value>(reference, y_result);
    passed = verdict.worst_ratio <= 1;
    std::printf("  check:       max relative error %.3e vs a sequential double CSR loop; worst error/bound %.3e: %s\n",
                verdict.max_relative_error, verdict.worst_ratio, passed ? "ok" : "FAILED");
#if DPT_SPMV_HAS_FUSED_KERNEL
    const auto kernel_verdict =
        dpt::app::check_against_reference<Value>(reference, std::vector<double>(y_kernel.begin(), y_kernel.end()));
    passed = passed && kernel_verdict.worst_ratio <= 1;
    std::printf("  check fused: max relative error %.3e; worst error/bound %.3e: %s\n",
                kernel_verdict.max_relative_error, kernel_verdict.worst_ratio,
                kernel_verdict.worst_ratio <= 1 ? "ok" : "FAILED");
#endif
  }
  if (out) {
    dpt::mtx::write_vector(out->stream(), y_result.data(), y_result.size(),
                           "y = A*x by dpt-spmv for " + opt.matrix_path);
    out->commit();
    std::printf("  wrote:       %s\n", opt.out_path.c_str());
  }
  if (!passed) throw dpt::app::check_failure("an entry of y is outside its rounding-error bound");
  return 0;
}

template <class Value>
int run_with_index(const spmv_options& opt, const dpt::mtx::coo_matrix& m, const std::vector<double>& x,
                   std::optional<dpt::app::output_file>& out) {
  refuse_overflow<Value>(m, x, opt.matrix_path);
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
  const auto& storage = opt.single_precision ? float_values : dpt::mtx::as_double;
  const auto m = dpt::mtx::read_matrix(opt.matrix_path, storage);
  const std::string matrix = opt.matrix_path + " (" + std::to_string(m.rows) + " x " + std::to_string(m.cols) + ", " +
                             std::to_string(m.stored_entries()) +
                             (m.stored_entries() == 1 ? " stored entry)" : " stored entries)");
  dpt::app::require_memory(spmv_memory_needs(opt, m), matrix, dpt::app::this_builds_device_memory());
  const auto x = make_x(opt, m.cols, storage);
  return opt.single_precision ? run_with_index<float>(opt, m, x, out) : run_with_index<double>(opt, m, x, out);
}

}  // namespace

int main(int argc, char* argv[]) {
  return dpt::app::run_app("dpt-spmv", [&] {
    const auto opt = dpt::app::parse_spmv_options(argc, argv);
    if (!opt) {
      std::fputs(dpt::app::spmv_usage, stdout);
      return 0;
    }
    return run(*opt);
  });
}
