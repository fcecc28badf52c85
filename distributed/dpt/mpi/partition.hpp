// dpt/mpi/partition.hpp — which slice of a sequence each rank holds, and moving slices between rank 0 and the rest.
//
//   block_partition{8, 3}: rank 0 [0, 3)   rank 1 [3, 6)   rank 2 [6, 8)     (the first n % ranks get one more)
//   scatter_slices:        rank 0 holds [3, 1, 7, 0, 4, 1, 6, 3]  →  rank 0 [3, 1, 7], rank 1 [0, 4, 1], rank 2 [6, 3]
//   gather_slices:         the reverse, onto rank 0
//   listed_partition{{0, 2, 2, 8}}: rank 0 [0, 2)   rank 1 nothing   rank 2 [2, 8)   (cut where the caller says)
//
// Slices travel as bytes in messages of at most 2^30 bytes each, so a slice may exceed MPI's int counts.
#pragma once

#include <algorithm>
#include <cstdint>
#include <type_traits>
#include <vector>

#include <dpt/mpi/communicator.hpp>

namespace dpt::mpi {

// n elements over `ranks` ranks in rank order, as evenly as possible.
struct block_partition {
  std::int64_t n = 0;
  int ranks = 1;

  std::int64_t start(int rank) const { return n / ranks * rank + std::min<std::int64_t>(rank, n % ranks); }
  std::int64_t size(int rank) const { return start(rank + 1) - start(rank); }
};

// A sequence cut where the caller chose: rank r holds [starts[r], starts[r + 1]) (ranks + 1 starts, non-decreasing,
// the same on every rank), e.g. rows_balanced_by_nonzeros's blocks.
struct listed_partition {
  std::vector<std::int64_t> starts;

  std::int64_t start(int rank) const { return starts[static_cast<std::size_t>(rank)]; }
  std::int64_t size(int rank) const { return start(rank + 1) - start(rank); }
};

// Blocks of rows with about equal numbers of non-zeros, for SpMV (dpt/mpi/spmv.hpp): rank r's rows start at the
// first row whose entries start at or after r·nnz/ranks. `row_offsets`: the whole matrix's, rows + 1 entries.
// Returns ranks + 1 row starts, the last the number of rows.
//   row_offsets [0, 1, 2, 6, 7, 8] (row 2 holds 4 of 8 entries), 2 ranks → [0, 3, 5]: rows 0–2 (6 entries) and
//   rows 3–4 (2): a row is never split, so one long row can unbalance the blocks
template <class Offset>
std::vector<std::int64_t> rows_balanced_by_nonzeros(const std::vector<Offset>& row_offsets, int ranks) {
  const auto rows = static_cast<std::int64_t>(row_offsets.size()) - 1;
  const std::int64_t nnz = rows >= 0 ? static_cast<std::int64_t>(row_offsets.back()) : 0;
  std::vector<std::int64_t> starts(static_cast<std::size_t>(ranks) + 1, std::max<std::int64_t>(rows, 0));
  starts[0] = 0;
  for (int r = 1; r < ranks; ++r) {
    const auto target = static_cast<Offset>(nnz / ranks * r + std::min<std::int64_t>(r, nnz % ranks));
    starts[static_cast<std::size_t>(r)] =
        std::lower_bound(row_offsets.begin(), row_offsets.end() - 1, target) - row_offsets.begin();
  }
  return starts;
}

namespace detail {

inline constexpr std::int64_t message_bytes = std::int64_t{1} << 30;
inline constexpr int slice_tag = 0x5d7;

template <class T>
void send_elements(const communicator& comm, const T* data, std::int64_t count, int to) {
  const auto* bytes = reinterpret_cast<const unsigned char*>(data);
  const std::int64_t total = count * static_cast<std::int64_t>(sizeof(T));
  for (std::int64_t sent = 0; sent < total; sent += message_bytes) {
    const int piece = static_cast<int>(std::min(message_bytes, total - sent));
    check(MPI_Send(bytes + sent, piece, MPI_BYTE, to, slice_tag, comm.get()), "MPI_Send");
  }
}

template <class T>
void receive_elements(const communicator& comm, T* data, std::int64_t count, int from) {
  auto* bytes = reinterpret_cast<unsigned char*>(data);
  const std::int64_t total = count * static_cast<std::int64_t>(sizeof(T));
  for (std::int64_t received = 0; received < total; received += message_bytes) {
    const int piece = static_cast<int>(std::min(message_bytes, total - received));
    check(MPI_Recv(bytes + received, piece, MPI_BYTE, from, slice_tag, comm.get(), MPI_STATUS_IGNORE), "MPI_Recv");
  }
}

}  // namespace detail

// The number of elements every rank holds, on every rank (rank order).
inline std::vector<std::int64_t> slice_sizes(const communicator& comm, std::int64_t my_size) {
  std::vector<std::int64_t> sizes(static_cast<std::size_t>(comm.size()));
  check(MPI_Allgather(&my_size, 1, MPI_INT64_T, sizes.data(), 1, MPI_INT64_T, comm.get()), "MPI_Allgather");
  return sizes;
}

// Rank `root`'s `whole` (ignored on the other ranks) cut by `parts` (a block_partition or a listed_partition, the
// same on every rank): each rank gets its slice.
template <class T, class Partition>
std::vector<T> scatter_slices(const communicator& comm, const std::vector<T>& whole, const Partition& parts,
                              int root = 0) {
  static_assert(std::is_trivially_copyable_v<T>, "slices travel as bytes");
  std::vector<T> mine(static_cast<std::size_t>(parts.size(comm.rank())));
  if (comm.rank() == root) {
    for (int r = 0; r < comm.size(); ++r) {
      const T* slice = whole.data() + parts.start(r);
      if (r == root)
        std::copy(slice, slice + parts.size(r), mine.begin());
      else
        detail::send_elements(comm, slice, parts.size(r), r);
    }
  } else {
    detail::receive_elements(comm, mine.data(), parts.size(comm.rank()), root);
  }
  return mine;
}

// Every rank's slice, concatenated in rank order on rank `root` (empty on the other ranks).
template <class T>
std::vector<T> gather_slices(const communicator& comm, const std::vector<T>& mine, int root = 0) {
  static_assert(std::is_trivially_copyable_v<T>, "slices travel as bytes");
  const auto sizes = slice_sizes(comm, static_cast<std::int64_t>(mine.size()));
  std::vector<T> whole;
  if (comm.rank() != root) {
    detail::send_elements(comm, mine.data(), static_cast<std::int64_t>(mine.size()), root);
    return whole;
  }
  std::int64_t n = 0;
  for (const auto size : sizes) n += size;
  whole.resize(static_cast<std::size_t>(n));
  std::int64_t start = 0;
  for (int r = 0; r < comm.size(); ++r) {
    if (r == root)
      std::copy(mine.begin(), mine.end(), whole.begin() + start);
    else
      detail::receive_elements(comm, whole.data() + start, sizes[static_cast<std::size_t>(r)], r);
    start += sizes[static_cast<std::size_t>(r)];
  }
  return whole;
}

}  // namespace dpt::mpi
