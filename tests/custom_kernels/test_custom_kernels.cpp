// The hand-written scans on the host SIMT runner, against a sequential reference, under many fiber schedules
// and block orders; planted synchronisation bugs that the runner must catch; and the lecture's work counts. The
// runner's own semantics are tested in test_simt_runner.cpp.
//
// This file is plain C++: in every build (the CUDA one too) its kernels run on the SIMT runner.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <type_traits>
#include <vector>

#include <dpt/kernels/device_scan.hpp>
#include <scaffolding/scan_each.hpp>
#include "custom_kernels/scan_inputs.hpp"
#include "custom_kernels/simt_cases.hpp"
#include "test_support/operators.hpp"
#include "test_support/random_inputs.hpp"

namespace {

namespace k = dpt::kernels;
using dpt::test::affine;
using dpt::test::all_schedules;
using dpt::test::make_case;
using dpt::test::message_of;
using dpt::test::reference_scan;
using dpt::test::run;
using dpt::test::schedule_case;

// ---- inputs, operators and references ----------------------------------------------------------------------

template <class T>
using op_t = dpt::test::scan_op_t<T>;

template <class T>
T initial_value() {
  return dpt::test::scan_initial_value<T>(5);
}

// Inputs whose sums a narrower type gets wrong but T gets exactly (dpt::test::exact_scan_inputs), so that every
// comparison is exact. The int32 sums stay below 1000 · (2^20 + 7) < 2^31.
template <class T>
std::vector<T> inputs(std::size_t n, std::uint64_t seed) {
  return dpt::test::exact_scan_inputs<T>(n, seed, initial_value<T>());
}

// The index of the first difference, or -1.
template <class T>
long long first_mismatch(const std::vector<T>& got, const std::vector<T>& expected) {
  if (got.size() != expected.size()) return 0;
  for (std::size_t i = 0; i < got.size(); ++i)
    if (!(got[i] == expected[i])) return static_cast<long long>(i);
  return -1;
}

// ---- kernels that exercise one building block at a time ------------------------------------------------------

template <class T, k::warp_scan_algorithm Algorithm>
void check_warp_scan(const schedule_case& sc, bool exclusive) {
  const op_t<T> op{};
  const auto in = inputs<T>(9 * 32, 42);
  std::vector<T> out(in.size());
  simt::scoped_options use(sc.options);
  k::scan_each_warp<Algorithm>(in.data(), out.data(), 9, exclusive, initial_value<T>(), op);
  CHECK(first_mismatch(out, reference_scan(in, exclusive, initial_value<T>(), 32)) == -1);
}

template <class T, int BlockThreads, k::block_scan_algorithm Algorithm>
void check_block_scan(const schedule_case& sc, bool exclusive) {
  const op_t<T> op{};
  const unsigned blocks = 3;
  const auto in = inputs<T>(blocks * BlockThreads, 43);
  std::vector<T> out(in.size()), aggregates(blocks);
  simt::scoped_options use(sc.options);
  k::scan_each_block<BlockThreads, Algorithm>(in.data(), out.data(), aggregates.data(), blocks, exclusive,
                                              initial_value<T>(), op);
  CHECK(first_mismatch(out, reference_scan(in, exclusive, initial_value<T>(), BlockThreads)) == -1);
  for (unsigned b = 0; b < blocks; ++b) {
    const std::vector<T> part(in.begin() + b * BlockThreads, in.begin() + (b + 1) * BlockThreads);
    CHECK(aggregates[b] == reference_scan(part, false, T{}).back());
  }
}

template <class T>
void check_block_scans(const schedule_case& sc, bool exclusive) {
  using A = k::block_scan_algorithm;
  check_block_scan<T, 32, A::warp_scans_shared_memory>(sc, exclusive);
  check_block_scan<T, 96, A::warp_scans_shared_memory>(sc, exclusive);
  check_block_scan<T, 1024, A::warp_scans_shared_memory>(sc, exclusive);
  check_block_scan<T, 32, A::warp_scans_shuffle>(sc, exclusive);
  check_block_scan<T, 160, A::warp_scans_shuffle>(sc, exclusive);
  check_block_scan<T, 1024, A::warp_scans_shuffle>(sc, exclusive);
  check_block_scan<T, 32, A::up_sweep_down_sweep>(sc, exclusive);
  check_block_scan<T, 96, A::up_sweep_down_sweep>(sc, exclusive);
  check_block_scan<T, 1024, A::up_sweep_down_sweep>(sc, exclusive);
}

const char* name(k::device_scan_algorithm a) {
  switch (a) {
    case k::device_scan_algorithm::three_launch_lecture:
      return "three launches, lecture scan_block";
    case k::device_scan_algorithm::three_launch_shuffle:
      return "three launches, shuffle scan_block";
    case k::device_scan_algorithm::three_launch_blelloch:
      return "three launches, up-sweep/down-sweep";
    default:
      return "single pass, decoupled look-back";
  }
}

const std::vector<k::device_scan_algorithm> device_algorithms{
    k::device_scan_algorithm::three_launch_lecture, k::device_scan_algorithm::three_launch_shuffle,
    k::device_scan_algorithm::three_launch_blelloch, k::device_scan_algorithm::single_pass};

// A device scan with small tiles (64 threads × 2 items), so that small sizes already span many tiles and the
// three-launch scan recurses.
template <class T>
std::vector<T> small_tile_scan(k::device_scan_algorithm algorithm, const std::vector<T>& in, bool exclusive) {
  std::vector<T> out(in.size());
  k::detail::scan_with<64, 2>(algorithm, in.data(), out.data(), static_cast<std::int64_t>(in.size()), op_t<T>{},
                              exclusive, initial_value<T>(), k::stream_t{});
  return out;
}

// A device scan through the public entry points, in their default tile or the one named.
template <int BlockThreads = k::scan_block_threads, int ItemsPerThread = k::scan_items_per_thread, class T>
std::vector<T> public_scan(k::device_scan_algorithm algorithm, const std::vector<T>& in, bool exclusive) {
  std::vector<T> out(in.size());
  const auto n = static_cast<std::int64_t>(in.size());
  if (exclusive)
    k::exclusive_scan<BlockThreads, ItemsPerThread>(algorithm, in.data(), out.data(), n, initial_value<T>(), op_t<T>{});
  else
    k::inclusive_scan<BlockThreads, ItemsPerThread>(algorithm, in.data(), out.data(), n, op_t<T>{});
  return out;
}

}  // namespace

