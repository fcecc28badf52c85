// Tour chapter: the hand-written scans of custom_kernels — how much work Hillis–Steele and up-sweep/down-sweep
// do, and the lecture's three launches drawn for a small array. The kernels run natively on CUDA builds and
// on the host SIMT runner otherwise.
#include <cstdint>
#include <string>
#include <thrust/device_vector.h>
#include <thrust/host_vector.h>
#include <vector>

#include <dpt/kernels/device_scan.hpp>
#include <scaffolding/scan_each.hpp>
#include "tour/example.hpp"

namespace dpt::tour {
namespace {

namespace k = dpt::kernels;

// a + b, counting how often it is applied: the work of a scan.
struct counting_plus {
  unsigned long long* count;
  template <class T>
  __host__ __device__ T operator()(const T& a, const T& b) const {
#if defined(__CUDA_ARCH__)
    atomicAdd(count, 1ull);
#else
    ++*count;  // the SIMT runner switches fibers only at scheduling points: no race
#endif
    return a + b;
  }
};

template <class Scan>
std::string count_work(std::size_t n, Scan scan) {
  const thrust::device_vector<int> ones(n, 1);
  thrust::device_vector<int> out(n);
  thrust::device_vector<unsigned long long> count(1, 0);
  scan(thrust::raw_pointer_cast(ones.data()), thrust::raw_pointer_cast(out.data()),
       counting_plus{thrust::raw_pointer_cast(count.data())});
  const thrust::host_vector<unsigned long long> total(count);
  return std::to_string(total[0]);
}

// "[1, 2, …, 32 | 33, 34, …, 64]": each tile of 32 as its first two and last values.
std::string show_tiles(const thrust::device_vector<int>& d, std::size_t tile) {
  const thrust::host_vector<int> h(d);
  std::string out = "[";
  for (std::size_t b = 0; b < h.size(); b += tile) {
    const std::size_t last = std::min(b + tile, h.size()) - 1;
    out +=
        (b ? " | " : "") + std::to_string(h[b]) + ", " + std::to_string(h[b + 1]) + ", …, " + std::to_string(h[last]);
  }
  return out + "]";
}

}  // namespace

chapter scan_kernels_chapter() {
  chapter ch{"hand-written scans: work and the three launches", {}};
  const std::string ones32 = "32 values, all 1", ones1024 = "1024 values, all 1";

  // Work: Hillis–Steele combines in every one of log2(32) = 5 rounds all lanes but the first `shift`.
  ch.examples.push_back({"Hillis-Steele warp scan (shared memory), applications of +", ones32,
                         count_work(32,
                                    [](const int* in, int* out, counting_plus op) {
                                      k::scan_each_warp<k::warp_scan_algorithm::shared_memory>(in, out, 1, false, 0,
                                                                                               op);
                                    }),
                         "129"});  // 32·5 − (1 + 2 + 4 + 8 + 16) = N·log2 N − (N − 1)
  ch.examples.push_back({"Hillis-Steele warp scan (__shfl_up_sync), applications of +", ones32,
                         count_work(32,
                                    [](const int* in, int* out, counting_plus op) {
                                      k::scan_each_warp<k::warp_scan_algorithm::shuffle>(in, out, 1, false, 0, op);
                                    }),
                         "129"});
  // Work: up-sweep N − 1, down-sweep N − 1 − log2 N.
  ch.examples.push_back({"up-sweep/down-sweep block scan of 32, applications of +", ones32,
                         count_work(32,
                                    [](const int* in, int* out, counting_plus op) {
                                      k::scan_each_block<32, k::block_scan_algorithm::up_sweep_down_sweep>(
                                          in, out, nullptr, 1, false, 0, op);
                                    }),
                         "57"});  // 31 + 26 ≤ 2(N − 1) = 62
  ch.examples.push_back({"up-sweep/down-sweep block scan of 1024, applications of +", ones1024,
                         count_work(1024,
                                    [](const int* in, int* out, counting_plus op) {
                                      k::scan_each_block<1024, k::block_scan_algorithm::up_sweep_down_sweep>(
                                          in, out, nullptr, 1, false, 0, op);
                                    }),
                         "2036"});  // 1023 + 1013 ≤ 2046, where Hillis–Steele would do 1024·10 − 1023 = 9217

  // The three launches on 96 ones in tiles of 32 (one block of 32 threads, one item each, per tile).
  using policy = k::tile_policy<32, 1, k::block_scan_algorithm::warp_scans_shared_memory>;
  const std::size_t n = 96;
  const std::string input = "96 values, all 1; tiles of 32";
  const thrust::device_vector<int> in(n, 1);
  thrust::device_vector<int> out(n), totals(3), scanned_totals(3);
  const int* d_in = thrust::raw_pointer_cast(in.data());
  int* d_out = thrust::raw_pointer_cast(out.data());
  int* d_totals = thrust::raw_pointer_cast(totals.data());
  int* d_scanned = thrust::raw_pointer_cast(scanned_totals.data());

  // launch 1: every block scans its own tile and writes the tile's total
  k::detail::scan_tiles<policy>(d_in, d_out, d_totals, n, k::sum{}, false, k::stream_t{});
  ch.examples.push_back(
      {"launch 1: scan each tile", input, show_tiles(out, 32), "[1, 2, …, 32 | 1, 2, …, 32 | 1, 2, …, 32]"});
  ch.examples.push_back({"launch 1: tile totals", input, show(thrust::host_vector<int>(totals)), "[32, 32, 32]"});
  // launch 2: scan the tile totals (the same device scan, one level down)
  k::inclusive_scan(k::device_scan_algorithm::three_launch_lecture, static_cast<const int*>(d_totals), d_scanned, 3,
                    k::sum{});
  ch.examples.push_back({"launch 2: scan of the tile totals", "[32, 32, 32]",
                         show(thrust::host_vector<int>(scanned_totals)), "[32, 64, 96]"});
  // launch 3: every tile adds the total of the tiles before it
  k::detail::add_tile_prefixes<policy>(d_out, static_cast<const int*>(d_scanned), n, k::sum{}, false, 0, k::stream_t{});
  ch.examples.push_back(
      {"launch 3: add bases", input, show_tiles(out, 32), "[1, 2, …, 32 | 33, 34, …, 64 | 65, 66, …, 96]"});

  // One launch instead of three: each tile looks back at the tiles before it.
  thrust::device_vector<int> single(n);
  k::detail::single_pass_scan<policy>(d_in, thrust::raw_pointer_cast(single.data()), n, k::sum{}, false, 0,
                                      k::stream_t{});
  ch.examples.push_back({"single pass, decoupled look-back", input, show_tiles(single, 32),
                         "[1, 2, …, 32 | 33, 34, …, 64 | 65, 66, …, 96]"});
  return ch;
}

}  // namespace dpt::tour
