// dpt/scan.hpp — inclusive and exclusive scan that use every core on the CPU device systems.
//
//   data                  = [3, 8, 4, 6, 3, 9, 2, 8]
//   inclusive_scan(+)     → [3, 11, 15, 21, 24, 33, 35, 43]
//   exclusive_scan(+, 0)  → [0, 3, 11, 15, 21, 24, 33, 35]
//
// Thrust's OpenMP scan runs on one core (CCCL 3.0.1) and its TBB scan reaches about a fifth of copy
// bandwidth on a two-core machine. For policies of those two systems dpt runs the lecture's two-processor
// recipe instead — each core scans its own slice, starting from the base that the slices before it add up to:
//
//   1. reduce:  every core sums its slice                               [3 8 4 6 | 3 9 2 8] → totals [21, 22]
//   2. bases:   a short serial exclusive scan of the slice totals       bases [·, 21]
//   3. scan:    every core scans its slice, seeded with its base        [3 11 15 21 | 24 33 35 43]
//
// Reducing first and scanning second reads the input twice. So that memory sees one read and one write, as
// in a copy, the slices are cache-sized and the recipe runs in rounds over the input: in one parallel step
// each core scans the slice it reduced in the previous step (still in its cache) and reduces its next one.
// Any associative operator works; it need not be commutative. On CUDA and CPP the calls forward to
// thrust::inclusive_scan / thrust::exclusive_scan.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cuda/std/functional>
#include <cuda/std/iterator>
#include <thread>
#include <type_traits>
#include <vector>
#include <thrust/for_each.h>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/scan.h>
#include <thrust/system/omp/detail/execution_policy.h>
#include <thrust/system/tbb/detail/execution_policy.h>
#include <thrust/type_traits/unwrap_contiguous_iterator.h>

#include <dpt/config.hpp>

#if defined(_OPENMP)
#  include <omp.h>
#endif
#if THRUST_DEVICE_SYSTEM == THRUST_DEVICE_SYSTEM_TBB
#  include <tbb/task_arena.h>
#endif

namespace dpt {
namespace detail {

template <class DerivedPolicy>
inline constexpr bool is_omp_policy_v =
    std::is_base_of_v<thrust::system::omp::detail::execution_policy<DerivedPolicy>, DerivedPolicy>;
template <class DerivedPolicy>
inline constexpr bool is_tbb_policy_v =
    std::is_base_of_v<thrust::system::tbb::detail::execution_policy<DerivedPolicy>, DerivedPolicy>;

// True for policies whose algorithms run on the host's cores: the OpenMP and TBB device systems.
template <class DerivedPolicy>
inline constexpr bool is_multicore_cpu_policy_v = is_omp_policy_v<DerivedPolicy> || is_tbb_policy_v<DerivedPolicy>;

// How many cores the policy's system will run a parallel loop on.
template <class DerivedPolicy>
std::ptrdiff_t cpu_workers() {
#if defined(_OPENMP)
  if constexpr (is_omp_policy_v<DerivedPolicy>) {
    return omp_get_max_threads();
  }
#endif
#if THRUST_DEVICE_SYSTEM == THRUST_DEVICE_SYSTEM_TBB
  if constexpr (is_tbb_policy_v<DerivedPolicy>) {
    return tbb::this_task_arena::max_concurrency();
  }
#endif
  return std::max(1u, std::thread::hardware_concurrency());
}

// Bytes of input per slice: a slice is reduced and then scanned by the same core, so it should stay in that
// core's caches in between (about one L2), yet be long enough that a parallel step's fixed cost — waking the
// other cores, microseconds — is small next to it. On the 2-core machine of docs/benchmarks.md slices of
// 0.25–8 MiB measured alike within the noise; 2^26 int32 takes 128 rounds.
inline constexpr std::size_t scan_slice_bytes = 1024 * 1024;

// Below this many bytes of input one core scans alone: waking the others costs more than it saves.
inline constexpr std::size_t serial_scan_bytes = 128 * 1024;

// Cuts [0, n) into rounds of `width` consecutive slices of `length` elements each (the last ones may be
// short or empty). Slice s of round r starts at (r·width + s)·length.
struct slice_plan {
  std::ptrdiff_t n, width, length, rounds;

  slice_plan(std::ptrdiff_t n_, std::ptrdiff_t workers, std::ptrdiff_t max_length) : n(n_), width(workers) {
    rounds = std::max<std::ptrdiff_t>(1, (n + width * max_length - 1) / (width * max_length));
    length = std::max<std::ptrdiff_t>(1, (n + rounds * width - 1) / (rounds * width));
  }
  std::ptrdiff_t begin(std::ptrdiff_t round, std::ptrdiff_t slice) const {
    return std::min(n, (round * width + slice) * length);
  }
  std::ptrdiff_t end(std::ptrdiff_t round, std::ptrdiff_t slice) const {
    return std::min(n, begin(round, slice) + length);
  }
  // Slices of the round that hold at least one element; they come first.
  std::ptrdiff_t nonempty(std::ptrdiff_t round) const {
    const auto remaining = n - begin(round, 0);
    return std::clamp<std::ptrdiff_t>((remaining + length - 1) / length, 0, width);
  }
};

// The two sequential loops every core runs on its slices. They work on local copies of the iterators and
// the operator: stores through `output` could otherwise (as far as the compiler knows) change the members,
// which would then be reloaded at every element.
template <bool Exclusive, class InputIt, class OutputIt, class T, class AssociativeOp>
struct slice_loops {
  InputIt input;
  OutputIt output;
  AssociativeOp op;

