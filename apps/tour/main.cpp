// dpt-tour — every worked example of the lecture, computed by dpt on the device system this build targets,
// printed next to the slide's answer. Exits 1 if any line differs from the slide.
#include <cstdio>

#include <dpt/config.hpp>
#include "app_support/errors.hpp"
#include "tour/example.hpp"
#include "tour/options.hpp"

namespace {

// Every chapter's examples, each beside the slide's answer.
int run(const dpt::app::tour_options&) {
  std::printf("dpt-tour: the lecture's worked examples on the %s device system\n", dpt::device_system_name());
  int total = 0, mismatches = 0;
  for (const auto& chapter : dpt::tour::all_chapters()) {
    std::printf("\n== %s ==\n", chapter.name.c_str());
    for (const auto& ex : chapter.examples) {
      ++total;
      std::printf("%s %s\n    input:    %s\n    computed: %s\n", ex.matches() ? "[ok]  " : "[DIFF]", ex.title.c_str(),
                  ex.input.c_str(), ex.computed.c_str());
      if (!ex.matches()) {
        ++mismatches;
        std::printf("    slide:    %s\n", ex.expected.c_str());
      }
    }
  }
  std::printf("\n%d examples, %d match the slide, %d differ\n", total, total - mismatches, mismatches);
  return mismatches == 0 ? 0 : 1;
}

}  // namespace

int main(int argc, char* argv[]) {
  return dpt::app::run_app("dpt-tour", [&] {
    const auto o = dpt::app::parse_tour_options(argc, argv);
    if (!o) {
      std::fputs(dpt::app::tour_usage().c_str(), stdout);
      return 0;
    }
    return run(*o);
  });
}
