// dpt/histogram.hpp — count how many values fall in each of K equal-width bins, without atomics.
//
// The lecture's data-parallel histogram (slides 47–49): map every value to its bin id, sort the ids so equal
// bins sit together, find where each bin starts, and turn the starts into sizes.
//
//   values    = [0.1, 0.7, 0.3, 0.9, 0.35, 0.6, 1.4]      K = 4 bins over [0, 1]
//   bin ids   = [0, 2, 1, 3, 1, 2, above]                 map (1.4 is above the range: dropped, counted)
//   sorted    = [0, 1, 1, 2, 2, 3, above]                 sort
//   starts    = [0, 1, 3, 5, 6]                           find starts (bins 0 … 3, then the dropped values)
//   counts    = [1, 2, 2, 1]       dropped = 1            bin sizes: differences of adjacent starts
//
// Which bin a value goes in is NumPy's rule, exactly (dpt/histogram_bins.hpp): numpy.histogram(a, bins=K,
// range=(lo, hi)) and dpt::histogram give the same counts, including values that lie on an edge. Values below
// lo, above hi, or NaN are not counted in a bin; the result says how many of each there were.
//
// Every method below gives identical counts; they differ in how they get there:
//   sort           map + sort + find starts + sizes from the starts, the lecture's recipe
//   upper_bound    map + sort + a binary search for where each bin ends + adjacent differences (dense bins)
//   reduce_by_key  map + sort + one count per run of equal ids, scattered into the bins (sparse bins)
//   atomic         one atomic increment per value into the shared histogram
//   privatized     atomics into a private histogram per CUDA block (on CPUs, plain increments into a private
//                  histogram per chunk of the input), merged
//                  (on CUDA, K + 3 counters must fit in a block's shared memory, else it counts like atomic)
//   cub            cub::DeviceHistogram::HistogramEven (CUDA device system only)
//
// The sort-based methods' map runs on OpenMP and TBB through dpt/cpu/histogram_bins.hpp: float values (16 to a
// step) with float or double bounds and double values (8) with double bounds go a vector at a time on CPUs with
// AVX-512, giving numpy_bin_index's ids at about copy speed.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cuda/functional>
#include <cuda/std/iterator>
#include <stdexcept>
#include <thrust/adjacent_difference.h>
#include <thrust/binary_search.h>
#include <thrust/copy.h>
#include <thrust/device_ptr.h>
#include <thrust/fill.h>
#include <thrust/find.h>
#include <thrust/host_vector.h>
#include <thrust/iterator/constant_iterator.h>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/iterator/reverse_iterator.h>
#include <thrust/iterator/transform_iterator.h>
#include <thrust/reduce.h>
#include <thrust/scan.h>
#include <thrust/scatter.h>
#include <thrust/transform.h>

#include <dpt/config.hpp>
#include <dpt/cpu/histogram_bins.hpp>
#include <dpt/scan.hpp>
#include <dpt/detail/histogram_atomics.hpp>
#include <dpt/histogram_bins.hpp>
#include <dpt/histogram_method.hpp>
#include <dpt/sort.hpp>
#include <dpt/detail/primitive_scratch.hpp>
#include <dpt/detail/temporary_array.hpp>

