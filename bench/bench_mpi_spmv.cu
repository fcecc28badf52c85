// SpMV across MPI ranks: dpt::mpi::spmv (a halo exchange, then the lecture's dpt::spmv on each rank's rows) against
// PETSc's MatMult on an MPIAIJ matrix, the reference distributed engine, on the same matrices, the same row blocks
// (about equal non-zeros, rows never split; x cut like y), the same x, in one run. Beside them, a copy of each
// rank's effective bytes (values and column indices once, its row offsets, x block and y block) gives the run's
// memory-bandwidth bound. Times are from a barrier before the product to one after it: the slowest rank.
//
//   mpiexec -n P bench_mpi_spmv [--repeat N] [--sizes 1M,8M] [MATRIX.mtx …]
//
// Matrices: the Matrix Market files named (each rank reads the whole file and keeps its block: a benchmark's
// shortcut, not the apps' rank-0 scatter), then the generated 2-D and 3-D Poisson stencils and the power-law matrix
// (bench_support/matrices.hpp) at each of --sizes non-zeros (default 1M). Prints one line per matrix on rank 0, and
// checks dpt's y against PETSc's (PETSc adds a row's diagonal-block and off-diagonal-block terms separately, so the
// two agree within rounding, not bit for bit): a difference beyond 1e-12 of the row's magnitude fails the run.
// Built where CMake finds PETSc (Debian's petsc-dev); without it only dpt and the copy are timed.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <stdexcept>
#include <string>
#include <thrust/copy.h>
#include <thrust/device_vector.h>
#include <thrust/execution_policy.h>
#include <thrust/host_vector.h>
#include <vector>

#include <dpt/config.hpp>
#include <dpt/mpi/communicator.hpp>
#include <dpt/mpi/partition.hpp>
#include <dpt/mpi/spmv.hpp>
#include "bench_support/matrices.hpp"
#if DPT_BENCH_PETSC
#  include <petscmat.h>
#endif

namespace {

using dpt::bench::host_csr;

// Milliseconds from a barrier before `body` to one after it, the median of `repeat` after one untimed call.
template <class Body>
double median_ms(const dpt::mpi::communicator& comm, int repeat, Body&& body) {
  body();
  std::vector<double> ms;
  for (int i = 0; i < repeat; ++i) {
    dpt::mpi::check(MPI_Barrier(comm.get()), "MPI_Barrier");
    const auto start = std::chrono::steady_clock::now();
    body();
    dpt::mpi::check(MPI_Barrier(comm.get()), "MPI_Barrier");
    ms.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count());
  }
  std::sort(ms.begin(), ms.end());
  return ms[ms.size() / 2];
}

#if DPT_BENCH_PETSC
void petsc_check(PetscErrorCode code, const char* call) {
  if (code != 0) throw std::runtime_error(std::string("PETSc: ") + call + " failed with error " + std::to_string(code));
}
#endif

struct timings {
  double dpt_ms = 0, petsc_ms = 0, copy_ms = 0;
  double worst_difference = 0;  // max over rows of |y_dpt − y_petsc| / (1 + Σ|a||x|)
};

