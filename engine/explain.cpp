#include "engine/explain.h"

#include <algorithm>

#include <fmt/format.h>

namespace sa::engine {

namespace {

const SimJob* find(const SimResult& r, std::uint32_t id) {
  for (const SimJob& j : r.jobs) {
    if (j.req.id == id) return &j;
  }
  return nullptr;
}

std::string limit_owner(const Site& site, const LimitBlock& b) {
  if (b.qos >= 0) return fmt::format("QOS {}", site.qos.records[static_cast<std::size_t>(b.qos)].name);
  if (site.tree && b.assoc < site.tree->assocs.size()) {
    const Association& a = site.tree->assocs[b.assoc];
    return a.is_user() ? fmt::format("association {}/{}", a.account, a.user) : fmt::format("account {}", a.account);
  }
  return "?";
}

std::int64_t start_with(const Site& site, SimOptions options, const Workload& workload, std::uint32_t id,
                        std::int64_t until) {
  options.explain_jobs.clear();
  options.progress = {};
  if (until != kNoTime) options.until = options.until == kNoTime ? until : std::min(options.until, until);
  SimResult r = Simulator(site, options).run(workload);
  const SimJob* j = find(r, id);
  return j ? j->start : kNoTime;
}

}  // namespace

Explanation explain_job(const Site& site, const SimOptions& options, const Workload& workload, std::uint32_t job_id,
                        bool what_ifs) {
  Explanation e;
  SimOptions opt = options;
  opt.explain_jobs = {job_id};
  SimResult r = Simulator(site, opt).run(workload);
  e.coverage = load_coverage(r, *site.config);
  e.step_limit = r.step_limit_stop();
  const SimJob* j = find(r, job_id);
  if (!j) return e;
  e.found = true;
  e.job = *j;
  e.run_end = r.end;
  const Config& conf = *site.config;
  const SimRecord* rec = j->run_or_first_rec_if_any();
  if (rec) e.partition = conf.partitions[rec->part].name;
  e.account = job_account(*j, site);
  e.qos = job_qos(*j, site);
  const std::int64_t stop = j->waited_until(r.end);
  for (std::size_t i = 0; i < j->reasons.size(); ++i) {
    const ReasonSpan& s = j->reasons[i];
    if (s.from >= stop) break;
    const std::int64_t until = i + 1 < j->reasons.size() ? std::min(stop, j->reasons[i + 1].from) : stop;
    if (until <= s.from) continue;  // replaced within the same second
    ExplainSpan span{s.from, until, r.reason_name(s.reason), r.reason_detail(s)};
    if (!e.spans.empty() && e.spans.back().reason == span.reason) {
      e.spans.back().until = until;
    } else {
      e.spans.push_back(std::move(span));
    }
  }
  if (!what_ifs || j->state == JobState::kRejected) return e;
  const std::int64_t until = j->start != kNoTime ? j->start : kNoTime;
  for (const LimitBlock& b : j->rare.get().limit_blocks) {
    SimOptions o = options;
    o.lift_limits.push_back(b);
    e.what_ifs.push_back(
        {fmt::format("lift {} on {}", b.reason, limit_owner(site, b)), start_with(site, o, workload, job_id, until)});
  }
  const bool waited_in_queue = std::any_of(e.spans.begin(), e.spans.end(), [](const ExplainSpan& s) {
    return s.reason == "Priority" || s.reason == "Resources";
  });
  if (waited_in_queue) {
    SimOptions o = options;
    o.top_priority_jobs.push_back(job_id);
    e.what_ifs.push_back({"top priority in its partition tier", start_with(site, o, workload, job_id, until)});
  }
  return e;
}

}  // namespace sa::engine
