// dpt/spmv_plan.hpp — y = A·x many times on one matrix: the row ids built once, each product one reduction.
//
// Step 3 of the lecture's SpMV (dpt/spmv.hpp), the row of every entry, and the question whether a row is empty
// depend only on A's structure, yet dpt::spmv_by_row_ids answers them on every call. An iterative solver multiplies
// one matrix hundreds of times; a plan answers them once:
//
//   auto plan = dpt::make_spmv_plan(policy, A);   row_offsets [0, 2, 3, 4, 7] → row ids [0, 0, 1, 2, 3, 3, 3]
//   dpt::spmv(policy, plan, A, x, y);              steps 1–2 fused into 4–5: one segmented reduction, into y
//
// With empty rows the plan also lists the rows that have entries (row_offsets [0, 2, 2, 3] → row ids [0, 0, 2],
// rows with entries [0, 2]): a product zeros y and the reduction writes each run's sum through that list, so it
// needs no temporaries and no count of the runs it wrote.
//
// Per product: 1 Thrust call (2 with empty rows: zero y first). On CUDA the reduction is CUB's
// DeviceReduce::ReduceByKey called directly, its run count discarded: nothing is read back and the stream is not
// synchronised (thrust::reduce_by_key would copy the run count to the host), and CUB's scratch comes from the
// policy. On CPP it is thrust::reduce_by_key, whose run count is host memory there. On OpenMP and TBB dpt::spmv's
// slices need no row ids: the plan holds nothing and the product is dpt::spmv's.
// Making a plan: 4 Thrust calls (fill, scatter and scan the row ids, ask whether a row is empty: a host read),
// 5 with empty rows (a reduce_by_key lists the non-empty rows: a host read); its arrays are the plan's own.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <stdexcept>
#include <thrust/device_vector.h>
#include <thrust/fill.h>
#include <thrust/iterator/constant_iterator.h>
#include <thrust/iterator/discard_iterator.h>
#include <thrust/iterator/permutation_iterator.h>
#include <thrust/reduce.h>

#include <dpt/config.hpp>
#include <dpt/cpu/system.hpp>
#include <dpt/detail/primitive_scratch.hpp>
#include <dpt/detail/temporary_array.hpp>
#include <dpt/spmv.hpp>

#if DPT_CUDA_DEVICE_SYSTEM && defined(__CUDACC__)
#  include <cub/device/device_reduce.cuh>
#  include <cuda/std/functional>
#  include <dpt/detail/cuda_check.hpp>
#endif

