// Histogram family: every dpt::histogram method (sort + find starts, upper_bound, reduce_by_key, atomics,
// privatised atomics, and cub::DeviceHistogram on CUDA) on the same float values, for 16, 256 and 65 536
// bins, with uniform values and with skewed ones (u^8: about 70% of the values land in the first of 16 bins,
// 25% in the first of 65 536). Skew is where atomics suffer: many updates to the same bin serialise.
// Every variant is checked before it is timed (checked in bench.hpp): its counts must equal a host loop's over
// the same bin mapping. Bytes are effective bytes, the problem's input and output (one read of the values and
// one write of the counts), the same for every method: the sort-based ones also write, sort and read an id per
// value, which is not counted. Every method takes its scratch from a dpt::context, allocated by the checked call and
// reused by the timed ones, so no time includes an allocation (dpt-histogram times its methods the same way).
#include "bench_support/bench.hpp"

#include <random>
#include <string>
#include <thrust/device_vector.h>
#include <thrust/execution_policy.h>

#include <dpt/context.hpp>
#include <dpt/histogram.hpp>

namespace dpt::bench {
namespace {

std::vector<float> histogram_values(std::int64_t n, bool skewed) {
  std::mt19937 rng(99);
  std::uniform_real_distribution<float> uniform(0.0f, 1.0f);
  std::vector<float> values(n);
  for (auto& v : values) {
    const float u = uniform(rng);
    v = skewed ? u * u * u * u * u * u * u * u : u;
  }
  return values;
}

}  // namespace

void register_benchmarks() {
  // One size, the run's largest up to 2^24: the cases differ in bins and skew, not in n.
  const auto all = sizes(24);
  if (all.empty()) return;
  const std::int64_t n = all.back();
  const histogram_method methods[] = {histogram_method::sort,          histogram_method::upper_bound,
                                      histogram_method::reduce_by_key, histogram_method::atomic,
                                      histogram_method::privatized,    histogram_method::cub};
  for (const bool skewed : {false, true}) {
    for (const int bins : {16, 256, 65536}) {
      const std::string case_name = std::string(skewed ? "skewed" : "uniform") + "_" + std::to_string(bins) + "_bins";
      for (const auto method : methods) {
        if (!histogram_method_available(method)) continue;
        const double bytes = sizeof(float) * double(n) + sizeof(unsigned) * double(bins);
        add(std::string("histogram/") + dpt::histogram_method_name(method) + "/" + case_name, n,
            [n, bins, skewed, method, bytes](benchmark::State& state) {
              const auto host_values = histogram_values(n, skewed);
              const thrust::device_vector<float> values(host_values.begin(), host_values.end());
              thrust::device_vector<unsigned> counts(bins);
              const dpt::even_bins<float> range{bins, 0.0f, 1.0f};
              dpt::context context;  // the method's scratch, allocated by the checked call, then reused
              const auto op = [&] {
                dpt::histogram(context.policy(), values.begin(), values.end(), range, counts.begin(), method);
              };
              const auto correct = [&] {
                // every value lies in [0, 1), so in one of the bins
                const auto bin_of = dpt::make_numpy_bin_index<float>(range);
                std::vector<unsigned> expected(bins, 0);
                for (const float v : host_values) {
                  const int bin = bin_of(v);
                  if (bin >= bins) return false;
                  ++expected[bin];
                }
                return on_host(counts) == expected;
              };
              if (!checked_output(state, counts, op, correct, "the counts disagree with the sequential loop")) return;
              const double seconds = timed_loop(state, where::device, op);
              report(state, seconds, n, bytes);
            });
      }
    }
  }
}

}  // namespace dpt::bench
