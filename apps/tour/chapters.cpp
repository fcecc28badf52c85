// The tour's table of contents: one line per chapter, in lecture order.
#include "tour/example.hpp"

namespace dpt::tour {

std::vector<chapter> all_chapters() {
  return {
      basics_chapter(), spmv_chapter(), scan_kernels_chapter(), grid_chapter(), histogram_chapter(),
  };
}

}  // namespace dpt::tour
