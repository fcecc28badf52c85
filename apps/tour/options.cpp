// dpt-tour's options: the --help text and the parser.
#include "tour/options.hpp"

#include <dpt/config.hpp>
#include "app_support/command_line.hpp"
#include "app_support/errors.hpp"

namespace dpt::app {

std::string tour_usage() {
  return std::string(
             "usage: dpt-tour\n\nPrints each worked example of the data-parallel-thinking lecture, computed by dpt\n"
             "on this build's Thrust device system (") +
         device_system_name() +
         "), next to the slide's answer.\n"
         "Exit status: 0 when every line matches, 1 otherwise, 2 for an argument (it takes none).\n";
}

std::optional<tour_options> parse_tour_options(int argc, const char* const argv[]) {
  command_line app{"dpt-tour"};
  bool help = false;
  app.add_flag("-h,--help", help);  // -h too, as dpt-tour has always taken it
  const auto positionals = parse_command_line(app, argc, argv);
  if (help) return std::nullopt;
  if (!positionals.empty()) throw input_error("unknown argument " + quote_token(positionals.front()) + " (try --help)");
  return tour_options{};
}

}  // namespace dpt::app
