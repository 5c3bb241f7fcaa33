#pragma once
// Helpers shared by the analyzer tests: analyse in-memory text and look at what came out.
#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include "analyzer/analyze.h"

namespace sa::test {

/// The keys every slurm.conf needs (a name, a controller, and nodes: MaxNodeCount allows a
/// config with no NodeName line), so tests see only the diagnostics they provoke.
inline const char* kPreamble = "ClusterName=test\nSlurmctldHost=ctl\nMaxNodeCount=100\n";

inline std::unique_ptr<Analysis> analyze(const std::string& text, const char* version = "24.05") {
  return analyze_text("slurm.conf", text, {*SlurmVersion::parse(version)});
}

inline std::unique_ptr<Analysis> analyze_body(const std::string& body, const char* version = "24.05") {
  return analyze(std::string(kPreamble) + body, version);
}

inline std::vector<std::string> codes(const Analysis& a) {
  std::vector<std::string> out;
  for (const Diagnostic& d : a.diagnostics.sorted()) out.push_back(d.code);
  return out;
}

inline const Diagnostic* first(const Analysis& a, const std::string& code) {
  for (const Diagnostic& d : a.diagnostics.all()) {
    if (d.code == code) return &d;
  }
  return nullptr;
}

inline int count(const Analysis& a, const std::string& code) {
  auto all = codes(a);
  return static_cast<int>(std::count(all.begin(), all.end(), code));
}

/// "CODE line:col" for every diagnostic in the sink, in reporting order.
inline std::vector<std::string> where(const DiagnosticSink& sink) {
  std::vector<std::string> out;
  for (const Diagnostic& d : sink.sorted()) {
    out.push_back(d.code + " " + std::to_string(d.loc.line) + ":" + std::to_string(d.loc.column));
  }
  return out;
}

}  // namespace sa::test
