// dpt-tour — every worked example of the lecture, computed by dpt on the device system this build targets,
// printed next to the slide's answer. Exits 1 if any line differs from the slide.
#include <cstdio>
#include <cstring>
#include <exception>

#include <dpt/config.hpp>
#include "tour/example.hpp"

int main(int argc, char* argv[]) {
  if (argc > 1 && (std::strcmp(argv[1], "--help") == 0 || std::strcmp(argv[1], "-h") == 0)) {
    std::printf(
        "usage: dpt-tour\n\nPrints each worked example of the data-parallel-thinking lecture, computed by dpt\n"
        "on this build's Thrust device system (%s), next to the slide's answer.\n"
        "Exit status: 0 when every line matches, 1 otherwise, 2 for an argument (it takes none).\n",
        dpt::device_system_name());
    return 0;
  }
  if (argc > 1) {
    std::fprintf(stderr, "dpt-tour: error: unknown argument '%s' (try --help)\n", argv[1]);
    return 2;
  }
  try {
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
  } catch (const std::exception& e) {
    std::fprintf(stderr, "dpt-tour: error: %s\n", e.what());
    return 1;
  }
}
