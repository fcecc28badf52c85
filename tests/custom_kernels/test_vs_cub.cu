// The hand-written warp, block and device scans against cub::WarpScan, cub::BlockScan and cub::DeviceScan on
// the GPU, on the same seeded inputs.
//
// Both scans must equal a sequential scan on the host, element for element and bit for bit: the inputs
// (dpt::test::exact_scan_inputs) are integers, affine maps, and floating-point fractions whose sums of
// consecutive terms are all exact, so the order in which either scan adds cannot change a bit. A rounding bound
// would have to allow γ_k·Σ|x_j| at the k-th element, which at 10^5 elements dwarfs the prefix itself.
//
// Built only in CUDA builds; without a GPU the test main reports "skipped" (exit 77).
#include <catch2/catch.hpp>

#include <cstdint>
#include <cub/block/block_scan.cuh>
#include <cub/device/device_scan.cuh>
#include <cub/warp/warp_scan.cuh>
#include <iterator>
#include <string>
#include <thrust/device_vector.h>
#include <thrust/equal.h>
#include <thrust/host_vector.h>
#include <thrust/iterator/counting_iterator.h>
#include <type_traits>
#include <vector>

#include <dpt/kernels/device_scan.hpp>
#include <scaffolding/scan_each.hpp>
#include "custom_kernels/scan_inputs.hpp"
#include "test_support/operators.hpp"
#include "test_support/random_inputs.hpp"

