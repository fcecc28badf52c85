// dpt::mpi::spmv on 1, 2 or 3 ranks against a sequential CSR loop over the whole matrix: every rank builds the same
// seeded matrix and x, takes its block of rows and of x, and checks its block of y. With small integer values every
// sum is exact, so the blocks must match the loop exactly; with values that round, they must match the single-process
// dpt::spmv bit for bit, since each row is added in entry order wherever it lies.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdint>
#include <random>
#include <stdexcept>
#include <thrust/copy.h>
#include <thrust/device_vector.h>
#include <thrust/execution_policy.h>
#include <thrust/host_vector.h>
#include <tuple>
#include <vector>

#include <dpt/mpi/partition.hpp>
#include <dpt/mpi/spmv.hpp>
#include "test_support/first_difference.hpp"

namespace {

using dpt::test::first_difference;

// A rows × cols CSR matrix with 0 to 2·mean entries per row (some rows empty), integer values in [-4, 4].
struct host_csr {
  std::int64_t rows = 0, cols = 0;
  std::vector<std::int64_t> row_offsets{0};
  std::vector<int> columns;
  std::vector<double> values;
};

host_csr random_csr(std::int64_t rows, std::int64_t cols, int mean, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_int_distribution<int> length(0, 2 * mean), value(-4, 4);
  std::uniform_int_distribution<std::int64_t> column(0, std::max<std::int64_t>(cols - 1, 0));
  host_csr A{rows, cols, {0}, {}, {}};
  for (std::int64_t i = 0; i < rows; ++i) {
    const int k = cols > 0 ? length(rng) : 0;
    for (int e = 0; e < k; ++e) {
      A.columns.push_back(static_cast<int>(column(rng)));
      A.values.push_back(value(rng));
    }
    A.row_offsets.push_back(static_cast<std::int64_t>(A.columns.size()));
  }
  return A;
}

std::vector<double> reference_spmv(const host_csr& A, const std::vector<double>& x) {
  std::vector<double> y(static_cast<std::size_t>(A.rows), 0.0);
  for (std::int64_t i = 0; i < A.rows; ++i) {
    for (auto k = A.row_offsets[static_cast<std::size_t>(i)]; k < A.row_offsets[static_cast<std::size_t>(i) + 1]; ++k)
      y[static_cast<std::size_t>(i)] +=
          A.values[static_cast<std::size_t>(k)] * x[static_cast<std::size_t>(A.columns[static_cast<std::size_t>(k)])];
  }
  return y;
}

std::vector<double> small_integers(std::int64_t n, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_int_distribution<int> value(-3, 3);
  std::vector<double> x(static_cast<std::size_t>(n));
  for (auto& v : x) v = value(rng);
  return x;
}

// ranks + 1 block starts over n: even, everything on the last rank, or seeded random cuts.
enum class blocks { even, all_on_last_rank, random };

std::vector<std::int64_t> block_starts(std::int64_t n, int ranks, blocks how, std::uint64_t seed) {
  std::vector<std::int64_t> starts(static_cast<std::size_t>(ranks) + 1, n);
  std::mt19937_64 rng(seed);
  for (int r = 0; r < ranks; ++r) {
    const auto i = static_cast<std::size_t>(r);
    starts[i] = how == blocks::even               ? dpt::mpi::block_partition{n, ranks}.start(r)
                : how == blocks::all_on_last_rank ? 0
                                                  : std::uniform_int_distribution<std::int64_t>(0, n)(rng);
  }
  starts[0] = 0;
  std::sort(starts.begin(), starts.end() - 1);
  return starts;
}

template <class T>
std::vector<T> part(const std::vector<T>& v, std::int64_t first, std::int64_t last) {
  return {v.begin() + first, v.begin() + last};
}

// This rank's block of A's rows on the device: offsets from 0, columns global.
struct device_block {
  std::int64_t first_row = 0, end_row = 0;
  thrust::device_vector<std::int64_t> offsets;
  thrust::device_vector<int> columns;
  thrust::device_vector<double> values;

