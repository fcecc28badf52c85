// dpt::compact (map + scan + scatter) against std::copy_if and thrust::copy_if.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdint>
#include <iterator>
#include <ostream>
#include <thrust/copy.h>
#include <thrust/device_vector.h>
#include <thrust/host_vector.h>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/iterator/discard_iterator.h>
#include <vector>

#include <dpt/compact.hpp>
#include "test_support/first_difference.hpp"
#include "test_support/random_inputs.hpp"
#include "test_support/sliced_cpu_policy.hpp"
#include <dpt/cpu/streaming_store.hpp>

namespace {

struct is_even {
  DPT_HOST_DEVICE bool operator()(int x) const { return x % 2 == 0; }
};

struct greater_than {
  int threshold;
  DPT_HOST_DEVICE bool operator()(int x) const { return x > threshold; }
};

template <class Predicate>
void check_compact(const std::vector<int>& data, Predicate pred) {
  std::vector<int> expected;
  std::copy_if(data.begin(), data.end(), std::back_inserter(expected), pred);

  const thrust::device_vector<int> d_data(data.begin(), data.end());
  thrust::device_vector<int> d_out(data.size(), -1);
  const auto end = dpt::compact(thrust::device, d_data.begin(), d_data.end(), d_out.begin(), pred);
  REQUIRE(end - d_out.begin() == static_cast<std::ptrdiff_t>(expected.size()));
  const thrust::host_vector<int> got(d_out.begin(), end);
  CHECK(dpt::test::first_difference(std::vector<int>(got.begin(), got.end()), expected) == "equal");

  // The library's fused filter agrees.
  thrust::device_vector<int> d_fused(data.size());
  const auto fused_end = thrust::copy_if(thrust::device, d_data.begin(), d_data.end(), d_fused.begin(), pred);
  CHECK(fused_end - d_fused.begin() == end - d_out.begin());
}

}  // namespace

TEST_CASE("compact keeps the lecture's even numbers in order", "[primitives][compact]" DPT_BACKEND_TAG) {
  check_compact({3, 8, 4, 6, 3, 9, 2, 8}, is_even{});
}

TEST_CASE("compact matches std::copy_if on random inputs", "[primitives][compact]" DPT_BACKEND_TAG) {
  const std::size_t n = GENERATE(from_range(dpt::test::interesting_sizes));
  CAPTURE(n);
  const auto data = dpt::test::random_values<int>(n, 11 + n, -1000, 1000);
  SECTION("about half kept") {
    check_compact(data, is_even{});
  }
  SECTION("nothing kept") {
    check_compact(data, greater_than{1000});
  }
  SECTION("everything kept") {
    check_compact(data, greater_than{-1001});
  }
  SECTION("a few kept") {
    check_compact(data, greater_than{990});
  }
}

namespace {

struct multiple_of {
  std::int64_t divisor;
  DPT_HOST_DEVICE bool operator()(std::int64_t x) const { return x % divisor == 0; }
};

struct not_multiple_of {
  std::int64_t divisor;
  DPT_HOST_DEVICE bool operator()(std::int64_t x) const { return x % divisor != 0; }
};

}  // namespace

TEST_CASE("compact counts past two billion elements in 64 bits", "[primitives][compact][large]" DPT_BACKEND_TAG) {
  // 0, 1, …, n − 1 read from a counting iterator (no 16 GiB input); the multiples of a prime, or all the others
  const std::int64_t n = (std::int64_t{1} << 31) + (std::int64_t{1} << 21) + 5, divisor = 1048583;
  const auto multiples = (n - 1) / divisor + 1;
  const auto first = thrust::make_counting_iterator<std::int64_t>(0);
  SECTION("the multiples kept, in order") {
    thrust::device_vector<std::int64_t> out(static_cast<std::size_t>(multiples) + 1, -1);
    const auto end = dpt::compact(thrust::device, first, first + n, out.begin(), multiple_of{divisor});
    REQUIRE(end - out.begin() == multiples);
    const thrust::host_vector<std::int64_t> got(out.begin(), out.end());
    std::vector<std::int64_t> expected(static_cast<std::size_t>(multiples) + 1, -1);
    for (std::int64_t k = 0; k < multiples; ++k) expected[static_cast<std::size_t>(k)] = k * divisor;
    CHECK(dpt::test::first_difference(std::vector<std::int64_t>(got.begin(), got.end()), expected) == "equal");
  }
  SECTION("more than 2^31 kept, counted to the end (into a discard iterator)") {
    const auto out = thrust::make_discard_iterator();
    const auto end = dpt::compact(thrust::device, first, first + n, out, not_multiple_of{divisor});
    CHECK(end - out == n - multiples);
  }
}

