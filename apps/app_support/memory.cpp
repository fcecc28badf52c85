#include "app_support/memory.hpp"

#include <algorithm>
#include <charconv>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <sys/resource.h>

namespace dpt::app {
namespace {

std::string read_text(const std::string& path) {
  std::ifstream in(path);
  if (!in) return {};
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

std::string_view trimmed(std::string_view text) {
  const auto first = text.find_first_not_of(" \t\r\n");
  if (first == std::string_view::npos) return {};
  const auto last = text.find_last_not_of(" \t\r\n");
  return text.substr(first, last - first + 1);
}

std::optional<double> whole_number(std::string_view text) {
  text = trimmed(text);
  unsigned long long value = 0;
  const auto [end, status] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (text.empty() || status != std::errc() || end != text.data() + text.size()) return std::nullopt;
  return static_cast<double>(value);
}

// Calls visit(line) for each line of `text`, without its '\n', until visit returns true.
template <class Visit>
void for_each_line(std::string_view text, Visit visit) {
  for (std::size_t line_start = 0; line_start < text.size();) {
    const auto line_end = std::min(text.find('\n', line_start), text.size());
    if (visit(text.substr(line_start, line_end - line_start))) return;
    line_start = line_end + 1;
  }
}

// The smaller of two bounds, either of which may be unknown.
std::optional<double> least_of(std::optional<double> a, std::optional<double> b) {
  if (!a) return b;
  if (!b) return a;
  return std::min(*a, *b);
}

// The value of "Key:  123 kB" in /proc/meminfo or /proc/self/status, in bytes.
std::optional<double> kibibyte_field(std::string_view text, std::string_view key) {
  std::optional<double> bytes;
  for_each_line(text, [&](std::string_view line) {
    if (line.size() <= key.size() || line.substr(0, key.size()) != key || line[key.size()] != ':') return false;
    auto value = trimmed(line.substr(key.size() + 1));
    if (value.size() >= 2 && value.substr(value.size() - 2) == "kB") value = value.substr(0, value.size() - 2);
    if (const auto kib = whole_number(value)) bytes = *kib * 1024;
    return true;
  });
  return bytes;
}

// The headroom under every memory cgroup from `path` up to the root of the hierarchy mounted at `mount`.
std::optional<double> cgroup_tree_headroom(const std::string& mount, std::string path, const char* limit_file,
                                           const char* usage_file) {
  std::optional<double> least;
  while (true) {
    const std::string dir = mount + (path == "/" ? "" : path);
    least = least_of(least, cgroup_headroom(read_text(dir + "/" + limit_file), read_text(dir + "/" + usage_file)));
    if (path.empty() || path == "/") break;
    const auto slash = path.find_last_of('/');
    path = slash == 0 || slash == std::string::npos ? "/" : path.substr(0, slash);
  }
  return least;
}

// The headroom under a resource limit on this process's virtual memory (`status_field`: VmSize or VmData).
std::optional<double> rlimit_headroom(int resource, std::string_view status, std::string_view status_field) {
  rlimit limit{};
  if (getrlimit(resource, &limit) != 0 || limit.rlim_cur == RLIM_INFINITY) return std::nullopt;
  const auto used = kibibyte_field(status, status_field);
  return std::max(0.0, static_cast<double>(limit.rlim_cur) - used.value_or(0));
}

}  // namespace

std::optional<double> meminfo_available(std::string_view meminfo) {
  const auto available = kibibyte_field(meminfo, "MemAvailable");
  if (!available) return std::nullopt;
  return *available + kibibyte_field(meminfo, "SwapFree").value_or(0);
}

std::optional<double> cgroup_headroom(std::string_view limit, std::string_view usage) {
  const auto bytes_limit = whole_number(limit), bytes_used = whole_number(usage);
  if (!bytes_limit) return std::nullopt;  // "max", or no such file
  return std::max(0.0, *bytes_limit - bytes_used.value_or(0));
}

cgroup_paths memory_cgroup_paths(std::string_view proc_self_cgroup) {
  cgroup_paths paths;
  for_each_line(proc_self_cgroup, [&](std::string_view line) {
    // "ID:CONTROLLERS:PATH"; v2 is "0::PATH", v1's memory controller is "N:memory:PATH" (or "N:a,memory:PATH")
    const auto first = line.find(':');
    const auto second = first == std::string_view::npos ? first : line.find(':', first + 1);
    if (second == std::string_view::npos) return false;
    const auto controllers = line.substr(first + 1, second - first - 1);
    const std::string path(trimmed(line.substr(second + 1)));
    if (line.substr(0, first) == "0" && controllers.empty()) {
      paths.v2 = path;
      return false;
    }
    for (std::size_t c = 0; c <= controllers.size();) {
      const auto comma = std::min(controllers.find(',', c), controllers.size());
      if (controllers.substr(c, comma - c) == "memory") paths.v1 = path;
      c = comma + 1;
    }
    return false;
  });
  return paths;
}

std::optional<double> available_host_memory() {
  std::optional<double> least = meminfo_available(read_text("/proc/meminfo"));
  const auto cgroups = memory_cgroup_paths(read_text("/proc/self/cgroup"));
  if (!cgroups.v2.empty())
    least = least_of(least, cgroup_tree_headroom("/sys/fs/cgroup", cgroups.v2, "memory.max", "memory.current"));
  if (!cgroups.v1.empty()) {
    least = least_of(least, cgroup_tree_headroom("/sys/fs/cgroup/memory", cgroups.v1, "memory.limit_in_bytes",
                                                 "memory.usage_in_bytes"));
  }
  const auto status = read_text("/proc/self/status");
  least = least_of(least, rlimit_headroom(RLIMIT_AS, status, "VmSize"));
  return least_of(least, rlimit_headroom(RLIMIT_DATA, status, "VmData"));
}

std::string format_bytes(double bytes) {
  static constexpr const char* units[] = {"KiB", "MiB", "GiB", "TiB"};
  if (bytes < 1024) return std::to_string(static_cast<long long>(bytes)) + (bytes == 1 ? " byte" : " bytes");
  int unit = 0;
  for (bytes /= 1024; bytes >= 1024 && unit < 3; ++unit) bytes /= 1024;
  char text[48];
  std::snprintf(text, sizeof text, "%.1f %s", bytes, units[unit]);
  return text;
}

void require_memory(const std::vector<memory_need>& phases, const std::string& what,
                    std::optional<double> available_host, const device_memory& device) {
  double host_peak = 0, device_peak = 0;
  for (const auto& phase : phases) {
    host_peak = std::max(host_peak, phase.host_bytes + (device.is_host ? phase.device_bytes : 0));
    device_peak = std::max(device_peak, phase.device_bytes);
  }
  if (available_host && host_peak > *available_host) {
    throw insufficient_memory("not enough memory: " + what + " needs at least " + format_bytes(host_peak) +
                              (device.is_host ? " of memory, " : " of host memory, ") + format_bytes(*available_host) +
                              " is available");
  }
  if (!device.is_host && device_peak > device.free_bytes) {
    throw insufficient_memory("not enough memory: " + what + " needs at least " + format_bytes(device_peak) +
                              " of GPU memory, " + format_bytes(device.free_bytes) + " is free");
  }
}

}  // namespace dpt::app
