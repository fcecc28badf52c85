#include "grid/grid_png.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

// The one translation unit that compiles stb_image_write's implementation (Debian's libstb-dev).
#define STB_IMAGE_WRITE_IMPLEMENTATION
#define STBI_WRITE_NO_STDIO
#include <stb/stb_image_write.h>

namespace dpt::app {
namespace {

struct rgb {
  unsigned char r, g, b;
};

// Neighbouring cells get well-separated hues: the golden-ratio sequence of hues, at fixed saturation and value.
rgb cell_colour(std::uint32_t cell) {
  const double hue = std::fmod(cell * 0.6180339887498949, 1.0) * 6.0;
  const double s = 0.75, v = 0.9;
  const int sector = static_cast<int>(hue) % 6;
  const double f = hue - std::floor(hue);
  const double p = v * (1 - s), q = v * (1 - s * f), t = v * (1 - s * (1 - f));
  const double channels[6][3] = {{v, t, p}, {q, v, p}, {p, v, t}, {p, q, v}, {t, p, v}, {v, p, q}};
  const auto byte = [](double c) { return static_cast<unsigned char>(std::lround(c * 255)); };
  return {byte(channels[sector][0]), byte(channels[sector][1]), byte(channels[sector][2])};
}

void write_to_stream(void* context, void* data, int size) {
  static_cast<std::ostream*>(context)->write(static_cast<const char*>(data), size);
}

// The pixel, of `size` along an axis, where coordinate x falls: a particle beyond the domain (--clamp) at the
// nearest edge, as it is in the nearest cell. The fraction is kept in [0, 1] before it becomes an int.
int pixel_of(double x, double lower, double units, int size) {
  const double fraction = (x - lower) / units;
  return fraction > 0 ? std::min(size - 1, static_cast<int>(std::min(fraction, 1.0) * size)) : 0;
}

}  // namespace

void write_grid_png(std::ostream& out, const grid_picture& picture) {
  const double width_units = picture.upper[0] - picture.lower[0], height_units = picture.upper[1] - picture.lower[1];
  // each side in proportion to the longer one (a ratio in [0, 1], however small or large the units)
  const double longer = std::max(width_units, height_units);
  const int width = std::max(16, static_cast<int>(std::lround(1024.0 * (width_units / longer))));
  const int height = std::max(16, static_cast<int>(std::lround(1024.0 * (height_units / longer))));
  std::vector<unsigned char> image(static_cast<std::size_t>(width) * height * 3, 255);
  const auto plot = [&](int px, int py, rgb c) {
    if (px < 0 || px >= width || py < 0 || py >= height) return;
    unsigned char* pixel = &image[(static_cast<std::size_t>(height - 1 - py) * width + px) * 3];  // y points up
    pixel[0] = c.r;
    pixel[1] = c.g;
    pixel[2] = c.b;
  };

  // particles: one pixel each when there are many, a 3×3 dot when there are few
  const std::size_t n = picture.x->size();
  const int radius = n <= 20000 ? 1 : 0;
  for (std::size_t i = 0; i < n; ++i) {
    const int px = pixel_of((*picture.x)[i], picture.lower[0], width_units, width);
    const int py = pixel_of((*picture.y)[i], picture.lower[1], height_units, height);
    const rgb c = cell_colour((*picture.cell)[i]);
    for (int dy = -radius; dy <= radius; ++dy)
      for (int dx = -radius; dx <= radius; ++dx) plot(px + dx, py + dy, c);
  }

  // cell boundaries over the particles, while there are at least 4 pixels per cell
  const rgb line{40, 40, 40};
  if (picture.cells[0] * 4 <= width) {
    for (int k = 0; k <= picture.cells[0]; ++k) {
      const int px = std::min(width - 1, static_cast<int>(std::lround(double(k) * width / picture.cells[0])));
      for (int py = 0; py < height; ++py) plot(px, py, line);
    }
  }
  if (picture.cells[1] * 4 <= height) {
    for (int k = 0; k <= picture.cells[1]; ++k) {
      const int py = std::min(height - 1, static_cast<int>(std::lround(double(k) * height / picture.cells[1])));
      for (int px = 0; px < width; ++px) plot(px, py, line);
    }
  }

  if (!stbi_write_png_to_func(write_to_stream, &out, width, height, 3, image.data(), width * 3)) {
    throw std::runtime_error("PNG encoding failed");
  }
}

}  // namespace dpt::app
