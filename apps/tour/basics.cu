// Tour chapter 1: the lecture's sequence operations — map, filter, fold, scan, segmented scan, gather,
// scatter and groupByKey — each computed by Thrust or dpt on this build's device system.
#include <thrust/device_vector.h>
#include <thrust/gather.h>
#include <thrust/host_vector.h>
#include <thrust/reduce.h>
#include <thrust/scan.h>
#include <thrust/scatter.h>
#include <thrust/transform.h>
#include <vector>

#include <dpt/compact.hpp>
#include <dpt/group_by_key.hpp>
#include <dpt/segmented_scan.hpp>
#include "tour/example.hpp"
#include "tour/to_host.hpp"

namespace dpt::tour {
namespace {

struct add_ten {
  DPT_HOST_DEVICE int operator()(int x) const { return x + 10; }
};

struct is_even {
  DPT_HOST_DEVICE bool operator()(int x) const { return x % 2 == 0; }
};

// "[[0, 1], [0], [0, 1, 3, 6]]" from a flat sequence and its head flags.
template <class T>
std::string show_segments(const thrust::host_vector<T>& data, const std::vector<int>& flags) {
  std::string out = "[";
  std::vector<T> segment;
  for (std::size_t i = 0; i < data.size(); ++i) {
    if (i > 0 && flags[i]) {
      out += show(segment) + ", ";
      segment.clear();
    }
    segment.push_back(data[i]);
  }
  return out + (data.empty() ? "" : show(segment)) + "]";
}

}  // namespace

chapter basics_chapter() {
  const std::vector<int> a{3, 8, 4, 6, 3, 9, 2, 8};
  const std::string a_text = show(a);
  const thrust::device_vector<int> d_a(a.begin(), a.end());
  const auto n = d_a.size();
  chapter ch{"sequence operations", {}};

  thrust::device_vector<int> out(n);
  // map: apply f(x) = x + 10 to every element independently
  thrust::transform(thrust::device, d_a.begin(), d_a.end(), out.begin(), add_ten{});
  ch.examples.push_back({"map f(x) = x + 10", a_text, show(to_host(out)), "[13, 18, 14, 16, 13, 19, 12, 18]"});

  // filter: keep the even elements (map to flags, scan for positions, scatter)
  const auto kept_end = dpt::compact(thrust::device, d_a.begin(), d_a.end(), out.begin(), is_even{});
  ch.examples.push_back(
      {"filter keeping evens", a_text, show(thrust::host_vector<int>(out.begin(), kept_end)), "[8, 4, 6, 2, 8]"});

  // fold: combine every element into one value, starting from the seed 10
  const int folded = thrust::reduce(thrust::device, d_a.begin(), d_a.end(), 10);
  ch.examples.push_back({"fold with seed 10 and +", a_text, std::to_string(folded), "53"});

  // scan: every prefix combined
  thrust::inclusive_scan(thrust::device, d_a.begin(), d_a.end(), out.begin());
  ch.examples.push_back({"inclusive scan (+)", a_text, show(to_host(out)), "[3, 11, 15, 21, 24, 33, 35, 43]"});
  thrust::exclusive_scan(thrust::device, d_a.begin(), d_a.end(), out.begin());
  ch.examples.push_back({"exclusive scan (+)", a_text, show(to_host(out)), "[0, 3, 11, 15, 21, 24, 33, 35]"});

  {
    // segmented scan: [[1,2],[6],[1,2,3,4]] as flat data plus head flags
    const std::vector<int> data{1, 2, 6, 1, 2, 3, 4}, flags{1, 0, 1, 1, 0, 0, 0};
    const thrust::device_vector<int> d_data(data.begin(), data.end()), d_flags(flags.begin(), flags.end());
    thrust::device_vector<int> d_out(data.size());
    dpt::segmented_exclusive_scan(thrust::device, d_data.begin(), d_data.end(), d_flags.begin(), d_out.begin(), 0);
    ch.examples.push_back({"segmented exclusive scan (+)", "[[1, 2], [6], [1, 2, 3, 4]]",
                           show_segments(to_host(d_out), flags), "[[0, 1], [0], [0, 1, 3, 6]]"});
  }
  {
    // the flag representation: data 1..8 with flags 1 0 0 1 0 0 0 0 is [[1,2,3],[4,5,6,7,8]]
    const std::vector<int> data{1, 2, 3, 4, 5, 6, 7, 8}, flags{1, 0, 0, 1, 0, 0, 0, 0};
    const thrust::device_vector<int> d_data(data.begin(), data.end()), d_flags(flags.begin(), flags.end());
    thrust::device_vector<int> d_out(data.size());
    ch.examples.push_back({"flags 1 0 0 1 0 0 0 0 over data 1..8", "data 1..8, flags 1 0 0 1 0 0 0 0",
                           show_segments(to_host(d_data), flags), "[[1, 2, 3], [4, 5, 6, 7, 8]]"});
    dpt::segmented_inclusive_scan(thrust::device, d_data.begin(), d_data.end(), d_flags.begin(), d_out.begin());
    ch.examples.push_back({"segmented inclusive scan (+) of it", "[[1, 2, 3], [4, 5, 6, 7, 8]]",
                           show_segments(to_host(d_out), flags), "[[1, 3, 6], [4, 9, 15, 22, 30]]"});
  }
  {
    // gather: output[i] = input[index[i]]; scatter: output[index[i]] = input[i]
    const std::vector<int> index{3, 7, 4, 1};
    const thrust::device_vector<int> d_index(index.begin(), index.end());
    thrust::device_vector<int> gathered(index.size());
    thrust::gather(thrust::device, d_index.begin(), d_index.end(), d_a.begin(), gathered.begin());
    ch.examples.push_back({"gather with index [3, 7, 4, 1]", a_text, show(to_host(gathered)), "[6, 8, 3, 8]"});

    const std::vector<int> reversal{7, 6, 5, 4, 3, 2, 1, 0};
    const thrust::device_vector<int> d_reversal(reversal.begin(), reversal.end());
    thrust::scatter(thrust::device, d_a.begin(), d_a.end(), d_reversal.begin(), out.begin());
    ch.examples.push_back(
        {"scatter with index [7, 6, 5, 4, 3, 2, 1, 0]", a_text, show(to_host(out)), "[8, 2, 9, 3, 6, 4, 8, 3]"});
  }
  {
    // groupByKey: sort by key, then find where each key's group starts
    const std::vector<int> keys{1, 2, 2, 1, 3, 1, 1, 2}, values{3, 8, 4, 6, 3, 9, 2, 8};
    const thrust::device_vector<int> d_keys(keys.begin(), keys.end()), d_values(values.begin(), values.end());
    thrust::device_vector<int> d_keys_out(n), d_offsets(n + 1), d_values_out(n);
    const auto ends = dpt::group_by_key(thrust::device, d_keys.begin(), d_keys.end(), d_values.begin(),
                                        d_keys_out.begin(), d_offsets.begin(), d_values_out.begin());
    const thrust::host_vector<int> k(d_keys_out.begin(), ends.keys_end), offsets(d_offsets.begin(), ends.offsets_end),
        v = to_host(d_values_out);
    std::string groups;
    for (std::size_t g = 0; g < k.size(); ++g) {
      groups += (g ? ", (" : "(") + std::to_string(k[g]) + ", " +
                show(std::vector<int>(v.begin() + offsets[g], v.begin() + offsets[g + 1])) + ")";
    }
    ch.examples.push_back({"groupByKey", "(1,3) (2,8) (2,4) (1,6) (3,3) (1,9) (1,2) (2,8)", groups,
                           "(1, [3, 6, 9, 2]), (2, [8, 4, 8]), (3, [3])"});
  }
  return ch;
}

}  // namespace dpt::tour