  // input[i] ⊕ … ⊕ input[end − 1]; the slice is not empty.
  T reduce(std::ptrdiff_t i, std::ptrdiff_t end) const {
    const auto in = input;
    const auto f = op;
    T sum = in[i];
    for (++i; i < end; ++i) sum = static_cast<T>(f(sum, in[i]));
    return sum;
  }

  // Scans input[i, end) into output from *base; base == nullptr only for the first slice of an inclusive scan.
  void scan(std::ptrdiff_t i, std::ptrdiff_t end, const T* base) const {
    if (i == end) return;
    const auto in = input;
    auto out = output;
    const auto f = op;
    T running = base ? *base : T(in[i]);
    if constexpr (Exclusive) {
      for (; i < end; ++i) {
        const T x = in[i];  // read before writing: the output may alias the input
        out[i] = running;
        running = static_cast<T>(f(running, x));
      }
    } else {
      if (!base) out[i++] = running;
      for (; i < end; ++i) {
        running = static_cast<T>(f(running, in[i]));
        out[i] = running;
      }
    }
  }
};

// One parallel step of the Thrust-driven rounds, for the slice at position `slice`: scan it in round
// `scan_round` from its base, then reduce its successor in the next round (scan_round = −1 only reduces).
template <class Loops, class T>
struct scan_step {
  Loops loops;
  slice_plan plan;
  const T* bases;  // the base of every slice of scan_round
  T* totals;       // receives the total of every slice of scan_round + 1
  std::ptrdiff_t scan_round;
  bool first_unseeded;  // inclusive scan: slice 0 of round 0 has nothing before it

