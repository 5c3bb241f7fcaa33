#pragma once
// Reads an input file without trusting it: only regular files outside /proc and /sys are
// opened (a FIFO, /dev/stdin or a device would block or never end), and a file larger than
// the cap is refused before a byte of it is read. Failure messages name the path only.
#include <cstdint>
#include <functional>
#include <string>

#include "analyzer/result.h"

namespace sa {

/// Whether the file an open descriptor really is (its path after every symlink) may be read.
using AdmitPath = std::function<bool(const std::string& real_path)>;

/// The whole content of `path`, or why it was refused; at most `max_bytes` bytes. With
/// `admit`, the descriptor's own path is checked after the open, so a directory swapped for a
/// symlink between a caller's check and the open cannot lead the read elsewhere.
Result<std::string> read_regular_file(const std::string& path, std::int64_t max_bytes, const AdmitPath& admit = {});

}  // namespace sa
