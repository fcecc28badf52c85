// dpt/spmv.hpp — sparse matrix × dense vector, y = A·x, with A in CSR (compressed sparse row) form.
//
// The lecture's example: a 4 × 4 matrix stored row by row as three sequences,
//
//   values      = [3, 1, 2, 4, 2, 6, 8]        the non-zeros, row after row
//   cols        = [0, 2, 1, 2, 1, 2, 3]        the column of each non-zero
//   row_offsets = [0, 2, 3, 4, 7]              row r is entries row_offsets[r] .. row_offsets[r+1]
//
// and y = [3x0 + x2, 2x1, 4x2, 2x1 + 6x2 + 8x3]; with x = [1, 2, 3, 4], y = [6, 4, 12, 54]. (The slide lists
// only the four row starts; CSR also stores the end, nnz = 7, so that row_offsets[r+1] is defined for every r.)
//
// Rows have different lengths, so "one thread per row" gives threads unequal work. The lecture instead works
// on one flat sequence of non-zeros, where every element costs the same:
//
//   1. gather    x[cols[k]]                     [1, 3, 2, 3, 2, 3, 4]
//   2. map       values[k] · x[cols[k]]         [3, 3, 4, 12, 4, 18, 32]
//   3. row ids   the row of every entry         [0, 0, 1, 2, 3, 3, 3]   (the slide's head flags
//                                                                        [1,0,1,1,1,0,0], scanned)
//   4–5. segmented reduction: the sum of each run of equal row ids = the last element of each segment of the
//        slide's segmented scan → y = [6, 4, 12, 54]
//
// On CUDA and CPP dpt::spmv is that composition: steps 1 and 2 are fused into the reduction's input with iterators
// (never stored), step 3 scatters head flags and scans them, steps 4–5 are one thrust::reduce_by_key. Rows with no
// entries produce no segment, so they are filled with 0. OpenMP and TBB policies, whose reduce_by_key runs far
// below memory bandwidth, go to dpt's CPU backend (dpt/cpu/spmv.hpp): the same flat form over equal slices of
// non-zeros, each row's sum a segmented reduction that needs no row ids, whose products are added in entry order:
// the sequential loop's bits, whatever the number of cores (and the same y for a row block on an MPI rank).
// dpt::spmv_by_row_ids is the composition on every system; dpt::spmv_row_per_thread is the "one thread per row" loop
// the lecture argues against, kept for comparison (bench/ measures all three). spmv_temporary_bytes and
// spmv_by_row_ids_temporary_bytes bound the scratch a call takes from its policy, for a caller sizing memory before it
// allocates.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cuda/functional>
#include <cuda/std/functional>
#include <cuda/std/iterator>
#include <cuda/std/limits>
#include <stdexcept>
#include <string>
#include <thrust/fill.h>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/iterator/discard_iterator.h>
#include <thrust/iterator/permutation_iterator.h>
#include <thrust/iterator/transform_iterator.h>
#include <thrust/iterator/zip_iterator.h>
#include <thrust/logical.h>
#include <thrust/reduce.h>
#include <thrust/scan.h>
#include <thrust/scatter.h>
#include <thrust/transform.h>
#include <thrust/tuple.h>

#include <dpt/config.hpp>
#include <dpt/cpu/spmv.hpp>
#include <dpt/detail/primitive_scratch.hpp>
#include <dpt/detail/temporary_array.hpp>
#include <dpt/scan.hpp>

