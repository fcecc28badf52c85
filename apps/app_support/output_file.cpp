#include "app_support/output_file.hpp"

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <dirent.h>
#include <iterator>
#include <limits.h>
#include <mutex>
#include <optional>
#include <set>
#include <stdexcept>
#include <sys/stat.h>
#include <unistd.h>
#if defined(__linux__)
#  include <sys/vfs.h>
#endif

#include "app_support/errors.hpp"

namespace dpt::app {

namespace {

std::string directory_of(const std::string& path) {
  const auto slash = path.find_last_of('/');
  if (slash == std::string::npos) return ".";
  return slash == 0 ? "/" : path.substr(0, slash);
}

// Whether the link at `path` lives in /proc, where links name open files (/dev/stdout leads to
// /proc/self/fd/1) rather than places in the file system: it is opened as it is, never resolved and replaced.
bool in_proc(const std::string& path) {
#if defined(__linux__)
  struct statfs fs {};
  constexpr long proc_super_magic = 0x9fa0;  // PROC_SUPER_MAGIC of <linux/magic.h>
  return ::statfs(directory_of(path).c_str(), &fs) == 0 && static_cast<long>(fs.f_type) == proc_super_magic;
#else
  return path.compare(0, 6, "/proc/") == 0 || path.compare(0, 8, "/dev/fd/") == 0;
#endif
}

std::string reason(int error) {
  return std::strerror(error);
}

std::runtime_error writing_failed(const std::string& path, int error) {
  return std::runtime_error(path + ": writing failed" + (error ? ": " + reason(error) : std::string()));
}

// Hands the buffered text to `write` in chunks, stopping at the first failure.
template <class Write>
void drain(std::stringstream& buffer, Write&& write) {
  char chunk[1 << 16];
  for (std::streamsize got; (got = buffer.rdbuf()->sgetn(chunk, sizeof chunk)) > 0;) {
    if (!write(chunk, static_cast<std::size_t>(got))) return;
  }
}

// The temporaries of this run's outputs, for a signal that ends the run (SIGINT, SIGTERM, SIGHUP) to remove:
// fixed storage, because a signal handler may only make async-signal-safe calls (unlink, signal, raise).
struct pending_temporary {
  std::atomic<int> state{0};  // free, being filled, or a live temporary
  char path[PATH_MAX];
};
enum : int { slot_free, slot_filling, slot_live };
pending_temporary pending[16];

extern "C" void remove_temporaries_and_die(int signal) {
  for (auto& p : pending) {
    if (p.state.load(std::memory_order_acquire) == slot_live) ::unlink(p.path);
  }
  std::signal(signal, SIG_DFL);  // then end as the signal would have
  std::raise(signal);
}

// Handles the signals that end a run, except one the process ignores (nohup's SIGHUP) or handles itself (a test
// runner, say). Looked at again for each output: the process may have changed them in between.
void remove_temporaries_on_signals() {
  for (const int signal : {SIGINT, SIGTERM, SIGHUP}) {
    struct sigaction current {};
    if (::sigaction(signal, nullptr, &current) != 0 || current.sa_handler != SIG_DFL) continue;
    struct sigaction handler {};
    handler.sa_handler = remove_temporaries_and_die;
    sigemptyset(&handler.sa_mask);
    ::sigaction(signal, &handler, nullptr);
  }
}

// Takes a slot for `path`; -1 when all are taken (more outputs than an app has), and then only the destructor
// removes that temporary.
int add_pending(const std::string& path) {
  if (path.size() >= PATH_MAX) return -1;
  remove_temporaries_on_signals();
  for (int i = 0; i < static_cast<int>(std::size(pending)); ++i) {
    int expected = slot_free;
    if (!pending[i].state.compare_exchange_strong(expected, slot_filling)) continue;
    std::memcpy(pending[i].path, path.c_str(), path.size() + 1);
    pending[i].state.store(slot_live, std::memory_order_release);
    return i;
  }
  return -1;
}

void remove_pending(int slot) {
  if (slot >= 0) pending[slot].state.store(slot_free, std::memory_order_release);
}

// The files this run's outputs will replace, each named once: the folder with its links resolved, then the name.
std::mutex claimed_mutex;
std::set<std::string> claimed;

std::string file_identity(const std::string& target) {
  char* folder = ::realpath(directory_of(target).c_str(), nullptr);
  if (!folder) return target;
  std::string identity = std::string(folder) + "/" + target.substr(target.find_last_of('/') + 1);
  std::free(folder);
  return identity;
}

// What makes two paths one file an output could replace: device and inode for a regular file (every spelling,
// symbolic and hard link alike), the folder with links resolved and the name for a file that does not exist yet;
// nothing for what an output never replaces (a device, a pipe, a folder).
std::optional<std::string> replaceable_identity(const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) return "new " + file_identity(path);
  if (!S_ISREG(st.st_mode)) return std::nullopt;
  return "file " + std::to_string(st.st_dev) + ":" + std::to_string(st.st_ino);
}

std::string option_and_path(const named_path& p) {
  return p.option.empty() ? p.path : p.option + " " + p.path;
}

// An output that would replace one of the run's inputs is refused before anything is written.
void refuse_replacing_an_input(const named_path& output, const std::string& target,
                               const std::vector<named_path>& inputs) {
  const auto identity = replaceable_identity(target);
  for (const auto& input : inputs) {
    if (!input.path.empty() && identity && replaceable_identity(input.path) == identity) {
      throw input_error(option_and_path(output) + ": the same file as the input " + option_and_path(input) +
                        "; an output must not replace an input");
    }
  }
}

// Removes the temporaries `NAME.partial-PID-N` beside `target` whose process is gone: left by a run that SIGKILL
// ended. Another live process's temporaries, anything that is not a regular file, and the run's inputs (however
// they are named) stay.
void remove_stale_temporaries(const std::string& target, const std::vector<named_path>& inputs) {
  const std::string folder = directory_of(target);
  const std::string prefix = target.substr(target.find_last_of('/') + 1) + ".partial-";
  DIR* dir = ::opendir(folder.c_str());
  if (!dir) return;
  while (const dirent* entry = ::readdir(dir)) {
    const std::string name = entry->d_name;
    if (name.compare(0, prefix.size(), prefix) != 0) continue;
    char* end = nullptr;
    const char* digits = name.c_str() + prefix.size();
    const long pid = std::strtol(digits, &end, 10);
    if (end == digits || *end != '-' || pid <= 0 || ::kill(static_cast<pid_t>(pid), 0) == 0 || errno != ESRCH) continue;
    const std::string path = folder + "/" + name;
    struct stat st {};
    if (::lstat(path.c_str(), &st) != 0 || !S_ISREG(st.st_mode)) continue;
    const auto identity = replaceable_identity(path);
    const bool an_input = std::any_of(inputs.begin(), inputs.end(), [&](const named_path& input) {
      return !input.path.empty() && replaceable_identity(input.path) == identity;
    });
    if (!an_input) ::unlink(path.c_str());
  }
  ::closedir(dir);
}

// Gives the temporary that replaces `target` the permission bits, owner and group of the file it replaces; an
// owner the process may not set (another user's file, unless root) is left as it is.
void keep_mode_and_owner(const std::string& target, const std::string& temporary) {
  struct stat old {};
  if (::stat(target.c_str(), &old) != 0 || !S_ISREG(old.st_mode)) return;
  if (old.st_uid != ::geteuid() || old.st_gid != ::getegid()) {
    [[maybe_unused]] const int ignored = ::chown(temporary.c_str(), old.st_uid, old.st_gid);
  }
  if (::chmod(temporary.c_str(), old.st_mode & 07777) != 0) throw writing_failed(temporary, errno);
}

}  // namespace

