// dpt/mpi/spmv.hpp — y = A·x with A's rows and x's entries in blocks across MPI ranks.
//
// Each rank holds a block of A's rows (CSR, column indices global) and a block of x. A product needs, on each rank,
// the entries of x that its rows' columns name: some in its own block, and a halo from other ranks' blocks. Which ones
// depends on A's structure alone, so a plan finds them once per matrix, and every product is then one exchange and the
// lecture's local SpMV:
//
//   plan     sort + unique the columns this rank's rows use         rank 1 (x block [2, 4)) uses columns [0, 2, 3]
//            ask each other column's owner for it (MPI_Alltoall of counts, MPI_Alltoallv of column ids)
//            renumber the rows' columns: own ones within the block,  columns [3, 0, 2, 3] → [1, 2, 0, 1]
//            the halo's after it, in order                          (block size 2: column 0 is halo entry 0 → 2)
//   product  x's own block sits at the head of the rank's local x (copied there, or written there by the caller),
//            gather what others asked for from it (thrust::gather), exchange (MPI_Alltoallv: the halo arrives
//            behind the own block), then dpt::spmv on [own block | halo] (gather + map + segmented reduction)
//
// Owners hold ascending blocks of x and a rank asks each owner for ascending columns, so what arrives, in rank order,
// is the halo sorted: no scatter needed. Each row's sum is the single-process dpt::spmv's sum of the same products;
// renumbering keeps each row's entries in their order, and on the CPU systems dpt::spmv adds a row's products in
// entry order however its slices fall (dpt/cpu/spmv_slices.hpp), so y is the single-process y bit for bit, whatever
// the blocks. (PETSc's MatMult splits each row into its diagonal-block and off-diagonal-block terms and adds the two
// sums; keeping one pass keeps the order.) On CUDA, CUB's reduction adds in tiles that follow the rank's non-zeros:
// floating-point rows then agree within rounding.
//
// Messages per product: one MPI_Alltoallv carrying each rank's halo, the x entries its rows use from other ranks'
// blocks, nothing proportional to the whole matrix. MPI reads and writes the plan's device vectors in place, or, on
// CUDA with an MPI that is not CUDA-aware (Debian's Open MPI), pinned host copies of them: the communicator's
// exchange path (dpt/mpi/exchange_path.hpp).
#pragma once

#include <algorithm>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <thrust/copy.h>
#include <thrust/device_vector.h>
#include <thrust/gather.h>
#include <thrust/host_vector.h>
#include <thrust/sort.h>
#include <thrust/transform.h>
#include <thrust/unique.h>
#include <vector>

#include <dpt/config.hpp>
#include <dpt/mpi/communicator.hpp>
#include <dpt/mpi/detail/alltoallv.hpp>
#include <dpt/mpi/detail/counts.hpp>
#include <dpt/spmv.hpp>
#include <dpt/spmv_plan.hpp>

