// dpt::kernels::spmv on the host SIMT runner, against the sequential CSR loop, in tiles from 32 merge items
// (so that small matrices span many tiles) to the library's own, under fiber schedules and block orders that
// change which tile finishes first.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include <dpt/kernels/spmv.hpp>
#include "custom_kernels/simt_cases.hpp"
#include "custom_kernels/spmv_cases.hpp"

namespace {

namespace k = dpt::kernels;

using dpt::test::spmv_types;

// The case in the index types under test, y poisoned with 7777 so that a row nobody writes shows.
template <class Types>
struct device_case {
  using T = typename Types::value_type;
  std::vector<typename Types::offset_type> offsets;
  std::vector<typename Types::index_type> columns;
  std::vector<T> values, x, y;
  explicit device_case(const dpt::test::csr_case& m)
      : offsets(m.offsets.begin(), m.offsets.end()),
        columns(m.columns.begin(), m.columns.end()),
        values(m.values.begin(), m.values.end()),
        x(m.x.begin(), m.x.end()),
        y(static_cast<std::size_t>(m.rows), T(7777)) {}
};

// The first row where y differs from the loop's, or -1.
template <class T>
long long first_wrong_row(const std::vector<T>& y, const std::vector<double>& expected) {
  for (std::size_t r = 0; r < y.size(); ++r)
    if (static_cast<double>(y[r]) != expected[r]) return static_cast<long long>(r);
  return -1;
}

template <class Policy, class Types>
void check_spmv(const dpt::test::csr_case& m) {
  device_case<Types> d(m);
  k::detail::spmv_with<Policy>(d.offsets.data(), d.columns.data(), d.values.data(), m.rows, m.nnz(), d.x.data(),
                               d.y.data(), nullptr);
  const auto expected = dpt::test::csr_loop(m);
  const long long row = first_wrong_row(d.y, expected);
  INFO(m.name << ": " << m.rows << " rows, " << m.nnz() << " entries, tiles of " << Policy::tile_items
              << " merge items; first wrong row " << row);
  if (row >= 0) INFO("y[" << row << "] = " << d.y[row] << ", the loop gives " << expected[row]);
  CHECK(row == -1);
}

std::vector<dpt::test::schedule_case> schedules() {
  using dpt::test::make_case;
  return {make_case(simt::schedule::forward, simt::block_order::forward),
          make_case(simt::schedule::reverse, simt::block_order::reverse),
          make_case(simt::schedule::random, simt::block_order::shuffled, 3),
          make_case(simt::schedule::run_to_barrier, simt::block_order::shuffled, 4)};
}

// The runner starts a block only when the one before it has finished, so there a tile's look-back always meets
// its predecessor's inclusive prefix. On a GPU it meets tiles that have published only their aggregate; this
// kernel runs the look-back over such states with the open rows of SpMV, whose combination does not commute.
__global__ void open_row_look_back_kernel(k::detail::tile_status<k::detail::open_row<double>> status, std::int64_t tile,
                                          k::detail::open_row<double>* prefixes) {
  prefixes[threadIdx.x] = k::detail::look_back(status, tile, k::detail::combine_open_rows<double>{});
}

}  // namespace

TEST_CASE("the look-back carries an open row across tiles that have published only their aggregate",
          "[simt][spmv_kernel]") {
  using carry = k::detail::open_row<double>;
  const k::detail::combine_open_rows<double> op;
  const std::int64_t tile = 80;
  // Tile j leaves j + 1 in the open row (after its row end, if it has one); rows end in tiles 0, 7, 14 and 50
  // only, so the open row coming into tile 80 holds 51 + 52 + … + 80 and nothing from before tile 50: a
  // look-back that combines out of order, or past tile 50's row end, gets another sum.
  std::vector<carry> aggregates(tile), inclusive(tile);
  for (std::int64_t j = 0; j < tile; ++j) {
    aggregates[j] = carry{double(j + 1), (j < 20 && j % 7 == 0) || j == 50 ? 1u : 0u};
    inclusive[j] = j == 0 ? aggregates[0] : op(inclusive[j - 1], aggregates[j]);
  }
  REQUIRE(inclusive[tile - 1].sum == (51 + 80) * 30 / 2);
  const std::int64_t aggregates_only = GENERATE(0, 1, 28, 29, 30, 31, 32, 33, 64, 79);  // tiles before `tile`
  const auto schedule = GENERATE(simt::schedule::forward, simt::schedule::random);
  INFO(aggregates_only << " tiles with only their aggregate, schedule " << simt::name(schedule));

  const k::detail::tile_status_storage<carry> storage(tile, nullptr);
  dpt::test::publish_look_back_states(storage.status(), aggregates, inclusive, aggregates_only);
  std::vector<carry> prefixes(32, carry{-1.0, 7u});
  dpt::test::run(simt::options{schedule, simt::block_order::forward, 5}, "open_row_look_back_kernel", dim3(1), dim3(32),
                 &open_row_look_back_kernel, storage.status(), tile, prefixes.data());
  for (const auto& p : prefixes) {
    CHECK(p.sum == inclusive[tile - 1].sum);
    CHECK(p.ended == 1u);
  }
}

