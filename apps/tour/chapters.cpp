// The tour's table of contents: one line per chapter, in lecture order.
#include "tour/example.hpp"

namespace dpt::tour {

std::vector<chapter> all_chapters() {
  return {
      basics_chapter(),
  };
}

}  // namespace dpt::tour