namespace dpt {

// A CSR matrix as three device sequences plus its shape (structure of arrays; the view owns nothing).
// row_offsets has rows + 1 entries, starts at 0, never decreases and ends at nnz; column_indices and values
// have nnz entries each, columns in 0 .. cols − 1. The offset and column types are integers of any width
// (int32 is enough for up to 2^31 − 1 non-zeros and halves the index traffic of int64); the column index type
// must also hold the number of rows, since dpt::spmv on CUDA and CPP counts row ids in it (a
// std::invalid_argument there otherwise).
template <class OffsetIt, class IndexIt, class ValueIt>
struct csr_view {
  OffsetIt row_offsets;
  IndexIt column_indices;
  ValueIt values;
  std::ptrdiff_t rows = 0, cols = 0, nnz = 0;
};

template <class OffsetIt, class IndexIt, class ValueIt>
csr_view<OffsetIt, IndexIt, ValueIt> make_csr_view(OffsetIt row_offsets, IndexIt column_indices, ValueIt values,
                                                   std::ptrdiff_t rows, std::ptrdiff_t cols, std::ptrdiff_t nnz) {
  return {row_offsets, column_indices, values, rows, cols, nnz};
}

namespace detail {

// (a, x) → a·x in the result's type (float or double), so float inputs are never widened behind the caller's back.
template <class T>
struct multiply_pair {
  template <class Pair>
  DPT_HOST_DEVICE T operator()(const Pair& p) const {
    return static_cast<T>(thrust::get<0>(p)) * static_cast<T>(thrust::get<1>(p));
  }
};

// True for a row with entries: its start is before its end.
template <class OffsetIt>
struct row_has_entries {
  OffsetIt row_offsets;
  template <class Row>
  DPT_HOST_DEVICE bool operator()(Row r) const {
    return row_offsets[r] != row_offsets[r + 1];
  }
};

// The dot product of one row with x, one entry after another: the body of the "one thread per row" loop.
template <class T, class OffsetIt, class IndexIt, class ValueIt, class VectorIt>
struct row_dot_product {
  OffsetIt row_offsets;
  IndexIt column_indices;
  ValueIt values;
  VectorIt x;
  template <class Row>
  DPT_HOST_DEVICE T operator()(Row r) const {
    using offset_type = ::cuda::std::iter_value_t<OffsetIt>;
    T sum = 0;
    for (offset_type k = row_offsets[r], end = row_offsets[r + 1]; k < end; ++k) {
      sum += static_cast<T>(values[k]) * static_cast<T>(x[column_indices[k]]);
    }
    return sum;
  }
};

// Steps 1–2, gather and map, as an iterator: products[k] = values[k] · x[cols[k]], computed as a reduction reads
// them and never stored.
template <class Result, class OffsetIt, class IndexIt, class ValueIt, class VectorIt>
auto products_of(const csr_view<OffsetIt, IndexIt, ValueIt>& A, VectorIt x) {
  const auto gathered_x = thrust::make_permutation_iterator(x, A.column_indices);
  return thrust::make_transform_iterator(thrust::make_zip_iterator(A.values, gathered_x), multiply_pair<Result>{});
}

// The row ids are stored in the column index type and counted in it up to rows: past its range they would wrap.
template <class Index>
void require_row_ids_fit(std::ptrdiff_t rows) {
  if (static_cast<std::uintmax_t>(rows) > static_cast<std::uintmax_t>(::cuda::std::numeric_limits<Index>::max())) {
    throw std::invalid_argument("spmv: " + std::to_string(rows) +
                                " rows are more than the column index type can count (it holds the row ids)");
  }
}

// Step 3, row ids from row offsets (A.nnz of them, written to row_ids): the slide's head flags, carrying the row
// number instead of a 1 — scatter each non-empty row's number to where it starts, then a max-scan carries it over
// the row:
//   row_offsets [0, 2, 3, 4, 7] → heads [0, 0, 1, 2, 3, 0, 0] → inclusive max-scan [0, 0, 1, 2, 3, 3, 3]
// (an empty row starts where the next row does, so only rows with entries write a head). 3 Thrust calls.
template <class DerivedPolicy, class OffsetIt, class IndexIt, class ValueIt, class RowIdIt>
void write_row_ids(const thrust::detail::execution_policy_base<DerivedPolicy>& exec,
                   const csr_view<OffsetIt, IndexIt, ValueIt>& A, RowIdIt row_ids) {
  using index_type = ::cuda::std::iter_value_t<IndexIt>;
  thrust::fill_n(exec, row_ids, A.nnz, index_type(0));
  const auto rows = thrust::make_counting_iterator<index_type>(0);
  thrust::scatter_if(exec, rows, rows + A.rows, A.row_offsets,
                     thrust::make_transform_iterator(rows, row_has_entries<OffsetIt>{A.row_offsets}), row_ids);
  dpt::inclusive_scan(exec, row_ids, row_ids + A.nnz, row_ids, ::cuda::maximum<>{});
}

// Whether some row has no entries (reduce_by_key emits nothing for it). 1 Thrust call, its answer read back.
template <class DerivedPolicy, class OffsetIt, class IndexIt, class ValueIt>
bool has_empty_rows(const thrust::detail::execution_policy_base<DerivedPolicy>& exec,
                    const csr_view<OffsetIt, IndexIt, ValueIt>& A) {
  const auto rows = thrust::make_counting_iterator<std::ptrdiff_t>(0);
  return !thrust::all_of(exec, rows, rows + A.rows, row_has_entries<OffsetIt>{A.row_offsets});
}

}  // namespace detail

// y = A·x through Thrust, as the lecture composes it: gather, map, expand row offsets to row ids, segmented
// reduction, on every device system. It is dpt::spmv on CUDA and CPP; on OMP and TBB bench/ and the tests run it
// against dpt::spmv's own path. Same contract as dpt::spmv. (dpt/spmv_plan.hpp builds the row ids once for a
// matrix that is multiplied many times.)
//
// Materialised temporaries (everything else is fused through iterators):
//   row ids           nnz × sizeof(column index): written by a fill, a scatter (one write per row) and a scan
//                     (one read, one write), read by reduce_by_key. A vectorised binary search
//                     (upper_bound of k in the row ends) needs no fill or scan, but costs log2(rows)
//                     unpredictable branches per entry: far slower on a CPU (docs/benchmarks.md, spmv).
//   only when A has empty rows: the row of each non-empty row's sum and the sum itself, ≤ rows entries
//                     each, because reduce_by_key emits one result per run of equal keys and rows without
//                     entries have no run; those results are scattered into a zero-filled y.
// Without empty rows (checked with one pass over the rows + 1 offsets), reduce_by_key writes y directly.
// Per call: 5 Thrust calls (7 with empty rows: zero y, scatter the sums), 2 of them host reads: whether a row is
// empty (it chooses the path) and reduce_by_key's run count, which Thrust reads back though y's end is known.
// Inside reduce_by_key: CUB's single-pass version on CUDA, a parallel one on TBB, a sequential loop on CPP; on
// OpenMP Thrust's generic one, which itself materialises head flags and scans them serially. Together with
// the row-id passes these are the lecture's "extra passes over the data"; on a CPU they make this composition
// slower than one task per row (bench/ measures both).
template <class DerivedPolicy, class OffsetIt, class IndexIt, class ValueIt, class VectorIt, class OutputIt>
OutputIt spmv_by_row_ids(const thrust::detail::execution_policy_base<DerivedPolicy>& exec,
                         const csr_view<OffsetIt, IndexIt, ValueIt>& A, VectorIt x, OutputIt y) {
  using index_type = ::cuda::std::iter_value_t<IndexIt>;
  using result_type = ::cuda::std::iter_value_t<OutputIt>;
  if (A.rows == 0) return y;
  detail::require_row_ids_fit<index_type>(A.rows);
  if (A.nnz == 0) {
    // no entries at all: every row is empty
    thrust::fill_n(exec, y, A.rows, result_type(0));
    return y + A.rows;
  }
  // steps 1–2, gather and map, fused into the reduction's input
  const auto products = detail::products_of<result_type>(A, x);
  // step 3, the row of every entry
  detail::temporary_array<index_type, DerivedPolicy> row_ids(exec, A.nnz);
  detail::write_row_ids(exec, A, row_ids.begin());

  if (!detail::has_empty_rows(exec, A)) {
    // steps 4–5, segmented reduction: one sum per run of equal row ids, and the runs are exactly rows 0, 1, …
    thrust::reduce_by_key(exec, row_ids.begin(), row_ids.end(), products, thrust::make_discard_iterator(), y);
    return y + A.rows;
  }
  // steps 4–5, segmented reduction: one (row, sum) pair per non-empty row
  const auto runs = std::min(A.rows, A.nnz);
  detail::temporary_array<index_type, DerivedPolicy> nonempty_rows(exec, runs);
  detail::temporary_array<result_type, DerivedPolicy> row_sums(exec, runs);
  const auto ends =
      thrust::reduce_by_key(exec, row_ids.begin(), row_ids.end(), products, nonempty_rows.begin(), row_sums.begin());
  // empty rows are 0; scatter every other row's sum to its place
  thrust::fill_n(exec, y, A.rows, result_type(0));
  thrust::scatter(exec, row_sums.begin(), ends.second, nonempty_rows.begin(), y);
  return y + A.rows;
}

// An upper bound on the bytes spmv_by_row_ids takes through its policy, Thrust's own scratch included, for a
// matrix of `rows` rows and `nnz` entries with column indices of type Index and a y of type Result, on this build's
// device system (dpt/detail/primitive_scratch.hpp says how each primitive's share is bounded).
template <class Index, class Result>
std::size_t spmv_by_row_ids_temporary_bytes(std::ptrdiff_t rows, std::ptrdiff_t nnz) {
  if (rows <= 0 || nnz <= 0) return 0;
  const std::size_t row_ids = detail::array_bytes(nnz, sizeof(Index));
  // the (row, sum) pair of each non-empty row, needed only when there are empty rows
  const std::size_t runs = detail::array_bytes(std::min(rows, nnz), sizeof(Index) + sizeof(Result));
  return row_ids + std::max({detail::scan_scratch_bytes<Index>(nnz), detail::reduction_scratch_bytes(rows),
                             runs + detail::reduce_by_key_scratch_bytes<Index, Result>(nnz)});
}

// y = A·x, the lecture's flat form: every non-zero costs the same, whatever the row lengths. x has A.cols
// elements, y receives A.rows; products and sums use y's value type. Returns y + A.rows.
template <class DerivedPolicy, class OffsetIt, class IndexIt, class ValueIt, class VectorIt, class OutputIt>
OutputIt spmv(const thrust::detail::execution_policy_base<DerivedPolicy>& exec,
              const csr_view<OffsetIt, IndexIt, ValueIt>& A, VectorIt x, OutputIt y) {
  if constexpr (cpu::handles_v<DerivedPolicy>) {
    return cpu::spmv(exec, A, x, y);
  } else {
    return spmv_by_row_ids(exec, A, x, y);
  }
}

// An upper bound on the bytes dpt::spmv takes through thrust::device's policy (spmv_by_row_ids_temporary_bytes
// on CUDA and CPP; nothing on OMP and TBB, whose slices need no temporaries).
template <class Index, class Result>
std::size_t spmv_temporary_bytes(std::ptrdiff_t rows, std::ptrdiff_t nnz) {
  return cpu::handles_device_system_v ? 0 : spmv_by_row_ids_temporary_bytes<Index, Result>(rows, nnz);
}

// y = A·x with one task per row, each looping over its own entries: no temporaries and one pass over A, but
// rows of different lengths give tasks unequal work (on a GPU, idle lanes in a warp). For comparison with
// dpt::spmv; same contract.
template <class DerivedPolicy, class OffsetIt, class IndexIt, class ValueIt, class VectorIt, class OutputIt>
OutputIt spmv_row_per_thread(const thrust::detail::execution_policy_base<DerivedPolicy>& exec,
                             const csr_view<OffsetIt, IndexIt, ValueIt>& A, VectorIt x, OutputIt y) {
  using result_type = ::cuda::std::iter_value_t<OutputIt>;
  const auto rows = thrust::make_counting_iterator<std::ptrdiff_t>(0);
  // map over rows: each row's dot product with x
  return thrust::transform(exec, rows, rows + A.rows, y,
                           detail::row_dot_product<result_type, OffsetIt, IndexIt, ValueIt, VectorIt>{
                               A.row_offsets, A.column_indices, A.values, x});
}

}  // namespace dpt
