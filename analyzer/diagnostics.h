#pragma once
// Every problem found in user input becomes a Diagnostic collected in one sink; nothing in
// the analyzer throws at the user. Codes are stable: they are the keys for suppression and
// the SARIF ruleId, so a published code never changes meaning.
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include "analyzer/source_manager.h"

namespace sa {

/// One scale for input diagnostics and rule findings. The compiler-style diagnostic lines
/// call the lowest level "note" (as gcc and clang do); findings, JSON and the severity file
/// call it "info" (rules/framework/finding.h: level_name).
enum class Severity { kError, kWarning, kInfo };

const char* severity_name(Severity severity);

struct Diagnostic {
  std::string code;  // e.g. "CONF003"
  Severity severity = Severity::kError;
  std::string message;
  SourceLoc loc;
  std::string hint;  // optional: a suggested fix, printed after the caret line
};

class DiagnosticSink {
 public:
  void report(Diagnostic diagnostic);
  void error(const std::string& code, SourceLoc loc, std::string message, std::string hint = {});
  void warning(const std::string& code, SourceLoc loc, std::string message, std::string hint = {});
  void note(const std::string& code, SourceLoc loc, std::string message, std::string hint = {});

  const std::vector<Diagnostic>& all() const { return diagnostics_; }
  /// Diagnostics ordered by file, line, column, then code: the order every reporter uses.
  std::vector<Diagnostic> sorted() const;
  int count(Severity severity) const;
  /// Turns errors with these codes into warnings and appends `reason` to their message;
  /// used when a missing Include file may well hold what they say is missing.
  void downgrade_errors(const std::set<std::string>& codes, const std::string& reason);
  bool has_errors() const { return count(Severity::kError) > 0; }

 private:
  std::vector<Diagnostic> diagnostics_;
  // A value inherited from a DEFAULT line is read once per record; report it once.
  std::set<std::tuple<std::string, FileId, int, int, std::string>> seen_;
};

}  // namespace sa
