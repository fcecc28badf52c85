// libFuzzer target for the Matrix Market reader (scripts/run-fuzz builds and runs it with clang's
// -fsanitize=fuzzer,address,undefined). Any input must either parse or raise app::input_error — never crash,
// hang, read out of bounds or allocate without bound. What parses must also survive a write and a re-read
// unchanged, so the writer and the reader agree on every value they accept.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <sstream>
#include <string>
#include <string_view>

#include "app_support/errors.hpp"
#include "app_support/matrix_market.hpp"

namespace {

void require(bool condition) {
  if (!condition) std::abort();  // a round-trip mismatch: libFuzzer reports it as a crash with the input
}

void fuzz_matrix(std::string_view text) {
  dpt::mtx::coo_matrix m;
  try {
    m = dpt::mtx::parse_matrix(text, "fuzz.mtx");
  } catch (const dpt::app::input_error&) {
    return;
  }
  for (std::size_t k = 0; k < m.values.size(); ++k) {
    require(m.row_indices[k] >= 0 && m.row_indices[k] < m.rows);
    require(m.column_indices[k] >= 0 && m.column_indices[k] < m.cols);
  }
  std::ostringstream out;
  dpt::mtx::write_matrix(out, m);
  const auto again = dpt::mtx::parse_matrix(out.str(), "rewritten.mtx");
  require(again.rows == m.rows && again.cols == m.cols && again.kind == m.kind && again.value_field == m.value_field &&
          again.row_indices == m.row_indices && again.column_indices == m.column_indices && again.values == m.values);
}

void fuzz_vector(std::string_view text) {
  try {
    const auto v = dpt::mtx::parse_vector(text, "fuzz.mtx");
    std::ostringstream out;
    dpt::mtx::write_vector(out, v.data(), v.size());
    require(dpt::mtx::parse_vector(out.str(), "rewritten.mtx") == v);
  } catch (const dpt::app::input_error&) {
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  fuzz_matrix(text);
  fuzz_vector(text);
  return 0;
}
