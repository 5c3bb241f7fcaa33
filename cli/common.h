#pragma once
// Shared pieces of the command-line front end: exit codes, the --slurm-version option, and
// safe JSON output.
#include <iosfwd>
#include <string>

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include "analyzer/version.h"

namespace sa::cli {

/// Exit codes of every command: 0 clean, 1 the input has errors (or findings at --fail-on),
/// 2 the tool could not do its job (missing file, bad usage).
enum ExitCode { kExitOk = 0, kExitFindings = 1, kExitUsage = 2 };

struct VersionOption {
  std::string text = kDefaultSlurmVersion.to_string();  // as a default, so config --show has it
  /// The parsed version (kDefaultSlurmVersion when not given); false with a message on stderr.
  bool resolve(SlurmVersion& out) const;
};

void add_version_option(CLI::App& cmd, VersionOption& option);

/// Dumps JSON with invalid UTF-8 replaced, since configs may hold any bytes.
void write_json(std::ostream& out, const nlohmann::json& j);
/// Writes a rendered report to `path` (stdout when empty or "-"). Reports are rendered to a
/// string first, so a failed write never leaves half a report behind; false (and a message)
/// when the file cannot be written.
/// `terminal` (text formats): the report is made printable and CI-command-safe
/// (analyzer/printable.h), keeping our own colour sequences when `color`.
bool write_text(const std::string& path, const std::string& text, bool terminal = false, bool color = false);
/// A text report to stdout, made printable and CI-command-safe.
void print_text(const std::string& text);

/// True when colour should be used on stdout.
bool use_color(const std::string& mode);

}  // namespace sa::cli
