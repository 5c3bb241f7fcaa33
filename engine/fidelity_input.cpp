#include "engine/fidelity_input.h"

#include <map>
#include <optional>
#include <string_view>
#include <vector>

#include <fmt/format.h>

#include "analyzer/psv_table.h"
#include "analyzer/text_util.h"
#include "engine/workload/gzip.h"
#include "engine/workload/trace_fields.h"
#include "engine/workload/workload.h"

namespace sa::engine {

namespace {

constexpr std::string_view kTraceHeaderStart = "job_id,";

std::string_view first_content_line(const std::string& text) {
  for (std::size_t at = 0; at < text.size() && at < (1u << 16);) {
    const std::size_t nl = std::min(text.find('\n', at), text.size());
    const std::string_view line = trim(std::string_view(text).substr(at, nl - at));
    if (!line.empty() && line.front() != '#') return line;
    at = nl + 1;
  }
  return {};
}

StartedBy started_by_flags(std::string_view flags) {
  // sacct Flags: SchedSubmit / SchedMain / SchedBackfill (slurmdb_defs.c slurmdb_job_flags_str);
  // a start at submission counts as the main scheduler's, as the engine's started_by does.
  if (flags.find("SchedBackfill") != std::string_view::npos) return StartedBy::kBackfill;
  if (flags.find("SchedMain") != std::string_view::npos || flags.find("SchedSubmit") != std::string_view::npos)
    return StartedBy::kMain;
  return StartedBy::kNone;
}

/// NNodes and Flags by job id, from the same dump the workload reader read (its rows were
/// checked there, so this read's diagnostics are not reported twice).
void add_sacct_extras(FileId file, const SourceManager& sources, Run& run) {
  DiagnosticSink ignored;
  const PsvTable t = read_psv(sources, file, ignored, "WORK001");
  const auto id = t.column("JobIDRaw") ? t.column("JobIDRaw") : t.column("JobID");
  const auto nnodes = t.column("NNodes"), flags = t.column("Flags"), nodelist = t.column("NodeList");
  if (!id || (!nnodes && !flags && !nodelist)) return;
  std::map<std::uint32_t, RunJob*> by_id;
  for (RunJob& j : run.jobs) by_id.emplace(j.id, &j);
  for (const PsvTable::Row& row : t.rows) {
    const auto n = parse_trace_int(t.field(row, *id));
    auto it = n ? by_id.find(static_cast<std::uint32_t>(*n)) : by_id.end();
    if (it == by_id.end() || it->second->line != row.line || it->second->start == kNoTime) continue;
    // 22.05 records a submission sbatch refused (e.g. "Requested node configuration is not
    // available") as FAILED with Start = Submit and no nodes: it never ran (captured in
    // tests/golden/mini_slurm_fidelity/constraints, jobs 12 and 13).
    if (nodelist && t.field(row, *nodelist) == "None assigned") {
      it->second->start = it->second->end = kNoTime;
      continue;
    }
    if (nnodes) {
      if (auto v = parse_trace_int(t.field(row, *nnodes)); v && *v > 0 && *v < (1 << 24))
        it->second->nodes = static_cast<std::uint32_t>(*v);
    }
    if (flags) it->second->started_by = started_by_flags(t.field(row, *flags));
  }
}

RunJob from_request(const JobRequest& r) {
  RunJob j;
  j.id = r.id;
  j.submit = r.submit;
  j.begin = r.eligible;
  j.start = r.extra.get().recorded_start;
  if (j.start != kNoTime) j.end = j.start + r.run_time;
  j.partition = r.partitions.empty() ? std::string() : r.partitions.front().str();
  j.qos = r.qos;
  j.account = r.account;
  j.cpus = r.cpus;
  j.line = r.line;
  return j;
}

/// One CSV line split into fields ("" quoting as write_trace_csv does), with the 1-based
/// column each field starts at; nullopt when a quote is left open.
struct CsvFields {
  std::vector<std::string> values;
  std::vector<int> columns;
};

std::optional<CsvFields> split_csv(std::string_view line) {
  CsvFields out;
  std::string field;
  bool quoted = false;
  out.columns.push_back(1);
  for (std::size_t i = 0; i < line.size(); ++i) {
    const char c = line[i];
    if (quoted) {
      if (c != '"')
        field += c;
      else if (i + 1 < line.size() && line[i + 1] == '"')
        field += line[++i];
      else
        quoted = false;
    } else if (c == '"') {
      quoted = true;
    } else if (c == ',') {
      out.values.push_back(std::move(field));
      field.clear();
      out.columns.push_back(static_cast<int>(i) + 2);
    } else if (c != '\r') {
      field += c;
    }
  }
  if (quoted) return std::nullopt;
  out.values.push_back(std::move(field));
  return out;
}

struct TraceColumns {
  std::map<std::string, std::size_t> index;  // the first column of each name
  std::size_t count = 0;                     // fields in the header
  std::optional<std::size_t> find(const std::string& name) const {
    auto it = index.find(name);
    return it == index.end() ? std::nullopt : std::optional<std::size_t>(it->second);
  }
};

}  // namespace

bool looks_like_trace_csv(const std::string& text) { return first_content_line(text).starts_with(kTraceHeaderStart); }

Run read_recorded_run(FileId file, const SourceManager& sources, DiagnosticSink& sink) {
  const std::string& text = sources.file(file).content;
  const Workload w = looks_like_swf(text) ? read_swf(file, sources, sink, {}) : read_sacct(file, sources, sink, {});
  Run run;
  run.source = sources.path(file);
  for (const JobRequest& r : w.jobs) run.jobs.push_back(from_request(r));
  if (w.format == WorkloadFormat::kSacct) add_sacct_extras(file, sources, run);
  return run;
}

namespace {

/// One trace row as a job; false (with a WORK001 diagnostic) when a needed field is unreadable.
bool read_trace_row(const CsvFields& f, const TraceColumns& c, SourceLoc at, DiagnosticSink& sink, RunJob& j) {
  auto field = [&](const char* name) -> std::string_view {
    const auto i = c.find(name);
    return i && *i < f.values.size() ? std::string_view(f.values[*i]) : std::string_view();
  };
  auto loc = [&](const char* name) {
    const auto i = c.find(name);
    return SourceLoc{at.file, at.line, i && *i < f.columns.size() ? f.columns[*i] : 1};
  };
  auto number = [&](const char* name, bool needed, std::int64_t& out) {
    const std::string_view text = trim(field(name));
    if (text.empty() && !needed) return true;
    const auto v = parse_trace_int(text);
    if (!v) sink.error("WORK001", loc(name), fmt::format("{} '{}' is not a number", name, text));
    if (v) out = *v;
    return v.has_value();
  };
  std::int64_t id = 0, cpus = 0, nodes = 0;
  if (!number("job_id", true, id) || !number("submit", true, j.submit)) return false;
  if (id <= 0 || id > 0xFFFFFFF0LL) {
    sink.error("WORK001", loc("job_id"), fmt::format("job id {} is out of range", id));
    return false;
  }
  j.id = static_cast<std::uint32_t>(id);
  if (!number("eligible", false, j.begin) || !number("start", false, j.start) || !number("end", false, j.end) ||
      !number("cpus", false, cpus) || !number("nodes", false, nodes))
    return false;
  j.cpus = static_cast<std::uint32_t>(std::clamp<std::int64_t>(cpus, 0, 0xFFFFFFF0LL));
  if (j.start != kNoTime) j.nodes = static_cast<std::uint32_t>(std::clamp<std::int64_t>(nodes, 0, 0xFFFFFFF0LL));
  j.partition = std::string(trim(field("partition")));
  j.qos = to_lower(trim(field("qos")));
  j.account = to_lower(trim(field("account")));
  const std::string_view by = trim(field("started_by"));
  j.started_by = by == "backfill" ? StartedBy::kBackfill : by == "main" ? StartedBy::kMain : StartedBy::kNone;
  // Not written yet by simulate: where a trace says whether a placement met the job's
  // constraints (issue 21 item 2), compare counts the illegal ones.
  const std::string_view legal = trim(field("placement_legal"));
  if (legal == "1" || legal == "yes") j.placement_legal = true;
  if (legal == "0" || legal == "no") j.placement_legal = false;
  j.line = at.line;
  return true;
}

}  // namespace

Run read_trace_run(FileId file, const SourceManager& sources, DiagnosticSink& sink) {
  Run run;
  run.source = sources.path(file);
  const std::string& text = sources.file(file).content;
  TraceColumns columns;
  std::map<std::uint32_t, int> seen;
  int line_no = 0;
  bool header = false;
  for (std::size_t at = 0; at < text.size();) {
    const std::size_t nl = std::min(text.find('\n', at), text.size());
    const std::string_view line = std::string_view(text).substr(at, nl - at);
    at = nl + 1;
    ++line_no;
    if (trim(line).empty() || line.front() == '#') continue;
    const std::optional<CsvFields> f = split_csv(line);
    if (!f) {
      sink.error("WORK001", {file, line_no, 1}, "a quoted field is not closed on this line");
      continue;
    }
    if (!header) {
      for (std::size_t i = 0; i < f->values.size(); ++i) columns.index.emplace(std::string(trim(f->values[i])), i);
      columns.count = f->values.size();
      header = true;
      if (!columns.find("job_id") || !columns.find("submit") || !columns.find("start")) {
        sink.error("WORK003", {file, line_no, 1},
                   "a trace CSV needs the columns job_id, submit and start (write it with simulate --trace)");
        return run;
      }
      continue;
    }
    if (f->values.size() != columns.count) {
      sink.error("WORK001", {file, line_no, 1},
                 fmt::format("this row has {} fields but the header has {}", f->values.size(), columns.count));
      continue;
    }
    RunJob j;
    if (!read_trace_row(*f, columns, {file, line_no, 1}, sink, j)) continue;
    if (auto [it, fresh] = seen.emplace(j.id, line_no); !fresh) {
      sink.error("WORK001", {file, line_no, 1},
                 fmt::format("job id {} repeats (first at line {}); this row is ignored", j.id, it->second));
      continue;
    }
    run.jobs.push_back(std::move(j));
  }
  if (!header) sink.error("WORK003", {file, 1, 1}, "the trace is empty: no header line (job_id,submit,...)");
  return run;
}

Result<Run> read_run(const std::string& path, SourceManager& sources, DiagnosticSink& sink) {
  Result<FileId> file = sources.load(path);
  if (!file) return Error{file.error()};
  if (is_gzip(sources.file(*file).content)) {  // as read_workload does: one input like any other
    auto text = gunzip(sources.file(*file).content, static_cast<std::size_t>(sources.limits().file_bytes));
    if (!text) return Error{path + ": " + text.error()};
    file = sources.add(path, std::move(*text));
  }
  if (looks_like_trace_csv(sources.file(*file).content)) return read_trace_run(*file, sources, sink);
  return read_recorded_run(*file, sources, sink);
}

}  // namespace sa::engine
