// dpt-scan under mpiexec: the same command line, the same --out file, the scan spread over the ranks.
//
// Rank 0 opens --out, reads (or generates) the values and computes --check's reference, which refuses sums that
// overflow; it sends each rank a slice (dpt::mpi::block_partition). Every implementation then runs as the lecture's
// two-level scan with ranks for cores: each rank scans its slice with the implementation, the ranks exchange slice
// totals (dpt::mpi::base_of_slice, one MPI_Exscan) and each adds its base. Rank 0 gathers the slices, checks them
// and writes --out. Integers give the single-process file byte for byte (sums wrap as unsigned, like the
// single-process run); floats are added in another order, within --check's bound. Times are rank 0's, from a
// barrier before the scan to one after it.
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <optional>
#include <string>
#include <thrust/device_vector.h>
#include <thrust/execution_policy.h>
#include <thrust/host_vector.h>
#include <thrust/transform.h>
#include <vector>

#include <dpt/config.hpp>
#include <dpt/mpi/communicator.hpp>
#include <dpt/mpi/partition.hpp>
#include <dpt/mpi/scan.hpp>
#include "scan/options.hpp"
#include "scan/scan_check.hpp"
#include "scan/scan_impls.hpp"
#include "scan/scan_values.hpp"
#include "app_support/device_memory.hpp"
#include "app_support/errors.hpp"
#include "app_support/memory.hpp"
#include "app_support/output_file.hpp"
#include "app_support/ranks.hpp"

namespace dpt::app {

// x + base, in the type the implementations add in (summed_as).
template <class S>
struct plus_base {
  S base;
  DPT_HOST_DEVICE S operator()(S x) const { return static_cast<S>(base + x); }
};

// One implementation on this rank's slice, then the ranks' bases added: the whole sequence's scan, sliced.
template <class T>
void scan_across_ranks(const dpt::mpi::communicator& comm, const std::string& impl, const thrust::device_vector<T>& in,
                       thrust::device_vector<T>& out, bool exclusive) {
  using S = typename summed_as<T>::type;
  // each rank scans its slice
  run_impl(impl, in, out, exclusive);
  // the slice's total: an inclusive scan's last element, or an exclusive one's plus the last value
  const auto n = in.size();
  std::optional<S> total;
  if (n > 0) {
    const auto last_out = static_cast<S>(static_cast<T>(out[n - 1]));
    total = exclusive ? static_cast<S>(last_out + static_cast<S>(static_cast<T>(in[n - 1]))) : last_out;
  }
  // the ranks exchange slice totals, and each adds its base
  const std::optional<S> base = dpt::mpi::base_of_slice<S>(comm, total);
  if (base && n > 0) {
    S* data = reinterpret_cast<S*>(thrust::raw_pointer_cast(out.data()));
    thrust::transform(thrust::device, data, data + n, data, plus_base<S>{*base});
  }
}

template <class T>
int run_across_ranks(const scan_options& opt, const dpt::mpi::communicator& comm) {
  const bool root = comm.rank() == 0;
  // rank 0 opens --out, reads or makes the values and computes the reference (which refuses sums that overflow)
  std::optional<output_file> out;
  input_values<T> in;
  std::optional<scan_reference<T>> ref;
  together(
      comm,
      [&] {
        if (!opt.out.empty())
          out.emplace(named_path{"--out", opt.out}, std::vector<named_path>{{"--input", opt.input}});
        if (opt.input.empty()) {
          require_memory(scan_memory_needs<T>(opt.n, opt.impls.size(), true),
                         "a scan of " + std::to_string(opt.n) + " " + opt.type + " values",
                         this_builds_device_memory());
        }
        in = opt.input.empty() ? random_values<T>(opt.n, opt.seed) : read_values<T>(opt.input);
        ref = reference_scan(in, opt.exclusive);
      },
      /*root_only=*/true);

  // rank 0 sends each rank its slice
  std::int64_t n = static_cast<std::int64_t>(in.values.size());
  dpt::mpi::check(MPI_Bcast(&n, 1, MPI_INT64_T, 0, comm.get()), "MPI_Bcast");
  std::vector<T> mine;
  thrust::device_vector<T> d_in, d_out;
  together(comm, [&] {
    mine = dpt::mpi::scatter_slices(comm, in.values, dpt::mpi::block_partition{n, comm.size()});
    d_in = thrust::device_vector<T>(mine.begin(), mine.end());  // (assign reads *first even of none)
    d_out.resize(mine.size());
  });
  if (root) {
    std::printf("dpt-scan: %s scan (+) of %lld %s values (%s), device system %s, %d ranks (slices of %lld to %lld)\n",
                opt.exclusive ? "exclusive" : "inclusive", static_cast<long long>(n), opt.type.c_str(),
                opt.input.empty() ? ("seed " + std::to_string(opt.seed)).c_str() : opt.input.c_str(),
                dpt::device_system_name(), comm.size(), static_cast<long long>(n / comm.size()),
                static_cast<long long>((n + comm.size() - 1) / comm.size()));
    std::printf("%-12s %12s %10s%s\n", "impl", "time [ms]", "GB/s", opt.check ? "   check" : "");
  }

  bool all_ok = true;
  std::vector<T> first_result;
  for (const auto& impl : opt.impls) {
    double seconds = 0;
    std::vector<T> result;
    together(comm, [&] {
      seconds = ms_between_barriers(comm, [&] { scan_across_ranks(comm, impl, d_in, d_out, opt.exclusive); }) / 1e3;
      const thrust::host_vector<T> h_out(d_out);
      result = dpt::mpi::gather_slices(comm, std::vector<T>(h_out.begin(), h_out.end()));
    });
    if (!root) continue;
    bool ok = true;
    const std::string verdict = opt.check ? check_verdict(result, *ref, ok) : "";
    all_ok = all_ok && ok;
    const double gbps = seconds > 0 ? 2.0 * static_cast<double>(n) * sizeof(T) / seconds / 1e9 : 0;
    std::printf("%-12s %12.3f %10.3f%s\n", impl.c_str(), seconds * 1e3, gbps, verdict.c_str());
    if (first_result.empty()) first_result = std::move(result);
  }

  // rank 0 judges the answers and writes --out
  together(
      comm,
      [&] {
        if (!all_ok) throw check_failure("an implementation disagrees with the sequential scan");
        if (out) {
          write_values(out->stream(), first_result);
          out->commit();
          std::printf("wrote %s (%s)\n", opt.out.c_str(), opt.impls.front().c_str());
        }
      },
      /*root_only=*/true);
  return 0;
}

// dpt-scan's main under mpiexec.
inline int main_across_ranks(int argc, char* argv[]) {
  return main_across_ranks("dpt-scan", scan_usage, argc, argv, parse_scan_options,
                           [](const scan_options& opt, const dpt::mpi::communicator& comm) {
                             if (opt.type == "i32") return run_across_ranks<std::int32_t>(opt, comm);
                             if (opt.type == "i64") return run_across_ranks<std::int64_t>(opt, comm);
                             if (opt.type == "f32") return run_across_ranks<float>(opt, comm);
                             return run_across_ranks<double>(opt, comm);
                           });
}

}  // namespace dpt::app
