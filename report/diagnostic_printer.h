#pragma once
// Prints analyzer diagnostics for a terminal (compiler style, with the source line and a
// caret) or as JSON for tools.
#include <ostream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "analyzer/diagnostics.h"
#include "analyzer/source_manager.h"

namespace sa::report {

struct TextOptions {
  bool color = false;
  bool show_source = true;
};

/// "file:line:col: severity: message [CODE]", the source line, a caret, and the hint.
/// The ANSI colour of a severity, shared by diagnostic lines and lint findings.
const char* severity_color(Severity severity);

void print_diagnostics_text(std::ostream& out, const std::vector<Diagnostic>& diagnostics, const SourceManager& sources,
                            const TextOptions& options = {});
/// {"diagnostics":[{"code","severity","message","file","line","column","hint"?}]}
nlohmann::json diagnostics_json(const std::vector<Diagnostic>& diagnostics, const SourceManager& sources);

/// "2 errors, 1 warning" style summary line.
std::string diagnostics_summary(const std::vector<Diagnostic>& diagnostics);

}  // namespace sa::report
