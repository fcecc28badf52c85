// dpt/cpu/slice_scan.hpp's plan, seen through loops that record what they are asked to do: every slice is
// reduced once and walked once, each walk from the total of everything before its slice, and an input that fits
// one slice (or the serial length) is walked once on its own, with no reduce, however many cores there are.
// Also: which device systems take the recipe, and that it starts as many workers as the caller's OpenMP or TBB
// limit allows.
#include <catch2/catch.hpp>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstring>
#include <memory>
#include <mutex>
#include <optional>
#include <thread>
#include <vector>

#include <cuda/std/functional>

#include <dpt/config.hpp>
#include <dpt/cpu/slice_scan.hpp>
#if THRUST_DEVICE_SYSTEM == THRUST_DEVICE_SYSTEM_OMP
#  include <omp.h>
#elif THRUST_DEVICE_SYSTEM == THRUST_DEVICE_SYSTEM_TBB
#  include <tbb/global_control.h>
#  include <tbb/task_arena.h>
#endif
#include "test_support/sliced_cpu_policy.hpp"

namespace {

// What the recipe asked of the loops: each reduce's and each walk's range, and the base each walk got.
struct loop_calls {
  struct walk {
    std::ptrdiff_t begin, end;
    std::optional<long long> base;
  };
  std::mutex mutex;
  std::vector<std::ptrdiff_t> reduced_begins;
  std::vector<walk> walks;
};

// Loops whose total of a range is its length: the prefix through slice s is where slice s + 1 begins.
struct recording_loops {
  loop_calls* calls;
  bool prefetches_next_slice() const { return false; }
  dpt::cpu::no_scratch make_scratch(std::ptrdiff_t) const { return {}; }
  long long reduce(dpt::cpu::no_scratch&, std::ptrdiff_t begin, std::ptrdiff_t end) const {
    const std::lock_guard<std::mutex> lock(calls->mutex);
    calls->reduced_begins.push_back(begin);
    return end - begin;
  }
  long long scan(dpt::cpu::no_scratch&, std::ptrdiff_t begin, std::ptrdiff_t end, const long long* base,
                 dpt::cpu::index_range) const {
    const std::lock_guard<std::mutex> lock(calls->mutex);
    calls->walks.push_back({begin, end, base ? std::optional<long long>(*base) : std::nullopt});
    return (base ? *base : 0) + (end - begin);
  }
};

std::optional<long long> run(std::ptrdiff_t n, dpt::cpu::slice_sizes sizes, loop_calls& calls,
                             std::optional<long long> seed = std::nullopt) {
  return dpt::cpu::run_slice_scan(dpt::test::sliced_cpu_policy, n, recording_loops{&calls}, seed,
                                  ::cuda::std::plus<long long>{}, sizes);
}

#if THRUST_DEVICE_SYSTEM == THRUST_DEVICE_SYSTEM_OMP || THRUST_DEVICE_SYSTEM == THRUST_DEVICE_SYSTEM_TBB
// Loops that count the workers that took a slice (each makes its scratch once, before its first reduce) and hold
// every reduce until `expected` workers have started, or until `give_up`. No worker can then run through all the
// slices before the others start, so the count is the number of workers the recipe ran at once; a recipe that
// runs fewer fails the count after one wait, not one wait per slice.
struct gathering_loops {
  std::atomic<int>* workers_started;
  int expected;
  std::chrono::steady_clock::time_point give_up;
  bool prefetches_next_slice() const { return false; }
  dpt::cpu::no_scratch make_scratch(std::ptrdiff_t) const {
    ++*workers_started;
    return {};
  }
  long long reduce(dpt::cpu::no_scratch&, std::ptrdiff_t begin, std::ptrdiff_t end) const {
    while (*workers_started < expected && std::chrono::steady_clock::now() < give_up) std::this_thread::yield();
    return end - begin;
  }
  long long scan(dpt::cpu::no_scratch&, std::ptrdiff_t begin, std::ptrdiff_t end, const long long* base,
                 dpt::cpu::index_range) const {
    return (base ? *base : 0) + (end - begin);
  }
};

// How many workers the recipe started over 64 one-element slices, when `limit` workers were expected.
int workers_started_under(int limit) {
  std::atomic<int> started{0};
  const gathering_loops loops{&started, limit, std::chrono::steady_clock::now() + std::chrono::seconds(3)};
  const auto total = dpt::cpu::run_slice_scan(dpt::test::sliced_cpu_policy, 64, loops, std::optional<long long>{},
                                              ::cuda::std::plus<long long>{}, dpt::test::tiny_slices(1));
  CHECK(total == 64);
  return started;
}
#endif

template <class DerivedPolicy>
constexpr bool takes_multicore_recipe(const thrust::detail::execution_policy_base<DerivedPolicy>&) {
  return dpt::cpu::handles_v<DerivedPolicy>;
}

}  // namespace

