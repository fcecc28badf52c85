// The apps' memory check (apps/app_support/memory.hpp): the kernel's and the cgroups' text read right, a run's peak
// taken over its phases (summed when the device is the host, each memory on its own with a GPU), and a refusal
// that names what was needed and what was there.
#include <catch2/catch.hpp>

#include <algorithm>
#include <fstream>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#if defined(__linux__)
#include <sys/resource.h>
#endif

#include "app_support/memory.hpp"

namespace {

using dpt::app::device_memory;
using dpt::app::memory_need;

constexpr double KiB = 1024, GiB = 1024 * 1024 * 1024;

// The message of the insufficient_memory that require_memory throws, or "fits".
std::string refusal(const std::vector<memory_need>& phases, std::optional<double> host, const device_memory& device) {
  try {
    dpt::app::require_memory(phases, "m.mtx", host, device);
  } catch (const dpt::app::insufficient_memory& e) {
    return e.what();
  }
  return "fits";
}

}  // namespace

TEST_CASE("memory: /proc/meminfo gives MemAvailable plus free swap", "[app_support]" DPT_BACKEND_TAG) {
  SECTION("both fields count, in KiB, wherever they stand") {
    const std::string meminfo =
        "MemTotal:       24576000 kB\nMemFree:          100 kB\nMemAvailable:   "
        "24288732 kB\nSwapTotal:   8 kB\nSwapFree:              8 kB\n";
    CHECK(dpt::app::meminfo_available(meminfo) == (24288732 + 8) * KiB);
  }
  SECTION("no swap line is no swap") {
    CHECK(dpt::app::meminfo_available("MemAvailable: 4 kB") == 4 * KiB);
  }
  SECTION("a kernel without MemAvailable (or an unreadable file) gives nothing to check against") {
    CHECK_FALSE(dpt::app::meminfo_available("MemTotal: 100 kB\nMemFree: 50 kB\n").has_value());
    CHECK_FALSE(dpt::app::meminfo_available("").has_value());
    CHECK_FALSE(dpt::app::meminfo_available("MemAvailableX: 5 kB\nMemAvailable: many kB\n").has_value());
  }
}

TEST_CASE("memory: a cgroup's headroom is its limit less its usage", "[app_support]" DPT_BACKEND_TAG) {
  CHECK(dpt::app::cgroup_headroom("1073741824\n", "73741824\n") == 1e9);
  CHECK(dpt::app::cgroup_headroom("100\n", "250\n") == 0);  // over the limit already (v1 can be)
  CHECK(dpt::app::cgroup_headroom("100", "") == 100);       // no usage file: the limit itself
  CHECK_FALSE(dpt::app::cgroup_headroom("max\n", "5\n").has_value());
  CHECK_FALSE(dpt::app::cgroup_headroom("", "").has_value());
}

TEST_CASE("memory: /proc/self/cgroup names the memory controller's v2 and v1 paths", "[app_support]" DPT_BACKEND_TAG) {
  SECTION("a v1 hierarchy beside the unified one") {
    const auto paths =
        dpt::app::memory_cgroup_paths("9:name=systemd:/\n5:devices:/\n4:memory:/jobs/42\n2:cpu,cpuacct:/\n0::/\n");
    CHECK(paths.v2 == "/");
    CHECK(paths.v1 == "/jobs/42");
  }
  SECTION("memory among other controllers of one v1 line") {
    CHECK(dpt::app::memory_cgroup_paths("3:cpu,memory:/a\n").v1 == "/a");
    CHECK(dpt::app::memory_cgroup_paths("3:memoryx:/a\n").v1.empty());
  }
  SECTION("v2 only") {
    const auto paths = dpt::app::memory_cgroup_paths("0::/user.slice/session-1.scope\n");
    CHECK(paths.v2 == "/user.slice/session-1.scope");
    CHECK(paths.v1.empty());
  }
}

TEST_CASE("memory: this machine's available memory is known and positive", "[app_support]" DPT_BACKEND_TAG) {
#if defined(__linux__)
  const auto available = dpt::app::available_host_memory();
  REQUIRE(available.has_value());
  CHECK(*available > 0);
#endif
}