// One matrix on every rank: its block of rows, x cut like y, dpt's product, PETSc's and the copy.
timings measure(const dpt::mpi::communicator& comm, const host_csr& a, int repeat) {
  const int ranks = comm.size(), me = comm.rank();
  const auto row_starts = dpt::mpi::rows_balanced_by_nonzeros(a.offsets, ranks);
  std::vector<std::int64_t> x_starts = row_starts;
  if (a.rows != a.cols) {
    for (int r = 0; r <= ranks; ++r)
      x_starts[static_cast<std::size_t>(r)] = dpt::mpi::block_partition{a.cols, ranks}.start(r);
  }
  const auto first_row = row_starts[static_cast<std::size_t>(me)],
             end_row = row_starts[static_cast<std::size_t>(me) + 1];
  const auto first_entry = a.offsets[static_cast<std::size_t>(first_row)],
             end_entry = a.offsets[static_cast<std::size_t>(end_row)];
  const auto rows = end_row - first_row, nnz = std::int64_t{end_entry} - first_entry;
  const auto x_first = x_starts[static_cast<std::size_t>(me)],
             x_size = x_starts[static_cast<std::size_t>(me) + 1] - x_first;

  std::vector<int> offsets(a.offsets.begin() + first_row, a.offsets.begin() + end_row + 1);
  for (auto& o : offsets) o -= first_entry;
  std::vector<double> x(static_cast<std::size_t>(x_size));
  for (std::int64_t c = 0; c < x_size; ++c)
    x[static_cast<std::size_t>(c)] = 1.0 + static_cast<double>((x_first + c) % 7);  // as bench_spmv
  const thrust::device_vector<int> d_offsets(offsets.begin(), offsets.end()),
      d_columns(a.columns.begin() + first_entry, a.columns.begin() + end_entry);
  const thrust::device_vector<double> d_values(a.values.begin() + first_entry, a.values.begin() + end_entry),
      d_x(x.begin(), x.end());
  thrust::device_vector<double> d_y(static_cast<std::size_t>(rows));
  const auto block = dpt::make_csr_view(d_offsets.data(), d_columns.data(), d_values.data(), rows, a.cols, nnz);

  timings t;
  auto plan = dpt::mpi::make_spmv_plan<double>(comm, thrust::device, block, x_starts);
  // x written once into the plan's local x, as PETSc's vector holds it: the products read it in place
  thrust::copy(d_x.begin(), d_x.end(), dpt::mpi::x_block_of(plan));
  t.dpt_ms = median_ms(comm, repeat, [&] { dpt::mpi::spmv(comm, thrust::device, plan, block, d_y.begin()); });

  // the bandwidth bound: each rank copies as many bytes as its product must move
  const auto block_bytes = nnz * 12 + (rows + 1) * 4 + (x_size + rows) * 8;
  const thrust::device_vector<double> from(static_cast<std::size_t>(block_bytes / 16 + 1), 1.0);
  thrust::device_vector<double> to(from.size());
  t.copy_ms = median_ms(comm, repeat, [&] { thrust::copy(thrust::device, from.begin(), from.end(), to.begin()); });

#if DPT_BENCH_PETSC
  // PETSc's MPIAIJ matrix of the same block (it keeps its own copy: a diagonal block and an off-diagonal block)
  std::vector<PetscInt> i(offsets.begin(), offsets.end()),
      j(a.columns.begin() + first_entry, a.columns.begin() + end_entry);
  Mat A;
  Vec px, py;
  petsc_check(MatCreateMPIAIJWithArrays(comm.get(), static_cast<PetscInt>(rows), static_cast<PetscInt>(x_size),
                                        static_cast<PetscInt>(a.rows), static_cast<PetscInt>(a.cols), i.data(),
                                        j.data(), a.values.data() + first_entry, &A),
              "MatCreateMPIAIJWithArrays");
  petsc_check(MatCreateVecs(A, &px, &py), "MatCreateVecs");
  PetscScalar* xs = nullptr;
  petsc_check(VecGetArray(px, &xs), "VecGetArray");
  std::copy(x.begin(), x.end(), xs);
  petsc_check(VecRestoreArray(px, &xs), "VecRestoreArray");
  t.petsc_ms = median_ms(comm, repeat, [&] { petsc_check(MatMult(A, px, py), "MatMult"); });

  // the two y agree within rounding, row by row
  const thrust::host_vector<double> y_dpt = d_y;
  const PetscScalar* ys = nullptr;
  petsc_check(VecGetArrayRead(py, &ys), "VecGetArrayRead");
  for (std::int64_t r = 0; r < rows; ++r) {
    double magnitude = 0;
    for (auto k = offsets[static_cast<std::size_t>(r)]; k < offsets[static_cast<std::size_t>(r) + 1]; ++k) {
      const auto e = static_cast<std::size_t>(first_entry + k);
      magnitude += std::fabs(a.values[e]) * (1.0 + static_cast<double>(a.columns[e] % 7));
    }
    t.worst_difference =
        std::max(t.worst_difference, std::fabs(y_dpt[static_cast<std::size_t>(r)] - ys[r]) / (1 + magnitude));
  }
  petsc_check(VecRestoreArrayRead(py, &ys), "VecRestoreArrayRead");
  petsc_check(VecDestroy(&px), "VecDestroy");
  petsc_check(VecDestroy(&py), "VecDestroy");
  petsc_check(MatDestroy(&A), "MatDestroy");
  dpt::mpi::check(MPI_Allreduce(MPI_IN_PLACE, &t.worst_difference, 1, MPI_DOUBLE, MPI_MAX, comm.get()),
                  "MPI_Allreduce");
#endif
  return t;
}

