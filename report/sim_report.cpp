#include "report/sim_report.h"

#include <algorithm>

#include <fmt/format.h>

#include "analyzer/constraint.h"
#include "analyzer/hostlist.h"

namespace sa::report {

namespace {

std::string csv_field(const std::string& s) {
  if (s.find_first_of(",\"\n") == std::string::npos) return s;
  std::string out = "\"";
  for (char c : s) {
    if (c == '"') out += '"';
    out += c;
  }
  return out + "\"";
}

const char* started_by_name(engine::StartedBy by) {
  switch (by) {
    case engine::StartedBy::kMain:
      return "main";
    case engine::StartedBy::kBackfill:
      return "backfill";
    default:
      return "";
  }
}

const char* state_name(engine::JobState s) {
  switch (s) {
    case engine::JobState::kFuture:
      return "FUTURE";
    case engine::JobState::kPending:
      return "PENDING";
    case engine::JobState::kRunning:
      return "RUNNING";
    case engine::JobState::kDone:
      return "COMPLETED";
    case engine::JobState::kRejected:
      return "REJECTED";
  }
  return "";
}

/// Slurm's _print_str: right-aligned with a width, or left-aligned, cut to the width.
std::string cell(const std::string& s, int width, bool right) {
  std::string v = s.size() > static_cast<std::size_t>(width) ? s.substr(0, static_cast<std::size_t>(width)) : s;
  return right ? fmt::format("{:>{}}", v, width) : fmt::format("{:<{}}", v, width);
}

std::string f0(double v) { return fmt::format("{:.0f}", v); }

std::string tres_text(const WeightedFactors& w) {
  std::string out;
  for (const auto& [name, value] : w.tres) {
    if (!out.empty()) out += ",";
    out += fmt::format("{}={:.0f}", name, value);
  }
  return out;
}

nlohmann::json wait_json(const engine::WaitStats& w) {
  return {{"jobs", w.jobs}, {"mean", w.mean}, {"median", w.median},
          {"p95", w.p95},   {"max", w.max},   {"bounded_slowdown", w.bounded_slowdown}};
}

// A started job's placement against what it asked for (compare's placement legality): its
// nodes all in its partition, as many as -N min[-max] allows, and together satisfying its
// --constraint (features as nodes have them active). "" for a job that never started.
// `sorted_parts`: each partition's node indices, sorted.
// `pieces`: the job's allocation, expanded.
const char* placement_legal(const engine::SimResult& r, const Config& conf,
                            const std::vector<std::vector<std::uint32_t>>& sorted_parts, const engine::SimJob& j,
                            const engine::SimRecord* rec, const std::vector<engine::AllocPiece>& pieces) {
  if (j.start == engine::kNoTime || !rec) return "";
  const std::vector<std::uint32_t>& part = sorted_parts[rec->part];
  std::vector<CandidateNode> chosen;
  for (const engine::AllocPiece& p : pieces) {
    const std::uint32_t n = r.config_node(p.node);
    if (!std::binary_search(part.begin(), part.end(), n)) return "0";
    chosen.push_back({n, &conf.nodes[n].active_features});
  }
  const std::uint32_t count = j.alloc.nodes(), least = std::max<std::uint32_t>(1, j.req.nodes);
  const engine::RequestExtras& x = j.req.extra.get();
  if (count < least || (x.max_nodes > 0 && count > std::max(x.max_nodes, least))) return "0";
  if (x.constraint.empty()) return "1";
  const Result<Constraint> c = parse_constraint(x.constraint.view());
  return c && nodes_satisfy(*c, chosen) ? "1" : "0";
}

}  // namespace

WeightedFactors weighted_factors(const engine::PriorityFactors& f, const PrioritySettings& p) {
  WeightedFactors w;
  w.age = f.age * p.weight_age;
  w.assoc = f.assoc * p.weight_assoc;
  w.fairshare = f.fairshare * p.weight_fairshare;
  w.job_size = f.job_size * p.weight_job_size;
  w.partition = f.partition * p.weight_partition;
  w.qos = f.qos * p.weight_qos;
  w.site = static_cast<double>(f.site);
  w.nice = static_cast<double>(f.nice);
  w.priority = w.age + w.assoc + w.fairshare + w.job_size + w.partition + w.qos + w.site - w.nice;
  for (std::size_t t = 0; t < f.tres.size() && t < p.weight_tres.size(); ++t) {
    const double v = f.tres[t] * p.weight_tres[t].weight;
    if (v == 0) continue;
    w.tres.emplace_back(p.weight_tres[t].tres, v);
    w.priority += v;
  }
  if (w.priority < 1) w.priority = 1;
  return w;
}

void write_trace_csv(std::ostream& out, const engine::SimResult& r, const engine::Site& site) {
  const Config& conf = *site.config;
  out << "job_id,submit,eligible,start,end,wait,state,partition,account,user,qos,cpus,nodes,priority,started_by,"
         "nodelist,age,assoc,fairshare,jobsize,partition_prio,qos_prio,tres,nice,site,recorded_start,reason,"
         "pending_reasons,end_state,suspended,suspends,requeues,events,placement_legal\n";
  std::vector<std::vector<std::uint32_t>> sorted_parts;
  for (const Partition& p : conf.partitions) {
    sorted_parts.push_back(p.nodes);
    std::sort(sorted_parts.back().begin(), sorted_parts.back().end());
  }
  for (const engine::SimJob& j : r.jobs) {
    const bool started = j.start != engine::kNoTime;
    const engine::SimRecord* rec =
        started ? &j.recs[static_cast<std::size_t>(j.run_rec)] : (j.recs.empty() ? nullptr : &j.recs.front());
    const std::vector<engine::AllocPiece> pieces = j.alloc.expanded();
    std::vector<std::string> names;
    for (const engine::AllocPiece& p : pieces) names.push_back(conf.nodes[r.config_node(p.node)].name);
    const std::string& account = engine::job_account(j, site);
    const std::string& qos = engine::job_qos(j, site);
    WeightedFactors w =
        weighted_factors(started ? j.start_factors() : (rec ? rec->factors : engine::PriorityFactors{}), conf.priority);
    auto t = [](std::int64_t v) { return v == engine::kNoTime ? std::string() : std::to_string(v); };
    const engine::JobRare& rare = j.rare.get();
    std::string reason = rare.reject_reason;
    if (reason.empty() && !started && rec) reason = engine::hold_reason_name(rec->hold_reason, conf.version);
    // A job cancelled while pending keeps the Reason it showed then, as sacct does.
    if (reason.empty() && (j.state == engine::JobState::kPending || j.cancelled_pending()))
      reason = r.reason_name(j.reason);
    // Every Reason the job showed while pending: +seconds after submission, then the Reason.
    std::string history;
    for (const engine::ReasonSpan& span : j.reasons) {
      if (!history.empty()) history += ';';
      history += fmt::format("+{}:{}", span.from - j.req.submit, r.reason_name(span.reason));
    }
    // Gang and preemption events: +seconds after submission, what, and the preemptor.
    std::string events;
    for (const engine::JobEvent& e : rare.events) {
      if (!events.empty()) events += ';';
      events += fmt::format("+{}:{}", e.at - j.req.submit, engine::job_event_name(e.kind));
      if (e.by) events += fmt::format("(by {})", e.by);
    }
    const bool cancelled = j.state == engine::JobState::kDone && j.end_state == engine::EndState::kCancelled;
    const char* end_state = j.state != engine::JobState::kDone            ? ""
                            : j.end_state == engine::EndState::kPreempted ? "PREEMPTED"
                            : j.end_state == engine::EndState::kTimeout   ? "TIMEOUT"
                            : cancelled                                   ? "CANCELLED"
                                                                          : "COMPLETED";
    out << j.req.id << ',' << j.req.submit << ',' << j.begin << ',' << t(j.start) << ',' << t(j.end) << ','
        << (started ? std::to_string(j.start - j.begin) : std::string()) << ','
        << (j.cancelled_pending() ? "CANCELLED" : state_name(j.state)) << ','
        << csv_field(rec ? conf.partitions[rec->part].name : std::string()) << ',' << csv_field(account) << ','
        << csv_field(j.req.user) << ',' << csv_field(qos) << ',' << (started ? j.alloc.cpus() : j.req.cpus) << ','
        << (started ? j.alloc.nodes() : std::max<std::uint32_t>(1, j.req.nodes)) << ','
        << (started ? j.start_priority : (rec ? rec->priority : 0)) << ',' << started_by_name(j.started_by) << ','
        << csv_field(names.empty() ? std::string() : compress_hostlist(names)) << ',' << f0(w.age) << ',' << f0(w.assoc)
        << ',' << f0(w.fairshare) << ',' << f0(w.job_size) << ',' << f0(w.partition) << ',' << f0(w.qos) << ','
        << csv_field(tres_text(w)) << ',' << f0(w.nice) << ',' << f0(w.site) << ','
        << t(j.req.extra.get().recorded_start) << ',' << csv_field(reason) << ',' << csv_field(history) << ','
        << end_state << ',' << rare.tot_sus_time << ',' << rare.suspends << ',' << rare.requeues << ','
        << csv_field(events) << ',' << placement_legal(r, conf, sorted_parts, j, rec, pieces) << '\n';
  }
}

void print_sprio_long(std::ostream& out, const engine::PendingSnapshot& snap, const PrioritySettings& p) {
  out << cell("JOBID", 15, true) << ' ' << cell("PARTITION", 9, false) << ' ' << cell("USER", 8, true) << ' '
      << cell("PRIORITY", 10, true) << ' ' << cell("SITE", 10, true) << ' ' << cell("AGE", 10, true) << ' '
      << cell("ASSOC", 10, true) << ' ' << cell("FAIRSHARE", 10, true) << ' ' << cell("JOBSIZE", 10, true) << ' '
      << cell("PARTITION", 10, true) << ' ' << cell("QOS", 10, true) << ' ' << cell("NICE", 11, true) << ' '
      << cell("TRES", 20, true) << '\n';
  for (const engine::SprioRow& row : snap.rows) {
    const WeightedFactors w = weighted_factors(row.factors, p);
    out << cell(std::to_string(row.job_id), 15, true) << ' ' << cell(row.partition, 9, false) << ' '
        << cell(row.user, 8, true) << ' ' << cell(std::to_string(static_cast<long long>(w.priority)), 10, true) << ' '
        << cell(f0(w.site), 10, true) << ' ' << cell(f0(w.age), 10, true) << ' ' << cell(f0(w.assoc), 10, true) << ' '
        << cell(f0(w.fairshare), 10, true) << ' ' << cell(f0(w.job_size), 10, true) << ' '
        << cell(f0(w.partition), 10, true) << ' ' << cell(f0(w.qos), 10, true) << ' '
        << cell(std::to_string(static_cast<long long>(w.nice)), 11, true) << ' ' << cell(tres_text(w), 20, true)
        << '\n';
  }
}

nlohmann::json sprio_json(const engine::PendingSnapshot& snap, const PrioritySettings& p) {
  nlohmann::json jobs = nlohmann::json::array();
  for (const engine::SprioRow& row : snap.rows) {
    const WeightedFactors w = weighted_factors(row.factors, p);
    nlohmann::json tres = nlohmann::json::object();
    for (const auto& [name, value] : w.tres) tres[name] = value;
    jobs.push_back({{"job_id", row.job_id},
                    {"partition", row.partition},
                    {"user", row.user},
                    {"account", row.account},
                    {"qos", row.qos},
                    {"priority", row.priority},
                    {"factors",
                     {{"age", w.age},
                      {"assoc", w.assoc},
                      {"fairshare", w.fairshare},
                      {"jobsize", w.job_size},
                      {"partition", w.partition},
                      {"qos", w.qos},
                      {"nice", w.nice},
                      {"site", w.site},
                      {"tres", tres}}}});
  }
  return {{"at", snap.at}, {"jobs", jobs}};
}

void print_metrics_text(std::ostream& out, const engine::Metrics& m, const engine::SimCounters& c) {
  out << fmt::format(
      "simulated {} s ({} .. {}): {} jobs, {} started ({} by the main loop, {} by backfill), "
      "{} rejected, {} still pending, {} still running{}\n",
      m.end - m.start, m.start, m.end, m.jobs, m.started, m.main_starts, m.backfill_starts, m.rejected,
      m.pending_at_end, m.running_at_end,
      m.cancelled_pending ? fmt::format(", {} cancelled before starting (as recorded)", m.cancelled_pending) : "");
  out << fmt::format("utilisation {:.1f} %, backfill share of starts {:.1f} %, jobs backfill never reached {}\n",
                     100 * m.utilization, 100 * m.backfill_share, m.never_reached_by_backfill);
  if (m.maint_share > 0 || m.unavailable_share > 0 || m.requeues > 0) {
    out << fmt::format(
        "maintenance reservations took {:.1f} % of the CPU time, DOWN/DRAIN nodes {:.1f} %; "
        "utilisation of what was left {:.1f} %; {} requeues after DOWN nodes lost {:.0f} CPU-hours\n",
        100 * m.maint_share, 100 * m.unavailable_share, 100 * m.utilization_available, m.requeues,
        m.lost_cpu_seconds / 3600);
  }
  const engine::GangMetrics& g = m.gang;
  if (g.sharing || g.suspends || g.preempt_requeues || g.preempt_cancels) {
    out << fmt::format(
        "sharing: {} suspends ({} jobs, {:.0f} CPU-hours suspended), stretch mean {:.2f} p95 {:.2f} "
        "max {:.2f} (job {}); preemption: {} requeued, {} cancelled, {:.0f} CPU-hours of work lost; "
        "up to {} jobs per node, {} nodes asked for more memory than they have",
        g.suspends, g.suspended_jobs, g.suspended_cpu_seconds / 3600, g.stretch_mean, g.stretch_p95, g.stretch_max,
        g.stretch_max_job, g.preempt_requeues, g.preempt_cancels, g.preempt_lost_cpu_seconds / 3600,
        g.max_jobs_per_node, g.nodes_over_memory);
    if (g.worst_memory_ratio > 1) {
      out << fmt::format(" (worst {}: {} MB of {} MB)", g.worst_memory_node, g.worst_memory_mb, g.worst_memory_real_mb);
    }
    if (g.nodes_unbounded_shared)
      out << fmt::format(", {} nodes shared by jobs with no memory bound", g.nodes_unbounded_shared);
    out << '\n';
  }
  out << fmt::format(
      "main loop: {} runs ({} cut by max_sched_time, {} by default_queue_depth); backfill: {} cycles "
      "(mean queue {:.1f} records), {} will-run tests, {} reservations, stopped by bf_max_job_test {}, "
      "bf_max_time {}, yield {}, bf_node_space_size {}; {} plans beyond bf_window\n",
      c.main_runs, c.main_stopped_by_time, c.main_stopped_by_depth, c.bf_cycles,
      c.bf_cycles ? static_cast<double>(c.bf_queue_records) / static_cast<double>(c.bf_cycles) : 0.0, c.bf_tests,
      c.bf_reservations, c.bf_stopped_by_max_job_test, c.bf_stopped_by_max_time, c.bf_stopped_by_yield,
      c.bf_stopped_by_node_space, c.bf_no_resv_beyond_window);
  if (c.mapped_partitions || c.mapped_users || c.mapped_qos) {
    out << fmt::format(
        "mapped onto the site: {} partition names, {} users, {} QOS names "
        "(unknown to the config or the tree; see --map-partition)\n",
        c.mapped_partitions, c.mapped_users, c.mapped_qos);
  }
  auto table = [&](const char* title, const std::map<std::string, engine::WaitStats>& rows) {
    out << fmt::format("\nwait (s) by {:<10} {:>8} {:>10} {:>10} {:>10} {:>10} {:>9}\n", title, "jobs", "mean",
                       "median", "p95", "max", "bsld");
    for (const auto& [k, w] : rows) {
      out << fmt::format("  {:<21} {:>8} {:>10.0f} {:>10.0f} {:>10.0f} {:>10.0f} {:>9.2f}\n", k, w.jobs, w.mean,
                         w.median, w.p95, w.max, w.bounded_slowdown);
    }
  };
  table("partition", m.by_partition);
  table("account", m.by_account);
  table("size", m.by_size);
  table("qos", m.by_qos);
  if (!m.account_shares.empty()) {
    out << fmt::format("\n{:<24} {:>10} {:>10}\n", "account usage share", "target", "actual");
    for (const engine::AccountShare& s : m.account_shares) {
      out << fmt::format("  {:<22} {:>9.1f}% {:>9.1f}%\n", s.account, 100 * s.target, 100 * s.actual);
    }
  }
}

nlohmann::json metrics_json(const engine::Metrics& m, const engine::SimCounters& c) {
  nlohmann::json j;
  j["start"] = m.start;
  j["end"] = m.end;
  j["jobs"] = {{"total", m.jobs},
               {"started", m.started},
               {"completed", m.completed},
               {"rejected", m.rejected},
               {"pending_at_end", m.pending_at_end},
               {"running_at_end", m.running_at_end},
               {"main_starts", m.main_starts},
               {"backfill_starts", m.backfill_starts}};
  if (m.cancelled_pending) j["jobs"]["cancelled_while_pending"] = m.cancelled_pending;  // recorded loads only
  j["utilization"] = m.utilization;
  j["utilization_available"] = m.utilization_available;
  j["maintenance_share"] = m.maint_share;
  j["unavailable_share"] = m.unavailable_share;
  j["requeues"] = m.requeues;
  j["lost_cpu_seconds"] = m.lost_cpu_seconds;
  j["backfill_share"] = m.backfill_share;
  j["never_reached_by_backfill"] = m.never_reached_by_backfill;
  j["wait"] = wait_json(m.overall);
  for (const auto& [name, rows] : {std::pair{"by_partition", &m.by_partition}, std::pair{"by_account", &m.by_account},
                                   std::pair{"by_size", &m.by_size}, std::pair{"by_qos", &m.by_qos}}) {
    nlohmann::json o = nlohmann::json::object();
    for (const auto& [k, w] : *rows) o[k] = wait_json(w);
    j[name] = o;
  }
  nlohmann::json shares = nlohmann::json::array();
  for (const engine::AccountShare& s : m.account_shares) {
    shares.push_back({{"account", s.account}, {"target", s.target}, {"actual", s.actual}});
  }
  j["account_shares"] = shares;
  const engine::GangMetrics& g = m.gang;
  nlohmann::json share = nlohmann::json::object();
  for (const auto& [k, v] : g.suspended_share) share[k] = v;
  j["sharing"] = {
      {"enabled", g.sharing},
      {"suspends", g.suspends},
      {"suspended_jobs", g.suspended_jobs},
      {"suspended_cpu_seconds", g.suspended_cpu_seconds},
      {"suspended_share_by_partition", share},
      {"stretch",
       {{"mean", g.stretch_mean}, {"p95", g.stretch_p95}, {"max", g.stretch_max}, {"max_job", g.stretch_max_job}}},
      {"preempt_requeues", g.preempt_requeues},
      {"preempt_cancels", g.preempt_cancels},
      {"preempt_lost_cpu_seconds", g.preempt_lost_cpu_seconds},
      {"max_jobs_per_node", g.max_jobs_per_node},
      {"nodes_over_memory", g.nodes_over_memory},
      {"nodes_unbounded_shared", g.nodes_unbounded_shared},
      {"worst_memory",
       {{"node", g.worst_memory_node},
        {"ratio", g.worst_memory_ratio},
        {"requested_mb", g.worst_memory_mb},
        {"real_mb", g.worst_memory_real_mb}}}};
  j["counters"] = {{"main_runs", c.main_runs},
                   {"main_starts", c.main_starts},
                   {"main_stopped_by_max_sched_time", c.main_stopped_by_time},
                   {"main_stopped_by_default_queue_depth", c.main_stopped_by_depth},
                   {"bf_cycles", c.bf_cycles},
                   {"bf_starts", c.bf_starts},
                   {"bf_tests", c.bf_tests},
                   {"bf_reservations", c.bf_reservations},
                   {"bf_stopped_by_max_job_test", c.bf_stopped_by_max_job_test},
                   {"bf_stopped_by_max_time", c.bf_stopped_by_max_time},
                   {"bf_stopped_by_yield", c.bf_stopped_by_yield},
                   {"bf_stopped_by_node_space", c.bf_stopped_by_node_space},
                   {"bf_stopped_by_max_job_start", c.bf_stopped_by_max_job_start},
                   {"bf_skipped_by_per_entity_limits", c.bf_skipped_by_user_limit},
                   {"bf_plans_beyond_window", c.bf_no_resv_beyond_window},
                   {"bf_mean_queue_depth",
                    c.bf_cycles ? static_cast<double>(c.bf_queue_records) / static_cast<double>(c.bf_cycles) : 0.0},
                   {"priority_passes", c.priority_passes},
                   {"events", c.events},
                   {"timeslices", c.timeslices},
                   {"resumes", c.resumes},
                   {"mapped_partitions", c.mapped_partitions},
                   {"mapped_users", c.mapped_users},
                   {"mapped_qos", c.mapped_qos}};
  return j;
}

nlohmann::json timeline_json(const engine::SimResult& r, const Config& config) {
  nlohmann::json parts = nlohmann::json::object();
  for (std::size_t p = 0; p < config.partitions.size() && p < r.timeline.running.size(); ++p) {
    if (r.timeline.running[p].empty() && r.timeline.suspended[p].empty()) continue;
    parts[config.partitions[p].name] = {{"running_cpu_seconds", r.timeline.running[p]},
                                        {"suspended_cpu_seconds", r.timeline.suspended[p]}};
  }
  return {{"start", r.start}, {"bucket_seconds", r.timeline.bucket}, {"partitions", parts}};
}

nlohmann::json node_peaks_json(const engine::SimResult& r, const Config& config) {
  std::vector<const engine::NodePeak*> peaks;
  for (const engine::NodePeak& p : r.node_peaks) peaks.push_back(&p);
  auto real_of = [&](const engine::NodePeak& p) { return config.nodes[p.node].usable_mem_mb(); };
  auto ratio = [&](const engine::NodePeak& p) {
    const std::uint64_t real = real_of(p);
    return real ? static_cast<double>(p.mem_mb) / static_cast<double>(real) : 0.0;
  };
  std::stable_sort(peaks.begin(), peaks.end(),
                   [&](const engine::NodePeak* a, const engine::NodePeak* b) { return ratio(*a) > ratio(*b); });
  nlohmann::json out = nlohmann::json::array();
  for (std::size_t i = 0; i < peaks.size() && i < 20; ++i) {
    const engine::NodePeak& p = *peaks[i];
    out.push_back({{"node", config.nodes[p.node].name},
                   {"peak_requested_mb", p.mem_mb},
                   {"real_mb", real_of(p)},
                   {"ratio", ratio(p)},
                   {"at", p.at},
                   {"peak_jobs", p.jobs},
                   {"peak_unbounded_jobs", p.unbounded}});
  }
  return out;
}

}  // namespace sa::report
