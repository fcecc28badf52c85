// What one dpt call asks of its device system, counted on any device system, CPU ones included: the Thrust
// algorithms it calls (on CUDA each is one or more kernel launches) and the times a result must reach the host
// before the call can go on (on CUDA a stream synchronisation and a device-to-host copy each): an algorithm whose
// answer is a value or a position the device found (a predicate's answer, a search's stop, how many runs
// reduce_by_key or a compaction wrote), and a host read of one element of the counting system's memory.
//
//   const auto counts = dpt::test::calls_of([&](auto policy) { dpt::spmv_by_row_ids(policy, A, x, y); });
//   // {5 calls, 2 host reads}: fill_n, scatter_if, inclusive_scan, all_of (read), reduce_by_key (read)
//
// counting_policy is a policy of this build's device system (thrust::device_execution_policy), so the algorithms
// take the same path with it as with thrust::device. Thrust finds the overloads below by argument-dependent lookup,
// as it finds any system's (thrust/execution_policy.h describes the customisation): each counts the call and runs
// the algorithm on thrust::device, so that the calls Thrust makes inside it are not counted again. Memory tagged
// with counting_policy (dpt's temporaries, and the inputs and outputs a test wraps with counted()) counts its
// element reads on the host. Reads of other memory (a copy into a thrust::host_vector from a plain device
// pointer) are not seen. CUDA and CPP run the Thrust compositions that the headers' budgets describe, and there a
// call must make its budget exactly. On OpenMP and TBB the passes dpt's CPU backend runs itself (dpt/cpu/) are not
// Thrust calls, and read the memory on the host: there a call makes at most its budget's calls, and its host
// reads are not judged.
#pragma once

#include <catch2/catch.hpp>

#include <ostream>
#include <type_traits>
#include <utility>
#include <cuda/std/iterator>
#include <thrust/adjacent_difference.h>
#include <thrust/binary_search.h>
#include <thrust/copy.h>
#include <thrust/device_ptr.h>
#include <thrust/device_vector.h>
#include <thrust/execution_policy.h>
#include <thrust/fill.h>
#include <thrust/find.h>
#include <thrust/for_each.h>
#include <thrust/logical.h>
#include <thrust/reduce.h>
#include <thrust/scan.h>
#include <thrust/scatter.h>
#include <thrust/sequence.h>
#include <thrust/sort.h>
#include <thrust/transform.h>
#include <thrust/unique.h>

#include <dpt/cpu/system.hpp>

