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
// work. A run ended by SIGINT, SIGTERM or SIGHUP removes its temporaries too (unless the signal is ignored or
// handled by the app), then ends as the signal would have.
#pragma once

#include <fstream>
#include <ostream>
#include <sstream>
#include <string>

namespace dpt::app {

class output_file {
 public:
  explicit output_file(std::string path);
  output_file(const output_file&) = delete;
  output_file& operator=(const output_file&) = delete;
  ~output_file();

  std::ostream& stream() { return direct_ ? static_cast<std::ostream&>(buffer_) : file_; }
  // Flushes, checks for write errors, and renames into place (or writes the device); throws on failure.
  void commit();

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
  bool direct_ = false, committed_ = false;
};

}  // namespace dpt::app
