#include "engine/workload/gzip.h"

#include <zlib.h>

#include <fmt/format.h>

namespace sa::engine {

bool is_gzip(const std::string& b) {
  return b.size() >= 2 && static_cast<unsigned char>(b[0]) == 0x1f && static_cast<unsigned char>(b[1]) == 0x8b;
}

Result<std::string> gunzip(const std::string& bytes, std::size_t max_bytes) {
  z_stream z{};
  if (inflateInit2(&z, 15 + 32) != Z_OK) return Error{"cannot start the gzip decoder"};  // +32: gzip header
  z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(bytes.data()));
  z.avail_in = static_cast<uInt>(std::min<std::size_t>(bytes.size(), 0xFFFFFFFFU));
  std::string out;
  char buffer[1 << 16];
  int rc = Z_OK;
  while (rc != Z_STREAM_END) {
    z.next_out = reinterpret_cast<Bytef*>(buffer);
    z.avail_out = sizeof buffer;
    rc = inflate(&z, Z_NO_FLUSH);
    if (rc != Z_OK && rc != Z_STREAM_END) {
      inflateEnd(&z);
      return Error{fmt::format("the gzip data is corrupt ({})", z.msg ? z.msg : "inflate failed")};
    }
    out.append(buffer, sizeof buffer - z.avail_out);
    if (out.size() > max_bytes) {
      inflateEnd(&z);
      return Error{
          fmt::format("decompresses to more than {} MB (raise it with --limit file-bytes=N)", max_bytes >> 20)};
    }
    if (rc == Z_OK && z.avail_in == 0 && z.avail_out != 0) break;  // truncated input
  }
  inflateEnd(&z);
  if (rc != Z_STREAM_END) return Error{"the gzip data is truncated"};
  return out;
}

}  // namespace sa::engine
