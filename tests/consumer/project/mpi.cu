// A consumer of the installed dpt::mpi: each rank holds a slice of 1, 2, …, n and the ranks scan it together
// (dpt::mpi::inclusive_scan); rank 0 checks its first element. Run it under mpiexec -n N.
#include <cstdio>
#include <thrust/device_vector.h>
#include <thrust/execution_policy.h>
#include <thrust/sequence.h>

#include <dpt/mpi/communicator.hpp>
#include <dpt/mpi/scan.hpp>

int main(int argc, char* argv[]) {
  dpt::mpi::environment mpi(argc, argv);
  const dpt::mpi::communicator comm;
  // rank r holds r·4 + 1 … r·4 + 4
  thrust::device_vector<long long> slice(4), sums(4);
  thrust::sequence(slice.begin(), slice.end(), 4LL * comm.rank() + 1);
  dpt::mpi::inclusive_scan(comm, thrust::device, slice.begin(), slice.end(), sums.begin());
  const long long last = sums[3], n = 4LL * (comm.rank() + 1);
  if (last != n * (n + 1) / 2) {
    std::printf("rank %d: scan ends at %lld, expected %lld\n", comm.rank(), last, n * (n + 1) / 2);
    return 1;
  }
  if (comm.rank() == 0) std::printf("dpt::mpi scan across %d ranks: ok\n", comm.size());
  return 0;
}