  auto view(std::int64_t cols) const {
    return dpt::make_csr_view(offsets.begin(), columns.begin(), values.begin(), end_row - first_row, cols,
                              static_cast<std::ptrdiff_t>(values.size()));
  }
};

device_block block_of(const host_csr& A, const std::vector<std::int64_t>& row_starts, int me) {
  device_block b;
  b.first_row = row_starts[static_cast<std::size_t>(me)];
  b.end_row = row_starts[static_cast<std::size_t>(me) + 1];
  const auto first_entry = A.row_offsets[static_cast<std::size_t>(b.first_row)];
  const auto end_entry = A.row_offsets[static_cast<std::size_t>(b.end_row)];
  std::vector<std::int64_t> offsets = part(A.row_offsets, b.first_row, b.end_row + 1);
  for (auto& o : offsets) o -= first_entry;
  const auto columns = part(A.columns, first_entry, end_entry);
  const auto values = part(A.values, first_entry, end_entry);
  // constructed, not assigned: Thrust's assign from host iterators reads *first even of an empty range
  b.offsets = thrust::device_vector<std::int64_t>(offsets.begin(), offsets.end());
  b.columns = thrust::device_vector<int>(columns.begin(), columns.end());
  b.values = thrust::device_vector<double>(values.begin(), values.end());
  return b;
}

}  // namespace

TEST_CASE("SpMV across ranks gives every rank its block of y = A*x", "[mpi][spmv]") {
  const auto shape =
      GENERATE(std::pair<std::int64_t, std::int64_t>{0, 0}, std::pair<std::int64_t, std::int64_t>{1, 1},
               std::pair<std::int64_t, std::int64_t>{2, 5}, std::pair<std::int64_t, std::int64_t>{97, 97},
               std::pair<std::int64_t, std::int64_t>{1009, 31}, std::pair<std::int64_t, std::int64_t>{20011, 20011});
  const int mean = GENERATE(1, 6);
  const auto row_blocks = GENERATE(0, 1, 2);  // balanced by non-zeros, all on the last rank, random
  const auto x_blocks = GENERATE(blocks::even, blocks::all_on_last_rank, blocks::random);
  // random row blocks exchange through host buffers (exchange_path): the CPU systems run the staging code too
  const auto path = row_blocks == 2 ? dpt::mpi::exchange_path::host_staged : dpt::mpi::default_exchange_path();
  const dpt::mpi::communicator comm(MPI_COMM_WORLD, path);
  const int ranks = comm.size(), me = comm.rank();
  const auto [rows, cols] = shape;
  CAPTURE(rows, cols, mean, row_blocks, static_cast<int>(x_blocks), me, ranks);

  const host_csr A = random_csr(rows, cols, mean, 7 + static_cast<std::uint64_t>(rows));
  const auto row_starts = row_blocks == 0 ? dpt::mpi::rows_balanced_by_nonzeros(A.row_offsets, ranks)
                          : row_blocks == 1
                              ? block_starts(rows, ranks, blocks::all_on_last_rank, 0)
                              : block_starts(rows, ranks, blocks::random, 11 + static_cast<std::uint64_t>(rows));
  const auto x_starts = block_starts(cols, ranks, x_blocks, 13 + static_cast<std::uint64_t>(cols));
  // this rank's block of rows, offsets from 0, columns global
  const auto mine = block_of(A, row_starts, me);
  const auto first_row = mine.first_row, end_row = mine.end_row;
  const auto block = mine.view(cols);

  auto plan = dpt::mpi::make_spmv_plan<double>(comm, thrust::device, block, x_starts);
  thrust::device_vector<double> y(static_cast<std::size_t>(end_row - first_row));
  SECTION("the plan serves every product: two x in turn, the second written into the plan's local x") {
    for (std::uint64_t round = 0; round < 2; ++round) {
      const auto x = small_integers(cols, 17 + round);
      const auto my_x = part(x, x_starts[static_cast<std::size_t>(me)], x_starts[static_cast<std::size_t>(me) + 1]);
      const thrust::device_vector<double> d_x(my_x.begin(), my_x.end());
      if (round == 0) {
        dpt::mpi::spmv(comm, thrust::device, plan, block, d_x.begin(), y.begin());
      } else {
        thrust::copy(d_x.begin(), d_x.end(), dpt::mpi::x_block_of(plan));
        dpt::mpi::spmv(comm, thrust::device, plan, block, y.begin());
      }
      const thrust::host_vector<double> got(y);
      CHECK(first_difference(std::vector<double>(got.begin(), got.end()),
                             part(reference_spmv(A, x), first_row, end_row)) == "equal");
    }
  }
}

