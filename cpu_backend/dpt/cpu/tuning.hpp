// dpt/cpu/tuning.hpp — how the CPU backend cuts its input and walks a slice, when a caller wants to choose.
//
// Every field left empty is the backend's own choice for this CPU and this algorithm: cache-sized slices
// (dpt/cpu/slice_scan.hpp) and the fastest walk the processor has (dpt/cpu/scan_avx512.hpp,
// dpt/cpu/compact_block.hpp). The lecture headers pass nothing; tests pass slices of a few elements, so that tiny
// inputs make long chains of hand-offs, and every walk the machine can run.
#pragma once

#include <optional>

#include <dpt/cpu/compact_block.hpp>
#include <dpt/cpu/scan_avx512.hpp>
#include <dpt/cpu/slice_scan.hpp>

namespace dpt::cpu {

// Callers set the leading fields in order, `{slices}` or `{slices, walk}`, and the others stay empty (their `{}`
// keeps GCC's -Wmissing-field-initializers quiet about such calls).
struct tuning {
  std::optional<slice_sizes> slices{};   // how the input is cut
  std::optional<scan_walk> walk{};       // scans and segmented scans: one element or a vector at a time
  std::optional<compact_walk> gather{};  // compaction: how a slice's kept elements are gathered
};

}  // namespace dpt::cpu