// ---- warp and block scans -----------------------------------------------------------------------------------

TEMPLATE_TEST_CASE("warp scans match a sequential scan of each warp", "[simt][warp_scan]", std::int32_t, std::int64_t,
                   float, double, affine) {
  const auto sc = GENERATE(from_range(all_schedules()));
  const bool exclusive = GENERATE(false, true);
  SECTION(std::string("the lecture's shared-memory Hillis-Steele scan, ") + (exclusive ? "exclusive" : "inclusive") +
          ", " + sc.name) {
    check_warp_scan<TestType, k::warp_scan_algorithm::shared_memory>(sc, exclusive);
  }
  SECTION(std::string("the __shfl_up_sync scan, ") + (exclusive ? "exclusive" : "inclusive") + ", " + sc.name) {
    check_warp_scan<TestType, k::warp_scan_algorithm::shuffle>(sc, exclusive);
  }
}

TEMPLATE_TEST_CASE("block scans match a sequential scan of each block", "[simt][block_scan]", std::int32_t,
                   std::int64_t, float, double, affine) {
  const auto sc = GENERATE(make_case(simt::schedule::forward, simt::block_order::forward),
                           make_case(simt::schedule::reverse, simt::block_order::reverse),
                           make_case(simt::schedule::random, simt::block_order::shuffled, 3),
                           make_case(simt::schedule::run_to_barrier, simt::block_order::reverse),
                           make_case(simt::schedule::warp_at_a_time, simt::block_order::forward));
  const bool exclusive = GENERATE(false, true);
  SECTION(std::string("scan_block over both warp scans and up-sweep/down-sweep, 32 to 1024 threads, ") +
          (exclusive ? "exclusive" : "inclusive") + ", " + sc.name) {
    check_block_scans<TestType>(sc, exclusive);
  }
}

// ---- device scans --------------------------------------------------------------------------------------------

TEMPLATE_TEST_CASE("device scans match a sequential scan", "[simt][device_scan]", std::int32_t, std::int64_t, float,
                   double, affine) {
  const auto algorithm = GENERATE(from_range(device_algorithms));
  const bool exclusive = GENERATE(false, true);
  const auto in_name = [&](std::size_t n, const schedule_case& sc) {
    return std::string(name(algorithm)) + (exclusive ? ", exclusive" : ", inclusive") + ", n = " + std::to_string(n) +
           ", " + sc.name;
  };
  SECTION("small sizes in small tiles, under every schedule") {
    for (const auto& sc : {make_case(simt::schedule::forward, simt::block_order::forward),
                           make_case(simt::schedule::reverse, simt::block_order::reverse),
                           make_case(simt::schedule::random, simt::block_order::shuffled, 11),
                           make_case(simt::schedule::run_to_barrier, simt::block_order::reverse)}) {
      simt::scoped_options use(sc.options);
      for (std::size_t n : {0, 1, 31, 32, 33, 127, 128, 129, 1023, 1024, 1025, 4099, 16411}) {
        INFO(in_name(n, sc));
        const auto in = inputs<TestType>(n, n + 5);
        CHECK(first_mismatch(small_tile_scan(algorithm, in, exclusive),
                             reference_scan(in, exclusive, initial_value<TestType>())) == -1);
      }
    }
  }
  SECTION("tiles of 256 × 8 items (the default tile), at and around tile ends") {
    const auto sc = make_case(simt::schedule::random, simt::block_order::shuffled, 3);
    simt::scoped_options use(sc.options);
    for (std::size_t n : {0, 1, 2039, 2047, 2048, 2049, 6151, 16411}) {
      INFO(in_name(n, sc));
      const auto in = inputs<TestType>(n, n + 1);
      CHECK(first_mismatch(public_scan<256, 8>(algorithm, in, exclusive),
                           reference_scan(in, exclusive, initial_value<TestType>())) == -1);
    }
  }
  SECTION("tiles of 128 × 24 items (bench_scan's second tile), at and around tile ends") {
    const auto sc = make_case(simt::schedule::random, simt::block_order::shuffled, 7);
    simt::scoped_options use(sc.options);
    for (std::size_t n : {0, 1, 3067, 3071, 3072, 3073, 3079, 9217, 65537}) {
      INFO(in_name(n, sc));
      const auto in = inputs<TestType>(n, n + 3);
      CHECK(first_mismatch(public_scan<128, 24>(algorithm, in, exclusive),
                           reference_scan(in, exclusive, initial_value<TestType>())) == -1);
    }
  }
  SECTION("2^20 + 7 elements (65537 under the sanitizer) through the public entry points") {
    const auto sc = make_case(simt::schedule::run_to_barrier, simt::block_order::shuffled, 5);
    simt::scoped_options use(sc.options);
    const std::size_t n = dpt::test::sanitized_build ? dpt::test::sanitized_size_cap : (1u << 20) + 7;
    INFO(in_name(n, sc));
    const auto in = inputs<TestType>(n, 99);
    CHECK(first_mismatch(public_scan(algorithm, in, exclusive),
                         reference_scan(in, exclusive, initial_value<TestType>())) == -1);
  }
}

TEST_CASE("device scans of large inputs under switching schedules", "[simt][device_scan][large]") {
  const auto algorithm = GENERATE(from_range(device_algorithms));
  const auto sc = GENERATE(make_case(simt::schedule::forward, simt::block_order::reverse),
                           make_case(simt::schedule::random, simt::block_order::shuffled, 9));
  SECTION(std::string(name(algorithm)) + ", n = 2^20 + 7, " + sc.name) {
    simt::scoped_options use(sc.options);
    const auto in = inputs<std::int32_t>((1u << 20) + 7, 17);
    CHECK(first_mismatch(public_scan(algorithm, in, false), reference_scan(in, false, 0)) == -1);
  }
}

