// dpt/detail/spin_lock.hpp — a mutual-exclusion lock that is safe in every Thrust device system, GPUs included.
//
// A lock word is an int: 0 free, 1 held, accessed only through cuda::atomic_ref (libcu++), which compiles to
// GPU atomics under nvcc and to the host's atomics elsewhere.
//
// The classic spin lock
//     while (!try_acquire()) {}   critical();   release();
// deadlocks on GPUs without independent thread scheduling (before Volta): the lanes of a warp that lost the
// race keep the warp inside the loop, so the lane that won never gets to run critical() and release. Since
// Volta each thread has its own program counter and the classic form makes progress, but only because the
// scheduler eventually runs the winner. with_lock puts the critical section INSIDE the acquiring loop, so the
// winning lane finishes and releases in the same pass in which it acquired, whatever the scheduler does:
//     done = false;  while (!done) { if (try_acquire()) { critical(); release(); done = true; } }
// Acquire on success and release on unlock order the critical section's plain reads and writes between
// holders. Test-and-test-and-set: a plain load first, so waiters spin on their cached copy instead of
// hammering the word with compare-and-swap. On a GPU a waiter that failed also sleeps a little (16 ns, doubling
// to 1 µs) before it looks again: without that, the polling of thousands of waiters queues at the lock word's
// L2 slice in front of the holder's release, and every hand-off waits for the queue.
#pragma once

#include <cuda/atomic>
#include <nv/target>

#include <dpt/config.hpp>

namespace dpt::detail {

template <class Critical>
DPT_HOST_DEVICE void with_lock(int& lock_word, Critical&& critical) {
  ::cuda::atomic_ref<int, ::cuda::thread_scope_device> lock(lock_word);
  bool done = false;
  [[maybe_unused]] unsigned sleep_ns = 16;
  while (!done) {
    int expected = 0;
    if (lock.load(::cuda::std::memory_order_relaxed) == 0 &&
        lock.compare_exchange_strong(expected, 1, ::cuda::std::memory_order_acquire,
                                     ::cuda::std::memory_order_relaxed)) {
      critical();
      lock.store(0, ::cuda::std::memory_order_release);
      done = true;
    } else {
      NV_IF_TARGET(NV_PROVIDES_SM_70, (__nanosleep(sleep_ns); sleep_ns = sleep_ns < 1024 ? 2 * sleep_ns : sleep_ns;))
    }
  }
}

}  // namespace dpt::detail
