#pragma once
// The catalogue of input diagnostics: CONF for slurm.conf, ACCT for the accounting files,
// WORK for workloads (traces and synthetic profiles). A code never changes meaning once published:
// it is the suppression key and the SARIF ruleId of the `config` check family.
#include <string>
#include <vector>

namespace sa {

struct DiagnosticCode {
  const char* code;
  const char* slug;     // names the defect, kebab-case
  const char* summary;  // one line for listings
};

const std::vector<DiagnosticCode>& diagnostic_codes();
/// The entry for `code`, or nullptr.
const DiagnosticCode* find_diagnostic_code(const std::string& code);

}  // namespace sa
