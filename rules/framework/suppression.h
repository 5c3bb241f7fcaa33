#pragma once
// Suppression comments in the inputs themselves, so a site can record a deliberate choice
// next to the line it concerns:
//   `# slurm-advisor: disable=BF001,PRIO002`       on the flagged line, or alone on the line above
//   `# slurm-advisor: disable-file=FAIR001`        anywhere: the whole file
// `all` matches every code.
#include <map>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "rules/framework/finding.h"

namespace sa::rules {

class Suppressions {
 public:
  /// Reads the directives of one file's text.
  void add_file(const std::string& path, std::string_view text);
  bool suppressed(const Finding& finding) const;
  /// Whether a finding of `code` at `loc` would be suppressed (rules that gather many places
  /// into one finding leave out the places a site marked).
  bool suppressed(const std::string& code, const Location& loc) const;

 private:
  struct FileDirectives {
    std::set<std::string> whole_file;
    std::map<int, std::set<std::string>> by_line;  // line -> codes disabled on it
  };
  std::map<std::string, FileDirectives> files_;
};

/// The codes of a `slurm-advisor: disable=` (or `disable-file=` when `file_wide`) directive in
/// one line's comment; empty when there is none.
std::vector<std::string> directive_codes(std::string_view line, bool file_wide);

}  // namespace sa::rules
