// dpt/mpi/histogram.hpp — NumPy's histogram of a sequence cut into slices across MPI ranks.
//
// Each rank counts its slice with dpt::histogram (the lecture's map + sort + find starts, or any other method), and
// the ranks add their counts (MPI_Allreduce): every rank ends with the whole sequence's counts. The bins must be the
// same on every rank; NumPy's default range, the data's own minimum and maximum, comes from value_range, a min/max
// reduction over the ranks.
//
//   rank slices   [0.1, 0.7, 0.3]   [0.9, 0.35]   [0.6, 1.4]          K = 4 bins over [0, 1]
//   count each    [1, 1, 1, 0]      [0, 1, 0, 1]  [0, 0, 1, 0] +1 above
//   add counts    [1, 2, 2, 1], 1 dropped above, on every rank
//
// Counts are integers, so the result is exactly the single-process one, whatever the partition.
#pragma once

#include <algorithm>
#include <cmath>
#include <cuda/std/iterator>
#include <limits>
#include <thrust/copy.h>
#include <thrust/distance.h>
#include <thrust/extrema.h>
#include <thrust/logical.h>
#include <vector>

#include <dpt/config.hpp>
#include <dpt/histogram.hpp>
#include <dpt/mpi/communicator.hpp>

namespace dpt::mpi {

// Counts the values of every rank's slice in `bins` (the same on every rank), writing the whole sequence's
// bins.count counts to `counts` on every rank; returns the values dropped over all ranks. Throws what
// dpt::histogram throws, on every rank alike (its checks depend on the bins alone). Collective. Per call: one
// dpt::histogram, the counts' copy to the host and back, one MPI_Allreduce of K + 3 integers.
template <class DerivedPolicy, class InputIt, class Bound, class CountIt>
histogram_result histogram(const communicator& comm, const thrust::detail::execution_policy_base<DerivedPolicy>& exec,
                           InputIt first, InputIt last, const even_bins<Bound>& bins, CountIt counts,
                           histogram_method method = histogram_method::sort) {
  // each rank counts its slice
  const histogram_result dropped = dpt::histogram(exec, first, last, bins, counts, method);
  // the ranks add their counts (bins, then below, above and NaN)
  const auto k = static_cast<std::size_t>(bins.count);
  std::vector<unsigned long long> sums(k + 3);
  thrust::copy(counts, counts + bins.count, sums.begin());
  sums[k] = dropped.below;
  sums[k + 1] = dropped.above;
  sums[k + 2] = dropped.nan;
  check(MPI_Allreduce(MPI_IN_PLACE, sums.data(), static_cast<int>(sums.size()), MPI_UNSIGNED_LONG_LONG, MPI_SUM,
                      comm.get()),
        "MPI_Allreduce");
  thrust::copy(sums.begin(), sums.begin() + static_cast<std::ptrdiff_t>(k), counts);
  return {sums[k], sums[k + 1], sums[k + 2]};
}

// The smallest and largest value over every rank's slice, and whether there are any values and all are finite.
template <class T>
struct global_range {
  bool any = false;    // some rank holds a value
  bool finite = true;  // no rank holds a NaN or an infinity (lo and hi are meaningful only then)
  T lo{}, hi{};
};

namespace detail {
struct is_finite {
  template <class T>
  DPT_HOST_DEVICE bool operator()(const T& x) const {
    return std::isfinite(static_cast<double>(x));
  }
};
}  // namespace detail

// The range NumPy takes by default, over all ranks. Collective. Per call: an all_of and a minmax_element over the
// slice, their answers read on the host, three MPI_Allreduce calls.
template <class DerivedPolicy, class InputIt>
global_range<::cuda::std::iter_value_t<InputIt>> value_range(
    const communicator& comm, const thrust::detail::execution_policy_base<DerivedPolicy>& exec, InputIt first,
    InputIt last) {
  using T = ::cuda::std::iter_value_t<InputIt>;
  // each rank finds whether it holds values, whether any is not finite, and its extremes
  int mine[2] = {first != last, !thrust::all_of(exec, first, last, detail::is_finite{})};
  T lo = std::numeric_limits<T>::max(), hi = std::numeric_limits<T>::lowest();
  if (mine[0] && !mine[1]) {
    const auto extremes = thrust::minmax_element(exec, first, last);
    lo = *extremes.first;
    hi = *extremes.second;
  }
  // the ranks combine them: any values, any not finite, the least minimum, the greatest maximum
  int all[2] = {0, 0};
  global_range<T> range;
  check(MPI_Allreduce(mine, all, 2, MPI_INT, MPI_MAX, comm.get()), "MPI_Allreduce");
  check(MPI_Allreduce(&lo, &range.lo, 1, datatype<T>(), MPI_MIN, comm.get()), "MPI_Allreduce");
  check(MPI_Allreduce(&hi, &range.hi, 1, datatype<T>(), MPI_MAX, comm.get()), "MPI_Allreduce");
  range.any = all[0] != 0;
  range.finite = all[1] == 0;
  return range;
}

}  // namespace dpt::mpi