std::vector<std::string> split(const std::string& list) {
  std::vector<std::string> items;
  std::size_t start = 0;
  for (std::size_t comma; (comma = list.find(',', start)) != std::string::npos; start = comma + 1)
    items.push_back(list.substr(start, comma - start));
  items.push_back(list.substr(start));
  return items;
}

std::int64_t non_zeros_of(const std::string& size) {
  const double millions = std::stod(size);
  if (!(millions > 0) || size.back() != 'M') throw std::invalid_argument("--sizes takes counts like 1M,8M");
  return std::int64_t(millions * 1e6);
}

int run(int argc, char* argv[]) {
  const dpt::mpi::communicator comm;
  int repeat = 20;
  std::vector<std::string> files, sizes{"1M"};
  for (int k = 1; k < argc; ++k) {
    const std::string arg = argv[k];
    if (arg == "--repeat" && k + 1 < argc) {
      repeat = std::max(1, std::atoi(argv[++k]));
    } else if (arg == "--sizes" && k + 1 < argc) {
      sizes = split(argv[++k]);
    } else {
      files.push_back(arg);
    }
  }
  const char* threads = std::getenv("OMP_NUM_THREADS");
  if (comm.rank() == 0) {
    std::printf("# bench_mpi_spmv: %d ranks, %s device system, OMP_NUM_THREADS=%s, median of %d, double values\n",
                comm.size(), dpt::device_system_name(), threads ? threads : "(unset)", repeat);
    std::printf("%-22s %10s %10s %10s %10s %8s %9s %9s %9s %9s\n", "matrix", "nnz", "dpt_ms", "petsc_ms", "copy_ms",
                "dpt/petsc", "dpt_GB/s", "petsc_GB/s", "copy_GB/s", "|dy|");
  }
  std::vector<std::pair<std::string, host_csr>> matrices;
  for (const auto& f : files) matrices.emplace_back(f.substr(f.find_last_of('/') + 1), dpt::bench::from_file(f));
  bool agree = true;
  const auto report = [&](const std::string& name, const host_csr& a) {
    const timings t = measure(comm, a, repeat);
    const double bytes = static_cast<double>(a.nnz()) * 12 + static_cast<double>(a.rows + 1) * 4 +
                         static_cast<double>(a.rows + a.cols) * 8;
    const auto rate = [&](double ms) { return ms > 0 ? bytes / ms / 1e6 : 0.0; };
    agree = agree && t.worst_difference <= 1e-12;
    if (comm.rank() == 0) {
      std::printf("%-22s %10lld %10.4f %10.4f %10.4f %8.2fx %9.2f %9.2f %9.2f %9.1e\n", name.c_str(),
                  static_cast<long long>(a.nnz()), t.dpt_ms, t.petsc_ms, t.copy_ms,
                  t.petsc_ms > 0 ? t.petsc_ms / t.dpt_ms : 0.0, rate(t.dpt_ms), rate(t.petsc_ms), rate(t.copy_ms),
                  t.worst_difference);
      std::fflush(stdout);
    }
  };
  for (const auto& [name, a] : matrices) report(name, a);
  for (const auto& size : sizes) {
    const auto target = non_zeros_of(size);
    report("poisson2d_" + size,
           dpt::bench::poisson(static_cast<int>(std::lround(std::sqrt(static_cast<double>(target) / 5))), 2));
    report("poisson3d_" + size,
           dpt::bench::poisson(static_cast<int>(std::lround(std::cbrt(static_cast<double>(target) / 7))), 3));
    report("powerlaw_" + size, dpt::bench::power_law(target));
  }
  if (!agree) {
    if (comm.rank() == 0) std::fprintf(stderr, "bench_mpi_spmv: dpt's y and PETSc's differ beyond rounding\n");
    return 1;
  }
  return 0;
}

}  // namespace

int main(int argc, char* argv[]) {
  dpt::mpi::environment mpi(argc, argv);
  try {
#if DPT_BENCH_PETSC
    petsc_check(PetscInitializeNoArguments(), "PetscInitialize");
#endif
    const int status = run(argc, argv);
#if DPT_BENCH_PETSC
    petsc_check(PetscFinalize(), "PetscFinalize");
#endif
    return status;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "bench_mpi_spmv: %s\n", e.what());
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  return 1;
}
