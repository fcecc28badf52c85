// dpt/mpi/communicator.hpp — the ranks a distributed dpt algorithm runs on, and MPI's errors as exceptions.
//
// Every dpt::mpi algorithm takes a communicator first (the ranks that hold one slice each of the sequence), then
// the execution policy each rank runs dpt's single-node algorithm under, then its slice: rank r holds elements
// [start_r, start_r + n_r) of the whole sequence, in rank order. Slices may have any length, zero included.
//
//   whole sequence  [3, 1, 7, 0, 4, 1, 6, 3]
//   rank 0: [3, 1, 7]    rank 1: [0, 4, 1]    rank 2: [6, 3]      (block_partition(8, 3), dpt/mpi/partition.hpp)
//
// MPI calls return error codes; here a failed call throws dpt::mpi::error naming the call (the communicator is
// switched to MPI_ERRORS_RETURN, so MPI does not abort the job first). The communicator also says how exchanges
// hand device memory to MPI (dpt/mpi/exchange_path.hpp): in place, or staged through host buffers on CUDA when the
// MPI is not CUDA-aware.
#pragma once

#include <cstdint>
#include <cstdlib>
#include <mpi.h>
#include <stdexcept>
#include <string>
#include <type_traits>

#include <dpt/mpi/exchange_path.hpp>

namespace dpt::mpi {

// A failed MPI call.
struct error : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// Throws dpt::mpi::error for an MPI return code other than MPI_SUCCESS.
inline void check(int code, const char* call) {
  if (code == MPI_SUCCESS) return;
  char text[MPI_MAX_ERROR_STRING];
  int length = 0;
  MPI_Error_string(code, text, &length);
  throw error(std::string(call) + " failed: " + std::string(text, static_cast<std::size_t>(length)));
}

// MPI's predefined type for an arithmetic T.
template <class T>
MPI_Datatype datatype() {
  static_assert(std::is_arithmetic_v<T>, "dpt::mpi::datatype: an arithmetic type");
  if constexpr (std::is_same_v<T, float>)
    return MPI_FLOAT;
  else if constexpr (std::is_same_v<T, double>)
    return MPI_DOUBLE;
  else if constexpr (std::is_same_v<T, bool>)
    return MPI_CXX_BOOL;
  else if constexpr (std::is_signed_v<T>) {
    if constexpr (sizeof(T) == 1)
      return MPI_INT8_T;
    else if constexpr (sizeof(T) == 2)
      return MPI_INT16_T;
    else if constexpr (sizeof(T) == 4)
      return MPI_INT32_T;
    else
      return MPI_INT64_T;
  } else {
    if constexpr (sizeof(T) == 1)
      return MPI_UINT8_T;
    else if constexpr (sizeof(T) == 2)
      return MPI_UINT16_T;
    else if constexpr (sizeof(T) == 4)
      return MPI_UINT32_T;
    else
      return MPI_UINT64_T;
  }
}

// The ranks of an MPI communicator (not owned: MPI_COMM_WORLD by default), and the path its exchanges take: the
// build's default (default_exchange_path), or one chosen; std::invalid_argument for in place on CUDA with an MPI
// that is not CUDA-aware.
class communicator {
 public:
  communicator() : communicator(MPI_COMM_WORLD) {}
  explicit communicator(MPI_Comm comm) : communicator(comm, default_exchange_path()) {}
  communicator(MPI_Comm comm, exchange_path path) : comm_(comm), path_(path) {
    check(MPI_Comm_set_errhandler(comm_, MPI_ERRORS_RETURN), "MPI_Comm_set_errhandler");
    check(MPI_Comm_rank(comm_, &rank_), "MPI_Comm_rank");
    check(MPI_Comm_size(comm_, &size_), "MPI_Comm_size");
    if (!can_take(path)) {
      throw std::invalid_argument("dpt::mpi::communicator: this MPI is not CUDA-aware; exchanges must be staged");
    }
  }
  MPI_Comm get() const { return comm_; }
  int rank() const { return rank_; }
  int size() const { return size_; }
  exchange_path path() const { return path_; }

 private:
  MPI_Comm comm_;
  exchange_path path_;
  int rank_ = 0, size_ = 1;
};

// MPI for the life of the object: MPI_Init_thread (MPI_THREAD_FUNNELED: only the main thread calls MPI, the device
// system's threads never do) and MPI_Finalize, unless MPI was initialised already.
class environment {
 public:
  environment(int& argc, char**& argv) {
    int initialized = 0;
    check(MPI_Initialized(&initialized), "MPI_Initialized");
    if (initialized) return;
    int provided = 0;
    check(MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided), "MPI_Init_thread");
    owns_ = true;
  }
  environment(const environment&) = delete;
  environment& operator=(const environment&) = delete;
  ~environment() {
    if (owns_) MPI_Finalize();
  }

 private:
  bool owns_ = false;
};

// True when this process was started by an MPI launcher (mpiexec, mpirun, srun): Open MPI's, MPICH's and PMIx's
// variables. A program started alone then need not initialise MPI at all (Open MPI's singleton start takes ~0.4 s).
inline bool launched_by_mpiexec() {
  for (const char* variable : {"OMPI_COMM_WORLD_SIZE", "PMIX_RANK", "PMI_SIZE", "PMI_RANK"}) {
    if (std::getenv(variable) != nullptr) return true;
  }
  return false;
}

}  // namespace dpt::mpi
