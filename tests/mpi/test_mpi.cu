// dpt::mpi's algorithms on 1, 2 or 3 ranks (ctest runs this file under mpiexec -n 1, 2 and 3) against a sequential
// reference over the whole sequence: every rank builds the same seeded sequence, takes its slice by a partition
// (even, uneven, everything on one rank, ranks with nothing) and checks its slice of the result. Checks never stop
// a section early (CHECK, not REQUIRE), so that every rank reaches every collective call.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <numeric>
#include <random>
#include <stdexcept>
#include <string>
#include <utility>
#include <thrust/device_vector.h>
#include <thrust/execution_policy.h>
#include <thrust/host_vector.h>
#include <vector>

#include <dpt/histogram.hpp>
#include <dpt/mpi/histogram.hpp>
#include <dpt/mpi/partition.hpp>
#include <dpt/mpi/scan.hpp>
#include <dpt/mpi/segmented_scan.hpp>
#include "test_support/first_difference.hpp"
#include "test_support/operators.hpp"
#include "test_support/random_inputs.hpp"

namespace {

using dpt::test::affine;
using dpt::test::compose;
using dpt::test::first_difference;

// How the whole sequence is cut into the ranks' slices.
enum class cut { even, all_on_last_rank, first_rank_empty, random };

const char* name(cut c) {
  switch (c) {
    case cut::even:
      return "even slices";
    case cut::all_on_last_rank:
      return "every element on the last rank";
    case cut::first_rank_empty:
      return "nothing on rank 0";
    default:
      return "random cut points";
  }
}

// Where each rank's slice starts, and the end: ranks + 1 offsets, the same on every rank.
std::vector<std::size_t> cut_points(std::size_t n, int ranks, cut c, std::uint64_t seed) {
  std::vector<std::size_t> points(static_cast<std::size_t>(ranks) + 1, 0);
  points.back() = n;
  for (int r = 1; r < ranks; ++r) {
    const auto i = static_cast<std::size_t>(r);
    switch (c) {
      case cut::even:
        points[i] = static_cast<std::size_t>(dpt::mpi::block_partition{static_cast<std::int64_t>(n), ranks}.start(r));
        break;
      case cut::all_on_last_rank:
        points[i] = 0;
        break;
      case cut::first_rank_empty:
        points[i] = r == 1 ? 0 : n / 2;
        break;
      case cut::random: {
        std::mt19937_64 rng(seed + i);
        points[i] = std::uniform_int_distribution<std::size_t>(0, n)(rng);
        break;
      }
    }
  }
  std::sort(points.begin(), points.end());
  return points;
}

// This rank's slice of `whole`.
template <class T>
std::vector<T> my_slice(const std::vector<T>& whole, const std::vector<std::size_t>& points, int rank) {
  const auto r = static_cast<std::size_t>(rank);
  return {whole.begin() + static_cast<std::ptrdiff_t>(points[r]),
          whole.begin() + static_cast<std::ptrdiff_t>(points[r + 1])};
}

template <class T>
std::vector<T> to_std(const thrust::device_vector<T>& d) {
  const thrust::host_vector<T> h(d);
  return {h.begin(), h.end()};
}

// Sequential references over the whole sequence.
template <class T, class Op>
std::vector<T> reference_scan(const std::vector<T>& x, bool inclusive, T init, Op op) {
  std::vector<T> out(x.size());
  T running = init;
  for (std::size_t i = 0; i < x.size(); ++i) {
    if (inclusive) running = i == 0 ? x[0] : op(running, x[i]);
    out[i] = inclusive ? running : std::exchange(running, op(running, x[i]));
  }
  return out;
}

template <class T, class Op>
std::vector<T> reference_segmented_scan(const std::vector<T>& x, const std::vector<int>& flags, bool inclusive, T init,
                                        Op op) {
  std::vector<T> out(x.size());
  T running = init;
  for (std::size_t i = 0; i < x.size(); ++i) {
    const bool head = i == 0 || flags[i];
    if (inclusive) {
      running = head ? x[i] : op(running, x[i]);
      out[i] = running;
    } else {
      if (head) running = init;
      out[i] = running;
      running = op(running, x[i]);
    }
  }
  return out;
}

const std::vector<std::size_t> sizes = dpt::test::sanitized_build
                                           ? std::vector<std::size_t>{0, 1, 2, 3, 31, 1009, 65537}
                                           : std::vector<std::size_t>{0, 1, 2, 3, 31, 1009, 65537, 1000003};

}  // namespace