output_file::output_file(const named_path& output, const std::vector<named_path>& inputs)
    : path_(output.path), target_(path_) {
  if (path_.empty()) throw input_error("the output path is empty");
  // Follow symbolic links to the file they name, as open() would, one link at a time.
  struct stat st {};
  bool exists = false;
  for (int links = 0;; ++links) {
    if (::lstat(target_.c_str(), &st) != 0) {
      if (errno != ENOENT) throw input_error(path_ + ": cannot write: " + reason(errno));
      break;  // a new file (the target of a dangling link, perhaps): its directory must exist
    }
    if (!S_ISLNK(st.st_mode)) {
      exists = true;
      break;
    }
    if (in_proc(target_)) {
      direct_ = true;
      break;
    }
    if (links == 40) throw input_error(path_ + ": cannot write: " + reason(ELOOP));
    char buffer[PATH_MAX];
    const auto length = ::readlink(target_.c_str(), buffer, sizeof buffer);
    if (length < 0) throw input_error(path_ + ": cannot write: " + reason(errno));
    if (static_cast<std::size_t>(length) == sizeof buffer) {
      throw input_error(path_ + ": cannot write: " + reason(ENAMETOOLONG));
    }
    const std::string link(buffer, static_cast<std::size_t>(length));
    target_ = link.front() == '/' ? link : directory_of(target_) + "/" + link;
  }
  if (exists && S_ISDIR(st.st_mode)) throw input_error(path_ + ": is a directory");
  if (exists && !S_ISREG(st.st_mode)) direct_ = true;
  if (direct_) {
    if (::access(target_.c_str(), W_OK) != 0) throw input_error(path_ + ": cannot open for writing: " + reason(errno));
    return;
  }
  if (!exists) {
    struct stat directory {};
    const auto where = directory_of(target_);
    if (::stat(where.c_str(), &directory) != 0) {
      throw input_error(path_ + ": cannot create a file in " + where + ": " + reason(errno));
    }
    if (!S_ISDIR(directory.st_mode)) throw input_error(path_ + ": " + where + ": " + reason(ENOTDIR));
  }
  refuse_replacing_an_input(output, target_, inputs);
  remove_stale_temporaries(target_, inputs);
  // Two outputs of one run to the same file (--out and --png alike, say) would leave only the one committed last.
  {
    const std::lock_guard<std::mutex> lock(claimed_mutex);
    identity_ = file_identity(target_);
    if (!claimed.insert(identity_).second) throw input_error(path_ + ": the same file as another output of this run");
  }
  static std::atomic<unsigned> outputs{0};  // unique per output, whatever becomes of the slots
  temporary_path_ = target_ + ".partial-" + std::to_string(::getpid()) + "-" + std::to_string(outputs++);
  pending_slot_ = add_pending(temporary_path_);
  file_.open(temporary_path_, std::ios::out | std::ios::trunc | std::ios::binary);
  if (!file_) {
    const int error = errno;
    release();
    throw input_error(path_ + ": cannot open for writing: " + reason(error));
  }
}

