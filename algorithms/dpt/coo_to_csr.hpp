// dpt/coo_to_csr.hpp — build a CSR matrix from (row, column, value) triplets, and mirror a stored triangle.
//
// A file (or a program) produces a sparse matrix as unordered triplets, possibly with repeats (COO form):
//
//   rows   = [3, 0, 3, 1, 2, 3, 0, 3]
//   cols   = [3, 2, 1, 1, 2, 2, 0, 3]
//   values = [5, 1, 2, 2, 4, 6, 3, 3]          (3, 3) appears twice: 5 + 3 = 8
//
// CSR needs them grouped by row, ordered by column, each (row, column) once — groupByKey with the pair as
// the key, then "find where each row starts":
//
//   1. sort by (row, col)                      (0,0,3) (0,2,1) (1,1,2) (2,2,4) (3,1,2) (3,2,6) (3,3,5) (3,3,3)
//   2. reduce_by_key: sum equal (row, col)      (0,0,3) (0,2,1) (1,1,2) (2,2,4) (3,1,2) (3,2,6) (3,3,8)
//   3. row offsets: for every row r, the first entry whose row ≥ r — a vectorised lower_bound
//                                               row_offsets = [0, 2, 3, 4, 7]
//
// which is the lecture's SpMV example matrix: column_indices = [0, 2, 1, 2, 1, 2, 3], values =
// [3, 1, 2, 4, 2, 6, 8]. Summing duplicates is what SciPy's coo_matrix.tocsr() does.
//
// Symmetric files store one triangle; dpt::expand_symmetric appends the mirror image of every off-diagonal
// entry ((i, j, v) → (j, i, v), or (j, i, −v) for skew-symmetric), a stream compaction of the mirrored
// sequence, so the diagonal is never doubled.
#pragma once

#include <algorithm>
#include <cstddef>
#include <stdexcept>
#include <cuda/std/iterator>
#include <cuda/std/type_traits>
#include <thrust/binary_search.h>
#include <thrust/copy.h>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/iterator/transform_iterator.h>
#include <thrust/iterator/zip_iterator.h>
#include <thrust/logical.h>
#include <thrust/reduce.h>
#include <thrust/sort.h>
#include <thrust/tuple.h>

#include <dpt/compact.hpp>
#include <dpt/config.hpp>
#include <dpt/detail/primitive_scratch.hpp>
#include <dpt/detail/temporary_array.hpp>

