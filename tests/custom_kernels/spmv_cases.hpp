// The matrices that dpt::kernels::spmv is tested on, on the host SIMT runner (test_spmv_kernel.cpp) and on the
// GPU (test_spmv_kernel_gpu.cu), and the sequential CSR loop they are checked against.
//
// Values and x are small whole numbers (values in ±8, never 0; x in ±4), so every partial sum of a row shorter
// than 2^19 entries is exact in float and double whatever the order of addition: results compare exactly.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

namespace dpt::test {

// The value, row-offset and column-index types a test instantiates the kernel with.
template <class T, class Offset, class Index>
struct spmv_types {
  using value_type = T;
  using offset_type = Offset;
  using index_type = Index;
};

struct csr_case {
  std::string name;
  std::int64_t rows = 0, cols = 0;
  std::vector<std::int64_t> offsets{0};  // rows + 1
  std::vector<std::int64_t> columns;
  std::vector<int> values;
  std::vector<int> x;  // cols
  std::int64_t nnz() const { return static_cast<std::int64_t>(columns.size()); }
};

// The sequential loop over rows: y[r] = Σ values[k]·x[columns[k]] over row r's entries, in double (exact here).
inline std::vector<double> csr_loop(const csr_case& m) {
  std::vector<double> y(static_cast<std::size_t>(m.rows));
  for (std::int64_t r = 0; r < m.rows; ++r)
    for (auto k = m.offsets[r]; k < m.offsets[r + 1]; ++k)
      y[r] += static_cast<double>(m.values[k]) * m.x[static_cast<std::size_t>(m.columns[k])];
  return y;
}

// A matrix from its row lengths, with seeded random columns, values and x.
inline csr_case from_row_lengths(std::string name, const std::vector<std::int64_t>& lengths, std::int64_t cols,
                                 std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_int_distribution<std::int64_t> column(0, cols - 1);
  std::uniform_int_distribution<int> value(1, 8), sign(0, 1), x_value(-4, 4);
  csr_case m;
  m.name = std::move(name);
  m.rows = static_cast<std::int64_t>(lengths.size());
  m.cols = cols;
  for (const auto length : lengths) {
    // A negative length would make row_offsets decrease: no CSR matrix, and the kernel trusts its offsets.
    if (length < 0) throw std::invalid_argument(m.name + ": a row of negative length");
    for (std::int64_t k = 0; k < length; ++k) {
      m.columns.push_back(column(rng));
      m.values.push_back(sign(rng) ? value(rng) : -value(rng));
    }
    m.offsets.push_back(m.offsets.back() + length);
  }
  for (std::int64_t c = 0; c < cols; ++c) m.x.push_back(x_value(rng));
  return m;
}

// `rows` rows of 1 .. 2·mean − 1 entries, a fraction `empty` of them empty.
inline csr_case random_rows(std::string name, std::int64_t rows, std::int64_t cols, int mean, double empty,
                            std::uint64_t seed) {
  std::mt19937_64 rng(seed ^ 0x5eed);
  std::uniform_int_distribution<std::int64_t> length(1, 2 * mean - 1);
  std::bernoulli_distribution is_empty(empty);
  std::vector<std::int64_t> lengths(static_cast<std::size_t>(rows));
  for (auto& l : lengths) l = is_empty(rng) ? 0 : length(rng);
  return from_row_lengths(std::move(name), lengths, cols, seed);
}

// The lecture's 4 × 4 matrix and x = [1, 2, 3, 4]: y = [6, 4, 12, 54].
inline csr_case lecture_matrix() {
  return {"the lecture's 4 x 4 matrix", 4,           4, {0, 2, 3, 4, 7}, {0, 2, 1, 2, 1, 2, 3},
          {3, 1, 2, 4, 2, 6, 8},        {1, 2, 3, 4}};
}

// Shapes small enough for tiles of 32 merge items on the SIMT runner, each aimed at one way a tile can fall.
inline std::vector<csr_case> small_spmv_cases() {
  std::vector<csr_case> cases{lecture_matrix()};
  cases.push_back(from_row_lengths("one row without entries", {0}, 1, 1));
  cases.push_back(from_row_lengths("1 x 1", {1}, 1, 2));
  cases.push_back(from_row_lengths("five rows, no entries", {0, 0, 0, 0, 0}, 3, 3));
  cases.push_back(from_row_lengths("empty rows first, between and last", {0, 0, 3, 0, 1, 0, 0, 5, 2, 0, 0}, 6, 4));
  cases.push_back(from_row_lengths("one row of 300 entries", {300}, 50, 5));
  cases.push_back(random_rows("97 rows of about 3 entries", 97, 40, 3, 0.0, 6));
  cases.push_back(random_rows("300 rows, 30% of them empty", 300, 64, 3, 0.3, 7));
  cases.push_back(random_rows("5000 rows, 99% of them empty (tiles of row ends only)", 5000, 100, 4, 0.99, 8));
  std::vector<std::int64_t> spanning(200, 2);
  spanning[77] = 3001;  // one row across a hundred small tiles, among short ones
  cases.push_back(from_row_lengths("a row of 3001 entries among 199 of 2", spanning, 500, 9));
  cases.push_back(random_rows("1009 rows of 1 to 13 entries, 10% empty", 1009, 1009, 7, 0.1, 10));
  return cases;
}

// Power-law row lengths ⌊1/u⌋ − 1 for u uniform in (0, 1], capped at `longest`: most rows short (half of them
// empty), a few very long.
inline csr_case power_law_rows(std::string name, std::int64_t rows, std::int64_t cols, std::int64_t longest,
                               std::uint64_t seed) {
  std::mt19937_64 rng(seed ^ 0xfa11);
  std::uniform_real_distribution<double> u(0.0, 1.0);
  std::vector<std::int64_t> lengths(static_cast<std::size_t>(rows));
  for (auto& l : lengths) {
    const double reciprocal = 1.0 / (1.0 - u(rng));  // at least 1, so that no row is shorter than 0
    l = reciprocal > double(longest + 1) ? longest : static_cast<std::int64_t>(reciprocal) - 1;
  }
  return from_row_lengths(std::move(name), lengths, cols, seed);
}

// Matrices of millions of entries, for the GPU, where thousands of tiles run at once.
inline std::vector<csr_case> large_spmv_cases() {
  return {random_rows("2^20 + 7 rows of 1 to 15 entries, 3% empty", (1 << 20) + 7, 1 << 20, 8, 0.03, 31),
          power_law_rows("2^20 + 7 power-law rows, up to 300000 entries", (1 << 20) + 7, 1 << 20, 300000, 32)};
}

}  // namespace dpt::test
