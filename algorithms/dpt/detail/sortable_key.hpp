// dpt/detail/sortable_key.hpp — keys that Thrust's CPU sorts put in the right order.
//
// CCCL 3.0.1's sequential radix sort — the CPP system's sort, and each core's part of the OMP and TBB sorts —
// orders negative int keys wrongly: its encoder for int works in 64 bits (NVIDIA/cccl#4919).
//
//   thrust::sort(thrust::cpp::par, [3, −5, −1]) → [3, −5, −1]
//
// Flipping the sign bit maps int onto unsigned int in the same order (−5 → 0x7ffffffb, −1 → 0x7fffffff,
// 3 → 0x80000003), and unsigned keys sort right, so an algorithm that sorts caller-given int keys on a CPU
// system sorts their flipped images and flips them back on the way out. CUDA's sort (CUB's radix sort) and the
// other key types are left alone.
#pragma once

#include <thrust/system/cpp/detail/execution_policy.h>
#include <type_traits>

#include <dpt/config.hpp>

namespace dpt::detail {

// True when the policy's system sorts on the CPU: CPP, and OMP and TBB, whose policies derive from CPP's.
template <class DerivedPolicy>
inline constexpr bool is_cpu_policy_v =
    std::is_base_of_v<thrust::system::cpp::detail::execution_policy<DerivedPolicy>, DerivedPolicy>;

// How a Key is stored while `DerivedPolicy` sorts it: `type`, with `encode` on the way in and `decode` on the
// way out (both keep the order).
template <class Key, class DerivedPolicy, bool Flip = std::is_same_v<Key, int>&& is_cpu_policy_v<DerivedPolicy>>
struct sortable_key {
  using type = Key;
  struct encode {
    DPT_HOST_DEVICE Key operator()(const Key& key) const { return key; }
  };
  using decode = encode;
};

template <class DerivedPolicy>
struct sortable_key<int, DerivedPolicy, true> {
  using type = unsigned int;
  static constexpr unsigned int sign_bit = 0x80000000u;
  struct encode {
    DPT_HOST_DEVICE unsigned int operator()(int key) const { return static_cast<unsigned int>(key) ^ sign_bit; }
  };
  struct decode {
    DPT_HOST_DEVICE int operator()(unsigned int key) const { return static_cast<int>(key ^ sign_bit); }
  };
};

}  // namespace dpt::detail
