#pragma once
// Decodes the PNG screenshots Chromium writes (8-bit grey, grey+alpha, RGB, RGBA or palette,
// not interlaced) into RGBA pixels, and summarises them so tests can tell a rendered page
// from a blank one. Bad input gives an error message, never a crash.
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "analyzer/result.h"

namespace sa::browser {

struct Rgba {
  std::uint8_t r = 0, g = 0, b = 0, a = 255;
  friend bool operator==(const Rgba&, const Rgba&) = default;
};

/// True when every channel of `a` is within `tolerance` of `b` (anti-aliasing, rounding).
bool near(Rgba a, Rgba b, int tolerance = 8);

/// "rgba(255,0,0,255)", for failure messages.
std::string to_string(Rgba colour);

class PngImage {
 public:
  static Result<PngImage> decode(std::string_view bytes);
  static Result<PngImage> load(const std::string& path);

  int width() const { return width_; }
  int height() const { return height_; }
  /// The pixel at (x, y), (0, 0) top left; transparent black outside the image.
  Rgba pixel(int x, int y) const;

 private:
  PngImage(int width, int height, std::vector<Rgba> pixels)
      : width_(width), height_(height), pixels_(std::move(pixels)) {}

  int width_ = 0;
  int height_ = 0;
  std::vector<Rgba> pixels_;  // row-major
};

struct Box {
  int left = 0, top = 0, right = 0, bottom = 0;  // right and bottom exclusive
  bool empty() const { return right <= left || bottom <= top; }
};

struct ImageStats {
  int distinct_colours = 0;     // capped at the cap passed to image_stats
  Rgba background;              // the most common colour (lowest RGBA value on a tie)
  double non_background = 0.0;  // share of pixels that differ from background, 0..1
  Box content;                  // bounding box of the pixels that differ; empty when none
};

ImageStats image_stats(const PngImage& image, int colour_cap = 1 << 16);

}  // namespace sa::browser