// The kernel trusts its offsets, so a generator that made a row of negative length (offsets that decrease) would
// fail the kernel's tests for the generator's fault, as a GPU run once did: every case must be a CSR matrix.
TEST_CASE("every matrix the spmv kernel is tested on is a CSR matrix", "[spmv_kernel]") {
  auto cases = dpt::test::small_spmv_cases();
  for (auto& m : dpt::test::large_spmv_cases()) cases.push_back(std::move(m));
  for (const auto& m : cases) {
    INFO(m.name);
    REQUIRE(m.offsets.size() == static_cast<std::size_t>(m.rows) + 1);
    CHECK(m.offsets.front() == 0);
    CHECK(m.offsets.back() == m.nnz());
    CHECK(std::is_sorted(m.offsets.begin(), m.offsets.end()));
    CHECK(m.values.size() == m.columns.size());
    CHECK(m.x.size() == static_cast<std::size_t>(m.cols));
    CHECK(std::all_of(m.columns.begin(), m.columns.end(), [&](std::int64_t c) { return c >= 0 && c < m.cols; }));
  }
  SECTION("the large power-law matrix has empty rows and rows that span hundreds of tiles") {
    const auto& m = cases.back();
    std::int64_t empty = 0, longest = 0;
    for (std::int64_t r = 0; r < m.rows; ++r) {
      const auto length = m.offsets[r + 1] - m.offsets[r];
      empty += length == 0;
      longest = std::max(longest, length);
    }
    CHECK(empty > m.rows / 3);
    CHECK(longest == 300000);
  }
  SECTION("a row of negative length is refused") {
    CHECK_THROWS_AS(dpt::test::from_row_lengths("a row of -1 entries", {2, -1, 3}, 4, 1), std::invalid_argument);
  }
}

TEMPLATE_TEST_CASE("the fused spmv kernel gives every row the sequential loop's sum", "[simt][spmv_kernel]",
                   (spmv_types<float, std::int32_t, std::int32_t>), (spmv_types<double, std::int64_t, std::int32_t>),
                   (spmv_types<double, std::int32_t, std::int64_t>)) {
  const auto sc = GENERATE(from_range(schedules()));
  const simt::scoped_options use(sc.options);

  SECTION("the lecture's matrix gives y = [6, 4, 12, 54], one merge item per thread, " + sc.name) {
    using T = typename TestType::value_type;
    device_case<TestType> d(dpt::test::lecture_matrix());
    k::detail::spmv_with<k::detail::spmv_policy<32, 1>>(d.offsets.data(), d.columns.data(), d.values.data(), 4, 7,
                                                        d.x.data(), d.y.data(), nullptr);
    CHECK(d.y == std::vector<T>{6, 4, 12, 54});
  }
  SECTION("small matrices in tiles of 32, 96, 320 and 1024 merge items, " + sc.name) {
    for (const auto& m : dpt::test::small_spmv_cases()) {
      check_spmv<k::detail::spmv_policy<32, 1>, TestType>(m);
      check_spmv<k::detail::spmv_policy<32, 3>, TestType>(m);
      check_spmv<k::detail::spmv_policy<64, 5>, TestType>(m);
      check_spmv<k::detail::spmv_policy<k::spmv_block_threads, k::spmv_items_per_thread>, TestType>(m);
    }
  }
}

TEMPLATE_TEST_CASE("the fused spmv kernel handles matrices of many tiles through its public entry point",
                   "[simt][spmv_kernel]", (spmv_types<float, std::int32_t, std::int32_t>),
                   (spmv_types<double, std::int64_t, std::int64_t>)) {
  const simt::scoped_options use({simt::schedule::run_to_barrier, simt::block_order::shuffled, 11});
  for (const auto& m :
       {dpt::test::random_rows("20011 rows of 1 to 13 entries, 5% empty", 20011, 30000, 7, 0.05, 21),
        dpt::test::power_law_rows("30011 power-law rows, up to 20000 entries", 30011, 30011, 20000, 22)}) {
    device_case<TestType> d(m);
    k::spmv(d.offsets.data(), d.columns.data(), d.values.data(), m.rows, m.nnz(), d.x.data(), d.y.data());
    const long long row = first_wrong_row(d.y, dpt::test::csr_loop(m));
    INFO(m.name << ": first wrong row " << row);
    CHECK(row == -1);
  }
}

