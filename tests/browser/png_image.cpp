#include "png_image.h"

#include <zlib.h>

#include <algorithm>
#include <array>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <map>

namespace sa::browser {
namespace {

constexpr std::string_view kSignature("\x89PNG\r\n\x1a\n", 8);
// Generous for screenshots, small enough that a forged header cannot make us allocate gigabytes.
constexpr std::uint64_t kMaxPixels = 1ULL << 26;
constexpr std::uint32_t kMaxSide = 1U << 16;

struct Header {
  std::uint32_t width = 0;
  std::uint32_t height = 0;
  int colour_type = 0;
  int channels = 0;
};

struct Chunks {
  Header header;
  std::string data;  // the IDAT payloads, concatenated
  std::vector<Rgba> palette;
};

std::uint32_t big_endian(std::string_view bytes, std::size_t at) {
  auto b = [&](std::size_t i) { return static_cast<std::uint32_t>(static_cast<unsigned char>(bytes[at + i])); };
  return b(0) << 24 | b(1) << 16 | b(2) << 8 | b(3);
}

// Samples per pixel for each PNG colour type; 0 for the types that do not exist.
int channels_of(int colour_type) {
  // grey, -, RGB, palette index, grey + alpha, -, RGBA
  constexpr std::array<int, 7> kChannels = {1, 0, 3, 1, 2, 0, 4};
  return colour_type >= 0 && colour_type < 7 ? kChannels[static_cast<std::size_t>(colour_type)] : 0;
}

Result<Header> read_header(std::string_view data) {
  if (data.size() != 13) {
    return Error{"IHDR chunk has " + std::to_string(data.size()) + " bytes, not 13"};
  }
  Header h;
  h.width = big_endian(data, 0);
  h.height = big_endian(data, 4);
  int depth = static_cast<unsigned char>(data[8]);
  h.colour_type = static_cast<unsigned char>(data[9]);
  h.channels = channels_of(h.colour_type);
  if (h.width == 0 || h.height == 0 || h.width > kMaxSide || h.height > kMaxSide ||
      std::uint64_t{h.width} * h.height > kMaxPixels) {
    return Error{"unsupported image size " + std::to_string(h.width) + "x" + std::to_string(h.height)};
  }
  if (depth != 8) return Error{"bit depth " + std::to_string(depth) + " is not supported (only 8)"};
  if (h.channels == 0) return Error{"unknown colour type " + std::to_string(h.colour_type)};
  if (data[10] != 0 || data[11] != 0) return Error{"unknown compression or filter method"};
  if (data[12] != 0) return Error{"interlaced PNGs are not supported"};
  return h;
}

Result<std::vector<Rgba>> read_palette(std::string_view data) {
  if (data.size() % 3 != 0 || data.size() > 256 * 3) return Error{"PLTE chunk has a bad length"};
  std::vector<Rgba> palette;
  for (std::size_t i = 0; i < data.size(); i += 3) {
    palette.push_back({static_cast<std::uint8_t>(data[i]), static_cast<std::uint8_t>(data[i + 1]),
                       static_cast<std::uint8_t>(data[i + 2]), 255});
  }
  return palette;
}

// Walks the chunk list, checking lengths and CRCs, and keeps what decoding needs.
Result<Chunks> read_chunks(std::string_view bytes) {
  if (bytes.substr(0, kSignature.size()) != kSignature) {
    return Error{"not a PNG file (bad signature)"};
  }
  Chunks chunks;
  bool have_header = false;
  for (std::size_t at = kSignature.size();;) {
    if (bytes.size() - at < 12) return Error{"truncated PNG: no IEND chunk"};
    std::uint32_t length = big_endian(bytes, at);
    std::string type(bytes.substr(at + 4, 4));
    if (length > bytes.size() - at - 12) {
      return Error{"chunk '" + type + "' runs past the end of the file"};
    }
    std::string_view data = bytes.substr(at + 8, length);
    auto crc = ::crc32(0, reinterpret_cast<const Bytef*>(bytes.data() + at + 4), length + 4);
    if (crc != big_endian(bytes, at + 8 + length)) return Error{"bad CRC in chunk '" + type + "'"};
    at += 12 + std::size_t{length};
    if (!have_header && type != "IHDR") return Error{"the first chunk is '" + type + "', not IHDR"};
    if (type == "IHDR") {
      if (have_header) return Error{"more than one IHDR chunk"};
      auto header = read_header(data);
      if (!header) return Error{header.error()};
      chunks.header = *header;
      have_header = true;
    } else if (type == "PLTE") {
      auto palette = read_palette(data);
      if (!palette) return Error{palette.error()};
      chunks.palette = std::move(*palette);
    } else if (type == "tRNS" && chunks.header.colour_type == 3) {
      for (std::size_t i = 0; i < data.size() && i < chunks.palette.size(); ++i) {
        chunks.palette[i].a = static_cast<std::uint8_t>(data[i]);
      }
    } else if (type == "IDAT") {
      chunks.data.append(data);
    } else if (type == "IEND") {
      break;
    } else if (type[0] >= 'A' && type[0] <= 'Z') {
      return Error{"unknown critical chunk '" + type + "'"};
    }
  }
  if (chunks.data.empty()) return Error{"no image data (IDAT)"};
  if (chunks.header.colour_type == 3 && chunks.palette.empty()) {
    return Error{"palette image without PLTE"};
  }
  return chunks;
}

// Inflates into a buffer of exactly the size the header implies; more or less is an error.
Result<std::string> inflate_exact(const std::string& data, std::size_t expected) {
  std::string out(expected, '\0');
  z_stream z{};
  if (inflateInit(&z) != Z_OK) return Error{"zlib initialisation failed"};
  z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(data.data()));
  z.avail_in = static_cast<uInt>(data.size());
  z.next_out = reinterpret_cast<Bytef*>(out.data());
  z.avail_out = static_cast<uInt>(out.size());
  int rc = inflate(&z, Z_FINISH);
  std::string message = z.msg ? z.msg : "";
  std::size_t produced = expected - z.avail_out;
  inflateEnd(&z);
  if (rc == Z_STREAM_END && produced == expected) return out;
  if (rc == Z_DATA_ERROR) return Error{"corrupt image data: " + message};
  if ((rc == Z_OK || rc == Z_BUF_ERROR) && produced == expected) {
    return Error{"more image data than the size implies"};
  }
  return Error{"image data ends early (" + std::to_string(produced) + " of " + std::to_string(expected) + " bytes)"};
}

std::uint8_t paeth(int a, int b, int c) {
  int p = a + b - c;
  int pa = std::abs(p - a), pb = std::abs(p - b), pc = std::abs(p - c);
  return static_cast<std::uint8_t>(pa <= pb && pa <= pc ? a : pb <= pc ? b : c);
}

// Undoes the per-row filters in place; rows are 1 filter byte + stride bytes.
Result<bool> unfilter(std::string& raw, std::size_t rows, std::size_t stride, int bpp) {
  auto* data = reinterpret_cast<std::uint8_t*>(raw.data());
  for (std::size_t y = 0; y < rows; ++y) {
    std::uint8_t* row = data + y * (stride + 1) + 1;
    const std::uint8_t* up = y ? row - (stride + 1) : nullptr;
    int filter = row[-1];
    if (filter > 4) {
      return Error{"bad filter type " + std::to_string(filter) + " on row " + std::to_string(y)};
    }
    for (std::size_t i = 0; i < stride; ++i) {
      int a = i >= static_cast<std::size_t>(bpp) ? row[i - bpp] : 0;
      int b = up ? up[i] : 0;
      int c = up && i >= static_cast<std::size_t>(bpp) ? up[i - bpp] : 0;
      int add = filter == 1 ? a : filter == 2 ? b : filter == 3 ? (a + b) / 2 : filter == 4 ? paeth(a, b, c) : 0;
      row[i] = static_cast<std::uint8_t>(row[i] + add);
    }
  }
  return true;
}

Result<std::vector<Rgba>> to_rgba(const std::string& raw, const Chunks& chunks) {
  const Header& h = chunks.header;
  const std::size_t stride = std::size_t{h.width} * static_cast<std::size_t>(h.channels);
  std::vector<Rgba> pixels;
  pixels.reserve(std::size_t{h.width} * h.height);
  for (std::size_t y = 0; y < h.height; ++y) {
    const auto* row = reinterpret_cast<const std::uint8_t*>(raw.data()) + y * (stride + 1) + 1;
    for (std::size_t x = 0; x < h.width; ++x) {
      const std::uint8_t* p = row + x * static_cast<std::size_t>(h.channels);
      if (h.colour_type == 3 && p[0] >= chunks.palette.size()) {
        return Error{"palette index " + std::to_string(p[0]) + " out of range"};
      }
      pixels.push_back(h.colour_type == 0   ? Rgba{p[0], p[0], p[0], 255}
                       : h.colour_type == 2 ? Rgba{p[0], p[1], p[2], 255}
                       : h.colour_type == 4 ? Rgba{p[0], p[0], p[0], p[1]}
                       : h.colour_type == 6 ? Rgba{p[0], p[1], p[2], p[3]}
                                            : chunks.palette[p[0]]);
    }
  }
  return pixels;
}

std::uint32_t packed(Rgba c) {
  return std::uint32_t{c.r} << 24 | std::uint32_t{c.g} << 16 | std::uint32_t{c.b} << 8 | c.a;
}

}  // namespace

