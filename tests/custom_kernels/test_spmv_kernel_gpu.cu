// dpt::kernels::spmv natively on the GPU, against the sequential CSR loop: the shapes of the SIMT tests in tiles
// of 32 merge items and in the library's own, then matrices of millions of entries, where thousands of blocks
// run at once and the look-back meets tiles that are still running.
#include <catch2/catch.hpp>

#include <cstdint>
#include <string>
#include <thrust/device_vector.h>
#include <thrust/fill.h>
#include <thrust/host_vector.h>
#include <vector>

#include <dpt/kernels/spmv.hpp>
#include "custom_kernels/spmv_cases.hpp"

namespace {

namespace k = dpt::kernels;

using dpt::test::spmv_types;

// Runs the kernel in tiles of Policy on the device and returns the first row where y differs from the loop's,
// or -1; y starts as 7777 everywhere, so that a row nobody writes shows.
template <class Policy, class Types>
long long first_wrong_row_on_device(const dpt::test::csr_case& m) {
  using T = typename Types::value_type;
  const thrust::device_vector<typename Types::offset_type> offsets(m.offsets.begin(), m.offsets.end());
  const thrust::device_vector<typename Types::index_type> columns(m.columns.begin(), m.columns.end());
  const thrust::device_vector<T> values(m.values.begin(), m.values.end()), x(m.x.begin(), m.x.end());
  thrust::device_vector<T> y(static_cast<std::size_t>(m.rows), T(7777));
  k::detail::spmv_with<Policy>(thrust::raw_pointer_cast(offsets.data()), thrust::raw_pointer_cast(columns.data()),
                               thrust::raw_pointer_cast(values.data()), m.rows, m.nnz(),
                               thrust::raw_pointer_cast(x.data()), thrust::raw_pointer_cast(y.data()), nullptr);
  const thrust::host_vector<T> got = y;
  const auto expected = dpt::test::csr_loop(m);
  for (std::size_t r = 0; r < expected.size(); ++r)
    if (static_cast<double>(got[r]) != expected[r]) {
      UNSCOPED_INFO("y[" << r << "] = " << got[r] << ", the loop gives " << expected[r]);
      return static_cast<long long>(r);
    }
  return -1;
}

using library_tiles = k::detail::spmv_policy<k::spmv_block_threads, k::spmv_items_per_thread>;

}  // namespace

TEMPLATE_TEST_CASE("the fused spmv kernel gives every row the sequential loop's sum on the GPU", "[gpu][spmv_kernel]",
                   (spmv_types<float, std::int32_t, std::int32_t>), (spmv_types<double, std::int64_t, std::int32_t>),
                   (spmv_types<double, std::int32_t, std::int64_t>)) {
  for (const auto& m : dpt::test::small_spmv_cases()) {
    INFO(m.name);
    CHECK(first_wrong_row_on_device<k::detail::spmv_policy<32, 1>, TestType>(m) == -1);
    CHECK(first_wrong_row_on_device<library_tiles, TestType>(m) == -1);
  }
}

// Tagged [large] so that scripts/gpu-check leaves them out of the compute-sanitizer runs.
TEMPLATE_TEST_CASE("the fused spmv kernel gives every row the loop's sum for millions of entries",
                   "[gpu][spmv_kernel][large]", (spmv_types<float, std::int32_t, std::int32_t>),
                   (spmv_types<double, std::int64_t, std::int64_t>)) {
  for (const auto& m : dpt::test::large_spmv_cases()) {
    INFO(m.name << ": " << m.nnz() << " entries");
    CHECK(first_wrong_row_on_device<library_tiles, TestType>(m) == -1);
  }
}

// The two-phase form, one scratch for several products on a stream of its own: each call must zero the tile
// status it left behind in the call before.
TEST_CASE("the fused spmv kernel reuses caller-owned scratch on a stream", "[gpu][spmv_kernel]") {
  const auto m = dpt::test::power_law_rows("9001 power-law rows, up to 3000 entries", 9001, 9001, 3000, 33);
  const thrust::device_vector<int> offsets(m.offsets.begin(), m.offsets.end()),
      columns(m.columns.begin(), m.columns.end());
  const thrust::device_vector<double> values(m.values.begin(), m.values.end());
  thrust::device_vector<double> x(m.x.begin(), m.x.end()), y(static_cast<std::size_t>(m.rows));
  cudaStream_t stream{};
  REQUIRE(cudaStreamCreate(&stream) == cudaSuccess);
  std::size_t bytes = 0;
  const auto product = [&](void* scratch) {
    k::spmv(scratch, bytes, thrust::raw_pointer_cast(offsets.data()), thrust::raw_pointer_cast(columns.data()),
            thrust::raw_pointer_cast(values.data()), m.rows, m.nnz(), thrust::raw_pointer_cast(x.data()),
            thrust::raw_pointer_cast(y.data()), stream);
  };
  product(nullptr);
  thrust::device_vector<unsigned char> scratch(bytes, 0xa5);  // poisoned: each call zeroes what it relies on
  for (int round = 0; round < 3; ++round) {
    dpt::test::csr_case changed = m;
    for (std::size_t c = 0; c < changed.x.size(); ++c) changed.x[c] = m.x[c] + round * double((c % 5) + 1);
    x.assign(changed.x.begin(), changed.x.end());
    thrust::fill(y.begin(), y.end(), 7777.0);
    product(thrust::raw_pointer_cast(scratch.data()));
    REQUIRE(cudaStreamSynchronize(stream) == cudaSuccess);
    const thrust::host_vector<double> got = y;
    const auto expected = dpt::test::csr_loop(changed);
    long long wrong = -1;
    for (std::size_t r = 0; r < expected.size() && wrong < 0; ++r)
      if (got[r] != expected[r]) wrong = static_cast<long long>(r);
    INFO("round " << round << ": first wrong row " << wrong);
    CHECK(wrong == -1);
  }
  CHECK(cudaStreamDestroy(stream) == cudaSuccess);
}
