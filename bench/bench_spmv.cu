// SpMV family: y = A·x in double precision with int32 indices, by dpt::spmv (the lecture's flat form: gather,
// map, segmented reduction over the non-zeros; on CPUs through dpt's multicore recipe, with the Thrust
// composition it replaces there beside it), by dpt::spmv_row_per_thread (one task per row), by Eigen on
// CPU builds (OpenMP-parallel in the OMP build), and on CUDA builds by dpt::kernels::spmv (the flat form fused
// into one merge-path kernel) and by cuSPARSE. Every variant's y is checked against the CSR loop before it is
// timed, with x[c] = 1 + (c mod 7) so that a wrong column index shows. Inputs: the real matrices of
// data/matrices and generated ones — 2-D (5-point) and 3-D (7-point) Poisson stencils, whose rows are all alike,
// and a power-law matrix whose row lengths vary wildly (where one-task-per-row suffers) — at about 1 M
// non-zeros, 8 M from --dpt_max_log2=23 on and 50 M from 26 on. Bytes are effective bytes, what one product must
// move (values and column indices once, row offsets, x once, y once), the same for every variant. Scratch is
// allocated outside the timed region for every variant alike: dpt_flat and dpt_planned take theirs from a
// dpt::context, whose pool keeps what the checked call allocated; cuSPARSE's buffer and the fused kernel's scratch
// are allocated before the timing. (thrust_composition, on CPU builds only, runs on thrust::device: its row ids are
// allocated inside each timed call.)
#include "bench_support/bench.hpp"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <limits>
#include <map>
#include <memory>
#include <random>
#include <string>
#include <thrust/device_vector.h>
#include <thrust/execution_policy.h>
#include <thrust/fill.h>
#include <thrust/host_vector.h>

#include <dpt/context.hpp>
#include <dpt/spmv.hpp>
#include <dpt/spmv_plan.hpp>

#include "app_support/matrix_market.hpp"
#include "bench_support/matrices.hpp"
#if DPT_BENCH_GPU
#  include <cusparse.h>
#  include <dpt/kernels/spmv.hpp>
#else
#  include <Eigen/SparseCore>
#endif

