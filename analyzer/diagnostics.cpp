#include "analyzer/diagnostics.h"

#include <algorithm>
#include <tuple>

namespace sa {

const char* severity_name(Severity severity) {
  switch (severity) {
    case Severity::kError:
      return "error";
    case Severity::kWarning:
      return "warning";
    case Severity::kInfo:
      return "note";
  }
  return "error";
}

void DiagnosticSink::report(Diagnostic diagnostic) {
  auto key = std::make_tuple(diagnostic.code, diagnostic.loc.file, diagnostic.loc.line, diagnostic.loc.column,
                             diagnostic.message);
  if (!seen_.insert(std::move(key)).second) return;
  diagnostics_.push_back(std::move(diagnostic));
}

void DiagnosticSink::error(const std::string& code, SourceLoc loc, std::string message, std::string hint) {
  report({code, Severity::kError, std::move(message), loc, std::move(hint)});
}

void DiagnosticSink::warning(const std::string& code, SourceLoc loc, std::string message, std::string hint) {
  report({code, Severity::kWarning, std::move(message), loc, std::move(hint)});
}

void DiagnosticSink::note(const std::string& code, SourceLoc loc, std::string message, std::string hint) {
  report({code, Severity::kInfo, std::move(message), loc, std::move(hint)});
}

void DiagnosticSink::downgrade_errors(const std::set<std::string>& codes, const std::string& reason) {
  for (Diagnostic& d : diagnostics_) {
    if (d.severity == Severity::kError && codes.count(d.code)) {
      d.severity = Severity::kWarning;
      d.message += reason;
    }
  }
}

std::vector<Diagnostic> DiagnosticSink::sorted() const {
  std::vector<Diagnostic> out = diagnostics_;
  std::stable_sort(out.begin(), out.end(), [](const Diagnostic& a, const Diagnostic& b) {
    return std::tie(a.loc.file, a.loc.line, a.loc.column, a.code) <
           std::tie(b.loc.file, b.loc.line, b.loc.column, b.code);
  });
  return out;
}

int DiagnosticSink::count(Severity severity) const {
  return static_cast<int>(std::count_if(diagnostics_.begin(), diagnostics_.end(),
                                        [&](const Diagnostic& d) { return d.severity == severity; }));
}

}  // namespace sa