namespace dpt {

// What make_spmv_plan found out about one matrix's structure. Its arrays live in the device system's memory.
template <class Index>
struct spmv_plan {
  std::ptrdiff_t rows = 0, nnz = 0;            // the shape it was made for
  bool has_row_ids = false;                    // false when made for OpenMP or TBB, whose dpt::spmv needs none
  bool has_empty_rows = false;                 // whether some row has no entries
  thrust::device_vector<Index> row_ids;        // step 3: the row of every entry (nnz)
  thrust::device_vector<Index> nonempty_rows;  // with empty rows only: the rows that have entries, ascending
};

namespace detail {

// Steps 4–5, the segmented reduction: the sum of each run of equal row ids, in run order, to sums.
template <class DerivedPolicy, class RowIdIt, class ProductIt, class SumIt>
void reduce_rows(const thrust::detail::execution_policy_base<DerivedPolicy>& exec, RowIdIt row_ids, ProductIt products,
                 std::ptrdiff_t nnz, SumIt sums) {
#if DPT_CUDA_DEVICE_SYSTEM && defined(__CUDACC__)
  // CUB's single-pass reduce-by-key; the run count goes to a discard iterator, as the plan knows it
  const auto discard = thrust::make_discard_iterator();
  const cudaStream_t stream = stream_of(exec);
  const auto reduce = [&](auto items) {
    std::size_t bytes = 0;
    cuda_check(cub::DeviceReduce::ReduceByKey(nullptr, bytes, row_ids, discard, products, sums, discard,
                                              ::cuda::std::plus<>{}, items, stream),
               "cub::DeviceReduce::ReduceByKey (size query)");
    temporary_array<unsigned char, DerivedPolicy> scratch(exec,
                                                          static_cast<std::ptrdiff_t>(std::max<std::size_t>(bytes, 1)));
    cuda_check(cub::DeviceReduce::ReduceByKey(thrust::raw_pointer_cast(scratch.begin()), bytes, row_ids, discard,
                                              products, sums, discard, ::cuda::std::plus<>{}, items, stream),
               "cub::DeviceReduce::ReduceByKey");
  };
  // 32-bit item counts where they suffice, as Thrust dispatches
  if (nnz <= std::numeric_limits<std::int32_t>::max()) {
    reduce(static_cast<std::int32_t>(nnz));
  } else {
    reduce(static_cast<std::int64_t>(nnz));
  }
#else
  thrust::reduce_by_key(exec, row_ids, row_ids + nnz, products, thrust::make_discard_iterator(), sums);
#endif
}

}  // namespace detail

// The plan of A for products with policies of exec's kind: its row ids and which rows have entries, on CUDA and
// CPP; nothing on OpenMP and TBB. Throws std::invalid_argument where the column index type cannot count A's rows.
template <class DerivedPolicy, class OffsetIt, class IndexIt, class ValueIt>
spmv_plan<::cuda::std::iter_value_t<IndexIt>> make_spmv_plan(
    const thrust::detail::execution_policy_base<DerivedPolicy>& exec, const csr_view<OffsetIt, IndexIt, ValueIt>& A) {
  using index_type = ::cuda::std::iter_value_t<IndexIt>;
  spmv_plan<index_type> plan;
  plan.rows = A.rows;
  plan.nnz = A.nnz;
  if constexpr (!cpu::handles_v<DerivedPolicy>) {
    plan.has_row_ids = true;
    if (A.rows == 0 || A.nnz == 0) return plan;  // y is empty, or all zeros
    detail::require_row_ids_fit<index_type>(A.rows);
    // step 3, once for every product: the row of every entry
    plan.row_ids.resize(static_cast<std::size_t>(A.nnz));
    detail::write_row_ids(exec, A, plan.row_ids.begin());
    plan.has_empty_rows = detail::has_empty_rows(exec, A);
    if (plan.has_empty_rows) {
      // one key per run of equal row ids: the rows that have entries, where the products' sums belong
      plan.nonempty_rows.resize(static_cast<std::size_t>(std::min(A.rows, A.nnz)));
      const auto ends = thrust::reduce_by_key(exec, plan.row_ids.begin(), plan.row_ids.end(),
                                              thrust::make_constant_iterator(index_type(0)), plan.nonempty_rows.begin(),
                                              thrust::make_discard_iterator());
      plan.nonempty_rows.resize(static_cast<std::size_t>(ends.first - plan.nonempty_rows.begin()));
    }
  }
  return plan;
}

// y = A·x with A's plan: the same contract and the same sums as dpt::spmv. Throws std::invalid_argument if the plan
// was made for another shape, or for OpenMP or TBB and used with a policy that needs row ids.
template <class DerivedPolicy, class Index, class OffsetIt, class IndexIt, class ValueIt, class VectorIt,
          class OutputIt>
OutputIt spmv(const thrust::detail::execution_policy_base<DerivedPolicy>& exec, const spmv_plan<Index>& plan,
              const csr_view<OffsetIt, IndexIt, ValueIt>& A, VectorIt x, OutputIt y) {
  using result_type = ::cuda::std::iter_value_t<OutputIt>;
  if (plan.rows != A.rows || plan.nnz != A.nnz) {
    throw std::invalid_argument("spmv: the plan was made for a matrix of another shape");
  }
  if constexpr (cpu::handles_v<DerivedPolicy>) {
    return cpu::spmv(exec, A, x, y);
  } else {
    if (!plan.has_row_ids) {
      throw std::invalid_argument("spmv: the plan was made for a policy that needs no row ids (OpenMP or TBB)");
    }
    if (A.rows == 0) return y;
    if (A.nnz == 0) {
      thrust::fill_n(exec, y, A.rows, result_type(0));
      return y + A.rows;
    }
    // steps 1–2, gather and map, fused into the reduction's input
    const auto products = detail::products_of<result_type>(A, x);
    const auto row_ids = thrust::raw_pointer_cast(plan.row_ids.data());
    if (!plan.has_empty_rows) {
      // steps 4–5: the runs are exactly rows 0, 1, …, so the sums go straight to y
      detail::reduce_rows(exec, row_ids, products, A.nnz, y);
    } else {
      // rows without entries are 0; every other row's sum goes to its place through the plan's list
      thrust::fill_n(exec, y, A.rows, result_type(0));
      detail::reduce_rows(exec, row_ids, products, A.nnz,
                          thrust::make_permutation_iterator(y, thrust::raw_pointer_cast(plan.nonempty_rows.data())));
    }
    return y + A.rows;
  }
}

// The bytes a plan for `rows` rows and `nnz` entries holds, an upper bound (none on OpenMP and TBB).
template <class Index>
std::size_t spmv_plan_bytes(std::ptrdiff_t rows, std::ptrdiff_t nnz) {
  if (cpu::handles_device_system_v || rows <= 0 || nnz <= 0) return 0;
  return detail::array_bytes(nnz, sizeof(Index)) + detail::array_bytes(std::min(rows, nnz), sizeof(Index));
}

// An upper bound on the bytes make_spmv_plan takes through its policy, beyond what the plan keeps.
template <class Index>
std::size_t make_spmv_plan_temporary_bytes(std::ptrdiff_t rows, std::ptrdiff_t nnz) {
  if (cpu::handles_device_system_v || rows <= 0 || nnz <= 0) return 0;
  return std::max({detail::scan_scratch_bytes<Index>(nnz), detail::reduction_scratch_bytes(rows),
                   detail::reduce_by_key_scratch_bytes<Index, Index>(nnz)});
}

// An upper bound on the bytes a planned dpt::spmv takes through its policy (Result: y's value type).
template <class Index, class Result>
std::size_t planned_spmv_temporary_bytes(std::ptrdiff_t rows, std::ptrdiff_t nnz) {
  if (cpu::handles_device_system_v || rows <= 0 || nnz <= 0) return 0;
  return detail::reduce_by_key_scratch_bytes<Index, Result>(nnz);
}

}  // namespace dpt
