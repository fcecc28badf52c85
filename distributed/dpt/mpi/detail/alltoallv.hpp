// dpt/mpi/detail/alltoallv.hpp — MPI_Alltoallv between arrays in device memory, along the communicator's exchange
// path (dpt/mpi/exchange_path.hpp): MPI reads and writes the arrays in place, or copies of them in host buffers.
#pragma once

#include <algorithm>
#include <cstddef>
#include <thrust/copy.h>
#include <thrust/memory.h>
#include <thrust/universal_vector.h>
#include <vector>

#include <dpt/mpi/communicator.hpp>

#if DPT_CUDA_DEVICE_SYSTEM
#  include <cuda_runtime_api.h>

#  include <dpt/detail/cuda_check.hpp>
#endif

namespace dpt::mpi::detail {

// The host copies a staged exchange goes through, kept by a caller that exchanges again (a plan) so that they are
// allocated once. Pinned on CUDA: the copies to and from the device then run at the bus's speed.
template <class T>
struct staging_buffers {
  thrust::universal_host_pinned_vector<T> sent, received;
};

// Where a vector's elements are, for MPI: null when it has none (Thrust's data() reads the first element).
template <class Vector>
auto address_of(Vector& v) -> decltype(thrust::raw_pointer_cast(v.data())) {
  return v.empty() ? nullptr : thrust::raw_pointer_cast(v.data());
}

// The extent of an exchange's buffer, counts[r] elements at offsets[r] for each rank r: its largest end.
inline std::size_t extent_of(const std::vector<int>& counts, const std::vector<int>& offsets) {
  std::size_t extent = 0;
  for (std::size_t r = 0; r < counts.size(); ++r) {
    if (counts[r] > 0) extent = std::max(extent, static_cast<std::size_t>(offsets[r]) + counts[r]);
  }
  return extent;
}

// Sends send_counts[r] elements from send + send_offsets[r] to each rank r, and receives receive_counts[r] elements
// from each rank r at receive + receive_offsets[r]; `send` and `receive` point to device memory. Collective.
template <class T>
void alltoallv(const communicator& comm, const T* send, const std::vector<int>& send_counts,
               const std::vector<int>& send_offsets, T* receive, const std::vector<int>& receive_counts,
               const std::vector<int>& receive_offsets, staging_buffers<T>& staging) {
  const auto exchange = [&](const T* from, T* to) {
    check(MPI_Alltoallv(from, send_counts.data(), send_offsets.data(), datatype<T>(), to, receive_counts.data(),
                        receive_offsets.data(), datatype<T>(), comm.get()),
          "MPI_Alltoallv");
  };
  if (comm.path() == exchange_path::in_place) {
#if DPT_CUDA_DEVICE_SYSTEM
    // a CUDA-aware MPI reads and writes device memory on streams of its own, which do not wait for the kernels that
    // wrote `send` (a dpt::context's calls return before their work is done) nor for those still reading `receive`
    dpt::detail::cuda_check(cudaDeviceSynchronize(), "cudaDeviceSynchronize (before MPI_Alltoallv)");
#endif
    exchange(send, receive);
    return;
  }
  // staged: the outgoing elements to the host, the host buffers exchanged, what arrived back to the device
  const auto sent = extent_of(send_counts, send_offsets), received = extent_of(receive_counts, receive_offsets);
  staging.sent.resize(sent);
  staging.received.resize(received);
  const auto device_send = thrust::device_pointer_cast(send);
  thrust::copy(device_send, device_send + static_cast<std::ptrdiff_t>(sent), staging.sent.begin());
  exchange(address_of(staging.sent), address_of(staging.received));
  thrust::copy(staging.received.begin(), staging.received.end(), thrust::device_pointer_cast(receive));
}

}  // namespace dpt::mpi::detail