namespace {

// Every way this CPU has of gathering kept elements (dpt/cpu/compact_block.hpp).
std::vector<dpt::cpu::compact_walk> available_compact_walks() {
  std::vector<dpt::cpu::compact_walk> walks{dpt::cpu::compact_walk::two_lanes};
  if (dpt::cpu::cpu_has_avx512()) walks.push_back(dpt::cpu::compact_walk::avx512);
  return walks;
}

const char* name(dpt::cpu::compact_walk walk) {
  return walk == dpt::cpu::compact_walk::avx512 ? "avx512" : "two lanes";
}

// The multicore compaction of `data` with `pred` against std::copy_if, through the given slices and walk;
// checks that nothing is written past the output's end.
template <class T, class Predicate>
void check_multicore_compact(const std::vector<T>& data, Predicate pred, dpt::cpu::slice_sizes sizes,
                             dpt::cpu::compact_walk walk, T untouched) {
  std::vector<T> expected;
  std::copy_if(data.begin(), data.end(), std::back_inserter(expected), pred);
  std::vector<T> out(data.size(), untouched);
  const auto end = dpt::cpu::compact(dpt::test::sliced_cpu_policy, data.data(),
                                     static_cast<std::ptrdiff_t>(data.size()), out.data(), pred, {sizes, {}, walk});
  REQUIRE(end - out.data() == static_cast<std::ptrdiff_t>(expected.size()));
  CHECK(dpt::test::first_difference(std::vector<T>(out.data(), end), expected) == "equal");
  CHECK(std::all_of(end, out.data() + out.size(), [&](const T& x) { return x == untouched; }));
}

// An element type without a default constructor: kept elements cannot be buffered, so the compaction
// counts in its reduce and copies element by element in its walk.
struct unbufferable {
  explicit unbufferable(int v) : value(v) {}
  int value;
  bool operator==(const unbufferable& other) const { return value == other.value; }
  friend std::ostream& operator<<(std::ostream& out, const unbufferable& x) { return out << x.value; }
};

struct odd_value {
  bool operator()(const unbufferable& x) const { return x.value % 2 != 0; }
};

}  // namespace

namespace {

// An element of 16 KiB: a block's buffer of 528 of them (8.6 MiB) would overflow a thread's stack.
struct large_element {
  int key;
  double payload[2047];
};

struct odd_key {
  DPT_HOST_DEVICE bool operator()(const large_element& x) const { return x.key % 2 != 0; }
};

}  // namespace

TEST_CASE("compact keeps elements too large to buffer on a thread's stack", "[primitives][compact]" DPT_BACKEND_TAG) {
  const std::size_t n = GENERATE(1u, 10u, 1009u);  // one core, then several
  CAPTURE(n);
  const auto keys = dpt::test::random_values<int>(n, 71 + n, -1000, 1000);
  thrust::host_vector<large_element> data(n);
  for (std::size_t i = 0; i < n; ++i) {
    data[i].key = keys[i];
    data[i].payload[0] = data[i].payload[2046] = static_cast<double>(i);
  }
  const thrust::device_vector<large_element> d_data = data;
  thrust::device_vector<large_element> d_out(n);
  const auto end = dpt::compact(thrust::device, d_data.begin(), d_data.end(), d_out.begin(), odd_key{});
  std::vector<std::size_t> expected;  // positions of the kept elements
  for (std::size_t i = 0; i < n; ++i) {
    if (keys[i] % 2 != 0) expected.push_back(i);
  }
  REQUIRE(end - d_out.begin() == static_cast<std::ptrdiff_t>(expected.size()));
  const thrust::host_vector<large_element> got(d_out.begin(), end);
  for (std::size_t j = 0; j < expected.size(); ++j) {
    CAPTURE(j);
    REQUIRE(got[j].key == keys[expected[j]]);
    REQUIRE(got[j].payload[0] == static_cast<double>(expected[j]));
    REQUIRE(got[j].payload[2046] == static_cast<double>(expected[j]));
  }
}