output_file::~output_file() {
  if (!committed_ && !direct_) {
    file_.close();
    std::remove(temporary_path_.c_str());
  }
  release();
}

void output_file::release() {
  remove_pending(pending_slot_);
  pending_slot_ = -1;
  if (!identity_.empty()) {
    const std::lock_guard<std::mutex> lock(claimed_mutex);
    claimed.erase(identity_);
    identity_.clear();
  }
}

void output_file::write_directly() {
  // The app's own standard output or error (/dev/stdout, say) is written through its stream, which keeps the
  // order of what the app prints and, when it is redirected to a file, the file's offset.
  std::fflush(stdout);
  struct stat target {};
  if (::stat(target_.c_str(), &target) == 0) {
    for (std::FILE* standard : {stdout, stderr}) {
      struct stat st {};
      if (::fstat(::fileno(standard), &st) != 0 || st.st_dev != target.st_dev || st.st_ino != target.st_ino) {
        continue;
      }
      errno = 0;
      drain(buffer_, [&](const char* data, std::size_t size) { return std::fwrite(data, 1, size, standard) == size; });
      if (std::fflush(standard) != 0 || std::ferror(standard)) throw writing_failed(path_, errno);
      return;
    }
  }
  // Anything else is opened to append: a FIFO or a device does not mind, and a file that the shell opened as
  // descriptor N, named /dev/fd/N, is continued rather than truncated.
  std::ofstream out(target_, std::ios::app | std::ios::binary);
  if (!out) throw std::runtime_error(path_ + ": cannot open for writing: " + reason(errno));
  errno = 0;
  drain(buffer_, [&](const char* data, std::size_t size) {
    return static_cast<bool>(out.write(data, static_cast<std::streamsize>(size)));
  });
  out.flush();
  const int error = errno;
  out.close();
  if (out.fail()) throw writing_failed(path_, error);
}

void output_file::prepare() {
  if (direct_ || prepared_) return;
  errno = 0;
  file_.flush();
  const bool written = static_cast<bool>(file_);
  const int error = errno;
  file_.close();
  if (!written || file_.fail()) {
    std::remove(temporary_path_.c_str());
    throw writing_failed(path_, error);
  }
  try {
    keep_mode_and_owner(target_, temporary_path_);
  } catch (...) {
    std::remove(temporary_path_.c_str());
    throw;
  }
  prepared_ = true;
}

void output_file::publish() {
  if (direct_) {
    write_directly();
    committed_ = true;
    return;
  }
  prepare();
  if (std::rename(temporary_path_.c_str(), target_.c_str()) != 0) {
    const int rename_error = errno;
    std::remove(temporary_path_.c_str());
    throw writing_failed(path_, rename_error);
  }
  committed_ = true;
  remove_pending(pending_slot_);  // the temporary is the output now
  pending_slot_ = -1;
}

void output_file::commit() {
  prepare();
  publish();
}

void commit_together(std::initializer_list<output_file*> files) {
  // every temporary written out and checked: a full disk or an I/O error shows here, before any output appears
  for (auto* file : files) {
    if (file) file->prepare();
  }
  // the direct writes, which can fail (/dev/full) and cannot be taken back, while no file has been replaced; then
  // the renames, which within one folder do not fail
  for (auto* file : files) {
    if (file && file->writes_directly()) file->publish();
  }
  for (auto* file : files) {
    if (file && !file->writes_directly()) file->publish();
  }
}

}  // namespace dpt::app
