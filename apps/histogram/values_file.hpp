// The values dpt-histogram counts, read from a file: text with one number per line, or raw little-endian
// binary when the name ends in .f32 (float32), .f64 (float64) or .u8 (unsigned bytes, e.g. pixels).
// Errors are input_errors naming the file (and the line, for text), so the app exits with status 2.
#pragma once

#include <cstdint>
#include <string>
#include <variant>
#include <vector>

namespace dpt::app {

// Text and .f64 files give doubles, .f32 floats, .u8 bytes: the histogram runs on the file's own type, as
// NumPy would on the array np.fromfile gives.
using value_array = std::variant<std::vector<double>, std::vector<float>, std::vector<std::uint8_t>>;

// Text: blank lines are skipped; every other line holds one number (surrounding spaces allowed; "nan" and
// "inf" parse — they are dropped and counted when --range is given). Binary: the file size must be a multiple
// of the element size.
value_array read_values(const std::string& path);

}  // namespace dpt::app