namespace dpt {

// How the missing triangle of a symmetric matrix is derived from the stored one: a(j, i) = a(i, j) or −a(i, j).
enum class mirror_rule { symmetric, skew_symmetric };

namespace detail {

// (row, col, value) → (col, row, ±value)
struct mirror_entry {
  bool negate;
  template <class Entry>
  DPT_HOST_DEVICE auto operator()(const Entry& e) const {
    using value_type = ::cuda::std::remove_cv_t<::cuda::std::remove_reference_t<decltype(thrust::get<2>(e))>>;
    const value_type v = thrust::get<2>(e);
    return thrust::make_tuple(thrust::get<1>(e), thrust::get<0>(e), negate ? static_cast<value_type>(-v) : v);
  }
};

struct is_off_diagonal {
  template <class Entry>
  DPT_HOST_DEVICE bool operator()(const Entry& e) const {
    return thrust::get<0>(e) != thrust::get<1>(e);
  }
};

struct is_nonzero_diagonal {
  template <class Entry>
  DPT_HOST_DEVICE bool operator()(const Entry& e) const {
    return thrust::get<0>(e) == thrust::get<1>(e) && thrust::get<2>(e) != 0;
  }
};

}  // namespace detail

// Writes the n stored entries followed by the mirror image of every off-diagonal one to the three outputs
// (capacity 2n each) and returns how many entries it wrote: n plus the number of off-diagonal entries.
// Throws std::invalid_argument for a skew-symmetric matrix with a non-zero diagonal entry (a(i, i) = −a(i, i)
// forces 0). Scratch: the compaction's (dpt::compact_temporary_bytes).
template <class DerivedPolicy, class RowIt, class ColIt, class ValueIt, class RowOutIt, class ColOutIt,
          class ValueOutIt>
std::ptrdiff_t expand_symmetric(const thrust::detail::execution_policy_base<DerivedPolicy>& exec, RowIt rows_first,
                                RowIt rows_last, ColIt cols_first, ValueIt values_first, mirror_rule rule,
                                RowOutIt rows_out, ColOutIt cols_out, ValueOutIt values_out) {
  const auto n = static_cast<std::ptrdiff_t>(thrust::distance(rows_first, rows_last));
  const auto entries = thrust::make_zip_iterator(rows_first, cols_first, values_first);
  const auto out = thrust::make_zip_iterator(rows_out, cols_out, values_out);
  if (rule == mirror_rule::skew_symmetric &&
      thrust::any_of(exec, entries, entries + n, detail::is_nonzero_diagonal{})) {
    throw std::invalid_argument("dpt::expand_symmetric: a skew-symmetric matrix has a non-zero diagonal entry");
  }
  // the stored triangle, as it is
  thrust::copy_n(exec, entries, n, out);
  // filter: the mirror image of each off-diagonal entry, appended after them (map + scan + scatter)
  const auto mirrored =
      thrust::make_transform_iterator(entries, detail::mirror_entry{rule == mirror_rule::skew_symmetric});
  const auto end = dpt::compact(exec, mirrored, mirrored + n, out + n, detail::is_off_diagonal{});
  return end - out;
}

// Converts n triplets (rows[k], cols[k], values[k]) of a matrix with num_rows rows to CSR, summing the values
// of repeated (row, col) pairs. Outputs: row_offsets (num_rows + 1 entries), column_indices and values_out
// (capacity n each). Returns nnz, the number of distinct (row, col) pairs; rows come out in order and columns
// ascending within each row. Indices must be in range (0 ≤ row < num_rows); the inputs are not modified.
//
// Per call: 4 Thrust calls (copy, sort, reduce, search), one host read: how many distinct pairs there are.
//
// Materialised temporaries: a sorted copy of the triplets (two indices and a value per entry: sorting needs
// its own copy because the inputs are read-only), and the row of each distinct pair (one index per entry)
// from which the row offsets are searched.
template <class DerivedPolicy, class RowIt, class ColIt, class ValueIt, class OffsetOutIt, class IndexOutIt,
          class ValueOutIt>
std::ptrdiff_t coo_to_csr(const thrust::detail::execution_policy_base<DerivedPolicy>& exec, RowIt rows_first,
                          RowIt rows_last, ColIt cols_first, ValueIt values_first, std::ptrdiff_t num_rows,
                          OffsetOutIt row_offsets, IndexOutIt column_indices, ValueOutIt values_out) {
  using index_type = ::cuda::std::iter_value_t<IndexOutIt>;
  using value_type = ::cuda::std::iter_value_t<ValueOutIt>;
  const auto n = static_cast<std::ptrdiff_t>(thrust::distance(rows_first, rows_last));

  detail::temporary_array<index_type, DerivedPolicy> sorted_rows(exec, n), sorted_cols(exec, n), pair_rows(exec, n);
  detail::temporary_array<value_type, DerivedPolicy> sorted_values(exec, n);
  const auto sorted_keys = thrust::make_zip_iterator(sorted_rows.begin(), sorted_cols.begin());
  thrust::copy_n(exec, thrust::make_zip_iterator(rows_first, cols_first, values_first), n,
                 thrust::make_zip_iterator(sorted_rows.begin(), sorted_cols.begin(), sorted_values.begin()));
  // sort by (row, col) to bring each row's entries together, in column order, and repeats next to each other
  thrust::sort_by_key(exec, sorted_keys, sorted_keys + n, sorted_values.begin());
  // segmented reduction: sum the values of each run of equal (row, col)
  const auto ends = thrust::reduce_by_key(exec, sorted_keys, sorted_keys + n, sorted_values.begin(),
                                          thrust::make_zip_iterator(pair_rows.begin(), column_indices), values_out);
  const auto nnz = ends.second - values_out;
  // find where each row starts: row r starts at the first entry whose row is ≥ r (rows with no entries start
  // where the next one does), and offset num_rows is nnz
  const auto row_numbers = thrust::make_counting_iterator<index_type>(0);
  thrust::lower_bound(exec, pair_rows.begin(), pair_rows.begin() + nnz, row_numbers, row_numbers + (num_rows + 1),
                      row_offsets);
  return nnz;
}

// An upper bound on the bytes coo_to_csr takes through its policy for n triplets, with column indices of type
// Index and values of type Value out, Thrust's own scratch included, on this build's device system
// (dpt/detail/primitive_scratch.hpp says how each primitive's share is bounded).
template <class Index, class Value>
std::size_t coo_to_csr_temporary_bytes(std::ptrdiff_t n) {
  using key = thrust::tuple<Index, Index>;
  // the sorted triplets and each pair's row, then the sort's or the reduction's scratch
  return detail::array_bytes(n, 3 * sizeof(Index) + sizeof(Value)) +
         std::max(detail::sort_scratch_bytes<key, Value>(n), detail::reduce_by_key_scratch_bytes<key, Value>(n));
}

}  // namespace dpt