TEST_CASE("the fused spmv kernel in caller-owned scratch answers the size query and serves many products",
          "[simt][spmv_kernel]") {
  using types = spmv_types<double, std::int32_t, std::int32_t>;
  const simt::scoped_options use({simt::schedule::run_to_barrier, simt::block_order::shuffled, 12});
  const auto m = dpt::test::power_law_rows("9001 power-law rows, up to 3000 entries", 9001, 9001, 3000, 23);
  device_case<types> d(m);
  const auto product = [&](void* scratch, std::size_t& bytes) {
    k::spmv(scratch, bytes, d.offsets.data(), d.columns.data(), d.values.data(), m.rows, m.nnz(), d.x.data(),
            d.y.data());
  };
  std::size_t bytes = 0;
  product(nullptr, bytes);
  REQUIRE(bytes > 0);
  // Scratch in 16-byte units, poisoned: the kernel must zero what it relies on.
  std::vector<std::max_align_t> scratch(bytes / sizeof(std::max_align_t) + 2);
  std::memset(scratch.data(), 0xa5, scratch.size() * sizeof(std::max_align_t));

  SECTION("the size query computes nothing") {
    CHECK(d.y == std::vector<double>(d.y.size(), 7777.0));
  }
  SECTION("one scratch serves three products in a row, with a different x each time") {
    for (int round = 0; round < 3; ++round) {
      dpt::test::csr_case changed = m;
      for (std::size_t c = 0; c < changed.x.size(); ++c) changed.x[c] = m.x[c] + round * double((c % 5) + 1);
      d.x.assign(changed.x.begin(), changed.x.end());
      std::fill(d.y.begin(), d.y.end(), 7777.0);
      product(scratch.data(), bytes);
      const long long row = first_wrong_row(d.y, dpt::test::csr_loop(changed));
      INFO("round " << round << ": first wrong row " << row);
      CHECK(row == -1);
    }
  }
  SECTION("too little or misaligned scratch is refused, and y is untouched") {
    std::size_t too_few = bytes - 1;
    CHECK_THROWS_AS(product(scratch.data(), too_few), std::invalid_argument);
    std::size_t enough = bytes;
    CHECK_THROWS_AS(product(reinterpret_cast<char*>(scratch.data()) + 8, enough), std::invalid_argument);
    CHECK(d.y == std::vector<double>(d.y.size(), 7777.0));
  }
  SECTION("a matrix of one tile, or of no rows, asks for one byte") {
    const std::vector<int> offsets{0, 1}, columns{0};
    const std::vector<double> values{2.0}, x{3.0};
    std::vector<double> y(1, 7777.0);
    std::size_t small = 0;
    k::spmv(nullptr, small, offsets.data(), columns.data(), values.data(), 1, 1, x.data(), y.data());
    CHECK(small == 1);
    k::spmv(scratch.data(), small, offsets.data(), columns.data(), values.data(), 1, 1, x.data(), y.data());
    CHECK(y[0] == 6.0);
    small = 0;
    k::spmv(nullptr, small, offsets.data(), columns.data(), values.data(), 0, 0, x.data(), y.data());
    CHECK(small == 1);
  }
}

TEST_CASE("the fused spmv kernel rejects bad arguments", "[simt][spmv_kernel]") {
  const std::vector<int> offsets{0, 1}, columns{0};
  const std::vector<double> values{2.0}, x{3.0};
  std::vector<double> y(1, 7777.0);
  const int* const no_ints = nullptr;
  const double* const no_doubles = nullptr;
  double* const no_y = nullptr;
  SECTION("negative sizes are refused") {
    CHECK_THROWS_AS(k::spmv(offsets.data(), columns.data(), values.data(), -1, 1, x.data(), y.data()),
                    std::invalid_argument);
    CHECK_THROWS_AS(k::spmv(offsets.data(), columns.data(), values.data(), 1, -1, x.data(), y.data()),
                    std::invalid_argument);
  }
  SECTION("null pointers for a non-empty matrix are refused, and y is untouched") {
    CHECK_THROWS_AS(k::spmv(no_ints, columns.data(), values.data(), 1, 1, x.data(), y.data()), std::invalid_argument);
    CHECK_THROWS_AS(k::spmv(offsets.data(), columns.data(), values.data(), 1, 1, no_doubles, y.data()),
                    std::invalid_argument);
    CHECK_THROWS_AS(k::spmv(offsets.data(), columns.data(), values.data(), 1, 1, x.data(), no_y),
                    std::invalid_argument);
    CHECK(y[0] == 7777.0);
  }
  SECTION("a matrix with no rows is a no-op, even with null pointers") {
    CHECK_NOTHROW(k::spmv(no_ints, no_ints, no_doubles, 0, 0, no_doubles, no_y));
  }
  SECTION("a matrix with rows but no entries needs no columns, values or x") {
    const std::vector<int> no_entries{0, 0, 0};
    std::vector<double> y2(2, 7777.0);
    k::spmv(no_entries.data(), no_ints, no_doubles, 2, 0, no_doubles, y2.data());
    CHECK(y2 == std::vector<double>{0.0, 0.0});
  }
}