TEST_CASE("a column outside x is refused on every rank", "[mpi][spmv]") {
  const dpt::mpi::communicator comm;
  // one row per rank, one entry each; the last rank's entry names column `cols`, one past x
  const std::int64_t cols = comm.size();
  const thrust::device_vector<std::int64_t> offsets{std::vector<std::int64_t>{0, 1}};
  const thrust::device_vector<int> columns(1, comm.rank() == comm.size() - 1 ? static_cast<int>(cols) : comm.rank());
  const thrust::device_vector<double> values(1, 1.0);
  const auto block = dpt::make_csr_view(offsets.begin(), columns.begin(), values.begin(), 1, cols, 1);
  std::vector<std::int64_t> x_starts(static_cast<std::size_t>(comm.size()) + 1);
  for (int r = 0; r <= comm.size(); ++r) x_starts[static_cast<std::size_t>(r)] = r;
  CHECK_THROWS_AS(dpt::mpi::make_spmv_plan<double>(comm, thrust::device, block, x_starts), std::invalid_argument);
}

TEST_CASE("SpMV across ranks gives every row the single-process dpt::spmv's bits, for values that round",
          "[mpi][spmv]") {
  const dpt::mpi::communicator comm;
  const int ranks = comm.size(), me = comm.rank();
  // rows of up to 12 entries, and three rows of up to 60000: longer than a slice of dpt::spmv's CPU form, so that one
  // process cuts them into several slices where a rank holding one row alone may not
  const auto [rows, cols, mean] = GENERATE(std::tuple<std::int64_t, std::int64_t, int>{20011, 20011, 6},
                                           std::tuple<std::int64_t, std::int64_t, int>{3, 100003, 30000});
  const bool balanced = GENERATE(true, false);
  CAPTURE(rows, mean, balanced, me, ranks);
  host_csr A = random_csr(rows, cols, mean, 23);
  std::mt19937_64 rng(29);
  std::uniform_real_distribution<double> uniform(-1.0, 1.0);
  for (auto& v : A.values) v = uniform(rng);
  std::vector<double> x(static_cast<std::size_t>(cols));
  for (auto& v : x) v = uniform(rng);

  // one process: dpt::spmv over the whole matrix on this rank
  const thrust::device_vector<std::int64_t> all_offsets(A.row_offsets.begin(), A.row_offsets.end());
  const thrust::device_vector<int> all_columns(A.columns.begin(), A.columns.end());
  const thrust::device_vector<double> all_values(A.values.begin(), A.values.end()), all_x(x.begin(), x.end());
  thrust::device_vector<double> y_whole(static_cast<std::size_t>(rows));
  dpt::spmv(thrust::device,
            dpt::make_csr_view(all_offsets.begin(), all_columns.begin(), all_values.begin(), rows, cols,
                               static_cast<std::ptrdiff_t>(A.values.size())),
            all_x.begin(), y_whole.begin());

  // across the ranks: rows balanced by non-zeros or cut at random, x cut like y where A is square
  const auto row_starts = balanced ? dpt::mpi::rows_balanced_by_nonzeros(A.row_offsets, ranks)
                                   : block_starts(rows, ranks, blocks::random, 31);
  const auto x_starts = rows == cols ? row_starts : block_starts(cols, ranks, blocks::even, 0);
  const auto mine = block_of(A, row_starts, me);
  const auto first_row = mine.first_row, end_row = mine.end_row;
  const auto block = mine.view(cols);
  const auto my_x = part(x, x_starts[static_cast<std::size_t>(me)], x_starts[static_cast<std::size_t>(me) + 1]);
  const thrust::device_vector<double> d_x(my_x.begin(), my_x.end());
  auto plan = dpt::mpi::make_spmv_plan<double>(comm, thrust::device, block, x_starts);
  thrust::device_vector<double> y(static_cast<std::size_t>(end_row - first_row));
  dpt::mpi::spmv(comm, thrust::device, plan, block, d_x.begin(), y.begin());

  const thrust::host_vector<double> got(y), whole(y_whole);
  CHECK(first_difference(std::vector<double>(got.begin(), got.end()),
                         part(std::vector<double>(whole.begin(), whole.end()), first_row, end_row)) == "equal");
}
