#include "analyzer/accounting_readers.h"

#include <fmt/format.h>
#include <map>
#include <tuple>

#include "analyzer/assoc_reader.h"
#include "analyzer/psv_table.h"
#include "analyzer/text_util.h"
#include "analyzer/values.h"

namespace sa {

namespace {

class QosRowReader {
 public:
  QosRowReader(const PsvTable& table, const PsvTable::Row& row, DiagnosticSink& sink)
      : table_(table), row_(row), sink_(sink) {}

  std::optional<std::string> text(const char* column) const {
    auto c = table_.column(column);
    if (!c) return std::nullopt;
    std::string v(trim(table_.field(row_, *c)));
    if (v.empty()) return std::nullopt;
    return v;
  }

  std::optional<std::int64_t> count(const char* column) const {
    auto v = text(column);
    if (!v) return std::nullopt;
    auto n = parse_long(*v);
    if (!n) report(column, *v, "not a count");
    return n ? std::optional<std::int64_t>(*n) : std::nullopt;
  }

  std::optional<std::int64_t> time(const char* column) const {
    auto v = text(column);
    if (!v) return std::nullopt;
    auto secs = parse_time_secs(*v);
    if (!secs) report(column, *v, "not a time");
    if (!secs || *secs == kInfiniteTime) return std::nullopt;
    return *secs;
  }

  std::optional<TresMap> tres(const char* column) const {
    auto v = text(column);
    if (!v) return std::nullopt;
    auto parsed = parse_tres_string(*v);
    if (!parsed) report(column, *v, parsed.error());
    return parsed ? std::optional<TresMap>(*parsed) : std::nullopt;
  }

  std::vector<std::string> list(const char* column) const {
    std::vector<std::string> out;
    for (const std::string& item : split(text(column).value_or(""), ',')) {
      if (!item.empty()) out.push_back(item);
    }
    return out;
  }

  SourceLoc loc(const char* column) const { return table_.loc(row_, table_.column(column).value_or(0)); }

  void report(const char* column, const std::string& value, const std::string& why) const {
    sink_.error("ACCT010", loc(column), fmt::format("{}='{}' in the QOS table: {}", column, printable(value), why));
  }