namespace {

// The single pass with its look-back's choices named: how it numbers tiles, how it waits.
template <class Policy, class TileId, class Wait, class T>
std::vector<T> single_pass_with(const std::vector<T>& in, bool exclusive) {
  std::vector<T> out(in.size());
  k::detail::single_pass_scan<Policy, TileId, Wait>(in.data(), out.data(), static_cast<std::int64_t>(in.size()),
                                                    op_t<T>{}, exclusive, initial_value<T>(), k::stream_t{});
  return out;
}

template <class Policy, class TileId, class Wait, class T>
void check_single_pass_with(const schedule_case& sc, const std::vector<std::size_t>& sizes) {
  simt::scoped_options use(sc.options);
  for (const bool exclusive : {false, true}) {
    for (const std::size_t n : sizes) {
      INFO("n = " << n << (exclusive ? ", exclusive, " : ", inclusive, ") << sc.name);
      const auto in = inputs<T>(n, n + 23);
      CHECK(first_mismatch(single_pass_with<Policy, TileId, Wait>(in, exclusive),
                           reference_scan(in, exclusive, initial_value<T>())) == -1);
    }
  }
}

}  // namespace

// bench_scan times these choices against the entry points' (dynamic tile numbers, eager waits); each must scan.
// Tiles of 64 × 2 make the larger sizes span many look-back windows of 32 tiles.
TEMPLATE_TEST_CASE("the single pass scans however it numbers its tiles and waits in the look-back",
                   "[simt][device_scan]", std::int32_t, affine) {
  using small = k::tile_policy<64, 2, k::block_scan_algorithm::warp_scans_shuffle>;
  using cub_tile = k::tile_policy<128, 24, k::block_scan_algorithm::warp_scans_shuffle>;
  namespace d = k::detail;
  const std::vector<std::size_t> small_sizes{1, 127, 128, 129, 4099, 16411}, cub_sizes{1, 3071, 3072, 3073, 131101};
  const auto shuffled = make_case(simt::schedule::random, simt::block_order::shuffled, 13);
  const auto in_order = make_case(simt::schedule::random, simt::block_order::forward, 17);  // blockIdx order needs it
  SECTION("tiles in start order, settled waits") {
    check_single_pass_with<small, d::dynamic_tile_id, d::settled_wait, TestType>(shuffled, small_sizes);
    check_single_pass_with<cub_tile, d::dynamic_tile_id, d::settled_wait, TestType>(shuffled, cub_sizes);
  }
  SECTION("tiles in blockIdx order, eager waits") {
    check_single_pass_with<small, d::block_index_tile_id, d::eager_wait, TestType>(in_order, small_sizes);
  }
  SECTION("tiles in blockIdx order, settled waits (in CUB's tile: every choice CUB makes)") {
    check_single_pass_with<small, d::block_index_tile_id, d::settled_wait, TestType>(in_order, small_sizes);
    check_single_pass_with<cub_tile, d::block_index_tile_id, d::settled_wait, TestType>(in_order, cub_sizes);
  }
}

