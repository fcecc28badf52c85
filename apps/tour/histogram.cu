// Tour chapter: the lecture's data-parallel histogram (map to bin ids, sort, find where each bin starts, sizes
// from the starts), its rivals giving the same counts, NumPy's rule for a value on an edge, the atomic-free
// scatter with a combining operator, and find_repeats from CS149 assignment 3. Expected values worked by hand:
//
//   values  [0.1, 0.8, 0.3, 0.9, 0.35, 0.95, 1.4, 0.2], K = 4 bins over [0, 1] (edges 0, .25, .5, .75, 1)
//   bin ids [0, 3, 1, 3, 1, 3, 5, 0]    slots 0..3 are bins; 4 = below, 5 = above, 6 = NaN
//   sorted  [0, 0, 1, 1, 3, 3, 3, 5]
//   starts  [0, 2, 8, 4, 8, 7, 8 | 8]   first position of each slot, 8 (= n) where empty, then n to close
//   filled  [0, 2, 4, 4, 7, 7, 8 | 8]   reverse min-scan: an empty slot takes the next slot's start
//   sizes   [2, 2, 0, 3 | 0, 1, 0]      adjacent differences: the counts, then below / above / NaN
#include <cuda/functional>
#include <thrust/device_vector.h>
#include <thrust/host_vector.h>
#include <thrust/sort.h>
#include <thrust/transform.h>
#include <vector>

#include <dpt/find_repeats.hpp>
#include <dpt/histogram.hpp>
#include <dpt/scatter_reduce.hpp>
#include "tour/example.hpp"
#include "tour/to_host.hpp"

namespace dpt::tour {
namespace {

// "[2, 2, 0, 3], 1 dropped"
std::string show_histogram(const thrust::device_vector<long long>& counts, const dpt::histogram_result& r) {
  return show(to_host(counts)) + ", " + std::to_string(r.dropped()) + " dropped";
}

}  // namespace

chapter histogram_chapter() {
  const std::vector<double> values{0.1, 0.8, 0.3, 0.9, 0.35, 0.95, 1.4, 0.2};
  const thrust::device_vector<double> d_values(values.begin(), values.end());
  const dpt::even_bins<double> bins{4, 0.0, 1.0};
  const std::string input = show(values) + ", 4 bins over [0, 1]";
  chapter ch{"histogram without atomics", {}};

  // step 1, map: each value's bin (or the slot of the values NumPy drops: 5 is "above the range")
  thrust::device_vector<int> ids(values.size());
  thrust::transform(thrust::device, d_values.begin(), d_values.end(), ids.begin(),
                    dpt::make_numpy_bin_index<double>(bins));
  ch.examples.push_back(
      {"map: the bin id of each value (5 = above the range)", input, show(to_host(ids)), "[0, 3, 1, 3, 1, 3, 5, 0]"});
  // step 2, sort the bin ids so each bin's values sit together
  thrust::sort(thrust::device, ids.begin(), ids.end());
  ch.examples.push_back(
      {"sort the bin ids", "[0, 3, 1, 3, 1, 3, 5, 0]", show(to_host(ids)), "[0, 0, 1, 1, 3, 3, 3, 5]"});

  // steps 3 and 4 inside dpt::histogram: find starts, then sizes from the starts; every method agrees
  thrust::device_vector<long long> counts(4);
  struct named {
    dpt::histogram_method method;
    const char* title;
  };
  for (const named m :
       {named{dpt::histogram_method::sort, "histogram: sort + find starts + sizes (the lecture's)"},
        named{dpt::histogram_method::upper_bound, "histogram: sort + upper_bound + adjacent_difference"},
        named{dpt::histogram_method::reduce_by_key, "histogram: sort + reduce_by_key + scatter"},
        named{dpt::histogram_method::atomic, "histogram: one atomic add per value"},
        named{dpt::histogram_method::privatized, "histogram: private histograms, merged"}}) {
    const auto r = dpt::histogram(thrust::device, d_values.begin(), d_values.end(), bins, counts.begin(), m.method);
    ch.examples.push_back({m.title, input, show_histogram(counts, r), "[2, 2, 0, 3], 1 dropped"});
  }
  if (dpt::histogram_method_available(dpt::histogram_method::cub)) {  // CUDA builds
    const auto r = dpt::histogram(thrust::device, d_values.begin(), d_values.end(), bins, counts.begin(),
                                  dpt::histogram_method::cub);
    ch.examples.push_back({"histogram: cub::DeviceHistogram over the bin ids", input, show_histogram(counts, r),
                           "[2, 2, 0, 3], 1 dropped"});
  }

  {
    // NumPy's rule on an edge: edge 3 of ten bins over [0, 1] is 3 · 0.1 = 0.30000000000000004 > 0.3
    const thrust::device_vector<double> point(1, 0.3);
    thrust::device_vector<long long> ten(10);
    const auto r =
        dpt::histogram(thrust::device, point.begin(), point.end(), dpt::even_bins{10, 0.0, 1.0}, ten.begin());
    ch.examples.push_back({"NumPy's edges: 0.3 in 10 bins over [0, 1] (edge 3 is 0.30000000000000004)", "[0.3]",
                           show_histogram(ten, r), "[0, 0, 1, 0, 0, 0, 0, 0, 0, 0], 0 dropped"});
  }
  {
    // scatter with +: sort by destination, reduce each run, one write per destination
    const std::vector<int> out{10, 20, 30, 40}, in{1, 2, 3, 4, 5}, idx{3, 0, 3, 3, 1};
    thrust::device_vector<int> d_out(out.begin(), out.end());
    const thrust::device_vector<int> d_in(in.begin(), in.end()), d_idx(idx.begin(), idx.end());
    dpt::scatter_reduce(thrust::device, d_in.begin(), d_in.end(), d_idx.begin(), d_out.begin(), d_out.end(),
                        ::cuda::std::plus<>{});
    ch.examples.push_back({"scatter_reduce (+) without atomics",
                           "out [10, 20, 30, 40], in [1, 2, 3, 4, 5], idx [3, 0, 3, 3, 1]", show(to_host(d_out)),
                           "[12, 25, 30, 48]"});
  }
  {
    // CS149 assignment 3: the indices i with a[i] == a[i+1]
    const std::vector<int> a{1, 2, 2, 1, 1, 1, 3, 5, 3, 3};
    const thrust::device_vector<int> d_a(a.begin(), a.end());
    thrust::device_vector<long long> found(a.size());
    auto end = dpt::find_repeats(thrust::device, d_a.begin(), d_a.end(), found.begin());
    ch.examples.push_back({"find_repeats: flags + exclusive scan + scatter", show(a),
                           show(thrust::host_vector<long long>(found.begin(), end)), "[1, 3, 4, 8]"});
    end = dpt::find_repeats_copy_if(thrust::device, d_a.begin(), d_a.end(), found.begin());
    ch.examples.push_back({"find_repeats: copy_if over indices, stencil (a[i], a[i+1])", show(a),
                           show(thrust::host_vector<long long>(found.begin(), end)), "[1, 3, 4, 8]"});
  }
  return ch;
}

}  // namespace dpt::tour
