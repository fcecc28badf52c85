// dpt/cpu/spmv_slices.hpp — dpt::spmv on OMP and TBB: the lecture's flat form, run through dpt's multicore
// recipe (dpt/cpu/slice_scan.hpp) instead of Thrust's reduce_by_key.
//
// The non-zeros are one flat sequence, cut into equal slices whatever the row lengths; a row's sum is a
// segmented reduction with a head at every row start. With the lecture's matrix and x = [1, 2, 3, 4]:
//
//   products     [3 3 4 | 12 4 18 | 32]         slices of 3 entries; rows [0 0 1 | 2 3 3 | 3]
//   reduce       the sum since the slice's last row start, and whether it has one: (yes, 4) (yes, 22); slice 2
//                has none, so its reduce adds nothing (no, 0) and its prefix folds it on the base: 22 + 32
//   bases        the sum so far of the row open where each slice begins:  0, 4 (row 1, ended), 22 (row 3)
//   walk         slice 0: y0 = 6, y1 = 4;  slice 1: y2 = 12, row 3 goes on;  slice 2: y3 = 22 + 32 = 54
//
// The reduce reads only the stretch after the slice's last row start (usually one short row, which the walk
// then finds in cache), so memory sees each non-zero about once. Each row is written by exactly one slice, the
// one where the row ends: the slice [begin, end) with begin < row_offsets[r + 1] ≤ end; the first slice also
// writes the empty rows at offset 0.
//
// Every row's sum is its products added one after another from 0, in entry order: the sequential CSR loop's
// sum, bit for bit, however the slices fall and however many cores run. A row that began in an earlier slice
// goes on from the base, which holds its products so far in order; a slice that lies inside one long row (no
// row starts in it) cannot fold its products before it knows that row's sum so far, so its reduce does nothing
// and its fold waits for the base (prefix below). Such slices are summed one after another, at one core's
// speed; that is the price of results that do not depend on the slicing (the same y from 1 or 16 cores, and
// from one process or a row block per MPI rank, dpt/mpi/spmv.hpp). Thrust's reduce_by_key runs serially on OpenMP,
// after a serial scan of head flags, and the row ids it needs cost two more passes: docs/benchmarks.md (spmv) times
// that composition against this path.
#pragma once

#include <cstddef>
#include <thrust/tuple.h>

#include <dpt/cpu/slice_scan.hpp>

namespace dpt::cpu {

template <class OffsetIt, class IndexIt, class ValueIt, class VectorIt, class OutputIt, class T>
struct spmv_slice_loops {
  using pair = thrust::tuple<bool, T>;  // (a row starts in the stretch, the sum since the last row start)

  OffsetIt row_offsets;
  IndexIt column_indices;
  ValueIt values;
  VectorIt x;
  OutputIt y;
  std::ptrdiff_t rows;

  // The walk takes a few cycles per entry (a gather from x) but finds the next slice's entries in the order
  // the processor's prefetcher expects; claiming late lets a faster core take more slices.
  bool prefetches_next_slice() const { return false; }

  // What the reduce (or the prefix) of the slice starting at `begin` learned: the sum so far of `row`, the row of the
  // slice's last entry, so that the walk need not fold that row again (a long row's products, with their gathers
  // from x, would be read twice).
  struct last_row {
    std::ptrdiff_t begin = -1, row = -1;
    bool known = false;
    T sum{};
  };
  last_row make_scratch(std::ptrdiff_t /*slice_length*/) const { return {}; }

  // values[k] · x[column_indices[k]] for k in [begin, end), added to `sum` in order.
  T add_products(T sum, std::ptrdiff_t begin, std::ptrdiff_t end) const {
    const auto v = values;
    const auto c = column_indices;
    const auto xs = x;
    for (std::ptrdiff_t k = begin; k < end; ++k) sum += static_cast<T>(v[k]) * static_cast<T>(xs[c[k]]);
    return sum;
  }

  // The first row r in [0, rows) with row_offsets[r + 1] > k (rows when none): a binary search.
  std::ptrdiff_t first_row_ending_after(std::ptrdiff_t k) const {
    std::ptrdiff_t low = 0, high = rows;
    while (low < high) {
      const std::ptrdiff_t mid = low + (high - low) / 2;
      if (static_cast<std::ptrdiff_t>(row_offsets[mid + 1]) > k) {
        high = mid;
      } else {
        low = mid + 1;
      }
    }
    return low;
  }

  // The row of the slice's last entry starts at row_offsets[r]; fold from there. A slice inside one row (it
  // started before begin) is folded by prefix, from the row's sum so far.
  pair reduce(last_row& last, std::ptrdiff_t begin, std::ptrdiff_t end) const {
    const auto r = first_row_ending_after(end - 1);
    const auto start = static_cast<std::ptrdiff_t>(row_offsets[r]);
    last = {begin, r, start >= begin, start >= begin ? add_products(T(0), start, end) : T(0)};
    return {start >= begin, last.sum};
  }

  // The sum so far of the row open at the slice's end: the reduce's, when a row starts in the slice; otherwise
  // the base's row goes on through the whole slice, its products added in order.
  pair prefix(last_row& last, const pair& base, const pair& total, std::ptrdiff_t begin, std::ptrdiff_t end) const {
    if (thrust::get<0>(total)) return total;
    last.known = true;
    last.sum = add_products(thrust::get<1>(base), begin, end);
    return {thrust::get<0>(base), last.sum};
  }

  // Writes the rows that end in (begin, end]; `base` holds the sum so far of the row open at `begin`.
  pair scan(last_row& last, std::ptrdiff_t begin, std::ptrdiff_t end, const pair* base, index_range /*ahead*/) const {
    const auto offsets = row_offsets;
    const auto out = y;
    std::ptrdiff_t r = begin == 0 ? 0 : first_row_ending_after(begin), k = begin;
    // the first row goes on from the base if it began in an earlier slice; every later row starts from 0
    T sum = r < rows && static_cast<std::ptrdiff_t>(offsets[r]) < begin ? thrust::get<1>(*base) : T(0);
    // the slice's last row, from k to end, as the reduce or the prefix of this slice summed it already
    const auto summed = [&](std::ptrdiff_t row) { return last.known && last.begin == begin && last.row == row; };
    for (; r < rows; ++r) {
      const auto row_end = static_cast<std::ptrdiff_t>(offsets[r + 1]);
      if (row_end > end) break;
      out[r] = summed(r) ? last.sum : add_products(sum, k, row_end);
      sum = T(0);
      k = row_end;
    }
    // the row still open at the slice's end: its sum so far
    return {true, summed(r) ? last.sum : add_products(sum, k, end)};
  }
};

}  // namespace dpt::cpu