namespace {

namespace k = dpt::kernels;
using dpt::test::affine;

template <class T>
using op_t = dpt::test::scan_op_t<T>;

template <class T>
T initial_value() {
  return dpt::test::scan_initial_value<T>(0);
}

template <class T>
std::vector<T> inputs(std::size_t n, std::uint64_t seed) {
  return dpt::test::exact_scan_inputs<T>(n, seed, initial_value<T>());
}

// Ours and CUB's against the sequential scan, exactly.
template <class T>
void check_exact(const std::vector<T>& in, const std::vector<T>& ours, const std::vector<T>& cub, bool exclusive,
                 std::size_t segment) {
  REQUIRE(ours.size() == in.size());
  REQUIRE(cub.size() == in.size());
  const auto expected = dpt::test::reference_scan(in, exclusive, initial_value<T>(), segment);
  const auto mismatches = [&](const std::vector<T>& got, const char* who) {
    std::size_t count = 0, first = 0;
    for (std::size_t i = 0; i < got.size(); ++i)
      if (!(got[i] == expected[i]) && count++ == 0) first = i;
    if (count > 0)
      FAIL_CHECK(who << ": " << count << " of " << got.size() << " differ from the sequential scan, first at " << first
                     << ": " << got[first] << " instead of " << expected[first]);
    return count;
  };
  CHECK(mismatches(ours, "ours") == 0);
  CHECK(mismatches(cub, "cub") == 0);
}

template <class T, class Op>
__global__ void __launch_bounds__(32) cub_warp_scan_kernel(const T* in, T* out, bool exclusive, T init, Op op) {
  using warp_scan = cub::WarpScan<T>;
  __shared__ typename warp_scan::TempStorage storage;
  const std::int64_t i = static_cast<std::int64_t>(blockIdx.x) * 32 + threadIdx.x;
  if (exclusive)
    warp_scan(storage).ExclusiveScan(in[i], out[i], init, op);
  else
    warp_scan(storage).InclusiveScan(in[i], out[i], op);
}

template <class T, int BlockThreads, class Op>
__global__ void __launch_bounds__(BlockThreads)
    cub_block_scan_kernel(const T* in, T* out, bool exclusive, T init, Op op) {
  using block_scan = cub::BlockScan<T, BlockThreads>;
  __shared__ typename block_scan::TempStorage storage;
  const std::int64_t i = static_cast<std::int64_t>(blockIdx.x) * BlockThreads + threadIdx.x;
  if (exclusive)
    block_scan(storage).ExclusiveScan(in[i], out[i], init, op);
  else
    block_scan(storage).InclusiveScan(in[i], out[i], op);
}

void check_cuda(cudaError_t status) {
  REQUIRE(status == cudaSuccess);
}

template <class T>
std::vector<T> to_host(const thrust::device_vector<T>& d) {
  const thrust::host_vector<T> h(d);
  return std::vector<T>(h.begin(), h.end());
}

template <class T, k::warp_scan_algorithm Algorithm>
void diff_warp_scan(bool exclusive) {
  const std::int64_t warps = 1000;
  const auto in = inputs<T>(warps * 32, 11);
  const thrust::device_vector<T> d_in(in.begin(), in.end());
  thrust::device_vector<T> ours(in.size()), cub(in.size());
  k::scan_each_warp<Algorithm>(thrust::raw_pointer_cast(d_in.data()), thrust::raw_pointer_cast(ours.data()), warps,
                               exclusive, initial_value<T>(), op_t<T>{});
  cub_warp_scan_kernel<T, op_t<T>><<<warps, 32>>>(thrust::raw_pointer_cast(d_in.data()),
                                                  thrust::raw_pointer_cast(cub.data()), exclusive, initial_value<T>(),
                                                  op_t<T>{});
  check_cuda(cudaGetLastError());
  check_cuda(cudaDeviceSynchronize());
  check_exact(in, to_host(ours), to_host(cub), exclusive, 32);
}

template <class T, int BlockThreads, k::block_scan_algorithm Algorithm>
void diff_block_scan(bool exclusive) {
  const std::int64_t blocks = 300;
  const auto in = inputs<T>(blocks * BlockThreads, 12);
  const thrust::device_vector<T> d_in(in.begin(), in.end());
  thrust::device_vector<T> ours(in.size()), cub(in.size());
  k::scan_each_block<BlockThreads, Algorithm>(thrust::raw_pointer_cast(d_in.data()),
                                              thrust::raw_pointer_cast(ours.data()), nullptr, blocks, exclusive,
                                              initial_value<T>(), op_t<T>{});
  cub_block_scan_kernel<T, BlockThreads, op_t<T>><<<blocks, BlockThreads>>>(thrust::raw_pointer_cast(d_in.data()),
                                                                            thrust::raw_pointer_cast(cub.data()),
                                                                            exclusive, initial_value<T>(), op_t<T>{});
  check_cuda(cudaGetLastError());
  check_cuda(cudaDeviceSynchronize());
  check_exact(in, to_host(ours), to_host(cub), exclusive, BlockThreads);
}

// ours(d_in, d_out) against cub::DeviceScan on the same n inputs, inclusive or exclusive.
template <class T, class Scan>
void diff_with_cub(std::int64_t n, bool exclusive, Scan ours) {
  const auto in = inputs<T>(static_cast<std::size_t>(n), static_cast<std::uint64_t>(n) + 13);
  const thrust::device_vector<T> d_in(in.begin(), in.end());
  thrust::device_vector<T> d_ours(in.size()), d_cub(in.size());
  const T* p_in = thrust::raw_pointer_cast(d_in.data());
  T* p_cub = thrust::raw_pointer_cast(d_cub.data());
  ours(p_in, thrust::raw_pointer_cast(d_ours.data()));
  std::size_t bytes = 0;
  const auto cub_scan = [&](void* temp) {
    return exclusive ? cub::DeviceScan::ExclusiveScan(temp, bytes, p_in, p_cub, op_t<T>{}, initial_value<T>(), n)
                     : cub::DeviceScan::InclusiveScan(temp, bytes, p_in, p_cub, op_t<T>{}, n);
  };
  check_cuda(cub_scan(nullptr));
  thrust::device_vector<unsigned char> temp(bytes);
  check_cuda(cub_scan(thrust::raw_pointer_cast(temp.data())));
  check_cuda(cudaDeviceSynchronize());
  check_exact(in, to_host(d_ours), to_host(d_cub), exclusive, static_cast<std::size_t>(n) + 1);
}

// A device scan through the public entry points, in their default tile or the one named.
template <class T, int BlockThreads = k::scan_block_threads, int ItemsPerThread = k::scan_items_per_thread>
void diff_device_scan(k::device_scan_algorithm algorithm, std::int64_t n, bool exclusive) {
  diff_with_cub<T>(n, exclusive, [&](const T* in, T* out) {
    if (exclusive)
      k::exclusive_scan<BlockThreads, ItemsPerThread>(algorithm, in, out, n, initial_value<T>(), op_t<T>{});
    else
      k::inclusive_scan<BlockThreads, ItemsPerThread>(algorithm, in, out, n, op_t<T>{});
  });
}

// The single pass with the look-back's choices named, int32 sums.
template <class Policy, class TileId, class Wait>
void diff_single_pass(std::int64_t n, bool exclusive) {
  using T = std::int32_t;
  diff_with_cub<T>(n, exclusive, [&](const T* in, T* out) {
    k::detail::single_pass_scan<Policy, TileId, Wait>(in, out, n, op_t<T>{}, exclusive, initial_value<T>(),
                                                      k::stream_t{});
  });
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

}  // namespace

TEMPLATE_TEST_CASE("warp scans agree with cub::WarpScan", "[gpu][cub]", std::int32_t, std::int64_t, float, double,
                   affine) {
  const bool exclusive = GENERATE(false, true);
  SECTION(std::string("shared-memory Hillis-Steele, ") + (exclusive ? "exclusive" : "inclusive")) {
    diff_warp_scan<TestType, k::warp_scan_algorithm::shared_memory>(exclusive);
  }
  SECTION(std::string("__shfl_up_sync, ") + (exclusive ? "exclusive" : "inclusive")) {
    diff_warp_scan<TestType, k::warp_scan_algorithm::shuffle>(exclusive);
  }
}

TEMPLATE_TEST_CASE("block scans agree with cub::BlockScan", "[gpu][cub]", std::int32_t, std::int64_t, float, double,
                   affine) {
  using A = k::block_scan_algorithm;
  const bool exclusive = GENERATE(false, true);
  SECTION(std::string("lecture scan_block over the shared-memory warp scan, ") +
          (exclusive ? "exclusive" : "inclusive")) {
    diff_block_scan<TestType, 256, A::warp_scans_shared_memory>(exclusive);
    diff_block_scan<TestType, 1024, A::warp_scans_shared_memory>(exclusive);
  }
  SECTION(std::string("lecture scan_block over the shuffle warp scan, ") + (exclusive ? "exclusive" : "inclusive")) {
    diff_block_scan<TestType, 96, A::warp_scans_shuffle>(exclusive);
    diff_block_scan<TestType, 1024, A::warp_scans_shuffle>(exclusive);
  }
  SECTION(std::string("up-sweep/down-sweep, ") + (exclusive ? "exclusive" : "inclusive")) {
    diff_block_scan<TestType, 96, A::up_sweep_down_sweep>(exclusive);
    diff_block_scan<TestType, 1024, A::up_sweep_down_sweep>(exclusive);
  }
}

// Every device scan, inclusive and exclusive, at one size (the GENERATEs expand inside the calling test case).
template <class T>
void diff_every_device_scan(std::int64_t n) {
  const auto algorithm =
      GENERATE(k::device_scan_algorithm::three_launch_lecture, k::device_scan_algorithm::three_launch_shuffle,
               k::device_scan_algorithm::three_launch_blelloch, k::device_scan_algorithm::single_pass);
  const bool exclusive = GENERATE(false, true);
  SECTION(std::string(name(algorithm)) + (exclusive ? ", exclusive" : ", inclusive") + ", n = " + std::to_string(n)) {
    diff_device_scan<T>(algorithm, n, exclusive);
  }
}

TEMPLATE_TEST_CASE("device scans agree with cub::DeviceScan", "[gpu][cub]", std::int32_t, std::int64_t, float, double,
                   affine) {
  diff_every_device_scan<TestType>(GENERATE(0, 1, 31, 32, 33, 1023, 1024, 1025, 2047, 2049, 65537));
}

// The tile bench_scan also times: 128 threads × 24 items, cub::DeviceScan's for 4-byte sums on sm_90.
TEMPLATE_TEST_CASE("device scans agree with cub::DeviceScan in tiles of 128 x 24 items", "[gpu][cub]", std::int32_t,
                   float) {
  const auto algorithm =
      GENERATE(k::device_scan_algorithm::three_launch_shuffle, k::device_scan_algorithm::single_pass);
  const bool exclusive = GENERATE(false, true);
  const std::int64_t n = GENERATE(1, 3071, 3072, 3073, 65537, 122887);  // the last: 41 tiles, past a look-back window
  SECTION(std::string(name(algorithm)) + (exclusive ? ", exclusive" : ", inclusive") + ", n = " + std::to_string(n)) {
    diff_device_scan<TestType, 128, 24>(algorithm, n, exclusive);
  }
}

// The single pass with the look-back's other choices (bench_scan times them): tiles in blockIdx order, as CUB
// numbers them, which GPUs start in order; CUB's sleeps; both, in CUB's tile.
TEST_CASE("the single pass agrees with cub::DeviceScan however it numbers tiles and waits", "[gpu][cub]") {
  namespace d = k::detail;
  using tile =
      k::tile_policy<k::scan_block_threads, k::scan_items_per_thread, k::block_scan_algorithm::warp_scans_shuffle>;
  using cub_tile = k::tile_policy<128, 24, k::block_scan_algorithm::warp_scans_shuffle>;
  const std::int64_t n = GENERATE(1, 2049, 65537, (1 << 22) + 3);
  const bool exclusive = GENERATE(false, true);
  SECTION("blockIdx order, eager waits") {
    diff_single_pass<tile, d::block_index_tile_id, d::eager_wait>(n, exclusive);
  }
  SECTION("start order, settled waits") {
    diff_single_pass<tile, d::dynamic_tile_id, d::settled_wait>(n, exclusive);
  }
  SECTION("blockIdx order, settled waits, CUB's tile") {
    diff_single_pass<cub_tile, d::block_index_tile_id, d::settled_wait>(n, exclusive);
  }
}

// The two-phase form, one poisoned scratch for scans of several sizes in a row on a stream of its own: each scan
// must zero the tile status the scan before it left behind (single pass) and find its tile totals where it
// wrote them (three launches).
TEST_CASE("device scans reuse caller-owned scratch on a stream", "[gpu][cub]") {
  const auto algorithm =
      GENERATE(k::device_scan_algorithm::three_launch_lecture, k::device_scan_algorithm::three_launch_shuffle,
               k::device_scan_algorithm::three_launch_blelloch, k::device_scan_algorithm::single_pass);
  INFO(name(algorithm));
  cudaStream_t stream{};
  REQUIRE(cudaStreamCreate(&stream) == cudaSuccess);
  const std::int64_t largest = 131101;  // 65 tiles: past a look-back window; small enough for the sanitizers
  std::size_t bytes = 0;
  k::inclusive_scan(nullptr, bytes, algorithm, static_cast<const int*>(nullptr), static_cast<int*>(nullptr), largest,
                    k::sum{}, stream);
  thrust::device_vector<unsigned char> scratch(bytes, 0xa5);
  const std::int64_t sizes[] = {largest, 1, 4099, 65537, largest};
  for (std::uint64_t round = 0; round < std::size(sizes); ++round) {
    const std::int64_t n = sizes[round];
    INFO("scan " << round << ", n = " << n);
    const auto in = inputs<int>(static_cast<std::size_t>(n), round + 41);  // new values every time
    const thrust::device_vector<int> d_in(in.begin(), in.end());
    thrust::device_vector<int> ours(in.size(), 0x7f7f7f7f), cub(in.size());
    const int* p_in = thrust::raw_pointer_cast(d_in.data());
    k::inclusive_scan(thrust::raw_pointer_cast(scratch.data()), bytes, algorithm, p_in,
                      thrust::raw_pointer_cast(ours.data()), n, k::sum{}, stream);
    std::size_t cub_bytes = 0;
    check_cuda(cub::DeviceScan::InclusiveSum(nullptr, cub_bytes, p_in, thrust::raw_pointer_cast(cub.data()), n));
    thrust::device_vector<unsigned char> cub_temp(cub_bytes);
    check_cuda(cub::DeviceScan::InclusiveSum(thrust::raw_pointer_cast(cub_temp.data()), cub_bytes, p_in,
                                             thrust::raw_pointer_cast(cub.data()), n));
    check_cuda(cudaStreamSynchronize(stream));
    check_cuda(cudaDeviceSynchronize());
    check_exact(in, to_host(ours), to_host(cub), false, static_cast<std::size_t>(n) + 1);
  }
  CHECK(cudaStreamDestroy(stream) == cudaSuccess);
}

// Tagged [large] so that scripts/gpu-check can leave these sizes out of the compute-sanitizer runs, where they
// would take minutes; 65537 elements above already span many tiles of every scan.
TEMPLATE_TEST_CASE("device scans agree with cub::DeviceScan at sizes past 2^20", "[gpu][cub][large]", std::int32_t,
                   std::int64_t, float, double, affine) {
  diff_every_device_scan<TestType>(GENERATE((1 << 20) + 7, 33554467));
}

TEST_CASE("device scans handle more than 2^31 elements", "[gpu][large]") {
  // 2^31 + 17 ones as int64 (16 GiB, scanned in place): the inclusive scan is 1, 2, 3, …, checked on the device.
  const std::int64_t n = (std::int64_t{1} << 31) + 17;
  std::size_t free_bytes = 0, total_bytes = 0;
  check_cuda(cudaMemGetInfo(&free_bytes, &total_bytes));
  if (free_bytes < static_cast<std::size_t>(n) * sizeof(std::int64_t) + (std::size_t{1} << 30)) {
    WARN("skipped: needs " << (n * 8 >> 30) + 1 << " GiB of free device memory");
    return;
  }
  const auto algorithm =
      GENERATE(k::device_scan_algorithm::three_launch_shuffle, k::device_scan_algorithm::single_pass);
  SECTION(name(algorithm)) {
    thrust::device_vector<std::int64_t> data(static_cast<std::size_t>(n), 1);
    k::inclusive_scan(algorithm, thrust::raw_pointer_cast(data.data()), thrust::raw_pointer_cast(data.data()), n,
                      k::sum{});
    CHECK(thrust::equal(data.begin(), data.end(), thrust::counting_iterator<std::int64_t>(1)));
  }
}
