// An output file that appears whole or not at all. Writing goes to a temporary file beside the target;
// commit() renames it into place. If the app fails first, the destructor removes the temporary, so a failed
// run never leaves a partial or stale-looking output behind.
#pragma once

#include <fstream>
#include <string>

namespace dpt::app {

class output_file {
 public:
  explicit output_file(std::string path);
  output_file(const output_file&) = delete;
  output_file& operator=(const output_file&) = delete;
  ~output_file();

  std::ofstream& stream() { return stream_; }
  void commit();  // flushes, checks for write errors, and renames into place; throws on failure

 private:
  std::string path_, temporary_path_;
  std::ofstream stream_;
  bool committed_ = false;
};

}  // namespace dpt::app