#if defined(__linux__)
namespace {

// This process's VmSize in /proc/self/status, in bytes.
double virtual_memory_size() {
  std::ifstream status("/proc/self/status");
  std::string key;
  double kib = 0;
  for (std::string line; std::getline(status, line);) {
    std::istringstream fields(line);
    if (fields >> key >> kib && key == "VmSize:") return kib * KiB;
  }
  FAIL("no VmSize in /proc/self/status");
  return 0;
}

}  // namespace

TEST_CASE("memory: what is available is the least of its bounds, so a lower address-space limit lowers it",
          "[app_support]" DPT_BACKEND_TAG) {
  const auto unlimited = dpt::app::available_host_memory();
  REQUIRE(unlimited.has_value());
  rlimit saved{};
  REQUIRE(getrlimit(RLIMIT_AS, &saved) == 0);
  // A limit 256 MiB above what the process maps now: below MemAvailable on any machine that runs the tests.
  const double headroom = std::min(256 * KiB * KiB, *unlimited / 2);
  rlimit lowered = saved;
  lowered.rlim_cur = static_cast<rlim_t>(virtual_memory_size() + headroom);
  if (saved.rlim_cur != RLIM_INFINITY && saved.rlim_cur <= lowered.rlim_cur) {
    SUCCEED("RLIMIT_AS is already that low here");
    return;
  }
  REQUIRE(setrlimit(RLIMIT_AS, &lowered) == 0);
  const auto limited = dpt::app::available_host_memory();
  REQUIRE(setrlimit(RLIMIT_AS, &saved) == 0);
  REQUIRE(limited.has_value());
  CAPTURE(*unlimited, *limited, headroom);
  CHECK(*limited <= headroom + 16 * KiB * KiB);  // the process maps a little more or less between the two reads
  CHECK(*limited >= headroom - 16 * KiB * KiB);
}
#endif

TEST_CASE("memory: sizes print in binary units", "[app_support]" DPT_BACKEND_TAG) {
  CHECK(dpt::app::format_bytes(1) == "1 byte");
  CHECK(dpt::app::format_bytes(17) == "17 bytes");
  CHECK(dpt::app::format_bytes(3 * KiB) == "3.0 KiB");
  CHECK(dpt::app::format_bytes(512 * KiB * KiB) == "512.0 MiB");
  CHECK(dpt::app::format_bytes(88e9) == "82.0 GiB");
  CHECK(dpt::app::format_bytes(24e12) == "21.8 TiB");
  CHECK(dpt::app::format_bytes(4096 * KiB * GiB) == "4096.0 TiB");
}

TEST_CASE("memory: require_memory takes a run's peak over its phases", "[app_support]" DPT_BACKEND_TAG) {
  const device_memory host_device{true, 0};
  SECTION("with the device on the host, each phase's host and device bytes add up") {
    CHECK(refusal({{10, 0}, {0, 10}}, 10.0, host_device) == "fits");
    CHECK(refusal({{6, 5}}, 10.0, host_device) ==
          "not enough memory: m.mtx needs at least 11 bytes of memory, "
          "10 bytes is available");
  }
  SECTION("with a GPU, each memory is checked against its own peak") {
    CHECK(refusal({{10, 1}, {1, 10}}, 10.0, {false, 10}) == "fits");
    CHECK(refusal({{11, 1}, {1, 10}}, 10.0, {false, 10}) ==
          "not enough memory: m.mtx needs at least 11 bytes of host memory, 10 bytes is available");
    CHECK(refusal({{10, 1}, {1, 12 * GiB}}, 10.0, {false, 1.5 * GiB}) ==
          "not enough memory: m.mtx needs at least 12.0 GiB of GPU memory, 1.5 GiB is free");
  }
  SECTION("host memory that could not be read is not checked; a GPU's always is") {
    CHECK(refusal({{1e18, 0}}, std::nullopt, host_device) == "fits");
    CHECK(refusal({{1e18, 2}}, std::nullopt, {false, 1}) ==
          "not enough memory: m.mtx needs at least 2 bytes of GPU memory, 1 byte is free");
  }
  SECTION("a run of no phases needs nothing") {
    CHECK(refusal({}, 0.0, host_device) == "fits");
  }
}
