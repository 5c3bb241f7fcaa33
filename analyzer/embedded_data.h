#pragma once
// Data files compiled into the binary by the build (see analyzer/CMakeLists.txt), so the
// tool needs nothing at run time but itself.
namespace sa::embedded {
extern const char* const kSlurmConfKeysTsv;
extern const char* const kOptionWordsTsv;
}  // namespace sa::embedded
