// Tour chapter: sparse matrix × vector, the lecture's example of gather + map + segmented scan, and the
// conversion from unordered triplets to CSR as sort + reduce_by_key + search.
#include <cuda/functional>
#include <thrust/device_vector.h>
#include <thrust/gather.h>
#include <thrust/host_vector.h>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/scan.h>
#include <thrust/scatter.h>
#include <thrust/transform.h>
#include <vector>

#include <dpt/coo_to_csr.hpp>
#include <dpt/spmv.hpp>
#include "tour/example.hpp"
#include "tour/to_host.hpp"

namespace dpt::tour {
namespace {

struct multiply {
  DPT_HOST_DEVICE int operator()(int a, int b) const { return a * b; }
};

}  // namespace

chapter spmv_chapter() {
  // The slide's 4 × 4 matrix in CSR form, and x = [1, 2, 3, 4].
  const std::vector<int> values{3, 1, 2, 4, 2, 6, 8}, cols{0, 2, 1, 2, 1, 2, 3}, row_offsets{0, 2, 3, 4, 7};
  const std::vector<int> x{1, 2, 3, 4};
  const thrust::device_vector<int> d_values(values.begin(), values.end()), d_cols(cols.begin(), cols.end()),
      d_offsets(row_offsets.begin(), row_offsets.end()), d_x(x.begin(), x.end());
  const std::string csr = "values=" + show(values) + " cols=" + show(cols) + " row_offsets=" + show(row_offsets);
  const std::string input = csr + ", x=" + show(x);
  chapter ch{"sparse matrix-vector product (CSR)", {}};

  // step 1, gather: x at each entry's column
  thrust::device_vector<int> gathered(values.size());
  thrust::gather(thrust::device, d_cols.begin(), d_cols.end(), d_x.begin(), gathered.begin());
  ch.examples.push_back(
      {"gather x[cols[k]]", "cols=" + show(cols) + ", x=" + show(x), show(to_host(gathered)), "[1, 3, 2, 3, 2, 3, 4]"});

  // step 2, map: multiply by the values
  thrust::device_vector<int> products(values.size());
  thrust::transform(thrust::device, d_values.begin(), d_values.end(), gathered.begin(), products.begin(), multiply{});
  ch.examples.push_back({"map values[k] * gathered[k]", "values=" + show(values) + ", gathered=[1, 3, 2, 3, 2, 3, 4]",
                         show(to_host(products)), "[3, 3, 4, 12, 4, 18, 32]"});

  // step 3, row ids: the slide's head flags carrying row numbers — scatter each row's number to where it starts
  // (every row of this matrix has entries), then a max-scan carries it over the row
  thrust::device_vector<int> row_ids(values.size(), 0);
  const auto rows = thrust::make_counting_iterator(0);
  thrust::scatter(thrust::device, rows, rows + 4, d_offsets.begin(), row_ids.begin());
  ch.examples.push_back({"row heads: row r written at row_offsets[r]", "row_offsets=" + show(row_offsets),
                         show(to_host(row_ids)), "[0, 0, 1, 2, 3, 0, 0]"});
  thrust::inclusive_scan(thrust::device, row_ids.begin(), row_ids.end(), row_ids.begin(), ::cuda::maximum<>{});
  ch.examples.push_back({"row id of each entry: inclusive max-scan of the heads", "[0, 0, 1, 2, 3, 0, 0]",
                         show(to_host(row_ids)), "[0, 0, 1, 2, 3, 3, 3]"});

  // steps 4-5: dpt::spmv does all of it — segmented reduction by row id = last element of each segmented scan
  const auto A = dpt::make_csr_view(d_offsets.data(), d_cols.data(), d_values.data(), 4, 4, 7);
  thrust::device_vector<int> y(4);
  dpt::spmv(thrust::device, A, d_x.data(), y.data());
  ch.examples.push_back(
      {"y = A x (dpt::spmv: gather, map, segmented reduce)", input, show(to_host(y)), "[6, 4, 12, 54]"});
  dpt::spmv_row_per_thread(thrust::device, A, d_x.data(), y.data());
  ch.examples.push_back({"y = A x, one task per row (for comparison)", input, show(to_host(y)), "[6, 4, 12, 54]"});

  {
    // The same matrix as unordered triplets, (3,3) split into 5 + 3: sort, sum repeats, search row starts.
    const std::vector<int> rows{3, 0, 3, 1, 2, 3, 0, 3}, coo_cols{3, 2, 1, 1, 2, 2, 0, 3},
        coo_values{5, 1, 2, 2, 4, 6, 3, 3};
    const thrust::device_vector<int> d_rows(rows.begin(), rows.end()), d_coo_cols(coo_cols.begin(), coo_cols.end()),
        d_coo_values(coo_values.begin(), coo_values.end());
    thrust::device_vector<int> offsets_out(5), cols_out(rows.size()), values_out(rows.size());
    const auto nnz =
        dpt::coo_to_csr(thrust::device, d_rows.begin(), d_rows.end(), d_coo_cols.begin(), d_coo_values.begin(), 4,
                        offsets_out.begin(), cols_out.begin(), values_out.begin());
    const thrust::host_vector<int> c(cols_out.begin(), cols_out.begin() + nnz),
        v(values_out.begin(), values_out.begin() + nnz);
    ch.examples.push_back({"COO -> CSR (sort by (row, col), sum repeats, find row starts)",
                           "rows=" + show(rows) + " cols=" + show(coo_cols) + " values=" + show(coo_values),
                           "values=" + show(v) + " cols=" + show(c) + " row_offsets=" + show(to_host(offsets_out)),
                           csr});
  }
  return ch;
}

}  // namespace dpt::tour
