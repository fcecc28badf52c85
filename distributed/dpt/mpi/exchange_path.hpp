// dpt/mpi/exchange_path.hpp — how dpt::mpi's exchanges hand arrays in device memory to MPI.
//
// The exchanges that move arrays (the SpMV halo, the grid's particles) pass MPI pointers into Thrust device
// vectors. On the CPU device systems (OMP, TBB, CPP) device memory is host memory, and MPI reads and writes the
// vectors where they are. On CUDA they live in GPU memory, which only a CUDA-aware MPI may be given (Open MPI or
// MPICH built with CUDA, MVAPICH2-GDR, Cray MPICH: they move GPU memory themselves, over NVLink or GPUDirect RDMA
// where the hardware has it). Handed a GPU pointer, any other MPI reads it as host memory and crashes. So:
//
//   in_place     MPI is given the device vectors' own memory: every CPU system; CUDA when the MPI is CUDA-aware
//   host_staged  each exchange copies what it sends to a pinned host buffer, exchanges host buffers, and copies
//                what arrived back to the device: CUDA with an MPI that is not CUDA-aware (Debian's Open MPI)
//
// Whether an MPI is CUDA-aware is asked of the library: Open MPI's <mpi-ext.h> says whether it was built with CUDA
// support (MPIX_CUDA_AWARE_SUPPORT) and MPIX_Query_cuda_support() whether that support is on in this run; MPICH
// answers MPIX_GPU_query_support(MPIX_GPU_SUPPORT_CUDA, …). An MPI that offers neither counts as not CUDA-aware.
// The CPU systems may be asked to stage too (host to host): the tests run the staging code that way, with no GPU.
#pragma once

#include <mpi.h>
#if __has_include(<mpi-ext.h>)
#  include <mpi-ext.h>
#endif

#include <dpt/config.hpp>

namespace dpt::mpi {

enum class exchange_path {
  in_place,    // MPI reads and writes the device vectors' memory
  host_staged  // through pinned host copies, one each way per exchange
};

// Whether this MPI library reads and writes CUDA device memory. Call after MPI_Init.
inline bool mpi_is_cuda_aware() {
#if defined(MPIX_CUDA_AWARE_SUPPORT) && MPIX_CUDA_AWARE_SUPPORT
  return MPIX_Query_cuda_support() == 1;
#elif defined(MPIX_GPU_SUPPORT_CUDA)
  int supported = 0;
  return MPIX_GPU_query_support(MPIX_GPU_SUPPORT_CUDA, &supported) == MPI_SUCCESS && supported == 1;
#else
  return false;
#endif
}

// The path this build's exchanges take: in place on the CPU systems and with a CUDA-aware MPI, staged otherwise.
inline exchange_path default_exchange_path() {
  return !DPT_CUDA_DEVICE_SYSTEM || mpi_is_cuda_aware() ? exchange_path::in_place : exchange_path::host_staged;
}

// Whether this build may take `path`: staging always works; in place on CUDA needs a CUDA-aware MPI.
inline bool can_take(exchange_path path) {
  return path == exchange_path::host_staged || !DPT_CUDA_DEVICE_SYSTEM || mpi_is_cuda_aware();
}

// The path in words, for the apps' reports: "host memory, in place (omp)", "GPU memory, in place (CUDA-aware MPI)",
// "GPU memory staged through pinned host buffers (MPI is not CUDA-aware)".
inline const char* describe(exchange_path path) {
  if (path == exchange_path::in_place) {
    return DPT_CUDA_DEVICE_SYSTEM ? "GPU memory, in place (CUDA-aware MPI)" : "host memory, in place";
  }
  return DPT_CUDA_DEVICE_SYSTEM ? "GPU memory staged through pinned host buffers (MPI is not CUDA-aware)"
                                : "host memory staged through host buffers (chosen, not needed)";
}

}  // namespace dpt::mpi