TEST_CASE("a scan across ranks gives every rank its slice of the whole sequence's scan", "[mpi][scan]") {
  const dpt::mpi::communicator comm;
  const std::size_t n = GENERATE(from_range(sizes));
  const cut c = GENERATE(cut::even, cut::all_on_last_rank, cut::first_rank_empty, cut::random);
  CAPTURE(n, name(c), comm.rank(), comm.size());
  const auto points = cut_points(n, comm.size(), c, 7 + n);

  SECTION("sums of 64-bit integers, inclusive and exclusive from 5") {
    const auto whole = dpt::test::random_values<std::int64_t>(n, 11 + n, -1000000, 1000000);
    const auto mine = my_slice(whole, points, comm.rank());
    const thrust::device_vector<std::int64_t> in(mine.begin(), mine.end());
    thrust::device_vector<std::int64_t> inclusive(mine.size()), exclusive(mine.size());
    dpt::mpi::inclusive_scan(comm, thrust::device, in.begin(), in.end(), inclusive.begin());
    dpt::mpi::exclusive_scan(comm, thrust::device, in.begin(), in.end(), exclusive.begin(), std::int64_t{5});
    const auto plus = std::plus<std::int64_t>{};
    CHECK(first_difference(to_std(inclusive), my_slice(reference_scan(whole, true, std::int64_t{0}, plus), points,
                                                       comm.rank())) == "equal");
    CHECK(first_difference(to_std(exclusive), my_slice(reference_scan(whole, false, std::int64_t{5}, plus), points,
                                                       comm.rank())) == "equal");
  }
  SECTION("compositions of affine maps, an operator that is not commutative") {
    const auto whole = dpt::test::random_affine_maps(n, 13 + n);
    const auto mine = my_slice(whole, points, comm.rank());
    const thrust::device_vector<affine> in(mine.begin(), mine.end());
    thrust::device_vector<affine> inclusive(mine.size()), exclusive(mine.size());
    const affine init{3, 4};  // not the identity: the exclusive scan starts every rank from init ⊕ its base
    dpt::mpi::inclusive_scan(comm, thrust::device, in.begin(), in.end(), inclusive.begin(), compose{});
    dpt::mpi::exclusive_scan(comm, thrust::device, in.begin(), in.end(), exclusive.begin(), init, compose{});
    CHECK(first_difference(to_std(inclusive),
                           my_slice(reference_scan(whole, true, affine{}, compose{}), points, comm.rank())) == "equal");
    CHECK(first_difference(to_std(exclusive),
                           my_slice(reference_scan(whole, false, init, compose{}), points, comm.rank())) == "equal");
  }
  SECTION("the inclusive scan may write over its input") {
    const auto whole = dpt::test::random_values<std::int64_t>(n, 17 + n, -1000, 1000);
    const auto mine = my_slice(whole, points, comm.rank());
    thrust::device_vector<std::int64_t> data(mine.begin(), mine.end());
    dpt::mpi::inclusive_scan(comm, thrust::device, data.begin(), data.end(), data.begin());
    CHECK(
        first_difference(to_std(data), my_slice(reference_scan(whole, true, std::int64_t{0}, std::plus<std::int64_t>{}),
                                                points, comm.rank())) == "equal");
  }
}