namespace {

// Values whose size is not a multiple of 4 or whose alignment is below 4: they publish through the look-back's
// word arrays like any other (tile_status), and every algorithm scans them.
struct rgb16 {  // 6 bytes, aligned to 2
  std::uint16_t r, g, b;
};
struct add_rgb16 {
  rgb16 operator()(const rgb16& x, const rgb16& y) const {
    return {static_cast<std::uint16_t>(x.r + y.r), static_cast<std::uint16_t>(x.g + y.g),
            static_cast<std::uint16_t>(x.b + y.b)};
  }
};
struct byte_maps {  // 8 bytes, aligned to 1: four maps x -> m·x + c modulo 256, as (m, c) pairs
  unsigned char mc[8];
};
struct then_byte_maps {  // x then y, applied to each of the four maps: not commutative
  byte_maps operator()(const byte_maps& x, const byte_maps& y) const {
    byte_maps z;
    for (int k = 0; k < 8; k += 2) {
      z.mc[k] = static_cast<unsigned char>(y.mc[k] * x.mc[k]);
      z.mc[k + 1] = static_cast<unsigned char>(y.mc[k] * x.mc[k + 1] + y.mc[k + 1]);
    }
    return z;
  }
};
struct rgb8 {  // 3 bytes, aligned to 1 (shares its flag's word)
  unsigned char r, g, b;
};
struct add_rgb8 {
  rgb8 operator()(const rgb8& x, const rgb8& y) const {
    return {static_cast<unsigned char>(x.r + y.r), static_cast<unsigned char>(x.g + y.g),
            static_cast<unsigned char>(x.b + y.b)};
  }
};
static_assert(sizeof(rgb16) == 6 && alignof(rgb16) == 2 && sizeof(byte_maps) == 8 && alignof(byte_maps) == 1 &&
              sizeof(rgb8) == 3);

template <class T>
bool same_bytes(const T& a, const T& b) {
  return std::memcmp(&a, &b, sizeof(T)) == 0;
}

// The host reference: the sequential scan, written out byte by byte for each type.
rgb16 reference_combine_odd(const rgb16& x, const rgb16& y) {
  rgb16 z;
  z.r = static_cast<std::uint16_t>((x.r + y.r) & 0xffff);
  z.g = static_cast<std::uint16_t>((x.g + y.g) & 0xffff);
  z.b = static_cast<std::uint16_t>((x.b + y.b) & 0xffff);
  return z;
}
byte_maps reference_combine_odd(const byte_maps& x, const byte_maps& y) {
  byte_maps z;
  for (int k = 0; k < 4; ++k) {  // (y ∘ x)(v) = y.m·(x.m·v + x.c) + y.c
    const unsigned xm = x.mc[2 * k], xc = x.mc[2 * k + 1], ym = y.mc[2 * k], yc = y.mc[2 * k + 1];
    z.mc[2 * k] = static_cast<unsigned char>(ym * xm % 256);
    z.mc[2 * k + 1] = static_cast<unsigned char>((ym * xc + yc) % 256);
  }
  return z;
}
rgb8 reference_combine_odd(const rgb8& x, const rgb8& y) {
  return {static_cast<unsigned char>((x.r + y.r) % 256), static_cast<unsigned char>((x.g + y.g) % 256),
          static_cast<unsigned char>((x.b + y.b) % 256)};
}
template <class T>
std::vector<T> reference_scan_odd(const std::vector<T>& in, bool exclusive, const T& init) {
  std::vector<T> out(in.size());
  T running = init;
  for (std::size_t i = 0; i < in.size(); ++i) {
    if (exclusive) out[i] = running;
    running = !exclusive && i == 0 ? in[0] : reference_combine_odd(running, in[i]);
    if (!exclusive) out[i] = running;
  }
  return out;
}

template <class T>
std::vector<T> odd_inputs(std::size_t n, std::uint64_t seed) {
  std::vector<T> in(n);
  std::uint64_t state = seed * 0x9e3779b97f4a7c15ull + 1;
  for (auto& value : in) {
    unsigned char bytes[sizeof(T)];
    for (auto& byte : bytes) {
      state = state * 6364136223846793005ull + 1442695040888963407ull;
      byte = static_cast<unsigned char>(state >> 56);
    }
    std::memcpy(&value, bytes, sizeof(T));
  }
  return in;
}

template <class T, class Op>
void check_odd_type_scans(k::device_scan_algorithm algorithm, bool exclusive, Op op) {
  const T init = odd_inputs<T>(1, 77)[0];
  for (const auto& sc : {make_case(simt::schedule::run_to_barrier, simt::block_order::reverse),
                         make_case(simt::schedule::random, simt::block_order::shuffled, 13)}) {
    simt::scoped_options use(sc.options);
    for (std::size_t n : {0, 1, 2, 31, 127, 128, 129, 257, 1031, 2053, 4099}) {
      INFO(name(algorithm) << (exclusive ? ", exclusive" : ", inclusive") << ", n = " << n << ", " << sc.name);
      const auto in = odd_inputs<T>(n, n + 1);
      const auto expected = reference_scan_odd(in, exclusive, init);
      std::vector<T> small(n), full(n);  // tiles of 64 × 2 items (many tiles, recursion) and the default tile
      k::detail::scan_with<64, 2>(algorithm, in.data(), small.data(), static_cast<std::int64_t>(n), op, exclusive, init,
                                  k::stream_t{});
      if (exclusive)
        k::exclusive_scan(algorithm, in.data(), full.data(), static_cast<std::int64_t>(n), init, op);
      else
        k::inclusive_scan(algorithm, in.data(), full.data(), static_cast<std::int64_t>(n), op);
      std::size_t wrong_small = 0, wrong_full = 0;
      for (std::size_t i = 0; i < n; ++i) {
        wrong_small += !same_bytes(small[i], expected[i]);
        wrong_full += !same_bytes(full[i], expected[i]);
      }
      CHECK(wrong_small == 0);
      CHECK(wrong_full == 0);
    }
  }
}

}  // namespace

TEST_CASE("device scans of values of any size and alignment match a sequential scan", "[simt][device_scan]") {
  const auto algorithm = GENERATE(from_range(device_algorithms));
  const bool exclusive = GENERATE(false, true);
  SECTION(std::string("6-byte values aligned to 2, ") + name(algorithm)) {
    check_odd_type_scans<rgb16>(algorithm, exclusive, add_rgb16{});
  }
  SECTION(std::string("8-byte values aligned to 1, a non-commutative operator, ") + name(algorithm)) {
    check_odd_type_scans<byte_maps>(algorithm, exclusive, then_byte_maps{});
  }
  SECTION(std::string("3-byte values, ") + name(algorithm)) {
    check_odd_type_scans<rgb8>(algorithm, exclusive, add_rgb8{});
  }
}

// The lecture's launch 1 on its own (the tour prints it): every tile scanned by itself, and every tile's total,
// the last, partial tile's included.
TEMPLATE_TEST_CASE("launch 1 scans every tile by itself and writes every tile's total", "[simt][device_scan]",
                   std::int32_t, affine) {
  using policy = k::tile_policy<64, 2, k::block_scan_algorithm::warp_scans_shuffle>;
  const std::int64_t tile = policy::tile_items;
  const bool exclusive = GENERATE(false, true);
  for (const std::int64_t n : {1, 127, 128, 129, 1000, 4099}) {
    INFO("n = " << n << (exclusive ? ", exclusive" : ", inclusive"));
    const auto in = inputs<TestType>(static_cast<std::size_t>(n), static_cast<std::uint64_t>(n) + 21);
    const std::int64_t tiles = (n + tile - 1) / tile;
    std::vector<TestType> out(in.size()), totals(static_cast<std::size_t>(tiles));
    k::detail::scan_tiles<policy>(in.data(), out.data(), totals.data(), n, op_t<TestType>{}, exclusive, k::stream_t{});
    for (std::int64_t t = 0; t < tiles; ++t) {
      const std::vector<TestType> part(in.begin() + t * tile, in.begin() + std::min(n, (t + 1) * tile));
      const auto scanned = reference_scan(part, false, TestType{});
      CHECK(totals[t] == scanned.back());
      if (!exclusive) CHECK(std::equal(scanned.begin(), scanned.end(), out.begin() + t * tile));
    }
  }
}

// The look-back on published states a GPU produces (dpt::test::look_back_flags): tiles that have published only
// their aggregate between the looking tile and the nearest inclusive prefix, inside one window of 32 tiles and
// across several. Every lane returns the prefix.
template <class Wait, class T, class Op>
__global__ void look_back_kernel(k::detail::tile_status<T> status, std::int64_t tile, Op op, T* prefixes) {
  prefixes[threadIdx.x] = k::detail::look_back<Wait>(status, tile, op);
}