  void operator()(std::ptrdiff_t slice) const {
    if (scan_round >= 0) {
      const bool unseeded = first_unseeded && scan_round == 0 && slice == 0;
      loops.scan(plan.begin(scan_round, slice), plan.end(scan_round, slice), unseeded ? nullptr : bases + slice);
    }
    if (scan_round + 1 < plan.rounds && slice < plan.nonempty(scan_round + 1)) {
      totals[slice] = loops.reduce(plan.begin(scan_round + 1, slice), plan.end(scan_round + 1, slice));
    }
  }
};

// The rounds as one thrust::for_each over the slices per round (TBB, and OpenMP without OpenMP support):
// the host turns each round's totals into bases between two parallel steps.
template <bool Exclusive, class T, class DerivedPolicy, class Loops, class AssociativeOp>
void rounds_by_for_each(const thrust::detail::execution_policy_base<DerivedPolicy>& exec, const slice_plan& plan,
                        const Loops& loops, T init, AssociativeOp op) {
  std::vector<T> totals(plan.width, init), bases(plan.width, init);
  scan_step<Loops, T> step{loops, plan, bases.data(), totals.data(), -1, !Exclusive};
  const thrust::counting_iterator<std::ptrdiff_t> slices(0);
  // reduce: every core sums its first slice
  thrust::for_each_n(exec, slices, plan.nonempty(0), step);
  T carry = init;  // everything before the current round
  bool have_carry = Exclusive;
  for (std::ptrdiff_t round = 0; round < plan.rounds; ++round) {
    // bases: serial exclusive scan of the slice totals, continuing from the previous rounds
    const auto slices_in_round = plan.nonempty(round);
    for (std::ptrdiff_t s = 0; s < slices_in_round; ++s) {
      bases[s] = carry;
      carry = have_carry ? static_cast<T>(op(carry, totals[s])) : totals[s];
      have_carry = true;
    }
    // scan: every core scans its slice from its base, and reduces its slice of the next round
    step.scan_round = round;
    thrust::for_each_n(exec, slices, slices_in_round, step);
  }
}

#if defined(_OPENMP)
// The same rounds inside ONE OpenMP parallel region, a barrier between rounds. Starting a parallel region
// wakes the other threads (microseconds on bare metal, far more on a busy virtual machine); a barrier between
// threads that are all running costs a fraction of a microsecond. Every thread computes the bases of its own
// slices from the shared totals, which are double-buffered by round so that the next round's reductions
// never overwrite totals another thread is still reading.
template <bool Exclusive, class T, class Loops, class AssociativeOp>
void rounds_in_one_openmp_region(const slice_plan& plan, const Loops& loops, T init, AssociativeOp op) {
  std::vector<T> totals(2 * plan.width, init);
#  pragma omp parallel num_threads(static_cast <int>(plan.width))
  {
    const std::ptrdiff_t team = omp_get_num_threads(), me = omp_get_thread_num();
    const auto totals_of = [&](std::ptrdiff_t round) { return totals.data() + (round % 2) * plan.width; };
    // reduce: every core sums its first slice
    for (std::ptrdiff_t s = me; s < plan.nonempty(0); s += team) {
      totals_of(0)[s] = loops.reduce(plan.begin(0, s), plan.end(0, s));
    }
    T carry = init;  // everything before the current round
    bool have_carry = Exclusive;
#  pragma omp barrier
    for (std::ptrdiff_t round = 0; round < plan.rounds; ++round) {
      // bases: walk the round's totals (one per slice); scan my slices from theirs
      const T* round_totals = totals_of(round);
      for (std::ptrdiff_t s = 0; s < plan.nonempty(round); ++s) {
        if (s % team == me) loops.scan(plan.begin(round, s), plan.end(round, s), have_carry ? &carry : nullptr);
        carry = have_carry ? static_cast<T>(op(carry, round_totals[s])) : round_totals[s];
        have_carry = true;
      }
      // reduce my slices of the next round while they are still to be read
      if (round + 1 < plan.rounds) {
        for (std::ptrdiff_t s = me; s < plan.nonempty(round + 1); s += team) {
          totals_of(round + 1)[s] = loops.reduce(plan.begin(round + 1, s), plan.end(round + 1, s));
        }
      }
#  pragma omp barrier
    }
  }
}
#endif

// The lecture's "each core scans its slice, then adds its base", in cache-sized rounds (see the top of the
// file). `init` seeds an exclusive scan; an inclusive scan passes its first element's slice unseeded. Inputs of
// at most `serial_length` elements are scanned on the calling thread.
template <bool Exclusive, class T, class DerivedPolicy, class InputIt, class OutputIt, class AssociativeOp>
OutputIt multicore_scan(const thrust::detail::execution_policy_base<DerivedPolicy>& exec, InputIt first, InputIt last,
                        OutputIt result, T init, AssociativeOp op,
                        std::ptrdiff_t slice_length = std::ptrdiff_t(scan_slice_bytes / sizeof(T)),
                        std::ptrdiff_t serial_length = std::ptrdiff_t(serial_scan_bytes / sizeof(T))) {
  const auto n = static_cast<std::ptrdiff_t>(thrust::distance(first, last));
  if (n == 0) return result;
  const slice_loops<Exclusive, thrust::try_unwrap_contiguous_iterator_t<InputIt>,
                    thrust::try_unwrap_contiguous_iterator_t<OutputIt>, T, AssociativeOp>
      loops{thrust::try_unwrap_contiguous_iterator(first), thrust::try_unwrap_contiguous_iterator(result), op};
  if (n <= serial_length) {
    // too small to pay for waking the other cores: one slice, scanned on the calling thread
    loops.scan(0, n, Exclusive ? &init : nullptr);
    return result + n;
  }
  const slice_plan plan(n, cpu_workers<DerivedPolicy>(), std::max<std::ptrdiff_t>(1, slice_length));
#if defined(_OPENMP)
  if constexpr (is_omp_policy_v<DerivedPolicy>) {
    rounds_in_one_openmp_region<Exclusive>(plan, loops, init, op);
    return result + n;
  }
#endif
  rounds_by_for_each<Exclusive>(exec, plan, loops, init, op);
  return result + n;
}

}  // namespace detail

// result[i] = first[0] ⊕ … ⊕ first[i]. Returns the end of the output. The output may be the input.
template <class DerivedPolicy, class InputIt, class OutputIt, class AssociativeOp = ::cuda::std::plus<>>
OutputIt inclusive_scan(const thrust::detail::execution_policy_base<DerivedPolicy>& exec, InputIt first, InputIt last,
                        OutputIt result, AssociativeOp op = {}) {
  if constexpr (detail::is_multicore_cpu_policy_v<DerivedPolicy>) {
    using T = ::cuda::std::iter_value_t<InputIt>;
    // each core scans its slice, then adds its base
    return detail::multicore_scan<false>(exec, first, last, result, T{}, op);
  } else {
    // one scan on the device system (CUB's single-pass scan on CUDA, a loop on CPP)
    return thrust::inclusive_scan(exec, first, last, result, op);
  }
}

// result[i] = init ⊕ first[0] ⊕ … ⊕ first[i−1]. Returns the end of the output. The output may be the input.
template <class DerivedPolicy, class InputIt, class OutputIt, class T, class AssociativeOp = ::cuda::std::plus<>>
OutputIt exclusive_scan(const thrust::detail::execution_policy_base<DerivedPolicy>& exec, InputIt first, InputIt last,
                        OutputIt result, T init, AssociativeOp op = {}) {
  if constexpr (detail::is_multicore_cpu_policy_v<DerivedPolicy>) {
    // each core scans its slice, then adds its base
    return detail::multicore_scan<true>(exec, first, last, result, init, op);
  } else {
    // one scan on the device system (CUB's single-pass scan on CUDA, a loop on CPP)
    return thrust::exclusive_scan(exec, first, last, result, init, op);
  }
}

}  // namespace dpt
