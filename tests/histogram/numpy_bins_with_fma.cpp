// NumPy's bin rule (dpt/histogram_bins.hpp) built as a caller's build may build it: on x86-64 GCC,
// tests/CMakeLists.txt compiles this file with -mfma -ffp-contract=fast, so GCC contracts a*b + c into one FMA
// wherever the code lets it. test_histogram.cu and test_bin_map_cpu.cu call it only on CPUs with FMA and compare it
// with their own build.
#include <cstddef>

#include <dpt/cpu/bin_map_avx512.hpp>
#include <dpt/histogram_bins.hpp>

namespace dpt::test {

int numpy_bin_built_with_fma(double value, const dpt::even_bins<double>& bins) {
  return dpt::make_numpy_bin_index<double>(bins)(value);
}

// The CPU backend's vector bin map where this CPU has AVX-512 (dpt/cpu/bin_map_avx512.hpp), else the scalar one.
template <class Value, class Bound>
void map_bins_with(const Value* values, std::ptrdiff_t n, const dpt::even_bins<Bound>& bins, int* ids) {
  const auto bin_of = dpt::make_numpy_bin_index<Value>(bins);
#if DPT_HAVE_AVX512
  if (dpt::cpu::cpu_has_avx512()) {
    dpt::cpu::map_bins_avx512(values, n, bin_of, ids);
    return;
  }
#endif
  for (std::ptrdiff_t i = 0; i < n; ++i) ids[i] = bin_of(values[i]);
}

void map_bins_built_with_fma(const float* values, std::ptrdiff_t n, const dpt::even_bins<float>& bins, int* ids) {
  map_bins_with(values, n, bins, ids);
}

void map_bins_built_with_fma(const double* values, std::ptrdiff_t n, const dpt::even_bins<double>& bins, int* ids) {
  map_bins_with(values, n, bins, ids);
}

void map_bins_built_with_fma(const float* values, std::ptrdiff_t n, const dpt::even_bins<double>& bins, int* ids) {
  map_bins_with(values, n, bins, ids);
}

}  // namespace dpt::test
