// dpt/mpi/spmv.hpp — y = A·x with A's rows and x's entries in blocks across MPI ranks.
//
// Each rank holds a block of A's rows (CSR, column indices global) and a block of x. A product needs, on each rank,
// the entries of x that its rows' columns name: a few of its own block and a halo from other ranks' blocks. Which
// ones depends on A's structure alone, so a plan finds them once per matrix, and every product is then one exchange
// and the lecture's local SpMV:
//
//   plan     sort + unique the columns this rank's rows use         rank 1 uses columns [0, 2, 3]
//            ask each column's owner for it (MPI_Alltoall of counts, MPI_Alltoallv of column ids)
//            renumber the rows' columns onto the gathered x         columns [3, 0, 2, 3] → [2, 0, 1, 2]
//   product  gather what others asked for from x (thrust::gather), exchange it (MPI_Alltoallv),
//            then dpt::spmv on the gathered x (gather + map + segmented reduction, with its own plan)
//
// Owners hold ascending blocks of x and a rank asks each owner for ascending columns, so what arrives, in rank
// order, is the gathered x itself: sorted, no scatter needed. Each row's sum is the single-process dpt::spmv's sum of
// the same products; the order of the additions may differ (the slices of dpt::spmv's CPU form follow the rank's
// non-zeros), so floating-point rows agree within rounding, integer-valued ones exactly.
//
// Messages per product: one MPI_Alltoallv carrying each rank's halo (the x entries its rows use, its own included),
// nothing proportional to the whole matrix. The exchange goes through host memory (Debian's Open MPI is not
// CUDA-aware: on CUDA the values are staged; on the CPU systems device memory is host memory).
#pragma once

#include <algorithm>
#include <climits>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <thrust/binary_search.h>
#include <thrust/copy.h>
#include <thrust/device_vector.h>
#include <thrust/gather.h>
#include <thrust/host_vector.h>
#include <thrust/sort.h>
#include <thrust/unique.h>
#include <vector>

#include <dpt/config.hpp>
#include <dpt/mpi/communicator.hpp>
#include <dpt/spmv.hpp>
#include <dpt/spmv_plan.hpp>

