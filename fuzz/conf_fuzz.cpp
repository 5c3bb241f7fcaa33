// libFuzzer target: any bytes as a slurm.conf must give diagnostics, never a crash, hang,
// leak or sanitizer report. Crashers found are kept in fuzz/crashers/ and replayed by
// tests/fuzz_regression_test.cpp.
#include <cstddef>
#include <cstdint>
#include <string>

#include "analyzer/analyze.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size > 64 * 1024) return 0;
  std::string text(reinterpret_cast<const char*>(data), size);
  // Includes resolve against this (non-existent) directory, so no real file is read.
  auto analysis = sa::analyze_text("/nonexistent-fuzz-dir/slurm.conf", std::move(text));
  for (const sa::Diagnostic& d : analysis->diagnostics.all()) {
    if (d.code == "CONF000") __builtin_trap();  // an internal error is a bug
  }
  return 0;
}
