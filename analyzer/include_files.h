#pragma once
// Finds the file an Include names: --include-map first, then confinement to the include
// roots (lexically, then again after symlinks), then a safe read. Refusals name the path
// and never read a byte of the refused file.
#include <filesystem>
#include <string>
#include <vector>

#include "analyzer/conf_loader.h"
#include "analyzer/source_manager.h"

namespace sa {

struct IncludeOpen {
  FileId file = kNoFile;
  std::string error;  // set when the file was not read
  ErrorKind kind = ErrorKind::kFailed;
};

class IncludeFiles {
 public:
  IncludeFiles(const IncludePolicy& policy, const std::string& root_path, SourceManager& sources);

  /// The path an Include of `target` reads after --include-map (also the cycle key).
  std::filesystem::path mapped(const std::filesystem::path& target) const;
  /// Reads the mapped `target` if the policy allows it.
  IncludeOpen open(const std::filesystem::path& target);
  /// The roots as shown in messages.
  std::string roots_text() const;

 private:
  bool confined(const std::filesystem::path& p) const;
  IncludeOpen open_memory(const std::filesystem::path& p);

  const IncludePolicy& policy_;
  SourceManager& sources_;
  std::vector<std::filesystem::path> roots_;
};

}  // namespace sa
