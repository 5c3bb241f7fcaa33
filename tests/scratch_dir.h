#pragma once
// The one directory a test process writes its files under: <tmp>/sa_test_<pid>, created on first
// use and removed with everything in it when the process exits, so a test run leaves nothing
// behind in /tmp (ctest runs each test in its own process, so each gets its own directory).
#include <unistd.h>
#include <filesystem>
#include <string>
#include <system_error>

namespace sa::test {

inline const std::filesystem::path& scratch_dir() {
  struct Dir {
    std::filesystem::path path = std::filesystem::temp_directory_path() / ("sa_test_" + std::to_string(::getpid()));
    Dir() { std::filesystem::create_directories(path); }
    ~Dir() {
      std::error_code ec;
      std::filesystem::remove_all(path, ec);
    }
    Dir(const Dir&) = delete;
    Dir& operator=(const Dir&) = delete;
  };
  static const Dir dir;
  return dir.path;
}

}  // namespace sa::test