TEMPLATE_TEST_CASE("the look-back combines aggregates back to the nearest inclusive prefix", "[simt][device_scan]",
                   std::int32_t, affine) {
  const op_t<TestType> op{};
  const std::int64_t tile = 100;
  const auto aggregates = inputs<TestType>(tile, 3);
  const auto inclusive = reference_scan(aggregates, false, TestType{});
  const std::int64_t aggregates_only = GENERATE(0, 1, 2, 31, 32, 33, 63, 64, 65, 99);  // tiles before `tile`
  const auto sc = GENERATE(make_case(simt::schedule::forward, simt::block_order::forward),
                           make_case(simt::schedule::random, simt::block_order::forward, 3));
  INFO(aggregates_only << " tiles with only their aggregate, " << sc.name);

  const k::detail::tile_status_storage<TestType> storage(tile, nullptr);
  dpt::test::publish_look_back_states(storage.status(), aggregates, inclusive, aggregates_only);
  const auto look_back_with = [&](auto wait) {
    std::vector<TestType> prefixes(32);
    run(sc.options, "look_back_kernel", dim3(1), dim3(32), &look_back_kernel<decltype(wait), TestType, op_t<TestType>>,
        storage.status(), tile, op, prefixes.data());
    return prefixes;
  };
  const std::vector<TestType> expected(32, inclusive[tile - 1]);
  SECTION("waiting eagerly") {
    CHECK(first_mismatch(look_back_with(k::detail::eager_wait{}), expected) == -1);
  }
  SECTION("waiting as CUB does on sm_90") {
    CHECK(first_mismatch(look_back_with(k::detail::settled_wait{}), expected) == -1);
  }
}

// Warp 0 looks back from tile `tile` while warp 1 publishes the aggregate of tile `late`, in the window, only after
// sleeping a while: the look-back must wait for it, read it again and still combine every tile.
template <class Wait>
__global__ void late_tile_kernel(k::detail::tile_status<int> status, std::int64_t tile, std::int64_t late,
                                 int late_aggregate, int* prefixes) {
  if (threadIdx.x < 32) {
    prefixes[threadIdx.x] = k::detail::look_back<Wait>(status, tile, k::sum{});
  } else if (threadIdx.x == 32) {
    for (int i = 0; i < 8; ++i) __nanosleep(100);  // scheduling points: the look-back gets to read first
    status.publish(late, late_aggregate, k::detail::tile_aggregate_ready);
  }
}

TEST_CASE("the look-back waits for a tile of its window that publishes late", "[simt][device_scan]") {
  const std::int64_t tile = 40, late = 37;  // the 40 tiles before the looking tile; 37 publishes late
  const auto aggregates = inputs<int>(tile, 5);
  const auto inclusive = reference_scan(aggregates, false, 0);
  std::vector<unsigned> flags = dpt::test::look_back_flags(tile, 10);  // 30..39 aggregates only, 29 inclusive
  flags[late] = k::detail::tile_empty;
  auto stale = aggregates;  // what tile 37's word holds until it publishes: a look-back that reads it is wrong
  stale[late] += 1000;
  const auto sc = GENERATE(from_range(all_schedules()));
  const bool settled = GENERATE(false, true);
  INFO((settled ? "settled" : "eager") << " wait, " << sc.name);
  const k::detail::tile_status_storage<int> storage(tile, nullptr);
  run(simt::options{}, "publish_states_kernel", dim3(1), dim3(1), &dpt::test::publish_states_kernel<int>,
      storage.status(), flags.data(), stale.data(), inclusive.data(), tile);
  std::vector<int> prefixes(32);
  run(sc.options, "late_tile_kernel", dim3(1), dim3(64),
      settled ? &late_tile_kernel<k::detail::settled_wait> : &late_tile_kernel<k::detail::eager_wait>, storage.status(),
      tile, late, aggregates[late], prefixes.data());
  CHECK(first_mismatch(prefixes, std::vector<int>(32, inclusive[tile - 1])) == -1);
}

template <class T>
__global__ void read_states_kernel(k::detail::tile_status<T> status, std::int64_t tiles, unsigned* flags, T* values) {
  for (std::int64_t j = 0; j < tiles; ++j) {
    const k::detail::tile_state<T> state = status.read(j);
    flags[j] = state.flag;
    values[j] = state.value;
  }
}

// Values of at most 4 bytes share one word with their flag; larger ones have a flag and two value arrays.
TEMPLATE_TEST_CASE("a tile's published state reads back as it was published, in either layout", "[simt][device_scan]",
                   std::int32_t, float, std::int64_t, double, affine) {
  const std::int64_t published = 70, tiles = published + 5;  // the last five publish nothing
  const auto aggregates = inputs<TestType>(published, 5), inclusive = inputs<TestType>(published, 6);
  const std::int64_t aggregates_only = 37;
  const k::detail::tile_status_storage<TestType> storage(tiles, nullptr);
  dpt::test::publish_look_back_states(storage.status(), aggregates, inclusive, aggregates_only);

  std::vector<unsigned> flags(tiles, 99u);
  std::vector<TestType> values(tiles);
  run(simt::options{}, "read_states_kernel", dim3(1), dim3(1), &read_states_kernel<TestType>, storage.status(), tiles,
      flags.data(), values.data());
  const auto expected_flags = dpt::test::look_back_flags(published, aggregates_only);
  for (std::int64_t j = 0; j < tiles; ++j) {
    INFO("tile " << j);
    if (j >= published) {
      CHECK(flags[j] == k::detail::tile_empty);
      continue;
    }
    REQUIRE(flags[j] == expected_flags[j]);
    CHECK(values[j] == (flags[j] == k::detail::tile_inclusive_ready ? inclusive[j] : aggregates[j]));
  }
}

