// Every worked example that dpt-tour prints is also a test: the computed line must equal the slide's.
#include <catch2/catch.hpp>

#include "tour/example.hpp"

TEST_CASE("every tour example matches the slide", "[tour]" DPT_BACKEND_TAG) {
  for (const auto& chapter : dpt::tour::all_chapters()) {
    for (const auto& ex : chapter.examples) {
      INFO(chapter.name << ": " << ex.title);
      CHECK(ex.computed == ex.expected);
    }
  }
}
