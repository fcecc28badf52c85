// dpt's headers, compiled by the host compiler. In CPU builds every file is; a CUDA build compiles this file with
// the host compiler too (it is .cpp), as a caller's plain C++ file in a CUDA project would include dpt. Such a file
// can ask the *_temporary_bytes queries, but on CUDA their bounds come from CUB's size queries, which only nvcc
// compiles: there they throw, saying so, instead of failing to compile or answering wrongly. Every public header
// is here but dpt/histogram.hpp, whose CUDA methods are kernels of their own (a host compiler cannot build them).
#include <catch2/catch.hpp>

#include <cstdint>

#include <dpt/compact.hpp>
#include <dpt/config.hpp>
#include <dpt/context.hpp>
#include <dpt/coo_to_csr.hpp>
#include <dpt/find_repeats.hpp>
#include <dpt/grid.hpp>
#include <dpt/grid_neighbors.hpp>
#include <dpt/grid_solutions.hpp>
#include <dpt/group_by_key.hpp>
#include <dpt/histogram_bins.hpp>
#include <dpt/histogram_method.hpp>
#include <dpt/scan.hpp>
#include <dpt/scatter_reduce.hpp>
#include <dpt/segmented_scan.hpp>
#include <dpt/spmv.hpp>

TEST_CASE("A file the host compiler builds includes every dpt header and asks for scratch bounds",
          "[headers][temporary_bytes]" DPT_BACKEND_TAG) {
#if DPT_CUDA_DEVICE_SYSTEM
  SECTION("on CUDA the bounds need nvcc, and say so") {
    using Catch::Matchers::Contains;
    REQUIRE_THROWS_WITH(dpt::scan_temporary_bytes<std::int32_t>(1000), Contains("nvcc"));
    REQUIRE_THROWS_WITH((dpt::build_grid_temporary_bytes<std::int32_t, std::int32_t>(1000)), Contains("nvcc"));
    REQUIRE_THROWS_WITH((dpt::spmv_by_row_ids_temporary_bytes<std::int32_t, double>(10, 1000)), Contains("nvcc"));
  }
#else
  SECTION("on the CPU the bounds are the ones the tests of each algorithm check") {
    // the same header-only code as in those tests' files: an empty input needs nothing, a large one something
    REQUIRE((dpt::build_grid_temporary_bytes<std::int32_t, std::int32_t>(0)) == 0);
    REQUIRE((dpt::build_grid_temporary_bytes<std::int32_t, std::int32_t>(1000)) >= 1000 * 2 * sizeof(std::int32_t));
  }
#endif
}