namespace dpt::test {

struct primitive_calls {
  int calls = 0;
  int host_reads = 0;
  friend bool operator==(const primitive_calls& a, const primitive_calls& b) {
    return a.calls == b.calls && a.host_reads == b.host_reads;
  }
};

// Where the running calls_of counts (Thrust default-constructs a pointer's system to read through it, so the policy
// cannot carry the counter itself); null outside calls_of.
inline primitive_calls* active_counts = nullptr;

struct counting_policy : thrust::device_execution_policy<counting_policy> {};

// A device sequence's memory, tagged with counting_policy: its element reads on the host are counted.
template <class T>
thrust::pointer<T, counting_policy> counted(thrust::device_vector<T>& v) {
  return thrust::pointer<T, counting_policy>(thrust::raw_pointer_cast(v.data()));
}
template <class T>
thrust::pointer<const T, counting_policy> counted(const thrust::device_vector<T>& v) {
  return thrust::pointer<const T, counting_policy>(thrust::raw_pointer_cast(v.data()));
}

// Whether the algorithms run as the Thrust compositions their budgets describe (CUDA, CPP), rather than partly in
// dpt's CPU backend (OpenMP, TBB), whose passes are not Thrust calls and read the memory on the host as they go.
inline constexpr bool counts_every_pass = !dpt::cpu::handles_v<counting_policy>;

// A call's counts against its budget: equal where every pass is a Thrust call; elsewhere at most the budget's
// calls, and host reads not judged (the backend's own passes read on the host, and count).
inline bool within_budget(const primitive_calls& counted, const primitive_calls& budget) {
  if (counts_every_pass) return counted == budget;
  return counted.calls <= budget.calls;
}

inline std::ostream& operator<<(std::ostream& os, const primitive_calls& c) {
  return os << c.calls << " calls, " << c.host_reads << " host reads";
}

// Checks what one call of `algorithm` made against its budget (within_budget).
inline void check_budget(const char* algorithm, const primitive_calls& counted, const primitive_calls& budget) {
  INFO(algorithm << " made " << counted << "; its budget is " << budget
                 << (counts_every_pass ? "" : " (calls at most: dpt's CPU backend runs some passes itself)"));
  CHECK(within_budget(counted, budget));
}

// The counts of one call of `run(policy)`.
template <class Run>
primitive_calls calls_of(Run&& run) {
  primitive_calls counts;
  active_counts = &counts;
  try {
    run(counting_policy{});
  } catch (...) {
    active_counts = nullptr;
    throw;
  }
  active_counts = nullptr;
  return counts;
}

// How many counted Thrust algorithms are running. On a CPU system the algorithms read counting_policy's memory on
// the host too; those reads are the algorithm's, not host reads of the call's (a plain global, not thread_local:
// OpenMP's and TBB's workers read while the calling thread waits).
inline int algorithms_running = 0;

// Counts one Thrust algorithm while it runs.
class counted_algorithm {
 public:
  explicit counted_algorithm(bool reads_host) {
    ++algorithms_running;
    if (!active_counts) return;
    ++active_counts->calls;
    if (reads_host) ++active_counts->host_reads;
  }
  ~counted_algorithm() { --algorithms_running; }
  counted_algorithm(const counted_algorithm&) = delete;
  counted_algorithm& operator=(const counted_algorithm&) = delete;
};

// A host read of one element of counting_policy's memory (what dereferencing its pointer on the host calls),
// counted when no algorithm is running.
template <class Pointer>
std::remove_cv_t<::cuda::std::iter_value_t<Pointer>> get_value(counting_policy&, Pointer p) {
  if (active_counts && algorithms_running == 0) ++active_counts->host_reads;
  return *thrust::device_pointer_cast(thrust::raw_pointer_cast(p));
}

// One overload per Thrust algorithm that dpt's algorithms call; host_reads says whether its result must reach the
// host (a value, or an iterator whose position the device computed).
#define DPT_COUNTED_ALGORITHM(name, reads_host)                                                                      \
  template <class... Args>                                                                                           \
  auto name(counting_policy&, Args&&... args)->decltype(thrust::name(thrust::device, std::forward<Args>(args)...)) { \
    const counted_algorithm counting(reads_host);                                                                    \
    return thrust::name(thrust::device, std::forward<Args>(args)...);                                                \
  }

DPT_COUNTED_ALGORITHM(adjacent_difference, false)
DPT_COUNTED_ALGORITHM(copy, false)
DPT_COUNTED_ALGORITHM(copy_n, false)
DPT_COUNTED_ALGORITHM(exclusive_scan, false)
DPT_COUNTED_ALGORITHM(exclusive_scan_by_key, false)
DPT_COUNTED_ALGORITHM(fill, false)
DPT_COUNTED_ALGORITHM(fill_n, false)
DPT_COUNTED_ALGORITHM(for_each, false)
DPT_COUNTED_ALGORITHM(for_each_n, false)
DPT_COUNTED_ALGORITHM(inclusive_scan, false)
DPT_COUNTED_ALGORITHM(inclusive_scan_by_key, false)
DPT_COUNTED_ALGORITHM(lower_bound, false)
DPT_COUNTED_ALGORITHM(scatter, false)
DPT_COUNTED_ALGORITHM(scatter_if, false)
DPT_COUNTED_ALGORITHM(sequence, false)
DPT_COUNTED_ALGORITHM(sort, false)
DPT_COUNTED_ALGORITHM(sort_by_key, false)
DPT_COUNTED_ALGORITHM(stable_sort_by_key, false)
DPT_COUNTED_ALGORITHM(transform, false)
DPT_COUNTED_ALGORITHM(upper_bound, false)
DPT_COUNTED_ALGORITHM(all_of, true)
DPT_COUNTED_ALGORITHM(any_of, true)
DPT_COUNTED_ALGORITHM(copy_if, true)
DPT_COUNTED_ALGORITHM(find, true)
DPT_COUNTED_ALGORITHM(find_if, true)
DPT_COUNTED_ALGORITHM(reduce_by_key, true)
DPT_COUNTED_ALGORITHM(unique_by_key_copy, true)

#undef DPT_COUNTED_ALGORITHM

}  // namespace dpt::test
