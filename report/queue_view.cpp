#include "report/queue_view.h"

#include <algorithm>

namespace sa::report {

std::string reason_at(const engine::SimResult& result, const engine::SimJob& job, std::int64_t at) {
  std::string reason;
  for (const engine::ReasonSpan& span : job.reasons) {
    if (span.from > at) break;
    reason = result.reason_name(span.reason);
  }
  return reason;
}

std::vector<QueueRow> queue_at(const engine::SimResult& result, const engine::Site& site, std::int64_t at) {
  const Config& conf = *site.config;
  std::vector<QueueRow> rows;
  for (const engine::SimJob& j : result.jobs) {
    if (j.state == engine::JobState::kRejected || j.req.submit > at || j.recs.empty()) continue;
    const bool started = j.start != engine::kNoTime && j.start <= at;
    if (j.end != engine::kNoTime && j.end <= at) continue;  // finished (or cancelled while pending) by then
    QueueRow row;
    row.job_id = j.req.id;
    row.user = j.req.user;
    row.account = engine::job_account(j, site);
    row.qos = engine::job_qos(j, site);
    if (started) {
      const engine::SimRecord& rec = j.recs[static_cast<std::size_t>(j.run_rec)];
      row.partition = conf.partitions[rec.part].name;
      row.state = "RUNNING";
      for (const engine::JobEvent& e : j.rare.get().events) {
        if (e.at > at) break;
        if (e.at < j.start) continue;  // an earlier run's
        if (e.kind == engine::JobEvent::Kind::kSuspend) row.state = "SUSPENDED";
        if (e.kind == engine::JobEvent::Kind::kResume) row.state = "RUNNING";
      }
      row.reason = "None";
      row.priority = j.start_priority;
    } else {
      // A pending job lists every partition it may run in.
      for (const engine::SimRecord& rec : j.recs) {
        row.partition += (row.partition.empty() ? "" : ",") + conf.partitions[rec.part].name;
        row.priority = std::max(row.priority, rec.priority);
      }
      row.state = "PENDING";
      row.reason = reason_at(result, j, at);
      if (row.reason.empty()) row.reason = "None";
    }
    rows.push_back(std::move(row));
  }
  // squeue's default sort "P,t,-p": partition, then state (pending, running, suspended), then
  // priority, highest first. Ties come out newest job first in the captures (slurmctld's
  // job list as squeue receives it, sorted stably).
  std::stable_sort(rows.begin(), rows.end(), [](const QueueRow& a, const QueueRow& b) {
    if (a.partition != b.partition) return a.partition < b.partition;
    auto rank = [](const std::string& s) { return s == "PENDING" ? 0 : s == "RUNNING" ? 1 : 2; };
    if (a.state != b.state) return rank(a.state) < rank(b.state);
    if (a.priority != b.priority) return a.priority > b.priority;
    return a.job_id > b.job_id;
  });
  return rows;
}

void print_squeue(std::ostream& out, const std::vector<QueueRow>& rows) {
  out << "JOBID|USER|ACCOUNT|PARTITION|QOS|STATE|REASON\n";
  for (const QueueRow& r : rows) {
    out << r.job_id << '|' << r.user << '|' << r.account << '|' << r.partition << '|' << r.qos << '|' << r.state << '|'
        << r.reason << '\n';
  }
}

nlohmann::json squeue_json(const std::vector<QueueRow>& rows, std::int64_t at) {
  nlohmann::json jobs = nlohmann::json::array();
  for (const QueueRow& r : rows) {
    jobs.push_back({{"job_id", r.job_id},
                    {"user", r.user},
                    {"account", r.account},
                    {"partition", r.partition},
                    {"qos", r.qos},
                    {"state", r.state},
                    {"reason", r.reason},
                    {"priority", r.priority}});
  }
  return {{"at", at}, {"jobs", jobs}};
}

}  // namespace sa::report