TEST_CASE("the sliced CPU compaction is right for every slice length, round count and walk",
          "[primitives][compact]" DPT_BACKEND_TAG) {
  const std::size_t n = GENERATE(0u, 1u, 2u, 3u, 31u, 97u, 1009u, 65537u);
  // 1537 = three blocks of the two-lane walk and one element more
  const std::ptrdiff_t slice_length = GENERATE(1, 2, 3, 7, 64, 1000, 1537);
  const int threshold = GENERATE(-1001, 0, 990, 1000);  // keep all, about half, a few, none
  const auto walk = GENERATE(from_range(available_compact_walks()));
  CAPTURE(n, slice_length, threshold, name(walk));
  const auto data = dpt::test::random_values<int>(n, 31 + n, -1000, 1000);
  check_multicore_compact(data, greater_than{threshold}, dpt::test::tiny_slices(slice_length), walk, -1);
}

TEST_CASE("one core compacts a small input alone, with every walk", "[primitives][compact]" DPT_BACKEND_TAG) {
  const std::size_t n = GENERATE(0u, 1u, 15u, 16u, 17u, 511u, 512u, 513u, 1009u, 65537u);
  const auto walk = GENERATE(from_range(available_compact_walks()));
  CAPTURE(n, name(walk));
  const auto data = dpt::test::random_values<int>(n, 5 + n, -1000, 1000);
  const dpt::cpu::slice_sizes one_slice{1024, static_cast<std::ptrdiff_t>(n)};  // up to n: one core
  check_multicore_compact(data, is_even{}, one_slice, walk, -1);
}

TEST_CASE("the CPU compaction keeps 8-byte elements with every walk", "[primitives][compact]" DPT_BACKEND_TAG) {
  const std::size_t n = GENERATE(0u, 7u, 8u, 9u, 1009u, 65537u);
  const std::ptrdiff_t slice_length = GENERATE(3, 1000, 1537);
  const auto walk = GENERATE(from_range(available_compact_walks()));
  CAPTURE(n, slice_length, name(walk));
  SECTION("doubles above a threshold") {
    const auto data = dpt::test::random_values<double>(n, 3 + n, -1.0, 1.0);
    check_multicore_compact(
        data, [](double x) { return x > 0.25; }, dpt::test::tiny_slices(slice_length), walk, -7.0);
  }
  SECTION("64-bit integers that are odd") {
    const auto data = dpt::test::random_values<std::int64_t>(n, 9 + n, -(std::int64_t(1) << 40), std::int64_t(1) << 40);
    check_multicore_compact(
        data, [](std::int64_t x) { return x % 2 != 0; }, dpt::test::tiny_slices(slice_length), walk, std::int64_t(-2));
  }
}

TEST_CASE("the CPU compaction copies elements it cannot buffer one by one", "[primitives][compact]" DPT_BACKEND_TAG) {
  static_assert(!dpt::cpu::can_buffer_kept_v<const unbufferable*>);
  const std::size_t n = GENERATE(0u, 1u, 97u, 1009u, 65537u);
  const std::ptrdiff_t slice_length = GENERATE(1, 7, 1000);
  CAPTURE(n, slice_length);
  std::vector<unbufferable> data;
  for (const int v : dpt::test::random_values<int>(n, 17 + n, -1000, 1000)) data.emplace_back(v);
  check_multicore_compact(data, odd_value{}, dpt::test::tiny_slices(slice_length), dpt::cpu::compact_walk::two_lanes,
                          unbufferable{-1});
}

TEST_CASE("the CPU compaction reads through iterators that are not pointers", "[primitives][compact]" DPT_BACKEND_TAG) {
  // a counting iterator: buffered, gathered by the two-lane walk whatever the CPU
  const int n = GENERATE(0, 1, 1009, 65537);
  const std::ptrdiff_t slice_length = GENERATE(7, 1537);
  CAPTURE(n, slice_length);
  const auto first = thrust::make_counting_iterator<int>(0);
  std::vector<int> out(static_cast<std::size_t>(n), -1);
  const auto end = dpt::cpu::compact(dpt::test::sliced_cpu_policy, first, n, out.data(), greater_than{n / 3},
                                     {dpt::test::tiny_slices(slice_length)});
  std::vector<int> expected;
  for (int i = 0; i < n; ++i) {
    if (i > n / 3) expected.push_back(i);
  }
  REQUIRE(end - out.data() == static_cast<std::ptrdiff_t>(expected.size()));
  CHECK(dpt::test::first_difference(std::vector<int>(out.data(), end), expected) == "equal");
}