TEST_CASE("dpt's multicore recipe serves the OpenMP and TBB device systems and no other",
          "[primitives][scan]" DPT_BACKEND_TAG) {
  const bool multicore_system =
      std::strcmp(dpt::device_system_name(), "omp") == 0 || std::strcmp(dpt::device_system_name(), "tbb") == 0;
  CHECK(takes_multicore_recipe(thrust::device) == multicore_system);
  std::allocator<char> scratch_allocator;  // a policy that carries the caller's allocator takes the same path
  CHECK(takes_multicore_recipe(thrust::device(scratch_allocator)) == multicore_system);
  CHECK_FALSE(takes_multicore_recipe(thrust::host));
  CHECK_FALSE(takes_multicore_recipe(thrust::seq));
}

#if THRUST_DEVICE_SYSTEM == THRUST_DEVICE_SYSTEM_OMP || THRUST_DEVICE_SYSTEM == THRUST_DEVICE_SYSTEM_TBB
TEST_CASE("the sliced recipe runs as many workers as the caller's OpenMP or TBB limit allows",
          "[primitives][scan]" DPT_BACKEND_TAG) {
  // one worker, and one more than this machine has cores (so that the limit, not the core count, decides)
  const int limit = GENERATE(1, static_cast<int>(std::max(1u, std::thread::hardware_concurrency())) + 1);
  CAPTURE(limit);
#  if THRUST_DEVICE_SYSTEM == THRUST_DEVICE_SYSTEM_OMP
  const int before = omp_get_max_threads();
  omp_set_num_threads(limit);
  const int started = workers_started_under(limit);
  omp_set_num_threads(before);
#  else
  tbb::global_control allow(tbb::global_control::max_allowed_parallelism, static_cast<std::size_t>(limit));
  tbb::task_arena arena(limit);
  const int started = arena.execute([&] { return workers_started_under(limit); });
#  endif
  CHECK(started == limit);
}
#endif

TEST_CASE("the sliced recipe reduces and walks every slice once, from its base", "[primitives][scan]" DPT_BACKEND_TAG) {
  const std::ptrdiff_t slice_length = GENERATE(1, 3, 64);
  const std::ptrdiff_t n = slice_length + GENERATE(1, 6, 96, 1008);  // two slices or more
  CAPTURE(n, slice_length);
  loop_calls calls;
  const auto total = run(n, dpt::test::tiny_slices(slice_length), calls, 5);
  REQUIRE(total == 5 + n);

  const auto slices = (n + slice_length - 1) / slice_length;
  std::vector<std::ptrdiff_t> reduced = calls.reduced_begins;
  std::sort(reduced.begin(), reduced.end());
  std::vector<std::ptrdiff_t> expected(slices);
  for (std::ptrdiff_t s = 0; s < slices; ++s) expected[s] = s * slice_length;
  CHECK(reduced == expected);
  REQUIRE(calls.walks.size() == static_cast<std::size_t>(slices));
  for (const auto& walk : calls.walks) {
    CAPTURE(walk.begin);
    CHECK(walk.begin % slice_length == 0);
    CHECK(walk.end == std::min(n, walk.begin + slice_length));
    CHECK(walk.base == 5 + walk.begin);  // the seed and everything before the slice
  }
}

TEST_CASE("an input of one slice is walked once, with no reduce", "[primitives][scan]" DPT_BACKEND_TAG) {
  // past the serial length, but one slice long: only one core could take it, so the calling thread walks it
  const std::ptrdiff_t n = GENERATE(1, 2, 63, 64);
  CAPTURE(n);
  loop_calls calls;
  SECTION("unseeded") {
    CHECK(run(n, dpt::test::tiny_slices(64), calls) == n);
    REQUIRE(calls.walks.size() == 1);
    CHECK(calls.walks[0].base == std::nullopt);
  }
  SECTION("seeded") {
    CHECK(run(n, dpt::test::tiny_slices(64), calls, 5) == 5 + n);
    REQUIRE(calls.walks.size() == 1);
    CHECK(calls.walks[0].base == 5);
  }
  CHECK(calls.reduced_begins.empty());
  CHECK(calls.walks[0].begin == 0);
  CHECK(calls.walks[0].end == n);
}

TEST_CASE("an input within the serial length is walked once, with no reduce", "[primitives][scan]" DPT_BACKEND_TAG) {
  const std::ptrdiff_t n = GENERATE(1, 97, 1009);
  CAPTURE(n);
  loop_calls calls;
  const dpt::cpu::slice_sizes sizes{3, 1009};  // many slices, but within the serial length
  CHECK(run(n, sizes, calls) == n);
  CHECK(calls.reduced_begins.empty());
  REQUIRE(calls.walks.size() == 1);
  CHECK(calls.walks[0].end == n);
}

TEST_CASE("an empty input returns its seed and asks nothing of the loops", "[primitives][scan]" DPT_BACKEND_TAG) {
  loop_calls calls;
  CHECK(run(0, dpt::test::tiny_slices(3), calls) == std::nullopt);
  CHECK(run(0, dpt::test::tiny_slices(3), calls, 5) == 5);
  CHECK(calls.reduced_begins.empty());
  CHECK(calls.walks.empty());
}
