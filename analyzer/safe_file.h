#pragma once
// Reads an input file without trusting it: only regular files outside /proc and /sys are
// opened (a FIFO, /dev/stdin or a device would block or never end), and a file larger than
// the cap is refused before a byte of it is read. Failure messages name the path only.
#include <cstdint>
#include <string>

#include "analyzer/result.h"

namespace sa {

/// The whole content of `path`, or why it was refused; at most `max_bytes` bytes.
Result<std::string> read_regular_file(const std::string& path, std::int64_t max_bytes);

}  // namespace sa