TEST_CASE("a segmented scan across ranks carries segments that cross ranks", "[mpi][segmented_scan]") {
  using dpt::test::segment_layout;
  const dpt::mpi::communicator comm;
  const std::size_t n = GENERATE(from_range(sizes));
  const cut c = GENERATE(cut::even, cut::all_on_last_rank, cut::first_rank_empty, cut::random);
  const auto layout = GENERATE(segment_layout::one_segment, segment_layout::every_element, segment_layout::random_runs,
                               segment_layout::first_unflagged);
  CAPTURE(n, name(c), dpt::test::name(layout), comm.rank(), comm.size());
  const auto points = cut_points(n, comm.size(), c, 19 + n);
  const auto all_flags = dpt::test::head_flags(n, layout, 23 + n);
  const auto my_flags = my_slice(all_flags, points, comm.rank());
  const thrust::device_vector<int> flags(my_flags.begin(), my_flags.end());

  SECTION("sums of integers") {
    const auto whole = dpt::test::random_values<int>(n, 29 + n, -1000, 1000);
    const auto mine = my_slice(whole, points, comm.rank());
    const thrust::device_vector<int> in(mine.begin(), mine.end());
    thrust::device_vector<int> inclusive(mine.size()), exclusive(mine.size());
    dpt::mpi::segmented_inclusive_scan(comm, thrust::device, in.begin(), in.end(), flags.begin(), inclusive.begin());
    dpt::mpi::segmented_exclusive_scan(comm, thrust::device, in.begin(), in.end(), flags.begin(), exclusive.begin(), 0);
    CHECK(first_difference(to_std(inclusive),
                           my_slice(reference_segmented_scan(whole, all_flags, true, 0, std::plus<int>{}), points,
                                    comm.rank())) == "equal");
    CHECK(first_difference(to_std(exclusive),
                           my_slice(reference_segmented_scan(whole, all_flags, false, 0, std::plus<int>{}), points,
                                    comm.rank())) == "equal");
  }
  SECTION("compositions of affine maps") {
    const auto whole = dpt::test::random_affine_maps(n, 31 + n);
    const auto mine = my_slice(whole, points, comm.rank());
    const thrust::device_vector<affine> in(mine.begin(), mine.end());
    thrust::device_vector<affine> inclusive(mine.size()), exclusive(mine.size());
    dpt::mpi::segmented_inclusive_scan(comm, thrust::device, in.begin(), in.end(), flags.begin(), inclusive.begin(),
                                       compose{});
    dpt::mpi::segmented_exclusive_scan(comm, thrust::device, in.begin(), in.end(), flags.begin(), exclusive.begin(),
                                       affine{}, compose{});
    CHECK(first_difference(to_std(inclusive),
                           my_slice(reference_segmented_scan(whole, all_flags, true, affine{}, compose{}), points,
                                    comm.rank())) == "equal");
    CHECK(first_difference(to_std(exclusive),
                           my_slice(reference_segmented_scan(whole, all_flags, false, affine{}, compose{}), points,
                                    comm.rank())) == "equal");
  }
}

TEST_CASE("a histogram across ranks counts what one process counts, on every rank", "[mpi][histogram]") {
  const dpt::mpi::communicator comm;
  const std::size_t n = GENERATE(from_range(sizes));
  const cut c = GENERATE(cut::even, cut::all_on_last_rank, cut::first_rank_empty, cut::random);
  const auto method = GENERATE(dpt::histogram_method::sort, dpt::histogram_method::privatized);
  CAPTURE(n, name(c), comm.rank(), comm.size());
  const auto points = cut_points(n, comm.size(), c, 37 + n);
  // values around [0, 1], some outside it, and every 97th a NaN
  auto whole = dpt::test::random_values<double>(n, 41 + n, -0.25, 1.25);
  for (std::size_t i = 5; i < n; i += 97) whole[i] = std::numeric_limits<double>::quiet_NaN();
  const auto mine = my_slice(whole, points, comm.rank());
  const thrust::device_vector<double> in(mine.begin(), mine.end());
  const thrust::device_vector<double> all(whole.begin(), whole.end());
  const dpt::even_bins<double> bins{37, 0.0, 1.0};

  thrust::device_vector<unsigned long long> counts(37), one_process_counts(37);
  const auto dropped = dpt::mpi::histogram(comm, thrust::device, in.begin(), in.end(), bins, counts.begin(), method);
  const auto one_process = dpt::histogram(thrust::device, all.begin(), all.end(), bins, one_process_counts.begin());
  CHECK(first_difference(to_std(counts), to_std(one_process_counts)) == "equal");
  CHECK(dropped.below == one_process.below);
  CHECK(dropped.above == one_process.above);
  CHECK(dropped.nan == one_process.nan);
}

