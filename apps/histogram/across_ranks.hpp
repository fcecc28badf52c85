// dpt-histogram under mpiexec: the same command line, the same --out and --png files, the counting spread over the
// ranks.
//
// Rank 0 opens the outputs and reads (or generates) the values, then sends each rank a slice
// (dpt::mpi::block_partition). Without --range the bins span the data's own minimum and maximum, found by a min/max
// reduction over the ranks (dpt::mpi::value_range). Each method then counts every rank's slice and adds the counts
// over the ranks (dpt::mpi::histogram, one MPI_Allreduce). Rank 0 compares the methods (with --check, with the
// sequential count of all the values), prints and writes: counts are integers, so the files are the
// single-process files byte for byte. Times are rank 0's, from a barrier before a method's call to one after it,
// after one untimed call.
#pragma once

#include <cstdint>
#include <cstdio>
#include <memory>
#include <string>
#include <thrust/device_vector.h>
#include <thrust/execution_policy.h>
#include <thrust/host_vector.h>
#include <type_traits>
#include <variant>
#include <vector>

#include <dpt/config.hpp>
#include <dpt/histogram.hpp>
#include <dpt/mpi/communicator.hpp>
#include <dpt/mpi/histogram.hpp>
#include <dpt/mpi/partition.hpp>
#include "histogram/generate_values.hpp"
#include "histogram/options.hpp"
#include "histogram/run_report.hpp"
#include "histogram/values_file.hpp"
#include "app_support/device_memory.hpp"
#include "app_support/errors.hpp"
#include "app_support/memory.hpp"
#include "app_support/output_file.hpp"
#include "app_support/ranks.hpp"

namespace dpt::app {

// Every method of --method on the ranks' slices, timed from a barrier before the call to one after it; the runs
// (counts over all ranks) on every rank.
template <class T, class Bins>
std::vector<method_run> count_across_ranks(const dpt::mpi::communicator& comm, const histogram_options& o,
                                           const thrust::device_vector<T>& slice, const Bins& bins,
                                           const std::string& bins_from) {
  thrust::device_vector<unsigned long long> d_counts(o.bins);
  return count_with_every_method(
      o, d_counts, bins_from,
      [&](dpt::histogram_method method) {
        return dpt::mpi::histogram(comm, thrust::device, slice.begin(), slice.end(), bins, d_counts.begin(), method);
      },
      [&](auto&& body) { return ms_between_barriers(comm, body); }, [] {});
}

// One run on values of type T: `values` and the outputs are rank 0's (empty elsewhere).
template <class T>
void run_across_ranks(const dpt::mpi::communicator& comm, const histogram_options& o, const std::vector<T>& values,
                      const std::string& source, output_file* out_file, output_file* png_file) {
  const bool root = comm.rank() == 0;
  // rank 0 sends each rank its slice
  std::int64_t n = static_cast<std::int64_t>(values.size());
  dpt::mpi::check(MPI_Bcast(&n, 1, MPI_INT64_T, 0, comm.get()), "MPI_Bcast");
  thrust::device_vector<T> slice;
  together(comm, [&] {
    const auto mine = dpt::mpi::scatter_slices(comm, values, dpt::mpi::block_partition{n, comm.size()});
    slice = thrust::device_vector<T>(mine.begin(), mine.end());  // (assign reads *first even of none)
  });

  const auto count_with = [&](const auto& bins) {
    const auto lo = static_cast<double>(bins.lo), hi = static_cast<double>(bins.hi);
    if (root) {
      std::printf("dpt-histogram: %lld values from %s, %d bins over %s, %s device system, %d ranks\n\n",
                  static_cast<long long>(n), source.c_str(), o.bins, dpt::detail::range_text(bins.lo, bins.hi).c_str(),
                  dpt::device_system_name(), comm.size());
    }
    std::vector<method_run> runs;
    together(comm, [&] { runs = count_across_ranks(comm, o, slice, bins, o.range ? std::string("--range") : source); });
    together(
        comm, [&] { report_and_write(o, values, lo, hi, runs, out_file, png_file); }, /*root_only=*/true);
  };
  if (o.range) {
    count_with(dpt::widen_empty_range(dpt::even_bins<double>{o.bins, o.range->first, o.range->second}));
    return;
  }
  // NumPy's default range: the data's own, from a min/max reduction over the ranks (as default_bins in main.cu)
  const auto range = dpt::mpi::value_range(comm, thrust::device, slice.begin(), slice.end());
  if (!range.any) {
    count_with(dpt::even_bins<double>{o.bins, 0.0, 1.0});  // NumPy's Python ints 0 and 1: float64 edges
  } else if (!range.finite) {
    throw no_range_of_their_own(source);  // on every rank alike
  } else {
    using bound = std::conditional_t<std::is_same_v<T, float>, float, double>;
    count_with(dpt::widen_empty_range(
        dpt::even_bins<bound>{o.bins, static_cast<bound>(range.lo), static_cast<bound>(range.hi)}));
  }
}

// dpt-histogram's main under mpiexec: rank 0 opens the outputs and reads or makes the values.
inline int run_across_ranks(const histogram_options& o, const dpt::mpi::communicator& comm) {
  // rank 0 opens the outputs and reads or makes the values
  std::unique_ptr<output_file> out_file, png_file;
  value_array values;
  together(
      comm,
      [&] {
        const std::vector<named_path> inputs{{"--input", o.input_path}};
        if (!o.out_path.empty()) out_file = std::make_unique<output_file>(named_path{"--out", o.out_path}, inputs);
        if (!o.png_path.empty()) png_file = std::make_unique<output_file>(named_path{"--png", o.png_path}, inputs);
        if (o.input_path.empty()) {
          require_memory(histogram_memory_needs(o, o.n, 8, true), "a histogram of " + std::to_string(o.n) + " values",
                         this_builds_device_memory());
        }
        values = o.input_path.empty() ? generate_values(o.generate, o.n, o.seed) : read_values(o.input_path);
        if (o.input_path.empty()) return;
        std::visit(
            [&](const auto& v) {
              require_memory(histogram_memory_needs(o, static_cast<std::int64_t>(v.size()), sizeof(v[0]), false),
                             o.input_path + " (" + std::to_string(v.size()) + " values)", this_builds_device_memory());
            },
            values);
      },
      /*root_only=*/true);
  // every rank takes the values' type from rank 0
  int type = static_cast<int>(values.index());
  dpt::mpi::check(MPI_Bcast(&type, 1, MPI_INT, 0, comm.get()), "MPI_Bcast");
  if (comm.rank() != 0 && type == 1) values.emplace<1>();
  if (comm.rank() != 0 && type == 2) values.emplace<2>();
  const std::string source = o.input_path.empty() ? "--generate " + o.generate : o.input_path;
  std::visit([&](const auto& v) { run_across_ranks(comm, o, v, source, out_file.get(), png_file.get()); }, values);
  return 0;
}

inline int main_across_ranks(int argc, char* argv[]) {
  return main_across_ranks(
      "dpt-histogram", histogram_usage, argc, argv, parse_histogram_options,
      [](const histogram_options& o, const dpt::mpi::communicator& comm) { return run_across_ranks(o, comm); });
}

}  // namespace dpt::app