TEST_CASE("compact streams outputs larger than the caches and stays right", "[primitives][compact]" DPT_BACKEND_TAG) {
  const std::size_t n = 9000011;  // > 32 MiB of int32: the multicore path writes with streaming stores
  REQUIRE(dpt::cpu::should_stream<int*>(static_cast<std::ptrdiff_t>(n)) == bool(DPT_HAVE_STREAMING_STORES));
  const auto data = dpt::test::random_values<int>(n, 67, -1000, 1000);
  check_compact(data, is_even{});
}

TEST_CASE("the CPU compaction keeps 8-byte elements when the output is streamed",
          "[primitives][compact]" DPT_BACKEND_TAG) {
  const std::size_t n = 9000011;  // about half kept: > 32 MiB of int64, written with streaming stores
  const auto walk = GENERATE(from_range(available_compact_walks()));
  CAPTURE(name(walk));
  const auto data = dpt::test::random_values<std::int64_t>(n, 73, -(std::int64_t(1) << 40), std::int64_t(1) << 40);
  check_multicore_compact(
      data, [](std::int64_t x) { return x % 2 != 0; }, dpt::cpu::compact_slice_sizes(8), walk, std::int64_t(-2));
}

TEST_CASE("the CPU compaction converts its elements to an output of another type",
          "[primitives][compact]" DPT_BACKEND_TAG) {
  const std::size_t n = GENERATE(1009u, 9000011u);  // int64 outputs of 9000011 elements are streamed
  const auto walk = GENERATE(from_range(available_compact_walks()));
  CAPTURE(n, name(walk));
  const auto data = dpt::test::random_values<int>(n, 79 + n, -1000, 1000);
  std::vector<std::int64_t> expected;
  for (const int x : data) {
    if (x % 2 == 0) expected.push_back(x);
  }
  std::vector<std::int64_t> out(n, -1);
  const auto end = dpt::cpu::compact(dpt::test::sliced_cpu_policy, data.data(), static_cast<std::ptrdiff_t>(n),
                                     out.data(), is_even{}, {dpt::cpu::compact_slice_sizes(4), {}, walk});
  REQUIRE(end - out.data() == static_cast<std::ptrdiff_t>(expected.size()));
  CHECK(dpt::test::first_difference(std::vector<std::int64_t>(out.data(), end), expected) == "equal");

  SECTION("through the public algorithm too") {
    const thrust::device_vector<int> d_data(data.begin(), data.end());
    thrust::device_vector<std::int64_t> d_out(n, -1);
    const auto d_end = dpt::compact(thrust::device, d_data.begin(), d_data.end(), d_out.begin(), is_even{});
    REQUIRE(d_end - d_out.begin() == static_cast<std::ptrdiff_t>(expected.size()));
    const thrust::host_vector<std::int64_t> got(d_out.begin(), d_end);
    CHECK(dpt::test::first_difference(std::vector<std::int64_t>(got.begin(), got.end()), expected) == "equal");
  }
}

TEST_CASE("the CPU compaction buffers values, not the proxies that std::vector<bool> hands out",
          "[primitives][compact]" DPT_BACKEND_TAG) {
  const std::size_t n = GENERATE(1u, 97u, 65537u);
  const std::ptrdiff_t slice_length = GENERATE(7, 1537);
  CAPTURE(n, slice_length);
  std::vector<bool> bits(n);
  const auto values = dpt::test::random_values<int>(n, 83 + n, 0, 1);
  std::copy(values.begin(), values.end(), bits.begin());
  std::vector<char> out(n, 7);
  // keep everything: the output must be the input's bits, in order
  const auto end = dpt::cpu::compact(dpt::test::sliced_cpu_policy, bits.begin(), static_cast<std::ptrdiff_t>(n),
                                     out.data(), [](bool) { return true; }, {dpt::test::tiny_slices(slice_length)});
  REQUIRE(end - out.data() == static_cast<std::ptrdiff_t>(n));
  CHECK(dpt::test::first_difference(out, std::vector<char>(values.begin(), values.end())) == "equal");
}