namespace dpt::mpi {

// The halo exchange of one rank's block of rows, and its rows renumbered onto the gathered x.
template <class Index, class Value>
struct spmv_plan {
  std::ptrdiff_t rows = 0, nnz = 0;                         // the block it was made for
  std::vector<int> send_counts, send_offsets;               // per rank: the x entries this rank sends it
  std::vector<int> receive_counts, receive_offsets;         // per rank: the x entries this rank receives from it
  thrust::device_vector<Index> send_entries;                // which entries of this rank's x block go out, in order
  thrust::device_vector<Index> local_columns;               // the block's column indices as positions in the gathered x
  dpt::spmv_plan<Index> local;                              // dpt::spmv's plan of the renumbered block
  thrust::device_vector<Value> outgoing, gathered_x;        // the exchange's buffers, reused by every product
  thrust::host_vector<Value> outgoing_host, gathered_host;  // their host copies (CUDA only)
};

namespace detail {

inline int as_count(std::size_t n, const char* what) {
  if (n > static_cast<std::size_t>(INT_MAX))
    throw std::length_error(std::string("dpt::mpi::spmv: ") + what + " exceeds MPI's int counts");
  return static_cast<int>(n);
}

inline std::vector<int> offsets_of(const std::vector<int>& counts) {
  std::vector<int> offsets(counts.size(), 0);
  for (std::size_t r = 1; r < counts.size(); ++r) offsets[r] = offsets[r - 1] + counts[r - 1];
  return offsets;
}

}  // namespace detail

// The plan of this rank's block A (rows of the whole matrix, column indices global) for x blocks that start at
// x_starts[r] on rank r (comm.size() + 1 entries, the last the whole x's length, the same on every rank).
// Collective. Throws std::invalid_argument on every rank when any rank's block names a column outside x.
template <class Value, class DerivedPolicy, class OffsetIt, class IndexIt, class ValueIt>
spmv_plan<::cuda::std::iter_value_t<IndexIt>, Value> make_spmv_plan(
    const communicator& comm, const thrust::detail::execution_policy_base<DerivedPolicy>& exec,
    const csr_view<OffsetIt, IndexIt, ValueIt>& A, const std::vector<std::int64_t>& x_starts) {
  using Index = ::cuda::std::iter_value_t<IndexIt>;
  const auto ranks = static_cast<std::size_t>(comm.size());
  if (x_starts.size() != ranks + 1)
    throw std::invalid_argument("dpt::mpi::make_spmv_plan: x_starts needs ranks + 1 entries");
  spmv_plan<Index, Value> plan;
  plan.rows = A.rows;
  plan.nnz = A.nnz;

  // the columns this rank's rows use: sort + unique
  thrust::device_vector<Index> used(A.column_indices, A.column_indices + A.nnz);
  thrust::sort(exec, used.begin(), used.end());
  used.erase(thrust::unique(exec, used.begin(), used.end()), used.end());
  const thrust::host_vector<Index> columns = used;
  // every rank learns whether some rank's block names a column outside x, before any exchange
  int outside = !columns.empty() && (columns.front() < 0 || columns.back() >= x_starts.back());
  check(MPI_Allreduce(MPI_IN_PLACE, &outside, 1, MPI_INT, MPI_MAX, comm.get()), "MPI_Allreduce");
  if (outside) throw std::invalid_argument("dpt::mpi::make_spmv_plan: a column index is outside x");

  // how many of them each owner holds: this rank's requests
  plan.receive_counts.assign(ranks, 0);
  for (std::size_t r = 0; r < ranks; ++r) {
    const auto first = std::lower_bound(columns.begin(), columns.end(), static_cast<Index>(x_starts[r]));
    const auto last = std::lower_bound(columns.begin(), columns.end(), static_cast<Index>(x_starts[r + 1]));
    plan.receive_counts[r] = detail::as_count(static_cast<std::size_t>(last - first), "a halo");
  }
  plan.receive_offsets = detail::offsets_of(plan.receive_counts);
  // each owner learns what it is asked for: counts, then the column ids
  plan.send_counts.assign(ranks, 0);
  check(MPI_Alltoall(plan.receive_counts.data(), 1, MPI_INT, plan.send_counts.data(), 1, MPI_INT, comm.get()),
        "MPI_Alltoall");
  plan.send_offsets = detail::offsets_of(plan.send_counts);
  const std::size_t sent = static_cast<std::size_t>(plan.send_offsets.back() + plan.send_counts.back());
  std::vector<std::int64_t> wanted(columns.begin(), columns.end()), asked(sent);
  check(MPI_Alltoallv(wanted.data(), plan.receive_counts.data(), plan.receive_offsets.data(), MPI_INT64_T, asked.data(),
                      plan.send_counts.data(), plan.send_offsets.data(), MPI_INT64_T, comm.get()),
        "MPI_Alltoallv");
  thrust::host_vector<Index> entries(sent);
  const std::int64_t my_start = x_starts[static_cast<std::size_t>(comm.rank())];
  for (std::size_t i = 0; i < sent; ++i) entries[i] = static_cast<Index>(asked[i] - my_start);
  plan.send_entries = entries;

  // the rows' columns renumbered onto the gathered x: where each column sits in the sorted list
  plan.local_columns.resize(static_cast<std::size_t>(A.nnz));
  thrust::lower_bound(exec, used.begin(), used.end(), A.column_indices, A.column_indices + A.nnz,
                      plan.local_columns.begin());
  const auto local = make_csr_view(A.row_offsets, plan.local_columns.begin(), A.values, A.rows,
                                   static_cast<std::ptrdiff_t>(columns.size()), A.nnz);
  plan.local = dpt::make_spmv_plan(exec, local);
  plan.outgoing.resize(sent);
  plan.gathered_x.resize(columns.size());
#if DPT_CUDA_DEVICE_SYSTEM
  plan.outgoing_host.resize(sent);
  plan.gathered_host.resize(columns.size());
#endif
  return plan;
}

// y_block = (this rank's rows of A)·x, for the x block this rank holds: collective, every rank calls it with its
// block and its plan. Per product: one thrust::gather, one MPI_Alltoallv, one planned dpt::spmv (on CUDA two copies
// between device and host around the exchange).
template <class DerivedPolicy, class Index, class Value, class OffsetIt, class IndexIt, class ValueIt, class VectorIt,
          class OutputIt>
OutputIt spmv(const communicator& comm, const thrust::detail::execution_policy_base<DerivedPolicy>& exec,
              spmv_plan<Index, Value>& plan, const csr_view<OffsetIt, IndexIt, ValueIt>& A, VectorIt x_block,
              OutputIt y_block) {
  if (plan.rows != A.rows || plan.nnz != A.nnz) {
    throw std::invalid_argument("dpt::mpi::spmv: the plan was made for a block of another shape");
  }
  // gather the entries of this rank's x that the others (and this rank) asked for
  thrust::gather(exec, plan.send_entries.begin(), plan.send_entries.end(), x_block, plan.outgoing.begin());
  // exchange them: what arrives, in rank order, is the gathered x
#if DPT_CUDA_DEVICE_SYSTEM
  thrust::copy(plan.outgoing.begin(), plan.outgoing.end(), plan.outgoing_host.begin());
  Value* out = plan.outgoing_host.data();
  Value* in = plan.gathered_host.data();
#else
  Value* out = thrust::raw_pointer_cast(plan.outgoing.data());
  Value* in = thrust::raw_pointer_cast(plan.gathered_x.data());
#endif
  check(MPI_Alltoallv(out, plan.send_counts.data(), plan.send_offsets.data(), datatype<Value>(), in,
                      plan.receive_counts.data(), plan.receive_offsets.data(), datatype<Value>(), comm.get()),
        "MPI_Alltoallv");
#if DPT_CUDA_DEVICE_SYSTEM
  thrust::copy(plan.gathered_host.begin(), plan.gathered_host.end(), plan.gathered_x.begin());
#endif
  // the lecture's SpMV of the block on the gathered x
  const auto local = make_csr_view(A.row_offsets, plan.local_columns.begin(), A.values, A.rows,
                                   static_cast<std::ptrdiff_t>(plan.gathered_x.size()), A.nnz);
  return dpt::spmv(exec, plan.local, local, plan.gathered_x.begin(), y_block);
}

}  // namespace dpt::mpi
