#include "report/diagnostic_printer.h"

#include <fmt/format.h>

#include <sstream>

#include "analyzer/printable.h"
#include "analyzer/text_util.h"

namespace sa::report {

namespace {

std::string location(const Diagnostic& d, const SourceManager& sources) {
  if (!d.loc.valid()) return "slurm-advisor";
  return fmt::format("{}:{}:{}", printable(sources.path(d.loc.file), 400), d.loc.line, d.loc.column);
}

constexpr std::size_t kMaxSnippet = 300;  // bytes of a quoted line; minified configs have huge lines

// The source line with tabs kept (so the caret lines up) and control bytes made visible.
void print_source(std::ostream& out, const Diagnostic& d, const SourceManager& sources, bool color) {
  std::string_view line = sources.line_text(d.loc.file, d.loc.line);
  if (line.empty() && d.loc.line > 0) return;
  const std::size_t before =
      std::min<std::size_t>(static_cast<std::size_t>(std::max(d.loc.column - 1, 0)), line.size());
  std::string prefix, shown;
  append_printable(prefix, line.substr(0, before), true);
  append_printable(shown, line.substr(0, kMaxSnippet), true);
  if (line.size() > kMaxSnippet) shown += "...";
  std::string caret;
  for (char c : prefix) caret.push_back(c == '\t' ? '\t' : ' ');
  if (caret.size() > shown.size()) caret.assign(shown.size(), ' ');
  out << "  " << shown << "\n  " << caret << (color ? "\033[1;32m^\033[0m" : "^") << "\n";
}

}  // namespace

const char* severity_color(Severity s) {
  switch (s) {
    case Severity::kError:
      return "\033[1;31m";
    case Severity::kWarning:
      return "\033[1;35m";
    case Severity::kInfo:
      return "\033[1;36m";
  }
  return "";
}

void print_diagnostics_text(std::ostream& terminal, const std::vector<Diagnostic>& diagnostics,
                            const SourceManager& sources, const TextOptions& options) {
  // Rendered first, then made safe as a whole: no input byte reaches the terminal raw.
  std::ostringstream out;
  for (const Diagnostic& d : diagnostics) {
    const char* sev = severity_name(d.severity);
    if (options.color) {
      out << fmt::format("\033[1m{}:\033[0m {}{}:\033[0m \033[1m{}\033[0m [{}]\n", location(d, sources),
                         severity_color(d.severity), sev, printable(d.message, d.message.size()), d.code);
    } else {
      out << fmt::format("{}: {}: {} [{}]\n", location(d, sources), sev, d.message, d.code);
    }
    if (options.show_source && d.loc.valid()) print_source(out, d, sources, options.color);
    if (!d.hint.empty()) out << "  hint: " << d.hint << "\n";
  }
  terminal << terminal_text(out.str(), {options.color});
}

nlohmann::json diagnostics_json(const std::vector<Diagnostic>& diagnostics, const SourceManager& sources) {
  nlohmann::json list = nlohmann::json::array();
  for (const Diagnostic& d : diagnostics) {
    nlohmann::json j = {{"code", d.code},       {"severity", severity_name(d.severity)},
                        {"message", d.message}, {"file", d.loc.valid() ? sources.path(d.loc.file) : ""},
                        {"line", d.loc.line},   {"column", d.loc.column}};
    if (!d.hint.empty()) j["hint"] = d.hint;
    list.push_back(std::move(j));
  }
  return {{"diagnostics", list}};
}

std::string diagnostics_summary(const std::vector<Diagnostic>& diagnostics) {
  int errors = 0, warnings = 0, notes = 0;
  for (const Diagnostic& d : diagnostics) {
    (d.severity == Severity::kError ? errors : d.severity == Severity::kWarning ? warnings : notes)++;
  }
  auto plural = [](int n, const char* word) { return fmt::format("{} {}{}", n, word, n == 1 ? "" : "s"); };
  return fmt::format("{}, {}, {}", plural(errors, "error"), plural(warnings, "warning"), plural(notes, "note"));
}

}  // namespace sa::report
