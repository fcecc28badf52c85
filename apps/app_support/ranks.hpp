// The apps under mpiexec: how a run spread over ranks keeps the apps' contract (one line of error, exit status 2 for
// bad input, all of the output or none).
//
// Rank 0 reads the inputs, writes the outputs and prints; every rank computes on its slice. A step that fails on
// any rank fails on every rank alike (together): the lowest failing rank's error, of the same kind and with the
// same message, is thrown on each, so that all ranks exit with the same status, none is left waiting in a
// collective call for a rank that gave up, and rank 0 alone prints the line (the other ranks do not print
// errors: prints_errors, app_support/errors.hpp). Open MPI's mpiexec adds its own paragraph about a non-zero exit
// status unless run as `mpiexec -q`.
#pragma once

#include <chrono>
#include <cstdio>
#include <new>
#include <stdexcept>
#include <string>

#include <dpt/mpi/communicator.hpp>
#include "app_support/errors.hpp"
#include "app_support/timing.hpp"

namespace dpt::app {

// What a failed step was, as it travels between ranks.
enum class failure_kind : int { none = 0, input = 1, check = 2, memory = 3, other = 4 };

// Runs `step` (on every rank, or on rank 0 alone when `root_only`), then throws on every rank if it threw on any.
template <class Step>
void together(const dpt::mpi::communicator& comm, Step&& step, bool root_only = false) {
  failure_kind kind = failure_kind::none;
  std::string message;
  if (!root_only || comm.rank() == 0) {
    try {
      step();
    } catch (const input_error& e) {
      kind = failure_kind::input, message = e.what();
    } catch (const check_failure& e) {
      kind = failure_kind::check, message = e.what();
    } catch (const std::bad_alloc&) {
      kind = failure_kind::memory;
    } catch (const std::exception& e) {
      kind = failure_kind::other, message = e.what();
    }
  }
  // the lowest rank that failed, if any (MPI_MINLOC over "0 if failed")
  struct {
    int ok, rank;
  } mine{kind == failure_kind::none, comm.rank()}, first{};
  dpt::mpi::check(MPI_Allreduce(&mine, &first, 1, MPI_2INT, MPI_MINLOC, comm.get()), "MPI_Allreduce");
  if (first.ok) return;
  // its error, on every rank
  int sent[2] = {static_cast<int>(kind), static_cast<int>(message.size())};
  dpt::mpi::check(MPI_Bcast(sent, 2, MPI_INT, first.rank, comm.get()), "MPI_Bcast");
  message.resize(static_cast<std::size_t>(sent[1]));
  dpt::mpi::check(MPI_Bcast(message.data(), sent[1], MPI_CHAR, first.rank, comm.get()), "MPI_Bcast");
  const std::string where = first.rank == 0 ? "" : "rank " + std::to_string(first.rank) + ": ";
  switch (static_cast<failure_kind>(sent[0])) {
    case failure_kind::input:
      throw input_error(message);
    case failure_kind::check:
      throw check_failure(message);
    case failure_kind::memory:
      if (first.rank == comm.rank()) throw std::bad_alloc();
      throw std::runtime_error(where + "not enough memory for this input (an allocation failed)");
    default:
      throw std::runtime_error(where + message);
  }
}

// Milliseconds from a barrier before `body` to one after it (the device synchronised): the time of the slowest rank.
template <class Body>
double ms_between_barriers(const dpt::mpi::communicator& comm, Body&& body) {
  dpt::mpi::check(MPI_Barrier(comm.get()), "MPI_Barrier");
  const auto start = std::chrono::steady_clock::now();
  body();
  synchronize_device();
  dpt::mpi::check(MPI_Barrier(comm.get()), "MPI_Barrier");
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
}

// An app's main under mpiexec: MPI for the run, errors printed by rank 0 alone (and --help's text), and
// `run(options, comm)` for the options `parse(argc, argv)` gives (nothing for --help).
template <class Parse, class Run>
int main_across_ranks(const char* program, const char* usage, int argc, char* argv[], Parse parse, Run run) {
  dpt::mpi::environment mpi(argc, argv);
  const dpt::mpi::communicator comm;
  prints_errors = comm.rank() == 0;
  return run_app(program, [&] {
    const auto options = parse(argc, argv);
    if (!options) {
      if (comm.rank() == 0) std::fputs(usage, stdout);
      return 0;
    }
    return run(*options, comm);
  });
}

}  // namespace dpt::app