 private:
  const PsvTable& table_;
  const PsvTable::Row& row_;
  DiagnosticSink& sink_;
};

QosRecord read_qos_row(const QosRowReader& r) {
  QosRecord q;
  q.name = to_lower(r.text("Name").value_or(""));
  q.loc = r.loc("Name");
  q.priority = static_cast<std::uint32_t>(r.count("Priority").value_or(0));
  if (auto uf = r.text("UsageFactor")) {
    auto v = parse_double(*uf);
    if (v)
      q.usage_factor = *v;
    else
      r.report("UsageFactor", *uf, "not a number");
  }
  if (auto ut = r.text("UsageThres")) {
    if (auto v = parse_double(*ut)) q.usage_threshold = *v;
  }
  q.preempt = r.list("Preempt");
  q.preempt_mode = to_lower(r.text("PreemptMode").value_or("cluster"));
  q.flags = r.list("Flags");
  q.grace_time = r.time("GraceTime").value_or(0);
  q.preempt_exempt_time = r.time("PreemptExemptTime");
  q.grp_tres = r.tres("GrpTRES");
  q.grp_tres_mins = r.tres("GrpTRESMins");
  q.grp_tres_run_mins = r.tres("GrpTRESRunMins");
  q.grp_jobs = r.count("GrpJobs");
  q.grp_submit_jobs = r.count("GrpSubmit");
  q.grp_wall = r.time("GrpWall");
  q.max_tres_per_job = r.tres("MaxTRES");
  q.max_tres_per_node = r.tres("MaxTRESPerNode");
  q.max_tres_mins_per_job = r.tres("MaxTRESMins");
  q.max_wall = r.time("MaxWall");
  q.max_tres_per_user = r.tres("MaxTRESPU");
  q.max_jobs_per_user = r.count("MaxJobsPU");
  q.max_submit_per_user = r.count("MaxSubmitPU");
  q.max_tres_per_account = r.tres("MaxTRESPA");
  q.max_jobs_per_account = r.count("MaxJobsPA");
  q.max_submit_per_account = r.count("MaxSubmitPA");
  q.min_tres = r.tres("MinTRES");
  return q;
}

}  // namespace

QosTable read_qos_table_text(FileId file, const SourceManager& sources, DiagnosticSink& sink) {
  PsvTable table = read_psv(sources, file, sink, "ACCT010");
  QosTable qos;
  if (!table.column("Name")) {
    sink.error("ACCT010", {file, 1, 1}, "the QOS table has no Name column; use `sacctmgr show qos -P` with its header");
    return qos;
  }
  for (const PsvTable::Row& row : table.rows) {
    QosRecord q = read_qos_row(QosRowReader(table, row, sink));
    if (q.name.empty()) continue;
    if (qos.find(q.name)) {
      sink.error("ACCT010", q.loc, fmt::format("QOS '{}' is listed twice", printable(q.name)));
      continue;
    }
    qos.records.push_back(std::move(q));
  }
  return qos;
}

Result<QosTable> read_qos_table(const std::string& path, SourceManager& sources, DiagnosticSink& sink) {
  auto file = sources.load(path);
  if (!file) return Error{file.error()};
  return read_qos_table_text(*file, sources, sink);
}

UsageSnapshot read_sshare_usage_text(FileId file, const SourceManager& sources, DiagnosticSink& sink) {
  PsvTable table = read_psv(sources, file, sink, "ACCT011");
  UsageSnapshot usage;
  auto account = table.column("Account"), user = table.column("User"), raw = table.column("RawUsage");
  auto partition = table.column("Partition");
  if (!account || !user || !raw) {
    sink.error("ACCT011", {file, 1, 1},
               "the usage file needs the Account, User and RawUsage columns of "
               "`sshare -a -l -P` or `sshare -a -P`");
    return usage;
  }
  for (const PsvTable::Row& row : table.rows) {
    std::string u(trim(table.field(row, *user)));
    if (u.empty()) continue;  // account rows: Slurm rebuilds them from their users
    std::string value(trim(table.field(row, *raw)));
    auto number = parse_double(value);
    if (!number || *number < 0) {
      sink.error("ACCT011", table.loc(row, *raw), fmt::format("RawUsage '{}' is not a usage", printable(value)));
      continue;
    }
    UsageSnapshot::Row r;
    r.account = to_lower(std::string(trim(table.field(row, *account))));  // sshare indents accounts
    r.user = to_lower(u);
    if (partition) r.partition = std::string(trim(table.field(row, *partition)));
    r.raw_usage = *number;
    r.loc = table.loc(row, *user);
    usage.rows.push_back(std::move(r));
  }
  return usage;
}

Result<UsageSnapshot> read_sshare_usage(const std::string& path, SourceManager& sources, DiagnosticSink& sink) {
  auto file = sources.load(path);
  if (!file) return Error{file.error()};
  return read_sshare_usage_text(*file, sources, sink);
}

std::vector<double> usage_by_association(const AssocTree& tree, const UsageSnapshot& usage, DiagnosticSink& sink) {
  std::vector<double> raw(tree.assocs.size(), 0.0);
  // One index instead of a scan per row: usage files list every user association.
  std::map<std::tuple<std::string, std::string, std::string>, std::uint32_t> users;
  for (const Association& a : tree.assocs) {
    if (a.is_user()) users.emplace(std::make_tuple(a.user, a.account, a.partition), a.id);
  }
  for (const UsageSnapshot::Row& row : usage.rows) {
    auto found = users.find(std::make_tuple(row.user, row.account, row.partition));
    std::uint32_t id = found == users.end() ? kNoAssoc : found->second;
    if (id == kNoAssoc) {
      sink.warning("ACCT012", row.loc,
                   fmt::format("usage for user '{}' in account '{}' matches no association in the tree; it is ignored",
                               printable(row.user), printable(row.account)));
      continue;
    }
    raw[id] = row.raw_usage;
  }
  return raw;
}

}  // namespace sa
