// dpt-spmv under mpiexec: the same command line, the same --out file, the product spread over the ranks by rows.
//
// Rank 0 opens --out, reads the matrix and x, refuses what one process refuses, and builds the CSR form exactly as
// one process does (dpt::coo_to_csr: mirrored, duplicates summed, each row's entries in column order). It cuts the
// rows into blocks of about equal non-zeros (dpt::mpi::rows_balanced_by_nonzeros: a row is never split) and x like
// y when A is square (each rank's diagonal block then needs nothing from the others), and sends each rank its rows
// and its slice of x: rank 0 reads and scatters; the ranks do not read the file in parallel. The ranks make the
// exchange's plan once (dpt::mpi::make_spmv_plan) and every timed product is one halo exchange and the lecture's
// dpt::spmv on each rank's rows; rank 0 gathers y, checks it and writes --out.
//
// Each row's sum is its products added in entry order from 0 on the CPU systems (dpt/cpu/spmv_slices.hpp on
// OpenMP and TBB, a sequential reduce_by_key on CPP), whichever rank holds the row and however its slices fall, so
// --out is the single-process file byte for byte, for float and double values. (On CUDA, CUB's reduction adds in
// tiles that follow each rank's non-zeros: the rows then agree within --check's bound, not bit for bit.) Times are
// rank 0's view of the slowest rank: the median, over --repeat products after one untimed product, of barrier to
// barrier.
#pragma once

#include <cstdint>
#include <cstdio>
#include <optional>
#include <string>
#include <thrust/copy.h>
#include <thrust/device_vector.h>
#include <thrust/host_vector.h>
#include <vector>

#include <dpt/config.hpp>
#include <dpt/context.hpp>
#include <dpt/mpi/communicator.hpp>
#include <dpt/mpi/partition.hpp>
#include <dpt/mpi/spmv.hpp>
#include "spmv/options.hpp"
#include "spmv/spmv_run.hpp"
#include "app_support/device_csr.hpp"
#include "app_support/device_memory.hpp"
#include "app_support/errors.hpp"
#include "app_support/matrix_market.hpp"
#include "app_support/memory.hpp"
#include "app_support/output_file.hpp"
#include "app_support/ranks.hpp"
#include "app_support/timing.hpp"

