#include "support/output_file.hpp"

#include <cstdio>
#include <unistd.h>

#include "support/errors.hpp"

namespace dpt::app {

output_file::output_file(std::string path)
    : path_(std::move(path)), temporary_path_(path_ + ".partial-" + std::to_string(::getpid())) {
  stream_.open(temporary_path_, std::ios::out | std::ios::trunc | std::ios::binary);
  if (!stream_) throw input_error(path_ + ": cannot open for writing");
}

output_file::~output_file() {
  if (!committed_) {
    stream_.close();
    std::remove(temporary_path_.c_str());
  }
}

void output_file::commit() {
  stream_.flush();
  const bool written = static_cast<bool>(stream_);
  stream_.close();
  if (!written || stream_.fail() || std::rename(temporary_path_.c_str(), path_.c_str()) != 0) {
    std::remove(temporary_path_.c_str());
    throw std::runtime_error(path_ + ": writing failed");
  }
  committed_ = true;
}

}  // namespace dpt::app
