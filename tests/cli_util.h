#pragma once
// Running the slurm-advisor binary from tests: exit status and captured output.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>
#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>

#include "tests/scratch_dir.h"

namespace sa::test {

struct CommandResult {
  int status = -1;
  std::string out;
};

// Runs the binary through the shell, capturing stdout (stderr too when asked).
inline CommandResult run(const std::string& args, bool merge_stderr = false) {
  std::string command = std::string(SA_BINARY) + " " + args + (merge_stderr ? " 2>&1" : " 2>/dev/null");
  CommandResult r;
  FILE* pipe = popen(command.c_str(), "r");
  if (!pipe) return r;
  std::array<char, 4096> buffer{};
  while (std::size_t n = std::fread(buffer.data(), 1, buffer.size(), pipe)) r.out.append(buffer.data(), n);
  int raw = pclose(pipe);
  r.status = WIFEXITED(raw) ? WEXITSTATUS(raw) : -1;
  return r;
}

/// A fresh, empty directory named after the running test (removed first if it exists).
inline std::filesystem::path fresh_test_dir(const std::string& prefix) {
  auto dir = scratch_dir() / (prefix + "_" + ::testing::UnitTest::GetInstance()->current_test_info()->name());
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  return dir;
}

inline std::string write_temp(const std::string& name, const std::string& text) {
  auto path = scratch_dir() / ("sa_cli_" + name);
  std::ofstream(path) << text;
  return path.string();
}

}  // namespace sa::test