namespace dpt::app {

// Rank 0's whole matrix in CSR form, in host memory for scattering (empty on the other ranks).
template <class Index, class Value>
struct whole_csr {
  std::int64_t rows = 0, cols = 0, nnz = 0;
  std::vector<Index> row_offsets, column_indices;
  std::vector<Value> values;
};

// y = A·x over the ranks, for the matrix m and x that rank 0 read (empty elsewhere).
template <class Index, class Value>
void multiply_across_ranks(const dpt::mpi::communicator& comm, const spmv_options& opt, const dpt::mtx::coo_matrix& m,
                           const std::vector<double>& x_host, std::optional<output_file>& out) {
  const bool root = comm.rank() == 0;
  const auto ranks = comm.size();
  // rank 0 builds the CSR form as one process does: the same entries in the same order
  whole_csr<Index, Value> A;
  together(
      comm,
      [&] {
        const auto csr = to_device_csr<Index, Value>(m);
        A.rows = csr.rows, A.cols = csr.cols, A.nnz = csr.nnz();
        A.row_offsets.assign(csr.row_offsets.begin(), csr.row_offsets.end());
        A.column_indices.assign(csr.column_indices.begin(), csr.column_indices.end());
        A.values.assign(csr.values.begin(), csr.values.end());
      },
      /*root_only=*/true);
  std::int64_t shape[3] = {A.rows, A.cols, A.nnz};
  dpt::mpi::check(MPI_Bcast(shape, 3, MPI_INT64_T, 0, comm.get()), "MPI_Bcast");
  const std::int64_t rows = shape[0], cols = shape[1];

  // rows in blocks of about equal non-zeros, each block's entries, and x cut like y when A is square
  std::vector<std::int64_t> cuts(2 * (static_cast<std::size_t>(ranks) + 1));
  if (root) {
    const auto row_starts = dpt::mpi::rows_balanced_by_nonzeros(A.row_offsets, ranks);
    for (int r = 0; r <= ranks; ++r) {
      cuts[static_cast<std::size_t>(r)] = row_starts[static_cast<std::size_t>(r)];
      cuts[static_cast<std::size_t>(ranks + 1 + r)] =
          A.row_offsets[static_cast<std::size_t>(row_starts[static_cast<std::size_t>(r)])];
    }
  }
  dpt::mpi::check(MPI_Bcast(cuts.data(), static_cast<int>(cuts.size()), MPI_INT64_T, 0, comm.get()), "MPI_Bcast");
  const dpt::mpi::listed_partition row_blocks{{cuts.begin(), cuts.begin() + ranks + 1}};
  const dpt::mpi::listed_partition entry_blocks{{cuts.begin() + ranks + 1, cuts.end()}};
  dpt::mpi::listed_partition x_blocks = row_blocks;
  if (rows != cols) {
    const dpt::mpi::block_partition even{cols, ranks};
    for (int r = 0; r <= ranks; ++r) x_blocks.starts[static_cast<std::size_t>(r)] = even.start(r);
  }

  // each rank's block: its rows' offsets from its first entry, their columns (global) and values, its slice of x
  const int me = comm.rank();
  std::vector<Index> offsets = dpt::mpi::scatter_slices(comm, A.row_offsets, row_blocks);
  offsets.push_back(static_cast<Index>(entry_blocks.start(me + 1)));
  for (auto& o : offsets) o = static_cast<Index>(o - entry_blocks.start(me));
  const auto columns = dpt::mpi::scatter_slices(comm, A.column_indices, entry_blocks);
  const auto values = dpt::mpi::scatter_slices(comm, A.values, entry_blocks);
  A = {};  // rank 0 keeps no second copy of the matrix
  const auto x_slice = dpt::mpi::scatter_slices(comm, std::vector<Value>(x_host.begin(), x_host.end()), x_blocks);
  const thrust::device_vector<Index> d_offsets(offsets.begin(), offsets.end()),
      d_columns(columns.begin(), columns.end());
  const thrust::device_vector<Value> d_values(values.begin(), values.end()), d_x(x_slice.begin(), x_slice.end());
  thrust::device_vector<Value> d_y(static_cast<std::size_t>(row_blocks.size(me)));
  const auto block = dpt::make_csr_view(d_offsets.data(), d_columns.data(), d_values.data(), row_blocks.size(me), cols,
                                        entry_blocks.size(me));

  // the exchange's plan once, then the timed products
  dpt::context context;
  std::optional<dpt::mpi::spmv_plan<Index, Value>> plan;
  together(comm,
           [&] { plan.emplace(dpt::mpi::make_spmv_plan<Value>(comm, context.policy(), block, x_blocks.starts)); });
  // x's block written once into the plan's local x, ahead of the halo: each product reads it in place
  thrust::copy(d_x.begin(), d_x.end(), dpt::mpi::x_block_of(*plan));
  const auto product = [&] { dpt::mpi::spmv(comm, context.policy(), *plan, block, d_y.begin()); };
  double seconds = 0;
  together(comm, [&] {
    seconds = 1e-3 * median_ms(opt.repeat, product, [&](auto& body) { return ms_between_barriers(comm, body); });
  });
  // the halo: the x entries a product moves between ranks (each rank reads its own block in place)
  std::int64_t mine = 0, halo = 0;
  for (const int count : plan->receive_counts) mine += count;
  dpt::mpi::check(MPI_Reduce(&mine, &halo, 1, MPI_INT64_T, MPI_SUM, 0, comm.get()), "MPI_Reduce");
  const thrust::host_vector<Value> y_block = d_y;
  const auto y_whole = dpt::mpi::gather_slices(comm, std::vector<Value>(y_block.begin(), y_block.end()));

  // rank 0 reports, checks and writes
  together(
      comm,
      [&] {
        const double nnz = static_cast<double>(shape[2]);
        const double bytes = nnz * (sizeof(Value) + sizeof(Index)) + static_cast<double>(rows + 1) * sizeof(Index) +
                             static_cast<double>(cols + rows) * sizeof(Value);
        const auto rate = [&](double amount) { return seconds > 0 ? amount / seconds / 1e9 : 0.0; };
        std::printf("dpt-spmv: %s\n", opt.matrix_path.c_str());
        std::printf("  matrix:      %lld x %lld, coordinate %s %s\n", static_cast<long long>(rows),
                    static_cast<long long>(cols), dpt::mtx::name(m.value_field), dpt::mtx::name(m.kind));
        std::printf("  non-zeros:   %lld stored, %lld expanded (mirrored, duplicates summed)\n",
                    static_cast<long long>(m.stored_entries()), static_cast<long long>(shape[2]));
        std::printf("  backend:     %s, %s values, int%d indices, %d ranks\n", dpt::device_system_name(),
                    sizeof(Value) == 4 ? "float" : "double", static_cast<int>(8 * sizeof(Index)), ranks);
        std::printf("  x:           %s\n", !opt.x_path.empty() ? opt.x_path.c_str()
                                           : opt.x_random      ? "uniform random in [-1, 1)"
                                                               : "all ones");
        std::printf("  rows:        in blocks of about equal non-zeros; x cut %s\n",
                    rows == cols ? "like y" : "evenly (A is not square)");
        std::printf(
            "  exchange:    %lld entries of x per product between ranks (one MPI_Alltoallv), the rest read in "
            "place\n",
            static_cast<long long>(halo));
        std::printf("  halo memory: %s\n", dpt::mpi::describe(comm.path()));
        std::printf(
            "  time:        %.6f ms median of %d (dpt::mpi::spmv: halo exchange + dpt::spmv on each rank's rows; "
            "slowest rank)\n",
            seconds * 1e3, opt.repeat);
        std::printf("  throughput:  %.3f GFLOP/s, %.3f GB/s effective\n", rate(2 * nnz), rate(bytes));
        const std::vector<double> y(y_whole.begin(), y_whole.end());
        const bool passed = check_y<Value>(opt, m, x_host, y);
        write_y(opt, y, out);
        if (!passed) throw check_failure("an entry of y is outside its rounding-error bound");
      },
      /*root_only=*/true);
}

// dpt-spmv's run under mpiexec: rank 0 opens --out and reads the inputs, as one process does.
inline int run_across_ranks(const spmv_options& opt, const dpt::mpi::communicator& comm) {
  std::optional<output_file> out;
  dpt::mtx::coo_matrix m;
  std::vector<double> x;
  int narrow = 0;
  together(
      comm,
      [&] {
        if (!opt.out_path.empty()) {
          out.emplace(named_path{"--out", opt.out_path},
                      std::vector<named_path>{{"MATRIX", opt.matrix_path}, {"--x", opt.x_path}});
        }
        const auto& storage = opt.single_precision ? float_values : dpt::mtx::as_double;
        m = dpt::mtx::read_matrix(opt.matrix_path, storage);
        require_memory(spmv_memory_needs(opt, m), matrix_description(opt, m), this_builds_device_memory());
        x = make_x(opt, m.cols, storage);
        if (opt.single_precision) {
          refuse_overflow<float>(m, x, opt.matrix_path);
        } else {
          refuse_overflow<double>(m, x, opt.matrix_path);
        }
        narrow = index_type_fits<std::int32_t>(m);
      },
      /*root_only=*/true);
  // every rank takes the index width from rank 0
  dpt::mpi::check(MPI_Bcast(&narrow, 1, MPI_INT, 0, comm.get()), "MPI_Bcast");
  if (opt.single_precision) {
    narrow ? multiply_across_ranks<std::int32_t, float>(comm, opt, m, x, out)
           : multiply_across_ranks<std::int64_t, float>(comm, opt, m, x, out);
  } else {
    narrow ? multiply_across_ranks<std::int32_t, double>(comm, opt, m, x, out)
           : multiply_across_ranks<std::int64_t, double>(comm, opt, m, x, out);
  }
  return 0;
}

inline int main_across_ranks(int argc, char* argv[]) {
  return main_across_ranks(
      "dpt-spmv", spmv_usage, argc, argv, parse_spmv_options,
      [](const spmv_options& o, const dpt::mpi::communicator& comm) { return run_across_ranks(o, comm); });
}

}  // namespace dpt::app
