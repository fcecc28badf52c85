// Memory a run needs, checked before it allocates. On Linux an allocation larger than the free memory usually
// succeeds (the kernel overcommits), and the process is killed without a message once it touches the pages: a
// 64-byte Matrix Market file declaring 2·10^9 rows ran dpt-spmv out of memory and into SIGKILL after 88 s. So an
// app adds up, phase by phase, the arrays its input makes it hold at once and calls require_memory first; an input that
// cannot fit gets one line naming what it needs and what is available, and exit status 1 (as a failed allocation does:
// the same input may fit on a larger machine).
//
//   require_memory({{40e9, 0}, {24e9, 40e9}}, "big.mtx (2000000000 x 2000000000)", this_builds_device_memory())
//   → dpt-spmv: error: not enough memory: big.mtx (2000000000 x 2000000000) needs at least 59.6 GiB of memory,
//     22.9 GiB is available           (a CPU build: its device arrays are on the host; a CUDA build checks each)
//
// What counts as available on the host is the least of: the kernel's MemAvailable plus free swap, the headroom
// under each memory cgroup limit of this process and its ancestors (v2 memory.max, v1 memory.limit_in_bytes),
// and the headroom under RLIMIT_AS and RLIMIT_DATA. On the device (CUDA builds) it is cudaMemGetInfo's free
// memory. Where none of this can be read the check passes and a failed allocation is still reported by run_app.
#pragma once

#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace dpt::app {

// One phase of a run, in bytes: a lower bound, the arrays it is sure to hold at the same time.
struct memory_need {
  double host_bytes = 0;
  double device_bytes = 0;  // on the GPU in CUDA builds; on the host (added to host_bytes) in CPU builds
};

// The input needs more memory than there is. run_app reports it as it does any std::exception: its message on one
// line, exit status 1.
struct insufficient_memory : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// Bytes of host memory this process can still allocate and touch; nullopt when nothing could be read.
std::optional<double> available_host_memory();

// The pieces of available_host_memory, on the text of the files it reads (so that tests can feed them).
// /proc/meminfo: MemAvailable + SwapFree ("MemAvailable:  24288732 kB"); nullopt without MemAvailable.
std::optional<double> meminfo_available(std::string_view meminfo);
// A cgroup's limit less its usage, from memory.max / memory.limit_in_bytes and memory.current /
// memory.usage_in_bytes; nullopt for "max" (no limit) or text that is not a number.
std::optional<double> cgroup_headroom(std::string_view limit, std::string_view usage);
// The cgroup paths of this process's memory controller in /proc/self/cgroup's text: the v2 path ("0::/a/b") and the
// v1 one ("4:memory:/a/b"); empty where there is none.
struct cgroup_paths {
  std::string v2, v1;
};
cgroup_paths memory_cgroup_paths(std::string_view proc_self_cgroup);

// "59.6 GiB", "512.0 MiB", "3.0 KiB", "17 bytes": one decimal from KiB up, to TiB at most
std::string format_bytes(double bytes);

// Where this build keeps its device arrays: in host memory (the OMP, TBB and CPP device systems) or on a GPU
// with `free_bytes` free. device_memory.hpp says which, for the translation unit that includes it.
struct device_memory {
  bool is_host = true;
  double free_bytes = 0;
};

// Throws insufficient_memory if `what`, whose run goes through `phases`, needs more than is available at its peak.
// With the device on the host, the peak is the largest phase's host + device bytes, against `available_host`
// (nullopt: unknown, not checked). With a GPU, the host's peak is the largest phase's host bytes, against
// `available_host`, and the GPU's the largest phase's device bytes, against its free memory.
void require_memory(const std::vector<memory_need>& phases, const std::string& what,
                    std::optional<double> available_host, const device_memory& device);

// The same, against available_host_memory().
inline void require_memory(const std::vector<memory_need>& phases, const std::string& what,
                           const device_memory& device) {
  require_memory(phases, what, available_host_memory(), device);
}

}  // namespace dpt::app
