#include "cli/common.h"

#include <unistd.h>
#include <cstdlib>
#include <fstream>
#include <iostream>

#include "analyzer/printable.h"

namespace sa::cli {

bool VersionOption::resolve(SlurmVersion& out) const {
  if (text.empty()) {
    out = kDefaultSlurmVersion;
    return true;
  }
  auto parsed = SlurmVersion::parse(text);
  if (!parsed) {
    std::cerr << "slurm-advisor: invalid --slurm-version '" << text << "' (expected e.g. 23.02 or 24.05.3)\n";
    return false;
  }
  if (*parsed < kOldestKnownVersion || kNewestKnownVersion < SlurmVersion{parsed->major, parsed->minor, 0}) {
    std::cerr << "slurm-advisor: note: Slurm " << parsed->to_string() << " is outside the known range "
              << kOldestKnownVersion.to_string() << " to " << kNewestKnownVersion.to_string()
              << "; checking with the nearest known tables\n";
  }
  out = *parsed;
  return true;
}

void add_version_option(CLI::App& cmd, VersionOption& option) {
  cmd.add_option("--slurm-version", option.text,
                 "Slurm release to check against (default " + kDefaultSlurmVersion.to_string() + ")");
}

void write_json(std::ostream& out, const nlohmann::json& j) {
  // ASCII only: C0 controls are escaped either way, but U+0080..U+009F (CSI, OSC) are valid
  // UTF-8 and would reach a terminal that cats the file; \uXXXX parses back to the same text.
  out << j.dump(2, ' ', true, nlohmann::json::error_handler_t::replace) << "\n";
}

bool use_color(const std::string& mode) {
  if (mode == "always") return true;
  if (mode == "never") return false;
  return isatty(STDOUT_FILENO) && std::getenv("NO_COLOR") == nullptr;
}

void print_text(const std::string& text) { std::cout << terminal_text(text); }

bool write_text(const std::string& path, const std::string& raw, bool terminal, bool color) {
  const std::string text = terminal ? terminal_text(raw, {color}) : raw;
  if (path.empty() || path == "-") {
    std::cout << text;
    return true;
  }
  std::ofstream out(path, std::ios::binary);
  out << text;
  if (!out) {
    std::cerr << "slurm-advisor: cannot write '" << path << "'\n";
    return false;
  }
  return true;
}

}  // namespace sa::cli