namespace {

// Host memory standing in for caller-owned device scratch: 16-byte aligned, poisoned, with guard bytes after
// the first `bytes` that a scan must leave alone.
struct poisoned_scratch {
  static constexpr unsigned char poison = 0xa5;
  static constexpr std::size_t guard = 64;
  explicit poisoned_scratch(std::size_t bytes) : bytes(bytes), words((bytes + guard) / sizeof(std::max_align_t) + 1) {
    std::memset(words.data(), poison, words.size() * sizeof(std::max_align_t));
  }
  void* data() { return words.data(); }
  bool guard_untouched() const {
    const auto* first = reinterpret_cast<const unsigned char*>(words.data());
    return std::all_of(first + bytes, first + words.size() * sizeof(std::max_align_t),
                       [](unsigned char b) { return b == poison; });
  }
  std::size_t bytes;
  std::vector<std::max_align_t> words;
};

// A public device scan in caller-owned scratch, in tiles of 64 × 2 items (16 411 elements recurse twice).
template <class T>
void scan_in_scratch(void* scratch, std::size_t& bytes, k::device_scan_algorithm algorithm, const std::vector<T>& in,
                     std::vector<T>& out, bool exclusive) {
  const auto n = static_cast<std::int64_t>(in.size());
  if (exclusive)
    k::exclusive_scan<64, 2>(scratch, bytes, algorithm, in.data(), out.data(), n, initial_value<T>(), op_t<T>{});
  else
    k::inclusive_scan<64, 2>(scratch, bytes, algorithm, in.data(), out.data(), n, op_t<T>{});
}

}  // namespace

TEMPLATE_TEST_CASE("device scans in caller-owned scratch answer the size query and serve many scans",
                   "[simt][device_scan]", std::int32_t, double, affine) {
  const auto algorithm = GENERATE(from_range(device_algorithms));
  const bool exclusive = GENERATE(false, true);
  INFO(name(algorithm) << (exclusive ? ", exclusive" : ", inclusive"));
  simt::scoped_options use(make_case(simt::schedule::random, simt::block_order::shuffled, 13).options);
  const auto size_query = [&](std::size_t n) {
    std::size_t bytes = 0;
    std::vector<TestType> in(n), out(n);
    scan_in_scratch<TestType>(nullptr, bytes, algorithm, in, out, exclusive);
    return bytes;
  };
  const auto reference = [&](const std::vector<TestType>& in) {
    return reference_scan(in, exclusive, initial_value<TestType>());
  };

  SECTION("each scan stays within the bytes its size query asked for") {
    for (std::size_t n : {0, 1, 127, 128, 129, 4099, 16411}) {
      INFO("n = " << n);
      poisoned_scratch scratch(size_query(n));
      CHECK(scratch.bytes >= 1);
      const auto in = inputs<TestType>(n, n + 21);
      std::vector<TestType> out(n);
      scan_in_scratch(scratch.data(), scratch.bytes, algorithm, in, out, exclusive);
      CHECK(first_mismatch(out, reference(in)) == -1);
      CHECK(scratch.guard_untouched());
    }
  }
  SECTION("one poisoned scratch serves scans of several sizes in a row") {
    poisoned_scratch scratch(size_query(16411));
    for (std::size_t n : {16411, 1, 4099, 129, 16411}) {
      INFO("n = " << n);
      const auto in = inputs<TestType>(n, n + 3 * scratch.bytes);
      std::vector<TestType> out(n);
      scan_in_scratch(scratch.data(), scratch.bytes, algorithm, in, out, exclusive);
      CHECK(first_mismatch(out, reference(in)) == -1);
    }
  }
  SECTION("too little or misaligned scratch is refused, and the output is untouched") {
    const auto in = inputs<TestType>(4099, 8);
    poisoned_scratch scratch(size_query(in.size()) + 16);
    std::vector<TestType> out = inputs<TestType>(in.size(), 77), untouched = out;
    std::size_t too_few = size_query(in.size()) - 1, enough = scratch.bytes;
    CHECK_THROWS_AS(scan_in_scratch(scratch.data(), too_few, algorithm, in, out, exclusive), std::invalid_argument);
    CHECK_THROWS_AS(scan_in_scratch(static_cast<char*>(scratch.data()) + 8, enough, algorithm, in, out, exclusive),
                    std::invalid_argument);
    CHECK(out == untouched);
  }
}

TEST_CASE("device scans reject bad arguments", "[simt][device_scan]") {
  int value = 1;
  CHECK_THROWS_AS(k::inclusive_scan(k::device_scan_algorithm::single_pass, &value, &value, -1, k::sum{}),
                  std::invalid_argument);
  CHECK_THROWS_AS(
      k::inclusive_scan(k::device_scan_algorithm::single_pass, static_cast<const int*>(nullptr), &value, 1, k::sum{}),
      std::invalid_argument);
  CHECK_NOTHROW(k::inclusive_scan(k::device_scan_algorithm::three_launch_lecture, static_cast<const int*>(nullptr),
                                  static_cast<int*>(nullptr), 0, k::sum{}));

  SECTION("a null output for a non-empty scan, in scratch of its own or the caller's") {
    const auto null_output = [&](auto scan) {
      return message_of<std::invalid_argument>(scan) == "dpt::kernels: null pointer for a non-empty scan";
    };
    const auto algorithm = GENERATE(from_range(device_algorithms));
    INFO(name(algorithm));
    CHECK(null_output([&] { k::inclusive_scan(algorithm, &value, static_cast<int*>(nullptr), 1, k::sum{}); }));
    CHECK(null_output([&] { k::exclusive_scan(algorithm, &value, static_cast<int*>(nullptr), 1, 0, k::sum{}); }));
    poisoned_scratch scratch(1 << 16);
    CHECK(null_output([&] {
      k::inclusive_scan(scratch.data(), scratch.bytes, algorithm, &value, static_cast<int*>(nullptr), 1, k::sum{});
    }));
  }
  SECTION("a negative element count in the size query, which reads nothing but n") {
    std::size_t bytes = 12345;
    CHECK(message_of<std::invalid_argument>([&] {
            k::inclusive_scan(nullptr, bytes, k::device_scan_algorithm::single_pass, &value, &value, -1, k::sum{});
          }) == "dpt::kernels: negative element count");
    CHECK(message_of<std::invalid_argument>([&] {
            k::exclusive_scan(nullptr, bytes, k::device_scan_algorithm::three_launch_lecture,
                              static_cast<const int*>(nullptr), static_cast<int*>(nullptr), -1, 0, k::sum{});
          }) == "dpt::kernels: negative element count");
    CHECK(bytes == 12345);  // not answered
  }
  SECTION("an algorithm outside the enumeration, in every entry point") {
    const auto unknown = static_cast<k::device_scan_algorithm>(4);
    const auto is_unknown = [](auto scan) {
      return message_of<std::invalid_argument>(scan) == "dpt::kernels: unknown device_scan_algorithm";
    };
    int out = 0;
    std::size_t bytes = 0;
    CHECK(is_unknown([&] { k::inclusive_scan(unknown, &value, &out, 1, k::sum{}); }));
    CHECK(is_unknown([&] { k::exclusive_scan(unknown, &value, &out, 1, 0, k::sum{}); }));
    CHECK(is_unknown([&] { k::inclusive_scan(nullptr, bytes, unknown, &value, &out, 1, k::sum{}); }));
    CHECK(out == 0);
  }
}

