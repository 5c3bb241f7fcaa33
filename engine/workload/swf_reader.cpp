// The Standard Workload Format (Parallel Workloads Archive, version 2.2): ';' header lines,
// then 18 whitespace-separated numeric fields per job, -1 meaning unknown. Some archive
// logs write fractional values (average CPU time), so every field is read as a double.
// Variants read too: Alea's extended SWF (extra fields after the 18th, ignored) and
// slurm_sim_tools' ';'-separated SWF with user, group, queue and partition names.
#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <optional>
#include <string>

#include <fmt/format.h>

#include "analyzer/text_util.h"
#include "engine/workload/trace_fields.h"
#include "engine/workload/workload.h"

namespace sa::engine {

namespace {

enum SwfField {
  kJobNumber,
  kSubmit,
  kWait,
  kRunTime,
  kAllocProcs,
  kAvgCpu,
  kUsedMem,
  kReqProcs,
  kReqTime,
  kReqMem,
  kStatus,
  kUserId,
  kGroupId,
  kExecutable,
  kQueue,
  kPartition,
  kPreceding,
  kThinkTime,
  kFieldCount
};

struct SwfLine {
  double f[kFieldCount];
  std::string names[kFieldCount];  // set where a field is a name rather than a number
};

/// Splits on whitespace, or on ';' when the line uses it; fields after the 18th are ignored.
bool parse_fields(std::string_view line, SwfLine& out, int& count) {
  count = 0;
  const bool semicolons = line.find(';') != std::string_view::npos;
  std::vector<std::string> tokens;
  if (semicolons) {
    for (const std::string& t : split(line, ';')) tokens.emplace_back(trim(t));
  } else {
    tokens = split_whitespace(line);
  }
  for (const std::string& token : tokens) {
    if (count == kFieldCount) break;
    const int k = count++;
    out.names[k].clear();
    if (token.empty()) {
      out.f[k] = -1;
      continue;
    }
    char* end = nullptr;
    double v = std::strtod(token.c_str(), &end);
    // Beyond kMaxTraceInt no field means anything, and the casts below would be undefined.
    if (end == token.c_str() + token.size() && std::isfinite(v) && std::fabs(v) <= static_cast<double>(kMaxTraceInt)) {
      out.f[k] = v;
    } else if (semicolons && (k == kUserId || k == kGroupId || k == kQueue || k == kPartition)) {
      out.f[k] = -1;
      out.names[k] = token;
    } else {
      return false;
    }
  }
  return true;
}

// A ';' header line: UnixStartTime gives the epoch the trace's times count from.
void read_header_line(std::string_view line, Workload& w) {
  std::string_view h = trim(line.substr(1));
  if (istarts_with(h, "UnixStartTime:")) {
    auto offset = parse_trace_int(h.substr(14));
    w.epoch_offset = offset && *offset >= 0 && *offset <= kMaxTraceSeconds ? *offset : 0;
  }
}

// Fills `parsed` from a job line, the fields it does not have unknown (-1); what makes it no
// job line otherwise.
std::optional<std::string> read_job_fields(std::string_view line, SwfLine& parsed) {
  int n = 0;
  if (!parse_fields(line, parsed, n)) {
    return fmt::format("not an SWF job line: field {} is not a number within +-{}", n, kMaxTraceInt);
  }
  if (n < kStatus) return fmt::format("not an SWF job line: expected 18 numeric fields, read {}", n);
  for (int k = n; k < kFieldCount; ++k) {
    parsed.f[k] = -1;
    parsed.names[k].clear();
  }
  const double(&f)[kFieldCount] = parsed.f;
  if (f[kSubmit] > kMaxTraceSeconds || f[kRunTime] > kMaxTraceSeconds || f[kReqTime] > kMaxTraceSeconds) {
    return fmt::format("a submit, run or requested time beyond {} seconds", kMaxTraceSeconds);
  }
  return std::nullopt;
}

double procs_of(const SwfLine& parsed) { return parsed.f[kReqProcs] > 0 ? parsed.f[kReqProcs] : parsed.f[kAllocProcs]; }

// What a job line leaves unknown that a replay needs: jobs cancelled before they ran carry -1
// run times or processor counts; they never occupied the machine, so a replay skips them.
std::optional<std::string_view> unknown_field(const SwfLine& parsed) {
  if (parsed.f[kSubmit] < 0) return "submit time";
  if (procs_of(parsed) <= 0) return "processor count";
  if (parsed.f[kRunTime] < 0) return "run time";
  return std::nullopt;
}

// User, account and partition: the names of a ';'-separated line, else made from the numbers.
void set_names(const SwfLine& parsed, JobRequest& j) {
  const double(&f)[kFieldCount] = parsed.f;
  const auto& names = parsed.names;
  if (!names[kUserId].empty())
    j.user = names[kUserId];
  else
    j.user = f[kUserId] >= 0 ? fmt::format("user{}", static_cast<long long>(f[kUserId])) : "user0";
  if (!names[kGroupId].empty())
    j.account = to_lower(names[kGroupId]);
  else if (f[kGroupId] >= 0)
    j.account = fmt::format("group{}", static_cast<long long>(f[kGroupId]));
  if (!names[kPartition].empty())
    j.partitions.push_back(names[kPartition]);
  else if (!names[kQueue].empty())
    j.partitions.push_back(names[kQueue]);
  else if (f[kQueue] >= 0)
    j.partitions.push_back(fmt::format("queue{}", static_cast<long long>(f[kQueue])));
}

JobRequest job_of(const SwfLine& parsed, int line_no) {
  const double(&f)[kFieldCount] = parsed.f;
  JobRequest j;
  j.id = f[kJobNumber] > 0 ? static_cast<std::uint32_t>(std::min(f[kJobNumber], 4.0e9)) : 0;
  j.submit = static_cast<std::int64_t>(f[kSubmit]);
  j.run_time = static_cast<std::int64_t>(std::llround(f[kRunTime]));
  j.cpus = static_cast<std::uint32_t>(std::min(procs_of(parsed), 4.0e9));
  if (f[kReqTime] > 0) j.time_limit = static_cast<std::int64_t>(std::llround(f[kReqTime]));
  if (f[kReqMem] > 0) {  // KB per processor
    j.mem_mb = static_cast<std::uint64_t>(std::ceil(std::min(f[kReqMem] / 1024.0, kMaxTraceMemoryMb)));
    j.mem_per_cpu = true;
    j.mem_set = true;
  }
  set_names(parsed, j);
  j.line = line_no;
  return j;
}

}  // namespace

Workload read_swf(FileId file, const SourceManager& sources, DiagnosticSink& sink, const ReadOptions& options) {
  Workload w;
  w.format = WorkloadFormat::kSwf;
  w.source = sources.path(file);
  const std::string& content = sources.file(file).content;
  int line_no = 0;
  for (const std::string& raw : split(content, '\n')) {
    ++line_no;
    std::string_view line = trim(raw);
    if (line.empty()) continue;
    if (line.front() == ';') {
      read_header_line(line, w);
      continue;
    }
    SwfLine parsed;
    if (std::optional<std::string> problem = read_job_fields(line, parsed)) {
      sink.error("WORK001", {file, line_no, 1}, *problem);
      ++w.skipped_lines;
      if (options.stop_on_error) break;
      continue;
    }
    if (std::optional<std::string_view> unknown = unknown_field(parsed)) {
      sink.note("WORK002", {file, line_no, 1},
                fmt::format("job {} skipped: {} unknown", static_cast<long long>(parsed.f[kJobNumber]), *unknown));
      ++w.skipped_lines;
      continue;
    }
    w.jobs.push_back(job_of(parsed, line_no));
  }
  normalise_jobs(w, sink, file, sources.limits());
  return w;
}

}  // namespace sa::engine