bool near(Rgba a, Rgba b, int tolerance) {
  return std::abs(a.r - b.r) <= tolerance && std::abs(a.g - b.g) <= tolerance && std::abs(a.b - b.b) <= tolerance &&
         std::abs(a.a - b.a) <= tolerance;
}

std::string to_string(Rgba c) {
  return "rgba(" + std::to_string(c.r) + "," + std::to_string(c.g) + "," + std::to_string(c.b) + "," +
         std::to_string(c.a) + ")";
}

Result<PngImage> PngImage::decode(std::string_view bytes) {
  auto chunks = read_chunks(bytes);
  if (!chunks) return Error{chunks.error()};
  const Header& h = chunks->header;
  const std::size_t stride = std::size_t{h.width} * static_cast<std::size_t>(h.channels);
  auto raw = inflate_exact(chunks->data, (stride + 1) * h.height);
  if (!raw) return Error{raw.error()};
  auto unfiltered = unfilter(*raw, h.height, stride, h.channels);
  if (!unfiltered) return Error{unfiltered.error()};
  auto pixels = to_rgba(*raw, *chunks);
  if (!pixels) return Error{pixels.error()};
  return PngImage(static_cast<int>(h.width), static_cast<int>(h.height), std::move(*pixels));
}

Result<PngImage> PngImage::load(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return Error{"cannot open '" + path + "'"};
  std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  auto image = decode(bytes);
  if (!image) return Error{path + ": " + image.error()};
  return image;
}