TEST_CASE("warp and block scans reject a negative count", "[simt][warp_scan][block_scan]") {
  int value = 1;
  CHECK(message_of<std::invalid_argument>([&] {
          k::scan_each_warp<k::warp_scan_algorithm::shuffle>(&value, &value, -1, false, 0, k::sum{});
        }) == "dpt::kernels::scan_each_warp: negative warp count");
  CHECK(message_of<std::invalid_argument>([&] {
          k::scan_each_warp<k::warp_scan_algorithm::shared_memory>(&value, &value, -1, true, 0, k::sum{});
        }) == "dpt::kernels::scan_each_warp: negative warp count");
  CHECK(message_of<std::invalid_argument>([&] {
          k::scan_each_block<32, k::block_scan_algorithm::up_sweep_down_sweep>(&value, &value, nullptr, -1, false, 0,
                                                                               k::sum{});
        }) == "dpt::kernels::scan_each_block: negative block count");
  CHECK(message_of<std::invalid_argument>([&] {
          k::scan_each_block<64, k::block_scan_algorithm::warp_scans_shuffle>(&value, &value, &value, -3, true, 0,
                                                                              k::sum{});
        }) == "dpt::kernels::scan_each_block: negative block count");
  CHECK(value == 1);
  // no launch at all for none
  CHECK_NOTHROW(k::scan_each_warp<k::warp_scan_algorithm::shuffle>(static_cast<const int*>(nullptr),
                                                                   static_cast<int*>(nullptr), 0, false, 0, k::sum{}));
  CHECK_NOTHROW(k::scan_each_block<32, k::block_scan_algorithm::warp_scans_shuffle>(
      static_cast<const int*>(nullptr), static_cast<int*>(nullptr), nullptr, 0, false, 0, k::sum{}));
}

// ---- planted bugs ------------------------------------------------------------------------------------------------

namespace {

// The slide's scan_warp, verbatim: __syncwarp() inside `if (lane >= shift)`, which lane 0 never enters.
__device__ int scan_warp_as_on_the_slide(int* ptr, const unsigned int idx) {
  const unsigned int lane = idx % 32;
  __syncwarp();
  for (int i = 0; i < 5; i++) {
    int shift = 1 << i;
    if (lane >= static_cast<unsigned>(shift)) {
      int tmp1 = ptr[idx - shift];
      int tmp2 = ptr[idx];
      __syncwarp();
      ptr[idx] = tmp1 + tmp2;
      __syncwarp();
    }
  }
  return (lane > 0) ? ptr[idx - 1] : 0;
}

__global__ void slide_scan_warp_kernel(int* data) {
  __shared__ int ptr[64];
  ptr[threadIdx.x] = data[threadIdx.x];
  __syncthreads();
  data[threadIdx.x] = scan_warp_as_on_the_slide(ptr, threadIdx.x);
}

// The lecture's scan_block with the barrier between writing the warp totals and scanning them left out.
__global__ void scan_block_missing_barrier_kernel(const int* in, int* out) {
  using warp_scan = k::WarpScan<int, k::warp_scan_algorithm::shuffle>;
  __shared__ int warp_totals[8];
  const unsigned warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  int inclusive, unused;
  warp_scan().Scan(in[threadIdx.x], inclusive, unused, k::sum{});
  if (lane == 31) warp_totals[warp] = inclusive;
  // BUG: no __syncthreads() here — warp 0 may read totals that other warps have not written yet.
  if (warp == 0) {
    int scanned;
    warp_scan().Scan(warp_totals[lane < 8 ? lane : 7], scanned, unused, k::sum{});
    if (lane < 8) warp_totals[lane] = scanned;
  }
  __syncthreads();
  out[threadIdx.x] = warp > 0 ? warp_totals[warp - 1] + inclusive : inclusive;
}

// Adds one per application of +: the work of a scan.
struct counting_sum {
  unsigned long long* count;
  template <class T>
  T operator()(const T& a, const T& b) const {
    ++*count;  // fibers run one at a time between scheduling points: no race
    return a + b;
  }
};

// BlockScan's TempStorage used twice with no __syncthreads() between the two scans, which its documentation asks
// for: a warp that runs ahead into the second scan overwrites warp totals that others still read in the first.
template <int BlockThreads>
__global__ void reused_temp_storage_kernel(const int* in, int* first, int* second) {
  using block_scan = k::BlockScan<int, BlockThreads, k::block_scan_algorithm::warp_scans_shuffle>;
  __shared__ typename block_scan::TempStorage storage;
  const unsigned t = k::detail::thread_rank();
  int aggregate = 0;
  block_scan(storage).InclusiveScan(in[t], first[t], k::sum{}, aggregate);
  block_scan(storage).InclusiveScan(3 * in[t] + 1, second[t], k::sum{}, aggregate);
}

template <int BlockThreads>
void check_up_sweep_down_sweep_work() {
  const auto in = inputs<int>(BlockThreads, 3);
  std::vector<int> out(BlockThreads);
  unsigned long long count = 0;
  k::scan_each_block<BlockThreads, k::block_scan_algorithm::up_sweep_down_sweep>(in.data(), out.data(), nullptr, 1,
                                                                                 false, 0, counting_sum{&count});
  INFO("N = " << BlockThreads << ": " << count << " applications of +");
  CHECK(out == reference_scan(in, false, 0));
  CHECK(count <= 2 * (BlockThreads - 1));
  CHECK(count >= BlockThreads - 1);
}

}  // namespace