namespace dpt::mpi {

// The halo exchange of one rank's block of rows, and its rows renumbered onto [own x block | halo].
template <class Index, class Value>
struct spmv_plan {
  std::ptrdiff_t rows = 0, nnz = 0;                  // the block it was made for
  std::ptrdiff_t own_size = 0, halo_size = 0;        // the entries of x this rank holds, and those it receives
  std::vector<int> send_counts, send_offsets;        // per rank: the x entries this rank sends it
  std::vector<int> receive_counts, receive_offsets;  // per rank: the x entries this rank receives from it
  thrust::device_vector<Index> send_entries;         // which entries of this rank's x block go out, in order
  thrust::device_vector<Index> local_columns;        // the block's columns: < own_size its own, then the halo's
  dpt::spmv_plan<Index> local;                       // dpt::spmv's plan of the renumbered block
  thrust::device_vector<Value> outgoing;             // the entries others asked for, reused by every product
  thrust::device_vector<Value> x;                    // x as the local product reads it: [own block | halo]
  detail::staging_buffers<Value> staging;            // host copies, when exchanges are staged (exchange_path)
};

namespace detail {

// Global column → its place in the renumbered x: within this rank's block [first, first + own_size), or after the
// block, at the column's place in the sorted halo.
template <class Index>
struct renumber_column {
  const Index* halo_begin;
  const Index* halo_end;
  Index first, own_size;
  DPT_HOST_DEVICE Index operator()(Index column) const {
    if (column >= first && column - first < own_size) return column - first;
    const Index* low = halo_begin;
    for (auto count = halo_end - halo_begin; count > 0;) {  // lower_bound: the halo holds the column
      const auto half = count / 2;
      if (low[half] < column) {
        low += half + 1;
        count -= half + 1;
      } else {
        count = half;
      }
    }
    return own_size + static_cast<Index>(low - halo_begin);
  }
};

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
  const auto me = static_cast<std::size_t>(comm.rank());
  if (x_starts.size() != ranks + 1)
    throw std::invalid_argument("dpt::mpi::make_spmv_plan: x_starts needs ranks + 1 entries");
  spmv_plan<Index, Value> plan;
  plan.rows = A.rows;
  plan.nnz = A.nnz;
  plan.own_size = static_cast<std::ptrdiff_t>(x_starts[me + 1] - x_starts[me]);

  // the columns this rank's rows use: sort + unique
  thrust::device_vector<Index> used(A.column_indices, A.column_indices + A.nnz);
  thrust::sort(exec, used.begin(), used.end());
  used.erase(thrust::unique(exec, used.begin(), used.end()), used.end());
  const thrust::host_vector<Index> columns = used;
  // every rank learns whether some rank's block names a column outside x, before any exchange
  int outside = !columns.empty() && (columns.front() < 0 || columns.back() >= x_starts.back());
  check(MPI_Allreduce(MPI_IN_PLACE, &outside, 1, MPI_INT, MPI_MAX, comm.get()), "MPI_Allreduce");
  if (outside) throw std::invalid_argument("dpt::mpi::make_spmv_plan: a column index is outside x");

  // how many of them each other owner holds: this rank's requests, the halo (its own block it reads in place)
  plan.receive_counts.assign(ranks, 0);
  std::vector<std::int64_t> wanted;
  for (std::size_t r = 0; r < ranks; ++r) {
    const auto first = std::lower_bound(columns.begin(), columns.end(), static_cast<Index>(x_starts[r]));
    const auto last = std::lower_bound(columns.begin(), columns.end(), static_cast<Index>(x_starts[r + 1]));
    if (r == me) continue;
    plan.receive_counts[r] = detail::as_count(static_cast<std::int64_t>(last - first), "dpt::mpi::spmv: a halo");
    wanted.insert(wanted.end(), first, last);
  }
  plan.receive_offsets = detail::offsets_of(plan.receive_counts);
  // each owner learns what it is asked for: counts, then the column ids
  plan.send_counts.assign(ranks, 0);
  check(MPI_Alltoall(plan.receive_counts.data(), 1, MPI_INT, plan.send_counts.data(), 1, MPI_INT, comm.get()),
        "MPI_Alltoall");
  plan.send_offsets = detail::offsets_of(plan.send_counts);
  const std::size_t sent = static_cast<std::size_t>(plan.send_offsets.back() + plan.send_counts.back());
  std::vector<std::int64_t> asked(sent);
  check(MPI_Alltoallv(wanted.data(), plan.receive_counts.data(), plan.receive_offsets.data(), MPI_INT64_T, asked.data(),
                      plan.send_counts.data(), plan.send_offsets.data(), MPI_INT64_T, comm.get()),
        "MPI_Alltoallv");
  thrust::host_vector<Index> entries(sent);
  for (std::size_t i = 0; i < sent; ++i) entries[i] = static_cast<Index>(asked[i] - x_starts[me]);
  plan.send_entries = entries;

