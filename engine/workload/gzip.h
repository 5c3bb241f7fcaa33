#pragma once
// Traces from the Parallel Workloads Archive come gzip-compressed: read them as they are.
#include <cstddef>
#include <string>

#include "analyzer/result.h"

namespace sa::engine {

/// True when `bytes` start with gzip's magic number.
bool is_gzip(const std::string& bytes);
/// The decompressed text, or an error (corrupt data, or more than `max_bytes` of output).
Result<std::string> gunzip(const std::string& bytes, std::size_t max_bytes);

}  // namespace sa::engine