namespace dpt {

// The values that are in no bin, as NumPy drops them.
struct histogram_result {
  unsigned long long below = 0;  // < lo, including −Inf
  unsigned long long above = 0;  // > hi, including +Inf
  unsigned long long nan = 0;    // NaN
  unsigned long long dropped() const { return below + above + nan; }
};

namespace detail {

// True at the first element of every run of equal sorted bin ids.
struct is_run_head {
  const int* sorted_ids;
  DPT_HOST_DEVICE bool operator()(std::ptrdiff_t i) const { return i == 0 || sorted_ids[i] != sorted_ids[i - 1]; }
};

// The size of a bin from where it starts and where the next one starts.
struct size_from_starts {
  DPT_HOST_DEVICE bin_counter operator()(std::ptrdiff_t next_start, std::ptrdiff_t start) const {
    return static_cast<bin_counter>(next_start - start);
  }
};

// map + sort, shared by the three sort-based methods: each value's slot id, in ascending order.
template <class DerivedPolicy, class InputIt, class BinIndex>
temporary_array<int, DerivedPolicy> sorted_bin_ids(const thrust::detail::execution_policy_base<DerivedPolicy>& exec,
                                                   InputIt first, std::ptrdiff_t n, BinIndex bin_of) {
  temporary_array<int, DerivedPolicy> ids(exec, n);
  if constexpr (cpu::handles_v<DerivedPolicy>) {
    // map: every value to its bin id (or to a dropped slot), 16 float values per step where the CPU can
    cpu::map_bins(exec, first, n, bin_of, ids.begin());
  } else {
    // map: every value to its bin id (or to a dropped slot)
    thrust::transform(exec, first, first + n, ids.begin(), bin_of);
  }
  // sort to bring the values of each bin together
  dpt::sort(exec, ids.begin(), ids.end());
  return ids;
}

// The lecture's recipe, with bin sizes in O(K) work and O(log K) span.
//
// The lecture's bin_sizes kernel gives each bin a thread; a thread whose bin is non-empty walks forward with a
// while loop over the empty bins (start = −1) until it finds the next non-empty start. With the data in few
// bins that walk is O(K) for one thread while the others idle (span O(K), one warp lane doing all the work).
// Here "empty" is marked with n instead of −1, so a reverse inclusive min-scan hands every empty bin the start
// of the next non-empty one (empty bins get start == next start); the sizes are then plain differences of
// adjacent starts. Both steps are O(K) total work, every element doing the same, and the scan has O(log K) span.
template <class DerivedPolicy, class InputIt, class BinIndex, class SlotIt>
void count_by_find_starts(const thrust::detail::execution_policy_base<DerivedPolicy>& exec, InputIt first,
                          std::ptrdiff_t n, BinIndex bin_of, int slot_count, SlotIt slots) {
  const auto ids = sorted_bin_ids(exec, first, n, bin_of);
  // starts[s] = where slot s begins in the sorted ids; starts[slot_count] = n closes the last slot (counted in
  // ptrdiff_t: slot_count may be INT_MAX)
  const std::ptrdiff_t start_count = std::ptrdiff_t{slot_count} + 1;
  temporary_array<std::ptrdiff_t, DerivedPolicy> starts(exec, start_count);
  thrust::fill(exec, starts.begin(), starts.end(), static_cast<std::ptrdiff_t>(n));
  // find starts: the first position of each run of equal ids is where that bin starts
  const auto positions = thrust::make_counting_iterator<std::ptrdiff_t>(0);
  const auto heads = thrust::make_transform_iterator(positions, is_run_head{thrust::raw_pointer_cast(ids.begin())});
  thrust::scatter_if(exec, positions, positions + n, ids.begin(), heads, starts.begin());
  // fill empty starts: a reverse min-scan gives every empty bin the start of the next non-empty bin
  const auto reversed = thrust::make_reverse_iterator(starts.end());
  dpt::inclusive_scan(exec, reversed, reversed + start_count, reversed, ::cuda::minimum<>{});
  // bin sizes: differences of adjacent starts (0 for an empty bin)
  thrust::transform(exec, starts.begin() + 1, starts.end(), starts.begin(), slots, size_from_starts{});
}

// Dense variant: after map + sort, a vectorised binary search finds where each bin ends, and adjacent
// differences of the ends are the sizes. O(K log n) searches, all independent.
template <class DerivedPolicy, class InputIt, class BinIndex, class SlotIt>
void count_by_upper_bound(const thrust::detail::execution_policy_base<DerivedPolicy>& exec, InputIt first,
                          std::ptrdiff_t n, BinIndex bin_of, int slot_count, SlotIt slots) {
  const auto ids = sorted_bin_ids(exec, first, n, bin_of);
  temporary_array<std::ptrdiff_t, DerivedPolicy> ends(exec, slot_count);
  // find ends: ends[s] = how many sorted ids are ≤ s
  const auto slot_ids = thrust::make_counting_iterator<int>(0);
  thrust::upper_bound(exec, ids.begin(), ids.end(), slot_ids, slot_ids + slot_count, ends.begin());
  // bin sizes: adjacent differences of the ends (the first size is ends[0] itself)
  thrust::adjacent_difference(exec, ends.begin(), ends.end(), slots);
}

// Sparse variant: after map + sort, reduce_by_key counts each run of equal ids — one output per non-empty bin,
// so its work does not grow with K — and a scatter puts the counts in their bins over a zeroed histogram.
template <class DerivedPolicy, class InputIt, class BinIndex, class SlotIt>
void count_by_reduce_by_key(const thrust::detail::execution_policy_base<DerivedPolicy>& exec, InputIt first,
                            std::ptrdiff_t n, BinIndex bin_of, int slot_count, SlotIt slots) {
  const auto ids = sorted_bin_ids(exec, first, n, bin_of);
  const std::ptrdiff_t max_runs = n < slot_count ? n : slot_count;
  temporary_array<int, DerivedPolicy> run_ids(exec, max_runs);
  temporary_array<bin_counter, DerivedPolicy> run_sizes(exec, max_runs);
  // segmented reduction: one count per run of equal bin ids
  const auto ends = thrust::reduce_by_key(exec, ids.begin(), ids.end(), thrust::make_constant_iterator<bin_counter>(1),
                                          run_ids.begin(), run_sizes.begin());
  // scatter each run's size into its bin; the bins no run mentions stay 0
  thrust::fill_n(exec, slots, slot_count, bin_counter{0});
  thrust::scatter(exec, run_sizes.begin(), ends.second, run_ids.begin(), slots);
}

// An upper bound on the bytes each method's counting step takes through its policy for n values in slot_count
// slots, the K + 3 slots themselves not included.
inline std::size_t counting_scratch_bytes(std::ptrdiff_t n, int slot_count, histogram_method method) {
  // the sort-based methods hold the n sorted ids, and first the sort's scratch, then their own step's
  const std::size_t ids = array_bytes(n, sizeof(int)), sorted = ids + dpt::sort_temporary_bytes<int>(n);
  const std::ptrdiff_t slots = slot_count;
  switch (method) {
    case histogram_method::sort:
      return std::max(
          sorted, ids + array_bytes(slots + 1, sizeof(std::ptrdiff_t)) + scan_scratch_bytes<std::ptrdiff_t>(slots + 1));
    case histogram_method::upper_bound:
      return std::max(sorted, ids + array_bytes(slots, sizeof(std::ptrdiff_t)) +
                                  adjacent_difference_scratch_bytes<std::ptrdiff_t>(slots));
    case histogram_method::reduce_by_key:
      return std::max(sorted, ids + array_bytes(std::min<std::ptrdiff_t>(n, slots), sizeof(int) + sizeof(bin_counter)) +
                                  reduce_by_key_scratch_bytes<int, bin_counter>(n));
    case histogram_method::atomic:
      return 0;
    case histogram_method::privatized:
      return privatized_scratch_bytes(n, slot_count);
    default:
      return cub_scratch_bytes(n, slot_count);
  }
}

}  // namespace detail

// Counts the values of [first, last) in bins.count equal-width bins over [bins.lo, bins.hi] (last bin closed),
// writing bins.count counts to `counts` (any integer type). Returns how many values were dropped and why.
// An empty range (lo == hi) is widened as NumPy widens it (dpt/histogram_bins.hpp). Throws
// std::invalid_argument for bins.count < 1, a range that is not finite, has lo > hi, stays empty when widened or
// is wider than its type holds, a range too narrow for bins.count distinct edges (NumPy 2's "Too many bins for
// data range"), or the cub method on a CPU device system.
// Scratch: the sort-based methods hold n bin ids plus O(K); the atomic ones O(K) (the CPU privatized one
// O(K) per chunk); histogram_temporary_bytes bounds it. Per call on CUDA and CPP: the edge check (a search whose
// answer the host reads), the method's Thrust calls (sort 6, upper_bound 4, reduce_by_key 5 with a read of its
// run count, atomic 2, privatized 1 and a kernel on CUDA or 3 on CPP, cub none: CUB directly), the bins' copy out,
// and one copy of the three dropped counts to the host.
template <class DerivedPolicy, class InputIt, class Bound, class CountIt>
histogram_result histogram(const thrust::detail::execution_policy_base<DerivedPolicy>& exec, InputIt first,
                           InputIt last, const even_bins<Bound>& bins, CountIt counts,
                           histogram_method method = histogram_method::sort) {
  using value_type = ::cuda::std::iter_value_t<InputIt>;
  const auto bin_of = make_numpy_bin_index<value_type>(bins);
  const int bin_count = bins.count;
  // check the edges: find the first one not strictly below the next, as NumPy 2 refuses such edges
  const auto edge_ids = thrust::make_counting_iterator<int>(0);
  const auto collapsed =
      thrust::find_if(exec, edge_ids, edge_ids + bin_count, detail::edge_not_increasing<decltype(bin_of)>{bin_of});
  if (collapsed != edge_ids + bin_count) {
    const int i = *collapsed;
    throw std::invalid_argument(
        "histogram: too many bins for the data range " + detail::range_text(bin_of.lo, bin_of.hi) + ": cannot create " +
        std::to_string(bin_count) + " finite-sized bins (edges " + std::to_string(i) + " and " + std::to_string(i + 1) +
        " are " + detail::number_text(bin_of.edge(i)) + " and " + detail::number_text(bin_of.edge(i + 1)) + ")");
  }
  if (!histogram_method_available(method)) {
    throw std::invalid_argument("histogram: the cub method needs the CUDA device system");
  }

  const auto n = static_cast<std::ptrdiff_t>(thrust::distance(first, last));
  const int slot_count = bin_count + 3;  // K bins, then below, above and NaN
  detail::temporary_array<detail::bin_counter, DerivedPolicy> slots(exec, slot_count);
  switch (method) {
    case histogram_method::sort:
      detail::count_by_find_starts(exec, first, n, bin_of, slot_count, slots.begin());
      break;
    case histogram_method::upper_bound:
      detail::count_by_upper_bound(exec, first, n, bin_of, slot_count, slots.begin());
      break;
    case histogram_method::reduce_by_key:
      detail::count_by_reduce_by_key(exec, first, n, bin_of, slot_count, slots.begin());
      break;
    case histogram_method::atomic:
      detail::count_by_atomics(exec, first, n, bin_of, slot_count, slots.begin());
      break;
    case histogram_method::privatized:
      detail::count_by_privatized_atomics(exec, first, n, bin_of, slot_count, slots.begin());
      break;
    case histogram_method::cub:
      detail::count_by_cub(exec, first, n, bin_of, slot_count, slots.begin());
      break;
  }
  // the bins go to the caller; the three dropped slots come back to the host in one copy, through a plain device
  // pointer (the slots' own pointer names the caller's policy, which a policy with an allocator cannot rebuild)
  thrust::copy_n(exec, slots.begin(), bin_count, counts);
  const auto device_slots = thrust::device_pointer_cast(thrust::raw_pointer_cast(slots.begin()));
  const thrust::host_vector<detail::bin_counter> dropped(device_slots + bin_count, device_slots + slot_count);
  return {dropped[0], dropped[1], dropped[2]};
}

// An upper bound on the bytes dpt::histogram takes through its policy for n values in `bins` bins with `method`,
// Thrust's own scratch included, on this build's device system (dpt/detail/primitive_scratch.hpp says how each
// primitive's share is bounded): the K + 3 slots, and the edge check's scratch or the method's.
inline std::size_t histogram_temporary_bytes(std::ptrdiff_t n, int bins, histogram_method method) {
  const int slot_count = bins + 3;
  return std::max(detail::reduction_scratch_bytes(bins), detail::array_bytes(slot_count, sizeof(detail::bin_counter)) +
                                                             detail::counting_scratch_bytes(n, slot_count, method));
}

}  // namespace dpt
