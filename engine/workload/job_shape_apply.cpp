// Filling a recorded job's shape from its sacct columns, then from its SubmitLine.
#include <fmt/format.h>
#include <algorithm>

#include "analyzer/constraint.h"
#include "analyzer/text_util.h"
#include "engine/workload/job_shape.h"
#include "engine/workload/submit_line.h"
#include "engine/workload/trace_fields.h"

namespace sa::engine {

namespace {

bool is_null(std::string_view text) {
  text = trim(text);
  return text.empty() || text == "(null)";
}

SourceLoc at(SourceLoc loc, std::size_t offset) {
  loc.column += static_cast<int>(std::min<std::size_t>(offset, 1'000'000));
  return loc;
}

void warn(DiagnosticSink& sink, const JobRequest& job, SourceLoc loc, const std::string& what) {
  sink.warning("WORK001", loc, fmt::format("job {}: {}; the job is read without it", job.id, what));
}

void set_constraint(JobRequest& job, std::string_view text, SourceLoc loc, DiagnosticSink& sink) {
  std::size_t offset = 0;
  auto parsed = parse_constraint(text, &offset);
  job.extra.edit().constraint = std::string(text);  // kept as written: slurmctld would refuse it at submit
  if (!parsed) warn(sink, job, at(loc, offset), fmt::format("constraint '{}': {}", printable(text), parsed.error()));
}

void set_dependency(JobRequest& job, std::string_view text, SourceLoc loc, DiagnosticSink& sink) {
  auto parsed = parse_dependency(text);
  if (!parsed) return warn(sink, job, loc, fmt::format("dependency '{}': {}", printable(text), parsed.error()));
  job.dependencies = parsed->items;
  job.dependency_any = parsed->any;
}

void set_licenses(JobRequest& job, std::string_view text, SourceLoc loc, DiagnosticSink& sink) {
  auto parsed = parse_licenses(text);
  if (!parsed) return warn(sink, job, loc, fmt::format("licenses '{}': {}", printable(text), parsed.error()));
  job.licenses = parsed->items;
  job.licenses_any = parsed->any_of;
}

// "license/matlab=2" items of a TRES string, as slurmctld records a job's licences.
std::vector<License> tres_licenses(std::string_view tres) {
  std::vector<License> out;
  for (const std::string& item : split(tres, ',')) {
    const auto eq = item.find('=');
    if (eq == std::string::npos || !istarts_with(item, "license/")) continue;
    auto n = parse_trace_int(std::string_view(item).substr(eq + 1));
    if (n && *n >= 0 && *n <= 0x7FFFFFFF) out.push_back({item.substr(8, eq - 8), static_cast<std::uint32_t>(*n)});
  }
  return out;
}

std::optional<std::int64_t> tres_value(std::string_view tres, std::string_view name) {
  for (const std::string& item : split(tres, ',')) {
    const auto eq = item.find('=');
    if (eq != std::string::npos && iequals(trim(std::string_view(item).substr(0, eq)), name))
      return parse_trace_int(std::string_view(item).substr(eq + 1));
  }
  return std::nullopt;
}

void apply_columns(JobRequest& job, const ShapeFields& f, DiagnosticSink& sink) {
  if (auto n = parse_trace_int(f.ntasks.text); n && *n > 0 && *n <= 0x7FFFFFFF)
    job.extra.edit().ntasks = static_cast<std::uint32_t>(*n);
  // ReqTRES already gave gpus (sacct_reader.cpp); AllocTRES fills in when it did not.
  if (auto g = tres_value(f.alloc_tres.text, "gres/gpu"); job.gpus == 0 && g && *g > 0 && *g <= 0x7FFFFFFF)
    job.gpus = static_cast<std::uint32_t>(*g);
  if (auto n = tres_value(f.req_tres.text, "node"); job.nodes == 0 && n && *n > 0)
    job.nodes = static_cast<std::uint32_t>(std::min<std::int64_t>(*n, job.cpus));
  job.licenses = tres_licenses(f.req_tres.text);
  if (!is_null(f.licenses.text)) set_licenses(job, trim(f.licenses.text), f.licenses.loc, sink);
  if (!is_null(f.constraints.text)) set_constraint(job, trim(f.constraints.text), f.constraints.loc, sink);
  if (!is_null(f.dependency.text)) set_dependency(job, trim(f.dependency.text), f.dependency.loc, sink);
}

// Counts that are part of the request's shape: a number of at least 1 each.
void set_count(JobRequest& job, const std::optional<std::string>& value, const char* option, std::uint32_t& field,
               SourceLoc loc, DiagnosticSink& sink) {
  if (!value) return;
  auto n = parse_trace_int(*value);
  if (n && *n > 0 && *n <= 0x7FFFFFFF)
    field = static_cast<std::uint32_t>(*n);
  else
    warn(sink, job, loc, fmt::format("SubmitLine {} '{}' is not a count", option, printable(*value)));
}

void apply_layout(JobRequest& job, const SubmitOptions& o, SourceLoc loc, DiagnosticSink& sink) {
  if (o.nodes) {
    if (auto range = parse_node_range(*o.nodes)) {
      if (job.nodes == 0 && range->first > 0) job.nodes = std::min(range->first, job.cpus);
      // proc_args.c verify_node_count: -N 2 is min = max = 2; -N 2-4 a range (0: no maximum).
      if (range->second != 0) job.extra.edit().max_nodes = range->second;
    } else {
      warn(sink, job, loc, fmt::format("SubmitLine --nodes '{}' is not MIN[-MAX]", printable(*o.nodes)));
    }
  }
  std::uint32_t ntasks = 0;
  set_count(job, o.ntasks, "--ntasks", ntasks, loc, sink);
  if (ntasks && job.extra.get().ntasks == 0) job.extra.edit().ntasks = ntasks;
  // sbatch (opt.c _opt_verify, -N and -n both given) lowers the node maximum to the task count
  // before submitting: -N 1-2 -n 1 reaches slurmctld as one node, so req_nodes is 1 and
  // pack_serial_at_end takes it (the serial_at_end capture's job 10).
  if (o.nodes && ntasks > 0 && job.extra.get().max_nodes > ntasks)
    job.extra.edit().max_nodes = std::max(ntasks, job.nodes);
  if (o.ntasks_per_node)
    set_count(job, o.ntasks_per_node, "--ntasks-per-node", job.extra.edit().ntasks_per_node, loc, sink);
  if (o.cpus_per_task) set_count(job, o.cpus_per_task, "--cpus-per-task", job.extra.edit().cpus_per_task, loc, sink);
  if (const RequestExtras& x = job.extra.get(); x.ntasks_per_node > 0) {
    const std::uint64_t per_node = std::uint64_t{x.ntasks_per_node} * std::max<std::uint32_t>(1, x.cpus_per_task);
    job.cpus_per_node = static_cast<std::uint32_t>(std::min<std::uint64_t>(per_node, 0x7FFFFFFF));
  }
  if (o.exclusive && (o.exclusive->empty() || iequals(*o.exclusive, "exclusive"))) job.exclusive = true;
}

// The 21.08+ ReqMem is the job's total (job_mgr.c job_get_tres_mem(): per-node x nodes or
// per-CPU x CPUs); SubmitLine says which of the two the user wrote, and its exact size.
void apply_memory(JobRequest& job, const SubmitOptions& o, SourceLoc loc, DiagnosticSink& sink) {
  const std::optional<std::string>& text = o.mem ? o.mem : o.mem_per_cpu;
  if (!text && o.mem_per_gpu) {
    // --mem-per-gpu (sbatch refuses it beside --mem or --mem-per-cpu) does not set the job's
    // memory: ReqMem is then the GPUs' total, and each node is given its GPUs' share
    // (Simulator::apply_gpu_defaults).
    auto mb = parse_mem_option(*o.mem_per_gpu);
    if (!mb) {
      return warn(sink, job, loc,
                  fmt::format("SubmitLine --mem-per-gpu '{}' is not a memory size", printable(*o.mem_per_gpu)));
    }
    job.extra.edit().mem_per_gpu = *mb;
    job.mem_mb = 0;
    job.mem_per_cpu = false;
    job.mem_set = false;
    return;
  }
  if (!text) return;
  auto mb = parse_mem_option(*text);
  if (!mb) {
    return warn(
        sink, job, loc,
        fmt::format("SubmitLine {} '{}' is not a memory size", o.mem ? "--mem" : "--mem-per-cpu", printable(*text)));
  }
  // MaxMemPerCPU below --mem-per-cpu: slurmctld multiplied the job's CPUs (ReqCPUS shows
  // them) and divided its memory per CPU, while ReqMem kept the asked total; that total over
  // ReqCPUS is then below what was asked, and is what the job ran with (the max_mem capture:
  // --mem-per-cpu=5000 -n 2, ReqCPUS 6, ReqMem 10000M, 1667 MB a CPU). Kept, so the replay
  // does not raise the CPUs a second time.
  if (o.mem_per_cpu && !o.mem && job.mem_set && job.mem_per_cpu && job.mem_mb < *mb) return;
  job.mem_mb = *mb;
  job.mem_per_cpu = !o.mem;  // sbatch refuses both at once; --mem is per node
  job.mem_set = true;
}

void apply_gpus(JobRequest& job, const SubmitOptions& o, SourceLoc loc, DiagnosticSink& sink) {
  if (o.gres) {
    if (auto n = parse_gres_gpus(*o.gres)) {
      if (*n > 0) job.extra.edit().gpus_per_node = *n;
    } else {
      warn(sink, job, loc, fmt::format("SubmitLine --gres '{}' cannot be read", printable(*o.gres)));
    }
  }
  if (o.gpus_per_node) {
    if (auto n = parse_gpu_count(*o.gpus_per_node))
      job.extra.edit().gpus_per_node = *n;
    else
      warn(sink, job, loc,
           fmt::format("SubmitLine --gpus-per-node '{}' is not [TYPE:]COUNT", printable(*o.gpus_per_node)));
  }
  if (o.cpus_per_gpu) set_count(job, o.cpus_per_gpu, "--cpus-per-gpu", job.extra.edit().cpus_per_gpu, loc, sink);
  if (o.gpus && job.gpus == 0) {
    if (auto n = parse_gpu_count(*o.gpus))
      job.gpus = *n;
    else
      warn(sink, job, loc, fmt::format("SubmitLine --gpus '{}' is not [TYPE:]COUNT", printable(*o.gpus)));
  }
}

// --switches=COUNT[@MAX_TIME] (slurm_opt.c arg_set_switches: parse_int of the count,
// time_str2secs of the time: minutes, mm:ss, hh:mm:ss, days-hh[:mm[:ss]]; a bare number is
// minutes). A count of 0 asks nothing (_eval_nodes_topo tests req_switch > 0). INFINITE, -1
// and a time time_str2secs cannot read (NO_VAL) leave the wait at max_switch_wait.
void apply_switches(JobRequest& job, const std::string& text, SourceLoc loc, DiagnosticSink& sink) {
  const std::size_t at = text.find('@');
  auto count = parse_trace_int(std::string_view(text).substr(0, at));
  if (!count || *count < 0 || *count > 0x7FFFFFFF) {
    return warn(sink, job, loc, fmt::format("SubmitLine --switches '{}' is not COUNT[@MAX_TIME]", printable(text)));
  }
  job.extra.edit().switches = static_cast<std::uint32_t>(*count);
  job.extra.edit().switch_wait = kNoTime;
  if (at == std::string::npos) return;
  const std::string_view time = std::string_view(text).substr(at + 1);
  if (time == "-1" || iequals(time, "INFINITE") || iequals(time, "UNLIMITED")) return;
  if (auto wait = parse_trace_duration(time))
    job.extra.edit().switch_wait = *wait;
  else
    warn(sink, job, loc,
         fmt::format("SubmitLine --switches '{}': the time after '@' cannot be read; max_switch_wait applies",
                     printable(text)));
}

// --array=1-100%5: at most 5 of its tasks run at once (job_array_start_test, Reason
// JobArrayTaskLimit). Only the throttle matters here: each task has its own row.
void apply_array_throttle(JobRequest& job, const std::string& text, SourceLoc loc, DiagnosticSink& sink) {
  const std::size_t pct = text.find('%');
  if (pct == std::string::npos) return;
  auto n = parse_trace_int(std::string_view(text).substr(pct + 1));
  if (n && *n >= 0 && *n <= 0x7FFFFFFF)
    job.extra.edit().array_max_run = static_cast<std::uint32_t>(*n);
  else
    warn(sink, job, loc,
         fmt::format("SubmitLine --array '{}': the task limit after '%' is not a count", printable(text)));
}

// --time-min (time_str2mins: whole minutes, seconds rounded up). sacct's Timelimit is the
// limit the job ran with, which backfill may have cut down towards it, so the SubmitLine's
// own --time, when it has one, is the limit asked for.
void apply_time_min(JobRequest& job, const SubmitOptions& o, SourceLoc loc, DiagnosticSink& sink) {
  auto minutes = [](std::int64_t secs) { return (secs + 59) / 60 * 60; };
  auto min_time = parse_trace_duration(*o.time_min);
  if (!min_time) {
    return warn(sink, job, loc, fmt::format("SubmitLine --time-min '{}' is not a time", printable(*o.time_min)));
  }
  job.extra.edit().time_min = minutes(*min_time);
  if (!o.time) return;
  if (auto asked = parse_trace_duration(*o.time))
    job.time_limit = minutes(*asked);
  else if (!iequals(*o.time, "UNLIMITED") && !iequals(*o.time, "INFINITE") && *o.time != "-1")
    warn(sink, job, loc, fmt::format("SubmitLine --time '{}' is not a time", printable(*o.time)));
}

void apply_submit_line(JobRequest& job, const FieldText& field, DiagnosticSink& sink) {
  auto options = parse_submit_line(field.text);
  if (!options) return warn(sink, job, field.loc, fmt::format("SubmitLine cannot be read: {}", options.error()));
  const SubmitOptions& o = *options;
  for (const std::string& unknown : o.unknown) {
    sink.note("WORK007", field.loc,
              fmt::format("job {}: SubmitLine option '{}' is not one sbatch 22.05 knows; skipped", job.id,
                          printable(unknown)));
  }
  apply_layout(job, o, field.loc, sink);
  apply_memory(job, o, field.loc, sink);
  apply_gpus(job, o, field.loc, sink);
  if (o.constraint && job.extra.get().constraint.empty()) set_constraint(job, *o.constraint, field.loc, sink);
  if (o.dependency && job.dependencies.empty()) set_dependency(job, *o.dependency, field.loc, sink);
  if (o.licenses && job.licenses.empty()) set_licenses(job, *o.licenses, field.loc, sink);
  if (o.nodelist) job.extra.edit().nodelist = *o.nodelist;
  if (o.job_name && job.name.empty()) job.name = *o.job_name;
  if (o.exclude) job.extra.edit().exclude = *o.exclude;
  if (o.switches) apply_switches(job, *o.switches, field.loc, sink);
  if (o.array) apply_array_throttle(job, *o.array, field.loc, sink);
  if (o.time_min) apply_time_min(job, o, field.loc, sink);
  job.hold = job.hold || o.hold;
  job.begin_set = job.begin_set || o.begin.has_value();
}

}  // namespace

void apply_shape(JobRequest& job, const ShapeFields& fields, DiagnosticSink& sink) {
  apply_columns(job, fields, sink);
  if (!is_null(fields.submit_line.text)) apply_submit_line(job, fields.submit_line, sink);
}

}  // namespace sa::engine
