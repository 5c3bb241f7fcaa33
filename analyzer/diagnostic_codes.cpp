#include "analyzer/diagnostic_codes.h"

namespace sa {

const std::vector<DiagnosticCode>& diagnostic_codes() {
  static const std::vector<DiagnosticCode> codes = {
      {"CONF000", "internal-error", "the analyzer failed on this input (a bug; please report it)"},
      {"CONF001", "syntax-error", "a line Slurm's parser cannot read"},
      {"CONF002", "several-settings-on-a-line", "a second key=value after a top-level setting, or a record key mid-line"},
      {"CONF003", "unknown-key", "a key Slurm does not know, with a did-you-mean"},
      {"CONF004", "removed-or-unavailable-key", "a key removed before, or added after, the checked Slurm version"},
      {"CONF005", "defunct-key", "a key Slurm still reads but ignores"},
      {"CONF006", "invalid-number", "a value that is not a number of the key's type (C base-0 rules)"},
      {"CONF007", "invalid-boolean", "a value that is not YES/NO/TRUE/FALSE/UP/DOWN/1/0"},
      {"CONF008", "invalid-time", "a value that is not a Slurm time string"},
      {"CONF009", "invalid-value", "a value outside the key's accepted words or format"},
      {"CONF010", "setting-overridden", "a setting given twice, or an alias shadowed by its twin"},
      {"CONF011", "include-problem", "an Include that cannot be read, loops, nests too deep or uses a glob"},
      {"CONF012", "invalid-hostlist", "a hostlist expression Slurm rejects, or address lists too short"},
      {"CONF013", "hostlist-too-large", "a hostlist that expands to an absurd number of names"},
      {"CONF014", "duplicate-node", "a node defined twice"},
      {"CONF015", "duplicate-partition", "a partition defined twice"},
      {"CONF016", "several-default-partitions", "more than one Default=YES partition"},
      {"CONF017", "undefined-node", "a partition, NodeSet or DownNodes naming a node no NodeName defines"},
      {"CONF018", "scheduler-parameter", "a SchedulerParameters option Slurm silently ignores or resets"},
      {"CONF019", "unknown-option-word", "a word in an option list Slurm rejects or silently ignores"},
      {"CONF020", "unknown-plugin", "a plugin name Slurm cannot load"},
      {"CONF021", "preempt-mode-conflict", "a PreemptType/PreemptMode combination Slurm rejects or ignores"},
      {"CONF022", "select-type-parameters", "SelectTypeParameters Slurm rejects"},
      {"CONF023", "quote-pitfall", "quotes that do not do what they seem to (a '#' inside, text after)"},
      {"CONF024", "empty-value-swallows-pair", "an empty value that took the next key=value as its value"},
      {"CONF025", "node-layout-reset", "node CPU/socket/core counts Slurm corrects at start-up"},
      {"CONF027", "default-time-dropped", "a partition DefaultTime above its MaxTime, which slurmctld drops"},
      {"CONF028", "time-slice-reset", "SchedulerTimeSlice below 5 s, reset to 30"},
      {"CONF030", "missing-required", "no ClusterName or no SlurmctldHost"},
      {"CONF031", "infinite-wraps", "INFINITE for PriorityMaxAge/PriorityDecayHalfLife, stored as a wrapped number"},
      {"CONF032", "no-decay-no-reset", "PriorityDecayHalfLife=0 without PriorityUsageResetPeriod"},
      {"CONF033", "weight-sum-overflow", "PriorityWeight* adding up beyond 2^32-1"},
      {"CONF034", "reserved-name", "a reserved word used as a node name"},
      {"CONF035", "default-line-key", "a key forbidden on, or never inherited from, a DEFAULT line"},
      {"CONF036", "allow-and-deny", "Allow* and Deny* both set; the Deny list is ignored"},
      {"CONF037", "memory-per-cpu-and-node", "both per-CPU and per-node memory defaults; per-node wins"},
      {"CONF038", "legacy-alias", "a legacy key (Shared, partition Priority) and how it resolves"},
      {"CONF040", "tres-not-tracked", "a TRES weight for a TRES AccountingStorageTRES does not track"},
      {"CONF041", "nodeset-problem", "a NodeSet named like a node, or defined twice"},
      {"CONF043", "weight-without-slurmdbd", "age or fair-share weight without slurmdbd, forced to 0"},
      {"CONF044", "gres-problem", "a GRES that cannot be read or is missing from GresTypes"},
      {"CONF045", "memory-tracked-no-realmemory", "memory is consumable but nodes have no RealMemory"},
      {"CONF046", "octal-number", "a leading zero that makes Slurm read the number as octal"},
      {"CONF047", "no-nodes", "no NodeName line and no MaxNodeCount"},
      {"ACCT001", "dump-syntax", "a sacctmgr dump line that cannot be read, or an unknown line title"},
      {"ACCT002", "undefined-parent", "a Parent not defined by an earlier Account line, or a line under it"},
      {"ACCT003", "invalid-assoc-option", "an unknown association option or a value it cannot take"},
      {"ACCT004", "duplicate-association", "an account or a user association defined twice"},
      {"ACCT005", "invalid-share", "a negative, non-numeric or absurd Fairshare"},
      {"ACCT006", "assoc-cycle", "an account placed under itself"},
      {"ACCT007", "default-account-missing", "a DefaultAccount the user has no association in"},
      {"ACCT008", "empty-account", "an account with no users and no sub-accounts"},
      {"ACCT010", "qos-table", "a QOS table row or value that cannot be read"},
      {"ACCT011", "usage-file", "an sshare usage row or value that cannot be read"},
      {"ACCT012", "usage-unmatched", "usage for an association the tree does not have"},
      {"ACCT013", "unknown-account", "a partition naming an account the association tree does not have"},
      {"ACCT014", "unknown-qos", "a partition or association naming a QOS the QOS table does not have"},
      {"WORK001", "workload-line", "a workload line or field that cannot be read (skipped, or the end with --stop-on-error)"},
      {"WORK002", "job-never-ran", "a trace job that never occupied the machine (cancelled before start, unknown size)"},
      {"WORK003", "workload-format", "a workload file that is neither SWF nor sacct -P output, or lacks needed columns"},
      {"WORK004", "duplicate-job-id", "a job id that repeats in a trace (renumbered)"},
      {"WORK005", "profile-error", "a synthetic profile line that cannot be read"},
      {"RESV001", "reservation-syntax", "a reservation line word that is not Key=Value (the rest of the line is ignored)"},
      {"RESV002", "reservation-missing-key", "a reservation without a name, StartTime or EndTime/Duration, or a line before any ReservationName="},
      {"RESV003", "reservation-invalid-time", "a reservation StartTime, EndTime or Duration that is not a time"},
      {"RESV004", "reservation-ends-before-start", "a reservation that ends before, or when, it starts"},
      {"RESV005", "reservation-invalid-nodes", "a reservation hostlist or NodeCnt that cannot be read, or a reservation with no nodes"},
      {"RESV006", "reservation-mixed-exclusion", "a Users or Accounts list mixing excluded ('-name') and included names"},
      {"RESV007", "duplicate-reservation", "a reservation name listed twice"},
      {"RESV008", "reservation-inconsistent", "NodeCnt or Duration disagreeing with Nodes or EndTime in the same record"},
      {"EVNT001", "event-line", "a node event line or table row that cannot be read"},
      {"EVNT002", "event-invalid-time", "a node event start or end that is not a time"},
      {"EVNT003", "event-ends-before-start", "a node event that ends before it starts"},
      {"EVNT004", "event-invalid-nodes", "a node event hostlist that cannot be read or names no nodes"},
      {"EVNT005", "event-invalid-state", "a node event state that is neither DOWN nor DRAIN"},
      {"EVNT006", "event-table-columns", "a sacctmgr event table without the NodeName, TimeStart, TimeEnd and State columns"},
  };
  return codes;
}

const DiagnosticCode* find_diagnostic_code(const std::string& code) {
  for (const DiagnosticCode& c : diagnostic_codes()) {
    if (code == c.code) return &c;
  }
  return nullptr;
}

}  // namespace sa
