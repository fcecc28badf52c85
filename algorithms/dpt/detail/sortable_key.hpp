// dpt/detail/sortable_key.hpp — keys that Thrust's CPU sorts put in the right order.
//
// Thrust's sequential radix sort — the CPP system's sort, and each core's part of the OMP and TBB sorts —
// orders negative int keys wrongly: its encoder for int works in 64 bits (NVIDIA/cccl#4919).
//
//   thrust::sort(thrust::cpp::par, [3, −5, −1]) → [3, −5, −1]
//
// Flipping the sign bit maps int onto unsigned int in the same order (−5 → 0x7ffffffb, −1 → 0x7fffffff,
// 3 → 0x80000003), and unsigned keys sort right, so an algorithm that sorts caller-given int keys on a CPU
// system sorts their flipped images and flips them back on the way out. CUDA's sort (CUB's radix sort) and the
// other integer key types are left alone.
//
// Radix sorts order floating-point keys by their bits, so −0.0 sorts before +0.0 though the two compare equal:
// a stable sort by key then interleaves their values, and a grouping by == (unique_by_key) finds one group whose
// values are out of input order. CUB's radix sort treats the two zeros as one key; CCCL's CPU sort does not.
// Floating-point keys are stored with −0.0 folded into +0.0, on every system, so equal keys sort as one.
//
//   group_by_key(keys [0.0, −0.0, 0.0, −0.0], values [1, 2, 3, 4]) → one group, keyed +0.0: [1, 2, 3, 4]
//
// Where the caller's keys are sorted in place, there is nothing to store encoded: sort_order_less is the order
// dpt's CPU sorts give, as a comparison. Thrust's CPU sorts radix-sort only under `<` itself (thrust::less), so
// with it they merge-sort, in the right order.
//
//   thrust::stable_sort_by_key(thrust::cpp::par, keys [0.0, −5.0, −0.0], values [a, b, c], sort_order_less<double>{})
//     → keys [−5.0, 0.0, −0.0], values [b, a, c]
#pragma once

#include <cstdint>
#include <cuda/std/bit>
#include <thrust/system/cpp/detail/execution_policy.h>
#include <type_traits>

#include <dpt/config.hpp>

namespace dpt::detail {

// True when the policy's system sorts on the CPU: CPP, and OMP and TBB, whose policies derive from CPP's.
template <class DerivedPolicy>
inline constexpr bool is_cpu_policy_v =
    std::is_base_of_v<thrust::system::cpp::detail::execution_policy<DerivedPolicy>, DerivedPolicy>;

enum class key_encoding { as_is, flip_sign_bit, fold_negative_zero };

template <class Key, class DerivedPolicy>
inline constexpr key_encoding key_encoding_v =
    std::is_same_v<Key, int>&& is_cpu_policy_v<DerivedPolicy> ? key_encoding::flip_sign_bit
    : std::is_floating_point_v<Key>                           ? key_encoding::fold_negative_zero
                                                              : key_encoding::as_is;

// How a Key is stored while `DerivedPolicy` sorts it: `type`, with `encode` on the way in and `decode` on the
// way out (both keep the order, and keys that compare equal are stored alike).
template <class Key, class DerivedPolicy, key_encoding Encoding = key_encoding_v<Key, DerivedPolicy>>
struct sortable_key {
  using type = Key;
  struct encode {
    DPT_HOST_DEVICE Key operator()(const Key& key) const { return key; }
  };
  using decode = encode;
};

template <class Key, class DerivedPolicy>
struct sortable_key<Key, DerivedPolicy, key_encoding::fold_negative_zero> {
  using type = Key;
  struct encode {
    DPT_HOST_DEVICE Key operator()(Key key) const { return key == Key(0) ? Key(0) : key; }  // −0.0 → +0.0
  };
  struct decode {
    DPT_HOST_DEVICE Key operator()(Key key) const { return key; }
  };
};

template <class DerivedPolicy>
struct sortable_key<int, DerivedPolicy, key_encoding::flip_sign_bit> {
  using type = unsigned int;
  static constexpr unsigned int sign_bit = 0x80000000u;
  struct encode {
    DPT_HOST_DEVICE unsigned int operator()(int key) const { return static_cast<unsigned int>(key) ^ sign_bit; }
  };
  struct decode {
    DPT_HOST_DEVICE int operator()(unsigned int key) const { return static_cast<int>(key ^ sign_bit); }
  };
};

// Keys in ascending order, −0.0 and +0.0 as one key; for floating-point keys −NaN < −∞ < … < +∞ < +NaN, by their
// bits with the sign bit flipped (all bits, for negative keys), the order of dpt's CPU sorts (dpt/sort.hpp).
template <class Key>
struct sort_order_less {
  DPT_HOST_DEVICE bool operator()(const Key& a, const Key& b) const {
    if constexpr (std::is_floating_point_v<Key>) {
      return code(a) < code(b);
    } else {
      return a < b;
    }
  }

 private:
  using bits = std::conditional_t<sizeof(Key) == 8, std::uint64_t, std::uint32_t>;
  DPT_HOST_DEVICE static bits code(Key key) {
    static_assert(sizeof(Key) == sizeof(bits), "float or double keys");
    const auto b = ::cuda::std::bit_cast<bits>(key == Key(0) ? Key(0) : key);  // −0.0 → +0.0
    constexpr bits sign = bits(1) << (8 * sizeof(bits) - 1);
    return (b & sign) ? ~b : (b | sign);
  }
};

}  // namespace dpt::detail
