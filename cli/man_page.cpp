#include "cli/man_page.h"

#include <cctype>
#include <sstream>

#include <fmt/format.h>

#include "cli/project_config.h"
#include "cli/version_info.h"

namespace sa::cli {

namespace {

// One UTF-8 sequence from `text` at `i` as groff's \[uXXXX]; a bad byte becomes '?'.
std::string unicode_escape(const std::string& text, std::size_t& i) {
  const auto byte = static_cast<unsigned char>(text[i]);
  const int extra = byte >= 0xF0 ? 3 : byte >= 0xE0 ? 2 : byte >= 0xC0 ? 1 : -1;
  if (extra < 0 || i + static_cast<std::size_t>(extra) >= text.size()) return "?";
  unsigned code = byte & (0x3Fu >> extra);
  for (int k = 1; k <= extra; ++k) code = (code << 6) | (static_cast<unsigned char>(text[i + k]) & 0x3Fu);
  i += static_cast<std::size_t>(extra);
  return fmt::format("\\[u{:04X}]", code);
}

std::string header(const std::string& name, const std::string& summary) {
  std::string upper;
  for (char c : name) upper += c == '-' ? std::string("\\-") : std::string(1, static_cast<char>(std::toupper(c)));
  return fmt::format(
      ".TH \"{}\" \"1\" \"\" \"slurm\\-advisor {}\" \"slurm\\-advisor manual\"\n.SH NAME\n{} \\- "
      "{}\n",
      upper, roff_escape(kToolVersion), roff_escape(name), roff_escape(summary));
}

// An option's names in bold with \- for each dash, and its placeholder in italics.
std::string option_label(const OptionShape& o) {
  std::string names;
  for (const std::string& n : o.names) names += (names.empty() ? "" : ", ") + ("\\fB" + roff_escape(n) + "\\fR");
  if (o.value == ValueShape::kNone) return names;
  return names + " \\fI" + roff_escape(o.placeholder) + "\\fR";
}

std::string options_section(const std::vector<OptionShape>& options) {
  std::string out = ".SH OPTIONS\n";
  for (const OptionShape& o : options) {
    std::string notes;
    if (o.required) notes += " (required)";
    if (o.repeatable) notes += " (repeatable)";
    out += ".TP\n" + option_label(o) + "\n" + roff_escape(o.description + notes) + "\n";
  }
  return out;
}

std::string synopsis(const CommandShape& c) {
  std::string out = ".SH SYNOPSIS\n\\fBslurm\\-advisor " + roff_escape(c.name) + "\\fR [\\fIOPTIONS\\fR]";
  for (const OptionShape& p : c.positionals) {
    const std::string arg = "\\fI" + roff_escape(p.names.front()) + "\\fR";
    out += " " + (p.required ? arg : "[" + arg + "]");
  }
  return out + "\n";
}

std::string files_section() {
  std::string out = fmt::format(
      ".SH FILES\n.TP\n\\fI{}\\fR\nThe project config file, looked for in the directory of the "
      "slurm.conf a command "
      "reads and then in each directory above it (\\fB\\-\\-config\\fR names one, "
      "\\fB\\-\\-no\\-config\\fR reads "
      "none). Each key stands for the option named beside it; an option given on the command line "
      "wins. Paths are "
      "relative to the file's directory and must stay inside it. Keys:\n",
      roff_escape(kProjectConfigName));
  for (const ConfigKey& k : config_keys()) {
    out += fmt::format(".TP\n\\fB{}\\fR ({})\n{}\n", roff_escape(k.key),
                       option_label({{k.option}, "", "", {}, ValueShape::kNone}), roff_escape(k.help));
  }
  return out;
}

const char* kExitStatus =
    ".SH EXIT STATUS\n.TP\n0\nNo errors (for lint and diff: no finding at or above "
    "\\fB\\-\\-fail\\-on\\fR).\n"
    ".TP\n1\nThe configuration has errors Slurm would refuse, or findings at or above "
    "\\fB\\-\\-fail\\-on\\fR.\n"
    ".TP\n2\nThe tool could not do its job: a missing or unreadable input, a bad option or config "
    "file.\n";

}  // namespace

std::string roff_escape(const std::string& text) {
  std::string out;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (c == '\\') {
      out += "\\e";
    } else if (c == '-') {
      out += "\\-";
    } else if (static_cast<unsigned char>(c) >= 0x80) {
      out += unicode_escape(text, i);
    } else if (c == '\n') {
      out += ' ';
    } else {
      // A control character at the start of a text line would be read as a request.
      if ((c == '.' || c == '\'') && (out.empty() || out.back() == '\n')) out += "\\&";
      out += c;
    }
  }
  return out;
}

std::string roff_paragraphs(const std::string& text) {
  enum { kNone, kText, kExample } state = kNone;
  std::string out;
  std::istringstream lines(text);
  for (std::string line; std::getline(lines, line);) {
    if (line.find_first_not_of(' ') == std::string::npos) {
      if (state == kExample) out += ".fi\n.RE\n";
      state = kNone;
    } else if (line.starts_with("  ")) {
      if (state == kNone) out += ".PP\n";
      if (state != kExample) out += ".RS 4\n.nf\n";
      state = kExample;
      out += roff_escape(line.substr(2)) + "\n";
    } else {
      if (state == kExample) out += ".fi\n.RE\n";
      if (state != kText) out += ".PP\n";
      state = kText;
      out += roff_escape(line) + "\n";
    }
  }
  if (state == kExample) out += ".fi\n.RE\n";
  return out;
}

std::string root_man_page(const std::vector<CommandShape>& commands, const std::vector<OptionShape>& options,
                          const std::string& description) {
  std::string out = header("slurm-advisor", "check Slurm configurations and policies before you deploy them");
  out += ".SH SYNOPSIS\n\\fBslurm\\-advisor\\fR \\fICOMMAND\\fR [\\fIOPTIONS\\fR] [\\fIARGS\\fR]\n";
  out += ".SH DESCRIPTION\n" + roff_paragraphs(description);
  out += ".SH COMMANDS\n";
  for (const CommandShape& c : commands) {
    out += fmt::format(".TP\n\\fB{}\\fR\n{}; see \\fBslurm\\-advisor\\-{}\\fR(1).\n", roff_escape(c.name),
                       roff_escape(c.description), roff_escape(c.name));
  }
  out += options_section(options) + files_section() + kExitStatus + ".SH SEE ALSO\n";
  std::string see;
  for (const CommandShape& c : commands) see += "\\fBslurm\\-advisor\\-" + roff_escape(c.name) + "\\fR(1),\n";
  return out + see + "\\fBslurm.conf\\fR(5), \\fBsacctmgr\\fR(1), \\fBsshare\\fR(1)\n";
}

std::string command_man_page(const CommandShape& c, const std::string& description) {
  std::string out = header("slurm-advisor-" + c.name, c.description);
  out += synopsis(c) + ".SH DESCRIPTION\n" + roff_paragraphs(description);
  if (!c.positionals.empty()) {
    out += ".SH ARGUMENTS\n";
    for (const OptionShape& p : c.positionals) {
      out += ".TP\n\\fI" + roff_escape(p.names.front()) + "\\fR\n" + roff_escape(p.description) + "\n";
    }
  }
  out += options_section(c.options);
  if (!c.footer.empty()) out += ".SH NOTES\n" + roff_paragraphs(c.footer);
  out += kExitStatus;
  return out + ".SH SEE ALSO\n\\fBslurm\\-advisor\\fR(1), \\fBslurm.conf\\fR(5)\n";
}

}  // namespace sa::cli
