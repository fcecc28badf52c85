// Catch2's runner for the dpt::mpi tests, one per rank under mpiexec: MPI around the session, and every rank's
// verdict combined, so that a failure on any rank fails every rank (and mpiexec). Catch2 prints each rank's own
// failures, prefixed by nothing: CAPTURE names the rank.
#include <mpi.h>

#include "test_support/catch_session.hpp"

int main(int argc, char* argv[]) {
  int provided = 0;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
  const int mine = dpt::test::run_catch_session(argc, argv);
  int worst = 0;
  MPI_Allreduce(&mine, &worst, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  MPI_Finalize();
  return worst;
}