TEST_CASE("the range of values across ranks is the whole sequence's", "[mpi][histogram]") {
  const dpt::mpi::communicator comm;
  const std::size_t n = GENERATE(from_range(sizes));
  const cut c = GENERATE(cut::even, cut::all_on_last_rank, cut::first_rank_empty, cut::random);
  CAPTURE(n, name(c), comm.rank(), comm.size());
  const auto points = cut_points(n, comm.size(), c, 43 + n);
  auto whole = dpt::test::random_values<float>(n, 47 + n, -3.0f, 9.0f);

  SECTION("finite values: the least and the greatest") {
    const auto mine = my_slice(whole, points, comm.rank());
    const thrust::device_vector<float> in(mine.begin(), mine.end());
    const auto range = dpt::mpi::value_range(comm, thrust::device, in.begin(), in.end());
    CHECK(range.any == (n > 0));
    CHECK(range.finite);
    if (n > 0) {
      CHECK(range.lo == *std::min_element(whole.begin(), whole.end()));
      CHECK(range.hi == *std::max_element(whole.begin(), whole.end()));
    }
  }
  SECTION("an infinity on one rank makes the range not finite on every rank") {
    if (n > 0) whole[n - 1] = -std::numeric_limits<float>::infinity();
    const auto mine = my_slice(whole, points, comm.rank());
    const thrust::device_vector<float> in(mine.begin(), mine.end());
    const auto range = dpt::mpi::value_range(comm, thrust::device, in.begin(), in.end());
    CHECK(range.finite == (n == 0));
  }
}

TEST_CASE("slices scattered from rank 0 and gathered back are the whole sequence", "[mpi][partition]") {
  const dpt::mpi::communicator comm;
  const std::size_t n = GENERATE(0, 1, 2, 3, 1009);
  CAPTURE(n, comm.rank(), comm.size());
  const auto whole = dpt::test::random_values<std::int32_t>(n, 53 + n, -5, 5);
  const dpt::mpi::block_partition parts{static_cast<std::int64_t>(n), comm.size()};
  const auto mine = dpt::mpi::scatter_slices(comm, comm.rank() == 0 ? whole : std::vector<std::int32_t>{}, parts);
  CHECK(first_difference(mine, my_slice(whole, cut_points(n, comm.size(), cut::even, 0), comm.rank())) == "equal");
  const auto back = dpt::mpi::gather_slices(comm, mine);
  CHECK(first_difference(back, comm.rank() == 0 ? whole : std::vector<std::int32_t>{}) == "equal");

  SECTION("cut where the caller says: nothing on rank 0, everything on the last rank, random cuts") {
    const auto how = GENERATE(cut::first_rank_empty, cut::all_on_last_rank, cut::random);
    const auto points = cut_points(n, comm.size(), how, 59 + n);
    dpt::mpi::listed_partition listed;
    for (const auto p : points) listed.starts.push_back(static_cast<std::int64_t>(p));
    const auto slice = dpt::mpi::scatter_slices(comm, comm.rank() == 0 ? whole : std::vector<std::int32_t>{}, listed);
    CHECK(first_difference(slice, my_slice(whole, points, comm.rank())) == "equal");
    CHECK(first_difference(dpt::mpi::gather_slices(comm, slice),
                           comm.rank() == 0 ? whole : std::vector<std::int32_t>{}) == "equal");
  }
}

TEST_CASE("exchanges take MPI the device vectors in place where MPI can read them, through host buffers otherwise",
          "[mpi][exchange]") {
  using dpt::mpi::exchange_path;
  // CPU systems: device memory is host memory. CUDA: in place only with a CUDA-aware MPI
  const bool device_memory_is_host_memory = !DPT_CUDA_DEVICE_SYSTEM;
  const auto expected = device_memory_is_host_memory || dpt::mpi::mpi_is_cuda_aware() ? exchange_path::in_place
                                                                                      : exchange_path::host_staged;
  CHECK(dpt::mpi::default_exchange_path() == expected);
  CHECK(dpt::mpi::communicator().path() == expected);
  CHECK(dpt::mpi::communicator(MPI_COMM_WORLD, exchange_path::host_staged).path() == exchange_path::host_staged);
  if (expected == exchange_path::host_staged) {
    CHECK_THROWS_AS(dpt::mpi::communicator(MPI_COMM_WORLD, exchange_path::in_place), std::invalid_argument);
  }
#if defined(MPIX_CUDA_AWARE_SUPPORT) && !MPIX_CUDA_AWARE_SUPPORT
  // an Open MPI built without CUDA (Debian's) is never taken for CUDA-aware
  CHECK_FALSE(dpt::mpi::mpi_is_cuda_aware());
#endif
  CHECK(std::string(dpt::mpi::describe(expected)).find(DPT_CUDA_DEVICE_SYSTEM ? "GPU memory" : "host memory") == 0);
}
