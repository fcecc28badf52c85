// dpt/cpu/streaming_store.hpp — writing a large output that nobody will read again soon.
//
// A normal store first reads the cache line it writes into ("read for ownership"), so a loop that reads n
// bytes and writes n bytes moves 3n bytes over the memory bus; memcpy moves 2n, because for large copies it
// uses streaming (non-temporal) stores that write whole lines without reading them. The multicore scans of
// dpt/cpu/slice_scan.hpp write their outputs once, in order, so they can stream them too, which brings a one-core
// scan to memcpy's time (docs/benchmarks.md, scan). Streaming only pays when the output is far larger than the caches
// (otherwise its next reader would have found it there), and it needs x86-64 and a raw pointer to a 4- or
// 8-byte trivially copyable type; everything else is stored normally.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <cuda/std/type_traits>
#include <type_traits>

#include <dpt/config.hpp>

#if defined(__x86_64__) && defined(__SSE2__)
#  include <immintrin.h>
#  define DPT_HAVE_STREAMING_STORES 1
#else
#  define DPT_HAVE_STREAMING_STORES 0
#endif

namespace dpt::cpu {

// Outputs at least this large are streamed: bigger than the last-level cache of most machines (32 MiB here).
inline constexpr std::size_t streaming_output_bytes = 32 * 1024 * 1024;

// A store writes one element, out[i] = value, or a run of them: out[i + k] = values[k] for k in [0, count).
struct plain_store {
  template <class OutputIt, class T>
  DPT_ALWAYS_INLINE void operator()(OutputIt out, std::ptrdiff_t i, const T& value) const {
    out[i] = value;
  }
  template <class OutputIt, class T>
  DPT_ALWAYS_INLINE void operator()(OutputIt out, std::ptrdiff_t i, const T* values, std::ptrdiff_t count) const {
    for (std::ptrdiff_t k = 0; k < count; ++k) out[i + k] = values[k];
  }
};

template <class OutputIt, class = void>
inline constexpr bool can_stream_v = false;

#if DPT_HAVE_STREAMING_STORES
template <class T>
inline constexpr bool can_stream_v<T*, std::enable_if_t<!std::is_const_v<T>>> = std::is_trivially_copyable_v<T> &&
                                                                                (sizeof(T) == 4 || sizeof(T) == 8);

// One non-temporal store per element (movnti); the processor's write-combining buffers gather consecutive
// ones into whole lines.
struct streaming_store {
  template <class T>
  DPT_ALWAYS_INLINE void operator()(T* out, std::ptrdiff_t i, const ::cuda::std::type_identity_t<T>& value) const {
    if constexpr (sizeof(T) == 4) {
      int bits;
      std::memcpy(&bits, &value, sizeof bits);
      _mm_stream_si32(reinterpret_cast<int*>(out + i), bits);
    } else {
      long long bits;
      std::memcpy(&bits, &value, sizeof bits);
      _mm_stream_si64(reinterpret_cast<long long*>(out + i), bits);
    }
  }
  // A run goes out 16 bytes per store once the destination is 16-byte aligned; a run of another type is
  // converted element by element.
  template <class T, class U>
  DPT_ALWAYS_INLINE void operator()(T* out, std::ptrdiff_t i, const U* values, std::ptrdiff_t count) const {
    std::ptrdiff_t k = 0;
    if constexpr (std::is_same_v<T, U>) {
      constexpr std::ptrdiff_t per_vector = 16 / sizeof(T);
      for (; k < count && reinterpret_cast<std::uintptr_t>(out + i + k) % 16 != 0; ++k) (*this)(out, i + k, values[k]);
      for (; k + per_vector <= count; k += per_vector) {
        _mm_stream_si128(reinterpret_cast<__m128i*>(out + i + k),
                         _mm_loadu_si128(reinterpret_cast<const __m128i*>(values + k)));
      }
    }
    for (; k < count; ++k) (*this)(out, i + k, static_cast<T>(values[k]));
  }
};
#endif

// Whether an output of `count` elements through `OutputIt` should be streamed.
template <class OutputIt>
bool should_stream(std::ptrdiff_t count) {
  if constexpr (can_stream_v<OutputIt>) {
    return static_cast<std::size_t>(count) * sizeof(std::remove_pointer_t<OutputIt>) >= streaming_output_bytes;
  } else {
    return false;
  }
}

// Runs walk(store) with the store for `OutputIt`: streaming when `stream` is set (see should_stream),
// normal otherwise. Streaming stores are weakly ordered, so they are fenced before walk's result is returned.
template <class OutputIt, class Walk>
DPT_ALWAYS_INLINE auto with_output_store(bool stream, Walk&& walk) {
#if DPT_HAVE_STREAMING_STORES
  if constexpr (can_stream_v<OutputIt>) {
    if (stream) {
      auto result = walk(streaming_store{});
      _mm_sfence();
      return result;
    }
  }
#endif
  (void)stream;
  return walk(plain_store{});
}

}  // namespace dpt::cpu