namespace dpt::bench {
namespace {

// Matrices are built on first use and shared by every variant.
std::map<std::string, std::function<host_csr()>> matrix_makers;
const host_csr& matrix(const std::string& name) {
  static std::map<std::string, std::unique_ptr<host_csr>> built;
  auto& slot = built[name];
  if (!slot) slot = std::make_unique<host_csr>(matrix_makers.at(name)());
  return *slot;
}

double spmv_bytes(const host_csr& a) {
  return a.nnz() * double(sizeof(double) + sizeof(int)) + (a.rows + 1) * double(sizeof(int)) +
         (a.cols + a.rows) * double(sizeof(double));
}

// The x every product multiplies: x[c] = 1 + (c mod 7), whole numbers, so that a variant that gathers the wrong
// entry of x (a wrong column index) computes a different y; a constant x would hide it.
std::vector<double> make_x(std::int64_t cols) {
  std::vector<double> x(cols);
  for (std::int64_t c = 0; c < cols; ++c) x[c] = 1.0 + static_cast<double>(c % 7);
  return x;
}

// A on the device, x = make_x, y zeroed.
struct device_problem {
  thrust::device_vector<int> offsets, columns;
  thrust::device_vector<double> values, x, y;
  std::int64_t rows, cols, nnz;
  explicit device_problem(const host_csr& a)
      : offsets(a.offsets.begin(), a.offsets.end()),
        columns(a.columns.begin(), a.columns.end()),
        values(a.values.begin(), a.values.end()),
        y(a.rows, 0.0),
        rows(a.rows),
        cols(a.cols),
        nnz(a.nnz()) {
    const auto host_x = make_x(a.cols);
    x.assign(host_x.begin(), host_x.end());
  }
  auto view() const { return dpt::make_csr_view(offsets.begin(), columns.begin(), values.begin(), rows, cols, nnz); }
};

// Whether y = A·x (x = make_x) matches the sequential CSR loop row by row, within the rounding of each row's
// terms (a NaN, such as an unwritten row of the poisoned y, never does). The stencils' values and x are whole
// numbers, so their rows are exact; the bound covers the other matrices' any order of summation.
bool matches_csr_loop(const host_csr& a, const double* y) {
  const auto x = make_x(a.cols);
  for (std::int64_t r = 0; r < a.rows; ++r) {
    double sum = 0, magnitude = 0;
    for (int k = a.offsets[r]; k < a.offsets[r + 1]; ++k) {
      const double term = a.values[k] * x[a.columns[k]];
      sum += term;
      magnitude += std::fabs(term);
    }
    const double terms = a.offsets[r + 1] - a.offsets[r];
    if (!(std::fabs(y[r] - sum) <= 2 * (terms + 1) * 1.2e-16 * magnitude)) return false;
  }
  return true;
}

constexpr const char* spmv_error = "y disagrees with the sequential CSR loop";

// Every variant is checked before it is timed (checked in bench.hpp): `product` runs once on a y full of NaN,
// and a variant whose y disagrees with the CSR loop is reported as an error instead of a time.
template <class Product>
void check_then_time(benchmark::State& state, const host_csr& a, device_problem& p, where side, Product&& product) {
  const auto run_once = [&] {
    poison(p.y);
    product();
  };
  if (!checked(
          state, run_once, [&] { return matches_csr_loop(a, on_host(p.y).data()); }, spmv_error))
    return;
  report(state, timed_loop(state, side, product), a.nnz(), spmv_bytes(a));
}

#if DPT_BENCH_GPU
#  define DPT_CUSPARSE_CHECK(call)                                                \
    do {                                                                          \
      const cusparseStatus_t dpt_status_ = (call);                                \
      if (dpt_status_ != CUSPARSE_STATUS_SUCCESS) {                               \
        std::fprintf(stderr, "%s:%d: %s failed: %s\n", __FILE__, __LINE__, #call, \
                     cusparseGetErrorString(dpt_status_));                        \
        std::exit(1);                                                             \
      }                                                                           \
    } while (0)
#endif

#if DPT_BENCH_GPU
// The hand-written fused kernel, its scratch (the tile status) allocated once, outside the timing, as cuSPARSE's
// buffer is below.
void fused_kernel_benchmark(benchmark::State& state, const std::string& name) {
  const auto& a = matrix(name);
  device_problem p(a);
  const auto product = [&](void* scratch, std::size_t& bytes) {
    dpt::kernels::spmv(scratch, bytes, thrust::raw_pointer_cast(p.offsets.data()),
                       thrust::raw_pointer_cast(p.columns.data()), thrust::raw_pointer_cast(p.values.data()), p.rows,
                       p.nnz, thrust::raw_pointer_cast(p.x.data()), thrust::raw_pointer_cast(p.y.data()));
  };
  std::size_t scratch_bytes = 0;
  product(nullptr, scratch_bytes);
  thrust::device_vector<unsigned char> scratch(scratch_bytes);
  void* scratch_data = thrust::raw_pointer_cast(scratch.data());
  check_then_time(state, a, p, where::device, [&] { product(scratch_data, scratch_bytes); });
}

// The GPU peer: cuSPARSE's generic SpMV on the same CSR arrays, its buffer allocated outside the timing.
void cusparse_benchmark(benchmark::State& state, const std::string& name) {
  const auto& a = matrix(name);
  device_problem p(a);
  cusparseHandle_t handle{};
  DPT_CUSPARSE_CHECK(cusparseCreate(&handle));
  cusparseSpMatDescr_t matrix_descr{};
  cusparseDnVecDescr_t x_descr{}, y_descr{};
  DPT_CUSPARSE_CHECK(cusparseCreateCsr(&matrix_descr, p.rows, p.cols, p.nnz, thrust::raw_pointer_cast(p.offsets.data()),
                                       thrust::raw_pointer_cast(p.columns.data()),
                                       thrust::raw_pointer_cast(p.values.data()), CUSPARSE_INDEX_32I,
                                       CUSPARSE_INDEX_32I, CUSPARSE_INDEX_BASE_ZERO, CUDA_R_64F));
  DPT_CUSPARSE_CHECK(cusparseCreateDnVec(&x_descr, p.cols, thrust::raw_pointer_cast(p.x.data()), CUDA_R_64F));
  DPT_CUSPARSE_CHECK(cusparseCreateDnVec(&y_descr, p.rows, thrust::raw_pointer_cast(p.y.data()), CUDA_R_64F));
  const double alpha = 1.0, beta = 0.0;
  std::size_t buffer_bytes = 0;
  DPT_CUSPARSE_CHECK(cusparseSpMV_bufferSize(handle, CUSPARSE_OPERATION_NON_TRANSPOSE, &alpha, matrix_descr, x_descr,
                                             &beta, y_descr, CUDA_R_64F, CUSPARSE_SPMV_ALG_DEFAULT, &buffer_bytes));
  thrust::device_vector<unsigned char> buffer(std::max<std::size_t>(buffer_bytes, 1));
  void* buffer_data = thrust::raw_pointer_cast(buffer.data());
  check_then_time(state, a, p, where::device, [&] {
    DPT_CUSPARSE_CHECK(cusparseSpMV(handle, CUSPARSE_OPERATION_NON_TRANSPOSE, &alpha, matrix_descr, x_descr, &beta,
                                    y_descr, CUDA_R_64F, CUSPARSE_SPMV_ALG_DEFAULT, buffer_data));
  });
  DPT_CUSPARSE_CHECK(cusparseDestroyDnVec(y_descr));
  DPT_CUSPARSE_CHECK(cusparseDestroyDnVec(x_descr));
  DPT_CUSPARSE_CHECK(cusparseDestroySpMat(matrix_descr));
  DPT_CUSPARSE_CHECK(cusparseDestroy(handle));
}
#else
// The CPU peer: Eigen's sparse matrix × vector over the same CSR arrays (mapped, not copied), on the host.
void eigen_benchmark(benchmark::State& state, const std::string& name) {
  const auto& a = matrix(name);
  const Eigen::Map<const Eigen::SparseMatrix<double, Eigen::RowMajor, int>> A(a.rows, a.cols, a.nnz(), a.offsets.data(),
                                                                              a.columns.data(), a.values.data());
  const auto host_x = make_x(a.cols);
  const Eigen::Map<const Eigen::VectorXd> x(host_x.data(), a.cols);
  Eigen::VectorXd y(a.rows);
  const auto product = [&] {
    y.noalias() = A * x;
    benchmark::DoNotOptimize(y.data());
  };
  const auto run_once = [&] {
    y.setConstant(std::numeric_limits<double>::quiet_NaN());
    product();
  };
  if (!checked(
          state, run_once, [&] { return matches_csr_loop(a, y.data()); }, spmv_error))
    return;
  report(state, timed_loop(state, where::host, product), a.nnz(), spmv_bytes(a));
}
#endif

// A Thrust-side form of SpMV, run on the device system through device_problem's arrays.
template <class Product>
void device_benchmark(benchmark::State& state, const std::string& name, Product product) {
  const auto& a = matrix(name);
  device_problem p(a);
  check_then_time(state, a, p, where::device, [&] { product(p); });
}

void register_matrix(const std::string& name) {
  const std::int64_t nnz = matrix(name).nnz();  // the size is part of the benchmark's name
  add("spmv/dpt_flat/" + name, nnz, [name](benchmark::State& state) {
    dpt::context context;  // the row ids and the reduction's scratch, allocated by the checked call, then reused
    device_benchmark(state, name,
                     [&](device_problem& p) { dpt::spmv(context.policy(), p.view(), p.x.begin(), p.y.begin()); });
  });
  add("spmv/dpt_row_per_thread/" + name, nnz, [name](benchmark::State& state) {
    device_benchmark(state, name, [](device_problem& p) {
      dpt::spmv_row_per_thread(thrust::device, p.view(), p.x.begin(), p.y.begin());
    });
  });
#if DPT_BENCH_GPU
  // The same composition with the matrix's row ids built once (dpt/spmv_plan.hpp): per product one CUB
  // reduce-by-key, nothing read back. On CPUs a plan changes nothing (dpt_flat).
  add("spmv/dpt_planned/" + name, nnz, [name](benchmark::State& state) {
    const auto& a = matrix(name);
    device_problem p(a);
    dpt::context context;
    const auto plan = dpt::make_spmv_plan(context.policy(), p.view());
    check_then_time(state, a, p, where::device,
                    [&] { dpt::spmv(context.policy(), plan, p.view(), p.x.begin(), p.y.begin()); });
  });
  add("spmv/dpt_fused_kernel/" + name, nnz, [name](benchmark::State& state) { fused_kernel_benchmark(state, name); });
  add("spmv/cusparse/" + name, nnz, [name](benchmark::State& state) { cusparse_benchmark(state, name); });
#else
  // On CPUs dpt::spmv runs the flat form through dpt's multicore recipe; this is the Thrust composition it
  // replaces there (row ids, then reduce_by_key), the one dpt::spmv runs on GPUs.
  add("spmv/thrust_composition/" + name, nnz, [name](benchmark::State& state) {
    device_benchmark(state, name, [](device_problem& p) {
      dpt::spmv_by_row_ids(thrust::device, p.view(), p.x.begin(), p.y.begin());
    });
  });
  add("spmv/eigen/" + name, nnz, [name](benchmark::State& state) { eigen_benchmark(state, name); });
#endif
}

// The lines of a Matrix Market file that are neither comments nor blank: the size line and one per stored entry.
std::int64_t data_lines(const std::string& path) {
  std::ifstream in(path);
  std::int64_t count = 0;
  for (std::string line; std::getline(in, line);) {
    const auto first = line.find_first_not_of(" \t\r");
    if (first != std::string::npos && line[first] != '%') ++count;
  }
  return count;
}

}  // namespace

void register_benchmarks() {
  std::vector<std::string> names;
  std::vector<std::filesystem::path> files;
  // $DPT_MATRIX_DIR where set (scripts/gpu-check sets it: a build unpacked on another machine names a source tree
  // that is not there), else data/matrices of the tree this was built from
  const char* matrix_dir = std::getenv("DPT_MATRIX_DIR");
  for (const auto& entry :
       std::filesystem::directory_iterator(matrix_dir && *matrix_dir ? matrix_dir : DPT_BENCH_MATRIX_DIR)) {
    if (entry.path().extension() == ".mtx") files.push_back(entry.path());
  }
  std::sort(files.begin(), files.end());
  for (const auto& file : files) {
    const auto name = file.stem().string();
    matrix_makers[name] = [path = file.string()] { return from_file(path); };
    names.push_back(name);
    // The Matrix Market reader itself (issue target: ≥ 50 MB/s here); bytes/s is the file's size per second.
    const auto file_bytes = static_cast<std::int64_t>(std::filesystem::file_size(file));
    add("read_matrix_market/" + name, file_bytes, [path = file.string(), file_bytes](benchmark::State& state) {
      std::int64_t entries = -1;
      const auto read = [&] { entries = dpt::mtx::read_matrix(path).stored_entries(); };
      const auto every_entry = [&] { return entries == data_lines(path) - 1; };  // all but the size line
      if (!checked(state, read, every_entry, "wrong number of entries")) return;
      const double seconds = timed_loop(state, where::host, read);
      report(state, seconds, double(entries), double(file_bytes));
      state.counters.erase("copy_fraction");  // a parser's, not a bandwidth-bound step: judged in MB/s instead
    });
  }
  // generated matrices of ~1 M non-zeros; from --dpt_max_log2=23 on ~8 M (past an H200's 60 MB of L2, where the
  // product streams from memory), from 26 on 50 M (about a minute to generate on one host core)
  std::vector<std::int64_t> targets{std::int64_t{1} << 20};
  if (run_options().max_log2 >= 23) targets.push_back(std::int64_t{1} << 23);
  if (run_options().max_log2 >= 26) targets.push_back(50'000'000);
  for (const auto target : targets) {
    const int k2 = int(std::lround(std::sqrt(target / 5.0)));
    const int k3 = int(std::lround(std::cbrt(target / 7.0)));
    matrix_makers["poisson2d_" + millions(target)] = [k2] { return poisson(k2, 2); };
    matrix_makers["poisson3d_" + millions(target)] = [k3] { return poisson(k3, 3); };
    matrix_makers["powerlaw_" + millions(target)] = [target] { return power_law(target); };
    for (const char* kind : {"poisson2d_", "poisson3d_", "powerlaw_"}) names.push_back(kind + millions(target));
  }
  for (const auto& name : names) register_matrix(name);
}

}  // namespace dpt::bench
