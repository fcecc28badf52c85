// dpt/cpu/spmv.hpp — dpt::spmv on OpenMP and TBB: the lecture's flat form over equal slices of non-zeros
// (dpt/cpu/spmv_slices.hpp), each row's sum a segmented reduction that needs no row ids.
#pragma once

#include <cstddef>
#include <cuda/std/functional>
#include <cuda/std/iterator>
#include <optional>
#include <thrust/fill.h>
#include <thrust/tuple.h>
#include <thrust/type_traits/unwrap_contiguous_iterator.h>

#include <dpt/config.hpp>
#include <dpt/cpu/segmented_scan.hpp>
#include <dpt/cpu/slice_scan.hpp>
#include <dpt/cpu/spmv_slices.hpp>
#include <dpt/cpu/tuning.hpp>

namespace dpt::cpu {

// y = A·x on OMP and TBB: the flat form through the multicore recipe (dpt/cpu/spmv_slices.hpp), over slices
// of 256 KiB of values and column indices unless `tune` says otherwise. `A` is a dpt::csr_view (dpt/spmv.hpp) or
// anything with its members.
template <class DerivedPolicy, class Csr, class VectorIt, class OutputIt>
OutputIt spmv(const thrust::detail::execution_policy_base<DerivedPolicy>& exec, const Csr& A, VectorIt x, OutputIt y,
              const tuning& tune = {}) {
  using OffsetIt = decltype(A.row_offsets);
  using IndexIt = decltype(A.column_indices);
  using ValueIt = decltype(A.values);
  using T = ::cuda::std::iter_value_t<OutputIt>;
  if (A.rows == 0) return y;
  if (A.nnz == 0) {
    // no entries at all: every row is empty
    thrust::fill_n(exec, y, A.rows, T(0));
    return y + A.rows;
  }
  const spmv_slice_loops<
      thrust::try_unwrap_contiguous_iterator_t<OffsetIt>, thrust::try_unwrap_contiguous_iterator_t<IndexIt>,
      thrust::try_unwrap_contiguous_iterator_t<ValueIt>, thrust::try_unwrap_contiguous_iterator_t<VectorIt>,
      thrust::try_unwrap_contiguous_iterator_t<OutputIt>, T>
      loops{thrust::try_unwrap_contiguous_iterator(A.row_offsets),
            thrust::try_unwrap_contiguous_iterator(A.column_indices),
            thrust::try_unwrap_contiguous_iterator(A.values),
            thrust::try_unwrap_contiguous_iterator(x),
            thrust::try_unwrap_contiguous_iterator(y),
            A.rows};
  // segmented reduction over equal slices of non-zeros: each core sums its slice's rows, carrying the open row
  run_slice_scan(exec, A.nnz, loops, std::optional(thrust::tuple<bool, T>(true, T(0))),
                 head_flag_op<T, ::cuda::std::plus<T>>{},
                 tune.slices.value_or(slice_sizes::for_element_bytes(sizeof(::cuda::std::iter_value_t<ValueIt>) +
                                                                     sizeof(::cuda::std::iter_value_t<IndexIt>))));
  return y + A.rows;
}

}  // namespace dpt::cpu
