// dpt/detail/temporary_array.hpp — scratch storage that belongs to an execution policy's system.
//
// Algorithms that must materialise an intermediate sequence (segment ids, scan positions, sorted keys) take it
// from the caller's execution policy with thrust::get_temporary_buffer, so a custom allocator or CUDA stream
// attached to the policy is honoured, and give it back when they return. The storage is not initialised: every
// algorithm here writes a temporary in full before reading it.
#pragma once

#include <cstddef>
#include <cuda/std/iterator>
#include <new>
#include <thrust/memory.h>

namespace dpt::detail {

template <class T, class DerivedPolicy>
class temporary_array {
 public:
  using pointer = thrust::pointer<T, DerivedPolicy>;

  temporary_array(const thrust::detail::execution_policy_base<DerivedPolicy>& exec, std::ptrdiff_t size)
      : exec_(exec), size_(size) {
    if (size_ > 0) {
      auto buffer = thrust::get_temporary_buffer<T>(exec_, size_);
      if (buffer.second < size_) {
        thrust::return_temporary_buffer(exec_, buffer.first, buffer.second);
        throw std::bad_alloc();
      }
      data_ = buffer.first;
    }
  }
  temporary_array(temporary_array&& other) noexcept : exec_(other.exec_), size_(other.size_), data_(other.data_) {
    other.size_ = 0;
  }
  temporary_array(const temporary_array&) = delete;
  temporary_array& operator=(const temporary_array&) = delete;
  temporary_array& operator=(temporary_array&&) = delete;
  ~temporary_array() {
    if (size_ > 0) {
      thrust::return_temporary_buffer(exec_, data_, size_);
    }
  }

  pointer begin() const noexcept { return data_; }
  pointer end() const noexcept { return data_ + size_; }
  std::ptrdiff_t size() const noexcept { return size_; }

 private:
  const thrust::detail::execution_policy_base<DerivedPolicy>& exec_;
  std::ptrdiff_t size_;
  pointer data_{};
};

// Reads one element of a device sequence on the host. Dereferencing a Thrust pointer or device_vector iterator
// on the host copies the element out (a device-to-host copy under CUDA); raw pointers are host memory here.
template <class Iterator>
auto read_element(Iterator position) {
  using value_type = ::cuda::std::iter_value_t<Iterator>;
  return static_cast<value_type>(*position);
}

}  // namespace dpt::detail
