// `sacct -P` / `-p` dumps: columns found by header name in any order, extra columns ignored,
// job steps (JobID with a '.') skipped. The request comes from ReqCPUS/ReqNodes/ReqMem when
// present, else from AllocCPUS/NNodes; the run time from ElapsedRaw, Elapsed or End-Start; the
// rest of its shape (tasks, constraint, dependencies, licences, SubmitLine) from job_shape.h.
#include <algorithm>
#include <cctype>
#include <map>
#include <optional>

#include <fmt/format.h>

#include "analyzer/psv_table.h"
#include "analyzer/text_util.h"
#include "engine/workload/gzip.h"
#include "engine/workload/job_shape.h"
#include "engine/workload/sacct_writer.h"
#include "engine/workload/trace_fields.h"
#include "engine/workload/workload.h"

namespace sa::engine {

namespace {

struct Columns {
  std::optional<std::size_t> id, id_raw, user, account, partition, qos, submit, eligible, start, end, elapsed,
      elapsed_raw, timelimit, timelimit_raw, req_cpus, alloc_cpus, ncpus, req_nodes, nnodes, req_mem, req_tres, state,
      priority, nice, reservation, group, job_name, ntasks, alloc_tres, constraints, dependency, licenses, submit_line;
  explicit Columns(const PsvTable& t)
      : id(t.column("JobID")),
        id_raw(t.column("JobIDRaw")),
        user(t.column("User")),
        account(t.column("Account")),
        partition(t.column("Partition")),
        qos(t.column("QOS")),
        submit(t.column("Submit")),
        eligible(t.column("Eligible")),
        start(t.column("Start")),
        end(t.column("End")),
        elapsed(t.column("Elapsed")),
        elapsed_raw(t.column("ElapsedRaw")),
        timelimit(t.column("Timelimit")),
        timelimit_raw(t.column("TimelimitRaw")),
        req_cpus(t.column("ReqCPUS")),
        alloc_cpus(t.column("AllocCPUS")),
        ncpus(t.column("NCPUS")),
        req_nodes(t.column("ReqNodes")),
        nnodes(t.column("NNodes")),
        req_mem(t.column("ReqMem")),
        req_tres(t.column("ReqTRES")),
        state(t.column("State")),
        priority(t.column("Priority")),
        nice(t.column("Nice")),
        reservation(t.column("Reservation")),
        group(t.column("Group")),
        job_name(t.column("JobName")),
        ntasks(t.column("NTasks")),
        alloc_tres(t.column("AllocTRES")),
        constraints(t.column("Constraints")),
        dependency(t.column("Dependency")),
        licenses(t.column("Licenses")),
        submit_line(t.column("SubmitLine")) {}
};

/// "gres/gpu=4" inside a TRES string such as "billing=4,cpu=4,gres/gpu=2,mem=8G,node=1".
std::optional<std::int64_t> tres_count(std::string_view tres, std::string_view name) {
  for (const std::string& item : split(tres, ',')) {
    auto eq = item.find('=');
    if (eq == std::string::npos || !iequals(trim(std::string_view(item).substr(0, eq)), name)) continue;
    return parse_trace_int(std::string_view(item).substr(eq + 1));
  }
  return std::nullopt;
}

// The provenance a saved load (sacct_writer.h) carries in its leading comment lines.
void read_saved_load_header(const std::string& text, Workload& w) {
  for (const std::string& raw : split(text.substr(0, 1 << 16), '\n')) {
    std::string_view line = trim(raw);
    if (line.empty()) continue;
    if (line.front() != '#') break;
    if (line.starts_with(kSavedLoadMark)) {
      for (const std::string& item : split_whitespace(line.substr(std::string_view(kSavedLoadMark).size()))) {
        const auto eq = item.find('=');
        if (eq == std::string::npos) continue;
        const std::string key = item.substr(0, eq), value = item.substr(eq + 1);
        const auto n = parse_trace_int(value);
        if (key == "seed" && n && *n >= 0)
          w.seed = static_cast<std::uint64_t>(*n);
        else if (key == "until" && n)
          w.until = *n;
        else if (key == "epoch_offset" && n)
          w.epoch_offset = *n;
        else if (key == "assumed_qos")
          w.assumed_qos = split(value, ',');
      }
    } else if (line.starts_with("# description: ")) {
      w.description = std::string(line.substr(15));
    } else if (line.starts_with("# idle partition: ")) {
      w.idle_partitions.emplace_back(line.substr(18));
    }
  }
}

// Diagnostics of the table itself (rows it could not split into the header's columns), passed
// on; the line of the first one, where a read with stop_on_error ends (0: none).
int pass_on_table_errors(const DiagnosticSink& table_sink, DiagnosticSink& sink, Workload& w) {
  int first_bad_line = 0;
  for (const Diagnostic& d : table_sink.all()) {
    sink.report(d);
    ++w.skipped_lines;
    if (first_bad_line == 0 || d.loc.line < first_bad_line) first_bad_line = d.loc.line;
  }
  return first_bad_line;
}

// One row of the dump read into a job. Each read_* step returns false when the row gives no
// job; `failed` tells an error (which ends a read with stop_on_error) from a row passed over.
struct RowReader {
  const PsvTable& t;
  const Columns& c;
  const PsvTable::Row& row;
  FileId file;
  DiagnosticSink& sink;
  Workload& w;
  bool failed = false;