  // the rows' columns renumbered: own columns within the block, halo columns after it in the halo's order
  const thrust::device_vector<Index> halo_columns(wanted.begin(), wanted.end());
  plan.local_columns.resize(static_cast<std::size_t>(A.nnz));
  const Index* halo = thrust::raw_pointer_cast(halo_columns.data());
  thrust::transform(exec, A.column_indices, A.column_indices + A.nnz, plan.local_columns.begin(),
                    detail::renumber_column<Index>{halo, halo + halo_columns.size(), static_cast<Index>(x_starts[me]),
                                                   static_cast<Index>(plan.own_size)});
  const auto local = make_csr_view(A.row_offsets, plan.local_columns.begin(), A.values, A.rows,
                                   plan.own_size + static_cast<std::ptrdiff_t>(wanted.size()), A.nnz);
  plan.local = dpt::make_spmv_plan(exec, local);
  plan.halo_size = static_cast<std::ptrdiff_t>(wanted.size());
  plan.outgoing.resize(sent);
  plan.x.resize(static_cast<std::size_t>(plan.own_size + plan.halo_size));
  return plan;
}

// Where this rank's block of x lives inside the plan's local x, [own block | halo]: a caller that writes x there
// (own_size entries from x_block_of(plan)) multiplies with the spmv below that takes no x, and saves a copy of the
// block per product, as PETSc's vectors with ghost entries do.
template <class Index, class Value>
auto x_block_of(spmv_plan<Index, Value>& plan) {
  return plan.x.begin();
}

// y_block = (this rank's rows of A)·x, x's block on this rank already in the plan's local x (x_block_of): collective,
// every rank calls it with its block and its plan. Per product: one thrust::gather of what the others asked for, one
// MPI_Alltoallv and one planned dpt::spmv (and, when the exchange is staged, a copy to the host and one back).
template <class DerivedPolicy, class Index, class Value, class OffsetIt, class IndexIt, class ValueIt, class OutputIt>
OutputIt spmv(const communicator& comm, const thrust::detail::execution_policy_base<DerivedPolicy>& exec,
              spmv_plan<Index, Value>& plan, const csr_view<OffsetIt, IndexIt, ValueIt>& A, OutputIt y_block) {
  if (plan.rows != A.rows || plan.nnz != A.nnz) {
    throw std::invalid_argument("dpt::mpi::spmv: the plan was made for a block of another shape");
  }
  // gather the entries of this rank's x that the others asked for
  thrust::gather(exec, plan.send_entries.begin(), plan.send_entries.end(), plan.x.begin(), plan.outgoing.begin());
  // exchange them: what arrives, in rank order, is the halo, right behind the own block
  detail::alltoallv(comm, detail::address_of(plan.outgoing), plan.send_counts, plan.send_offsets,
                    detail::address_of(plan.x) + plan.own_size, plan.receive_counts, plan.receive_offsets,
                    plan.staging);
  // the lecture's SpMV of the block on [own block | halo]
  const auto local =
      make_csr_view(A.row_offsets, plan.local_columns.begin(), A.values, A.rows, plan.own_size + plan.halo_size, A.nnz);
  return dpt::spmv(exec, plan.local, local, plan.x.begin(), y_block);
}

// y_block = (this rank's rows of A)·x for the x block this rank holds at x_block: the block is copied into the plan's
// local x, then the product above. (The copy, not an iterator that picks block or halo
// per entry: that iterator keeps the compiler from the plain gather loop; docs/benchmarks.md, spmv, has the figures.)
template <class DerivedPolicy, class Index, class Value, class OffsetIt, class IndexIt, class ValueIt, class VectorIt,
          class OutputIt>
OutputIt spmv(const communicator& comm, const thrust::detail::execution_policy_base<DerivedPolicy>& exec,
              spmv_plan<Index, Value>& plan, const csr_view<OffsetIt, IndexIt, ValueIt>& A, VectorIt x_block,
              OutputIt y_block) {
  thrust::copy(exec, x_block, x_block + plan.own_size, x_block_of(plan));
  return spmv(comm, exec, plan, A, y_block);
}

}  // namespace dpt::mpi