TEST_CASE("the runner catches the slide's divergent __syncwarp", "[simt][planted]") {
  const auto sc = GENERATE(from_range(all_schedules()));
  SECTION("scan_warp as on the slide, under " + sc.name) {
    std::vector<int> data(64, 1);
    CHECK_THAT(message_of<simt::divergence_error>([&] {
                 run(sc.options, "slide_scan_warp_kernel", dim3(1), dim3(64), &slide_scan_warp_kernel, data.data());
               }),
               Catch::Matchers::Contains("slide_scan_warp_kernel") && Catch::Matchers::Contains("__syncwarp()") &&
                   Catch::Matchers::Contains("lane"));
  }
}

TEST_CASE("a missing __syncthreads between the warp totals and their scan gives a wrong answer", "[simt][planted]") {
  const auto in = inputs<int>(256, 8);
  const auto expected = reference_scan(in, false, 0);
  int wrong_schedules = 0;
  for (const auto& sc : all_schedules()) {
    std::vector<int> out(256);
    run(sc.options, "scan_block_missing_barrier_kernel", dim3(1), dim3(256), &scan_block_missing_barrier_kernel,
        in.data(), out.data());
    wrong_schedules += out != expected;
  }
  CHECK(wrong_schedules > 0);  // the forward schedule runs warp 0 to the totals before the other warps start
  // With the barrier, every schedule is right (the block scan tests above); here one forward run suffices.
  std::vector<int> out(256);
  simt::scoped_options use(make_case(simt::schedule::forward, simt::block_order::forward).options);
  k::scan_each_block<256, k::block_scan_algorithm::warp_scans_shuffle>(in.data(), out.data(), nullptr, 1, false, 0,
                                                                       k::sum{});
  CHECK(out == expected);
}

TEST_CASE("reusing BlockScan's TempStorage without a __syncthreads gives a wrong answer", "[simt][planted]") {
  const auto in = inputs<int>(256, 12);
  std::vector<int> second_in(in.size());
  for (std::size_t i = 0; i < in.size(); ++i) second_in[i] = 3 * in[i] + 1;
  const auto expected_first = reference_scan(in, false, 0), expected_second = reference_scan(second_in, false, 0);
  std::vector<std::string> wrong;
  for (const auto& sc : all_schedules()) {
    std::vector<int> first(256), second(256);
    run(sc.options, "reused_temp_storage_kernel", dim3(1), dim3(256), &reused_temp_storage_kernel<256>, in.data(),
        first.data(), second.data());
    if (first != expected_first || second != expected_second) wrong.push_back(sc.name);
  }
  INFO("wrong under: " << wrong.size());
  CHECK(!wrong.empty());  // warp-at-a-time runs warp 0 into the second scan while the others read the first's totals
}

TEST_CASE("a look-back that waits on blockIdx - 1 deadlocks when blocks start out of order", "[simt][planted]") {
  using policy = k::tile_policy<64, 2, k::block_scan_algorithm::warp_scans_shuffle>;
  const auto in = inputs<int>(1000, 4);
  const auto expected = reference_scan(in, false, 0);
  std::vector<int> out(in.size());
  const auto scan = [&](const simt::options& o, auto tile_id) {
    simt::scoped_options use(o);
    k::detail::single_pass_scan<policy, decltype(tile_id)>(in.data(), out.data(), 1000, k::sum{}, false, 0,
                                                           k::stream_t{});
  };
  SECTION("in forward block order it happens to work") {
    scan(simt::options{simt::schedule::random, simt::block_order::forward, 1}, k::detail::block_index_tile_id{});
    CHECK(out == expected);
  }
  SECTION("in reverse and shuffled block order the runner reports a deadlock") {
    const auto order = GENERATE(simt::block_order::reverse, simt::block_order::shuffled);
    CHECK_THAT(message_of<simt::deadlock_error>([&] {
                 scan(simt::options{simt::schedule::random, order, 1}, k::detail::block_index_tile_id{});
               }),
               Catch::Matchers::Contains("single_pass_scan_kernel") && Catch::Matchers::Contains("spin"));
  }
  SECTION("with the dynamic tile counter every block order works") {
    const auto order = GENERATE(simt::block_order::reverse, simt::block_order::shuffled);
    scan(simt::options{simt::schedule::random, order, 1}, k::detail::dynamic_tile_id{});
    CHECK(out == expected);
  }
}

// ---- work counts -------------------------------------------------------------------------------------------------

TEST_CASE("Hillis-Steele does 32 x 5 - 31 = 129 additions per warp", "[simt][work]") {
  const auto in = inputs<int>(128, 2);
  std::vector<int> out(128);
  unsigned long long count = 0;
  SECTION("shared-memory warp scan") {
    k::scan_each_warp<k::warp_scan_algorithm::shared_memory>(in.data(), out.data(), 4, false, 0, counting_sum{&count});
  }
  SECTION("shuffle warp scan") {
    k::scan_each_warp<k::warp_scan_algorithm::shuffle>(in.data(), out.data(), 4, false, 0, counting_sum{&count});
  }
  CHECK(count == 4 * 129);
  CHECK(out == reference_scan(in, false, 0, 32));
}

TEST_CASE("up-sweep/down-sweep does at most 2(N - 1) additions", "[simt][work]") {
  check_up_sweep_down_sweep_work<32>();
  check_up_sweep_down_sweep_work<96>();
  check_up_sweep_down_sweep_work<256>();
  check_up_sweep_down_sweep_work<1024>();
}
