#include "histogram/histogram_png.hpp"

#include <algorithm>
#include <cstdio>
#include <stdexcept>

// This translation unit compiles stb_image_write's implementation for dpt-histogram alone; STATIC keeps its
// functions local, so no other app's copy (dpt-grid has its own) can ever clash with it.
#define STB_IMAGE_WRITE_IMPLEMENTATION
#define STB_IMAGE_WRITE_STATIC
#define STBI_WRITE_NO_STDIO
#include <stb/stb_image_write.h>
#include <stb/stb_easy_font.h>

namespace dpt::app {
namespace {

constexpr int width = 1024, height = 512;
constexpr int left = 72, right = 24, top = 48, bottom = 48;  // margins around the plot area

struct canvas {
  std::vector<unsigned char> rgb = std::vector<unsigned char>(width * height * 3, 255);

  void fill(int x0, int y0, int x1, int y1, const unsigned char colour[3]) {
    x0 = std::max(x0, 0), y0 = std::max(y0, 0), x1 = std::min(x1, width), y1 = std::min(y1, height);
    for (int y = y0; y < y1; ++y) {
      for (int x = x0; x < x1; ++x) std::copy(colour, colour + 3, &rgb[(y * width + x) * 3]);
    }
  }

  // Text from stb_easy_font's quads (axis-aligned rectangles), drawn `scale` times larger.
  void text(int x, int y, const std::string& s, int scale, const unsigned char colour[3]) {
    struct vertex {
      float x, y, z;
      unsigned char c[4];
    };
    static vertex quads[4 * 4000];
    std::string copy = s;
    const int n = stb_easy_font_print(0, 0, copy.data(), nullptr, quads, sizeof(quads));
    for (int q = 0; q < n; ++q) {
      const vertex* v = &quads[4 * q];
      fill(x + static_cast<int>(v[0].x * scale), y + static_cast<int>(v[0].y * scale),
           x + static_cast<int>(v[2].x * scale), y + static_cast<int>(v[2].y * scale), colour);
    }
  }
  static int text_width(const std::string& s, int scale) {
    std::string copy = s;
    return stb_easy_font_width(copy.data()) * scale;
  }
};

void write_to_stream(void* context, void* data, int size) {
  static_cast<std::ostream*>(context)->write(static_cast<const char*>(data), size);
}

std::string number(double v) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%.6g", v);
  return buffer;
}

}  // namespace

void write_histogram_png(std::ostream& out, const histogram_picture& picture) {
  const unsigned char bar[3] = {48, 110, 190}, ink[3] = {40, 40, 40}, grid[3] = {225, 225, 225};
  canvas c;
  const int plot_width = width - left - right, plot_height = height - top - bottom;
  const auto bins = static_cast<long long>(picture.counts.size());
  // more bins than columns: each column shows the sum of the bins that fall in it
  const int columns = static_cast<int>(std::min<long long>(bins, plot_width));
  std::vector<unsigned long long> column_counts(columns, 0);
  for (long long b = 0; b < bins; ++b) column_counts[b * columns / bins] += picture.counts[b];
  const unsigned long long tallest =
      std::max<unsigned long long>(1, columns ? *std::max_element(column_counts.begin(), column_counts.end()) : 1);

  for (int g = 1; g <= 4; ++g) {  // light horizontal lines at quarters of the tallest bar
    const int y = top + plot_height - plot_height * g / 4;
    c.fill(left, y, left + plot_width, y + 1, grid);
  }
  for (int col = 0; col < columns; ++col) {
    const int x0 = left + static_cast<int>(static_cast<long long>(plot_width) * col / columns);
    const int x1 = left + static_cast<int>(static_cast<long long>(plot_width) * (col + 1) / columns);
    const int h = static_cast<int>(static_cast<double>(column_counts[col]) / tallest * plot_height + 0.5);
    const int gap = x1 - x0 >= 4 ? 1 : 0;  // a pixel between wide bars so they read as separate bins
    c.fill(x0 + gap, top + plot_height - h, x1 - gap, top + plot_height, bar);
  }
  c.fill(left, top + plot_height, left + plot_width, top + plot_height + 2, ink);  // baseline
  c.fill(left - 2, top, left, top + plot_height + 2, ink);                         // y axis

  c.text(left, 14, picture.title, 2, ink);
  c.text(left, top + plot_height + 10, number(picture.lo), 2, ink);
  const std::string hi = number(picture.hi);
  c.text(left + plot_width - canvas::text_width(hi, 2), top + plot_height + 10, hi, 2, ink);
  const std::string peak = number(static_cast<double>(tallest));
  c.text(std::max(2, left - 6 - canvas::text_width(peak, 1)), top - 3, peak, 1, ink);
  c.text(left - 6 - canvas::text_width("0", 1), top + plot_height - 6, "0", 1, ink);

  if (!stbi_write_png_to_func(write_to_stream, &out, width, height, 3, c.rgb.data(), width * 3)) {
    throw std::runtime_error("PNG encoding failed");
  }
}

}  // namespace dpt::app