  std::string_view get(const std::optional<std::size_t>& col) const {
    return col ? std::string_view(t.field(row, *col)) : std::string_view();
  }
  SourceLoc loc(const std::optional<std::size_t>& col) const {
    return col ? t.loc(row, *col) : SourceLoc{file, row.line, 1};
  }
  FieldText field(const std::optional<std::size_t>& col) const { return FieldText{get(col), loc(col)}; }
  void bad(const std::optional<std::size_t>& col, const std::string& message) {
    sink.error("WORK001", loc(col), message);
    ++w.skipped_lines;
    failed = true;
  }

  std::optional<JobRequest> read_job();
  bool read_id(JobRequest& j);
  void read_array_task(JobRequest& j);
  bool read_submit(JobRequest& j);
  bool read_run_time(JobRequest& j);
  bool read_cpus_and_nodes(JobRequest& j);
  bool read_memory(JobRequest& j);
  void read_names(JobRequest& j);
};

std::optional<JobRequest> RowReader::read_job() {
  JobRequest j;
  j.line = row.line;
  if (!read_id(j) || !read_submit(j) || !read_run_time(j) || !read_cpus_and_nodes(j) || !read_memory(j)) {
    return std::nullopt;
  }
  if (auto g = tres_count(get(c.req_tres), "gres/gpu"); g && *g > 0) j.gpus = static_cast<std::uint32_t>(*g);
  read_names(j);
  apply_shape(j,
              {field(c.ntasks), field(c.req_tres), field(c.alloc_tres), field(c.constraints), field(c.dependency),
               field(c.licenses), field(c.submit_line)},
              sink);
  return j;
}

// False for a job step too, which is no error.
bool RowReader::read_id(JobRequest& j) {
  const std::string_view id_text = c.id_raw ? get(c.id_raw) : get(c.id);
  if (id_text.find('.') != std::string_view::npos) return false;  // a job step
  // Array tasks (123_4) and het components (123+1) keep their raw id when JobIDRaw exists.
  std::string_view numeric = id_text.substr(0, id_text.find_first_of("_+"));
  auto id = parse_trace_int(numeric);
  if (!id || *id < 0 || *id > 0xFFFFFFF0LL) {
    bad(c.id_raw ? c.id_raw : c.id, fmt::format("job id '{}' is not a number", id_text));
    return false;
  }
  j.id = static_cast<std::uint32_t>(*id);
  read_array_task(j);
  return true;
}

// JobID 123_4 is task 4 of array 123 (the array's id is the one sbatch printed). The row of
// tasks still pending when sacct ran (123_[5-9%2]) is one job here, the first of them.
void RowReader::read_array_task(JobRequest& j) {
  if (!c.id) return;
  const std::string_view text = get(c.id);
  const std::size_t us = text.find('_');
  if (us == std::string_view::npos) return;
  std::string_view task_text = text.substr(us + 1);
  if (task_text.starts_with('[')) task_text = task_text.substr(1, task_text.find_first_of("-,%]") - 1);
  auto array = parse_trace_int(text.substr(0, us));
  auto task = parse_trace_int(task_text);
  if (!array || !task || *array <= 0 || *array > 0xFFFFFFF0LL || *task < 0 || *task > 0xFFFFFFF0LL) return;
  RequestExtras& x = j.extra.edit();
  x.array_job_id = static_cast<std::uint32_t>(*array);
  x.array_task_id = static_cast<std::uint32_t>(*task);
}

bool RowReader::read_submit(JobRequest& j) {
  auto submit = parse_trace_time(get(c.submit));
  if (!submit) {
    bad(c.submit, fmt::format("job {}: submit time '{}' is not a time", j.id, get(c.submit)));
    return false;
  }
  j.submit = *submit;
  if (auto e = parse_trace_time(get(c.eligible)); e && *e > j.submit) j.eligible = *e;
  return true;
}

// The run time and time limit; false, with a note, for a job that never started and never will.
bool RowReader::read_run_time(JobRequest& j) {
  const std::string_view state = get(c.state);
  auto start = parse_trace_time(get(c.start));
  auto end = parse_trace_time(get(c.end));
  if (start) j.extra.edit().recorded_start = *start;
  j.fails = start && (istarts_with(state, "FAILED") || istarts_with(state, "OUT_OF_MEMORY"));
  std::optional<std::int64_t> run;
  if (auto r = parse_trace_int(get(c.elapsed_raw)))
    run = *r;
  else if (auto d = parse_trace_duration(get(c.elapsed)))
    run = *d;
  else if (start && end && *end >= *start)
    run = *end - *start;
  if (auto tl = parse_trace_int(get(c.timelimit_raw))) {
    j.time_limit = *tl * 60;
  } else if (auto d = parse_trace_duration(get(c.timelimit))) {
    j.time_limit = *d;
  }
  if (!start) {
    // Never started: cancelled while pending, replayed as pending until its scancel (End),
    // since while it waited it held a place in the queue, in the main loop's partition test
    // and in backfill's plans; or still pending at dump time (replayed with its time limit
    // as run time). A run the replay starts before the scancel lasts until then at most.
    if (istarts_with(state, "CANCELLED") && end && *end >= j.submit) {
      j.extra.edit().cancelled_at = *end;
      j.run_time = *end - j.submit;
      return true;
    }
    if (istarts_with(state, "CANCELLED") || istarts_with(state, "FAILED") || istarts_with(state, "NODE_FAIL")) {
      sink.note("WORK002", {file, row.line, 1}, fmt::format("job {} skipped: it never started ({})", j.id, state));
      ++w.skipped_lines;
      return false;
    }
    // A saved load (sacct_writer.h) gives the run time of jobs that have not run yet.
    const auto planned = parse_trace_int(get(c.elapsed_raw));
    run = planned && *planned > 0 ? *planned : (j.time_limit > 0 ? j.time_limit : 0);
  }
  j.run_time = std::max<std::int64_t>(0, run.value_or(0));
  return true;
}

bool RowReader::read_cpus_and_nodes(JobRequest& j) {
  std::optional<std::int64_t> cpus = parse_trace_int(get(c.req_cpus));
  if (!cpus || *cpus <= 0) cpus = parse_trace_int(get(c.alloc_cpus));
  if (!cpus || *cpus <= 0) cpus = parse_trace_int(get(c.ncpus));
  if (!cpus || *cpus <= 0) {
    bad(c.req_cpus ? c.req_cpus : c.alloc_cpus, fmt::format("job {}: no CPU count (ReqCPUS/AllocCPUS)", j.id));
    return false;
  }
  // ReqTRES keeps the CPUs the job asked; ReqCPUS those MaxMemPerCPU raised them to, a whole
  // multiple (job_limits_check multiplies the CPUs per task: the max_mem capture's -n 2
  // --mem-per-cpu=5000, ReqTRES cpu=2, ReqCPUS 6). The replay asks what the job asked, which
  // the engine raises the same way, and which priority and limits count (sacct Priority 4604,
  // that of 2 CPUs). In every other capture the two agree.
  if (const auto asked = tres_count(get(c.req_tres), "cpu");
      asked && *asked > 0 && *asked < *cpus && *cpus % *asked == 0 && get(c.req_cpus) == std::to_string(*cpus))
    cpus = *asked;
  j.cpus = static_cast<std::uint32_t>(std::min<std::int64_t>(*cpus, 0xFFFFFFF0LL));
  std::optional<std::int64_t> nodes = parse_trace_int(get(c.req_nodes));
  if (!nodes || *nodes <= 0) nodes = parse_trace_int(get(c.nnodes));
  if (nodes && *nodes > 0) j.nodes = static_cast<std::uint32_t>(std::min<std::int64_t>(*nodes, j.cpus));
  return true;
}

bool RowReader::read_memory(JobRequest& j) {
  auto m = parse_trace_memory(get(c.req_mem));
  if (!m) {
    if (get(c.req_mem).empty()) return true;
    bad(c.req_mem, fmt::format("job {}: ReqMem '{}' is not a memory size", j.id, get(c.req_mem)));
    return false;
  }
  j.mem_set = true;
  switch (m->per) {
    case TraceMemory::Per::kCpu:
      j.mem_mb = m->mb;
      j.mem_per_cpu = true;
      break;
    case TraceMemory::Per::kNode:
      j.mem_mb = m->mb;
      break;
    // 21.08+ prints the job's total, per-node x nodes for --mem and per-CPU x CPUs for
    // --mem-per-cpu (sacct/print.c from tres_req_str, job_mgr.c job_get_tres_mem()). Which
    // one the user wrote is lost, so it is kept per CPU, which fits any layout; a SubmitLine
    // puts back the exact request (job_shape_apply.cpp).
    case TraceMemory::Per::kJob:
      j.mem_mb = (m->mb + j.cpus - 1) / j.cpus;
      j.mem_per_cpu = true;
      break;
  }
  return true;
}

// Who submitted it, where and under what name, and what sacct recorded of its priority.
void RowReader::read_names(JobRequest& j) {
  j.user = std::string(trim(get(c.user)));
  j.account = to_lower(trim(get(c.account)));
  for (const std::string& p : split(get(c.partition), ',')) {
    if (!trim(p).empty()) j.partitions.emplace_back(trim(p));
  }
  j.qos = to_lower(trim(get(c.qos)));
  j.group = std::string(trim(get(c.group)));
  j.name = std::string(trim(get(c.job_name)));
  const std::string resv(trim(get(c.reservation)));
  if (!resv.empty() && resv != "(null)") j.reservation = resv;
  if (auto n = parse_trace_int(get(c.nice)))
    j.nice = static_cast<std::int32_t>(std::clamp<std::int64_t>(*n, -2147483645, 2147483645));
  if (auto p = parse_trace_int(get(c.priority))) j.extra.edit().recorded_priority = *p;
}

}  // namespace

Workload read_sacct(FileId file, const SourceManager& sources, DiagnosticSink& sink, const ReadOptions& options) {
  Workload w;
  w.format = WorkloadFormat::kSacct;
  w.names_accounts = true;
  w.source = sources.path(file);
  read_saved_load_header(sources.file(file).content, w);
  DiagnosticSink table_sink;
  // SubmitLine is the column whose values hold newlines (a script's lines): rows broken by
  // them are mended.
  PsvTable t = read_psv(sources, file, table_sink, "WORK001", {"SubmitLine"});
  // With stop_on_error, rows from the first unreadable one on are not read.
  const int first_bad_line = pass_on_table_errors(table_sink, sink, w);
  const Columns c(t);
  if ((!c.id && !c.id_raw) || !c.submit) {
    sink.error("WORK003", {file, 1, 1},
               "a sacct dump needs a header naming at least JobID (or JobIDRaw) and Submit; run sacct with -P "
               "and --format including JobIDRaw,Submit,Start,End,Elapsed,Timelimit,ReqCPUS");
    return w;
  }
  for (const PsvTable::Row& row : t.rows) {
    if (options.stop_on_error && first_bad_line && row.line > first_bad_line) break;
    RowReader reader{t, c, row, file, sink, w};
    if (std::optional<JobRequest> j = reader.read_job()) {
      w.jobs.push_back(std::move(*j));
    } else if (reader.failed && options.stop_on_error) {
      break;
    }
  }
  normalise_jobs(w, sink, file, sources.limits());
  return w;
}

bool looks_like_swf(const std::string& text) {
  for (const std::string& raw : split(text.substr(0, 1 << 16), '\n')) {
    std::string_view line = trim(raw);
    if (line.empty()) continue;
    if (line.front() == ';') return true;
    // An SWF job line starts with a job number and has no '|'; a sacct header is words.
    return line.find('|') == std::string_view::npos && std::isdigit(static_cast<unsigned char>(line.front()));
  }
  return false;
}

namespace {

// The engine's work grows with the simulated span and the job count, so a trace that claims
// a job 10^15 seconds after the first would keep it busy for ever.
void drop_beyond_limits(Workload& w, DiagnosticSink& sink, FileId file, const InputLimits& limits) {
  if (w.jobs.empty()) return;
  const std::int64_t first = w.jobs.front().submit;
  const std::int64_t last = first > kMaxTraceInt ? first : first + std::min(limits.sim_span, kMaxTraceInt);
  std::size_t late = 0;
  std::erase_if(w.jobs, [&](const JobRequest& j) {
    if (j.submit <= last && j.run_time <= limits.sim_span) return false;
    if (late++ == 0) {
      sink.warning("WORK006", {file, j.line, 1},
                   fmt::format("job {} submits or runs beyond {} seconds after the first submit; it and any "
                               "other such job are not simulated",
                               j.id, limits.sim_span),
                   "raise the limit with --limit sim-span=SECONDS");
    }
    return true;
  });
  if (static_cast<std::int64_t>(w.jobs.size()) > limits.sim_jobs) {
    const JobRequest& cut = w.jobs[static_cast<std::size_t>(limits.sim_jobs)];
    sink.warning("WORK006", {file, cut.line, 1},
                 fmt::format("more than {} jobs; job {} and the {} after it are not simulated", limits.sim_jobs, cut.id,
                             w.jobs.size() - static_cast<std::size_t>(limits.sim_jobs) - 1),
                 "raise the limit with --limit sim-jobs=N");
    w.jobs.resize(static_cast<std::size_t>(limits.sim_jobs));
  }
  w.skipped_lines += late;
}

}  // namespace

void normalise_jobs(Workload& w, DiagnosticSink& sink, FileId file, const InputLimits& limits) {
  std::stable_sort(w.jobs.begin(), w.jobs.end(), [](const JobRequest& a, const JobRequest& b) {
    return a.submit != b.submit ? a.submit < b.submit : a.id < b.id;
  });
  drop_beyond_limits(w, sink, file, limits);
  std::map<std::uint32_t, int> seen;
  std::uint32_t next_free = 1;
  for (const JobRequest& j : w.jobs) next_free = std::max(next_free, j.id + 1);
  std::size_t tasks = 0;  // array tasks named by JobID alone (123_4 without JobIDRaw)
  int tasks_line = 0;
  std::uint32_t tasks_from = 0;
  for (JobRequest& j : w.jobs) {
    if (j.id != 0 && seen.emplace(j.id, j.line).second) continue;
    if (j.extra.get().array_job_id == j.id && j.id != 0) {
      if (tasks++ == 0) {
        tasks_line = j.line;
        tasks_from = next_free;
      }
    } else {
      sink.warning("WORK004", {file, j.line, 1},
                   fmt::format("job id {} repeats (first at line {}); renumbered {}", j.id, seen[j.id], next_free));
    }
    j.id = next_free++;
    seen.emplace(j.id, j.line);
  }
  if (tasks > 0) {
    sink.note("WORK004", {file, tasks_line, 1},
              fmt::format("{} array task(s) share their array's id, as JobID gives it (no JobIDRaw column): "
                          "renumbered from {} on; add JobIDRaw to the sacct columns to keep slurmctld's ids",
                          tasks, tasks_from));
  }
}

Result<Workload> read_workload(const std::string& path, SourceManager& sources, DiagnosticSink& sink,
                               const ReadOptions& options) {
  Result<FileId> file = sources.load(path);
  if (!file) return Error{file.error()};
  if (is_gzip(sources.file(*file).content)) {
    // Unpacked, a trace is one input file like any other: the same size cap (--limit
    // file-bytes, 256 MB by default, which holds the largest archive traces).
    auto text = gunzip(sources.file(*file).content, static_cast<std::size_t>(sources.limits().file_bytes));
    if (!text) return Error{path + ": " + text.error()};
    file = sources.add(path, std::move(*text));
  }
  const std::string& text = sources.file(*file).content;
  if (looks_like_swf(text)) return read_swf(*file, sources, sink, options);
  std::string first;  // the first line that is not a comment (saved loads start with some)
  for (std::size_t at = 0; at < text.size() && at < (1u << 16);) {
    const std::size_t nl = std::min(text.find('\n', at), text.size());
    first = std::string(trim(text.substr(at, nl - at)));
    if (!first.empty() && first[0] != '#') break;
    at = nl + 1;
  }
  if (first.find('|') == std::string::npos && first.find('\t') == std::string::npos) {
    sink.error("WORK003", {*file, 1, 1},
               "neither SWF nor parsable sacct output: run sacct with -P (or -p) so columns are '|'-separated "
               "(or tab-separated with --delimiter)");
    return Workload{};
  }
  return read_sacct(*file, sources, sink, options);
}

}  // namespace sa::engine
