// An output file that appears whole or not at all.
//
// A regular file (or a new one) is written to a temporary file beside it, and commit() renames the temporary
// into place; if the app fails first, the destructor removes the temporary, so a failed run never leaves a
// partial or stale-looking output behind. A symbolic link is followed and the file it names is written (the
// temporary beside that file, so the rename stays on one file system); the link itself stays. What is neither
// a regular file nor a directory (a character device such as /dev/null, a FIFO, the terminal or pipe behind
// /dev/stdout) cannot be replaced by a rename: the text is kept in memory and written to it directly at commit,
// through the app's own stdout or stderr when it is the same file, else opened to append. It too gets nothing
// from a run that fails, and a failed write (/dev/full) is an error. A directory, a path whose directory does
// not exist, a file that cannot be written, an empty path and a file that another output of the run already
// names are input_errors from the constructor, so an app that opens its outputs first reports them before its
// work. So is an output that is one of the run's inputs, however it is reached (another spelling, a symbolic link,
// a hard link): it is compared by device and inode, or by its folder and name while it does not exist yet, and
// never replaced. An input that is not a regular file (/dev/stdin, a pipe) is not replaced by an output, so it
// may share a device with one (a terminal as /dev/stdin and /dev/stdout).
//
// A replaced file keeps its permission bits, and its owner and group where the process may set them (root may;
// another user's file then becomes that user's). A run killed by SIGKILL, which no handler sees, leaves its
// temporary `OUT.partial-PID-N`; the next output to OUT removes those whose process is gone (never one of its run's
// inputs). A run ended by SIGINT, SIGTERM or SIGHUP removes its temporaries too (unless the signal is ignored or
// handled by the app), then ends as the signal would have.
#pragma once

#include <fstream>
#include <initializer_list>
#include <ostream>
#include <sstream>
#include <string>
#include <vector>

namespace dpt::app {

// A path from the command line with the option or argument that gave it ("--out", "MATRIX"), for messages.
struct named_path {
  std::string option;
  std::string path;
};

class output_file {
 public:
  explicit output_file(std::string path) : output_file(named_path{{}, std::move(path)}, {}) {}
  // `inputs`: the files this run reads, which the output must not replace.
  output_file(const named_path& output, const std::vector<named_path>& inputs);
  output_file(const output_file&) = delete;
  output_file& operator=(const output_file&) = delete;
  ~output_file();

  std::ostream& stream() { return direct_ ? static_cast<std::ostream&>(buffer_) : file_; }
  // Flushes, checks for write errors, and renames into place (or writes the device); throws on failure. It is
  // prepare(), which writes the temporary out and checks it, then publish(), which renames it into place or writes
  // the device; commit_together() below commits several outputs of one run in those two steps.
  void commit();
  void prepare();
  void publish();
  // True for a device, FIFO or terminal, written at publish(); false for a file, renamed into place.
  bool writes_directly() const { return direct_; }

 private:
  void write_directly();
  void release();  // gives up this output's claim on its file and its signal slot

  std::string path_;            // as given, for messages
  std::string target_;          // where the text goes: path_ with symbolic links followed
  std::string temporary_path_;  // beside target_; empty when writing directly
  std::ofstream file_;          // the temporary file
  std::stringstream buffer_;    // the text for a direct write
  std::string identity_;        // the file, folder links resolved, while this output claims it
  int pending_slot_ = -1;       // where the signal handler finds temporary_path_
  bool direct_ = false, prepared_ = false, committed_ = false;
};

// Commits the outputs of one run (null entries skipped), all or none where a file system allows: every
// temporary is written out and checked first, so that a write error leaves no output; then the direct writes,
// which a device can still refuse (/dev/full), while no file has been replaced; then the renames into place,
// which within one folder do not fail short of the folder changing under the run. Throws as commit() does; an
// output not published by then is removed by its destructor.
void commit_together(std::initializer_list<output_file*> files);

}  // namespace dpt::app