Rgba PngImage::pixel(int x, int y) const {
  if (x < 0 || y < 0 || x >= width_ || y >= height_) return {0, 0, 0, 0};
  return pixels_[static_cast<std::size_t>(y) * static_cast<std::size_t>(width_) + static_cast<std::size_t>(x)];
}

ImageStats image_stats(const PngImage& image, int colour_cap) {
  // An ordered map: the tie-break for the most common colour must not depend on hashing.
  std::map<std::uint32_t, std::size_t> counts;
  for (int y = 0; y < image.height(); ++y) {
    for (int x = 0; x < image.width(); ++x) ++counts[packed(image.pixel(x, y))];
  }
  ImageStats stats;
  stats.distinct_colours = static_cast<int>(std::min<std::size_t>(counts.size(), static_cast<std::size_t>(colour_cap)));
  auto most =
      std::max_element(counts.begin(), counts.end(), [](const auto& a, const auto& b) { return a.second < b.second; });
  if (most == counts.end()) return stats;
  std::uint32_t bg = most->first;
  stats.background = {static_cast<std::uint8_t>(bg >> 24), static_cast<std::uint8_t>(bg >> 16),
                      static_cast<std::uint8_t>(bg >> 8), static_cast<std::uint8_t>(bg)};
  std::size_t total = std::size_t(image.width()) * std::size_t(image.height());
  stats.non_background = static_cast<double>(total - most->second) / static_cast<double>(total);
  Box box{image.width(), image.height(), 0, 0};
  for (int y = 0; y < image.height(); ++y) {
    for (int x = 0; x < image.width(); ++x) {
      if (image.pixel(x, y) == stats.background) continue;
      box = {std::min(box.left, x), std::min(box.top, y), std::max(box.right, x + 1), std::max(box.bottom, y + 1)};
    }
  }
  if (!box.empty()) stats.content = box;
  return stats;
}

}  // namespace sa::browser
