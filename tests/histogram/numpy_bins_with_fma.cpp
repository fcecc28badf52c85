// NumPy's bin rule (dpt/histogram_bins.hpp) built as a caller's build may build it: on x86-64 GCC,
// tests/CMakeLists.txt compiles this file with -mfma -ffp-contract=fast, so GCC contracts a*b + c into one FMA
// wherever the code lets it. test_histogram.cu calls it only on CPUs with FMA and compares it with its own build.
#include <dpt/histogram_bins.hpp>

namespace dpt::test {

int numpy_bin_built_with_fma(double value, const dpt::even_bins<double>& bins) {
  return dpt::make_numpy_bin_index<double>(bins)(value);
}

}  // namespace dpt::test
