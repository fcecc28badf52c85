// An output that starts `offset` elements into a buffer, so that a walk storing whole vectors meets it
// unaligned; the elements before it are a guard that must stay untouched. For a scan run in place the output
// starts as a copy of the input, and the input is read from it.
#pragma once

#include <algorithm>
#include <cstddef>
#include <vector>

namespace dpt::test {

template <class T>
class offset_output {
 public:
  offset_output(const std::vector<T>& data, std::ptrdiff_t offset, bool in_place)
      : buffer_(data.size() + offset, untouched), offset_(offset), in_(data.data()) {
    if (in_place) {
      std::copy(data.begin(), data.end(), out());
      in_ = out();
    }
  }

  const T* in() const { return in_; }
  T* out() { return buffer_.data() + offset_; }
  std::vector<T> written() const { return {buffer_.begin() + offset_, buffer_.end()}; }
  bool guard_untouched() const {
    return std::all_of(buffer_.begin(), buffer_.begin() + offset_, [](const T& x) { return x == untouched; });
  }

 private:
  static constexpr T untouched = static_cast<T>(-7);
  std::vector<T> buffer_;
  std::ptrdiff_t offset_;
  const T* in_;
};

}  // namespace dpt::test
