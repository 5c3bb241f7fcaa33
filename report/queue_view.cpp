#include "report/queue_view.h"

#include <algorithm>
#include <map>

#include <fmt/format.h>

namespace sa::report {

std::string reason_at(const engine::SimResult& result, const engine::SimJob& job, std::int64_t at) {
  std::string reason;
  for (const engine::ReasonSpan& span : job.reasons) {
    if (span.from > at) break;
    reason = result.reason_name(span.reason);
  }
  return reason;
}

namespace {

// "1-3,5" from sorted task ids.
std::string task_ranges(const std::vector<std::uint32_t>& ids) {
  std::string out;
  for (std::size_t i = 0; i < ids.size();) {
    std::size_t k = i;
    while (k + 1 < ids.size() && ids[k + 1] == ids[k] + 1) ++k;
    out += (out.empty() ? "" : ",") + (k == i ? std::to_string(ids[i]) : fmt::format("{}-{}", ids[i], ids[k]));
    i = k + 1;
  }
  return out;
}

// An array's tasks pending unstarted at the time, in one partition list: slurmctld's meta record.
struct MetaRecord {
  std::vector<std::pair<std::uint32_t, std::size_t>> tasks;  // (task id, row)
  std::uint32_t max_run = 0;                                 // --array's %N
};
using MetaRecords = std::map<std::pair<std::uint32_t, std::string>, MetaRecord>;  // (array, partitions)

// The unstarted tasks of an array are one record in slurmctld, which squeue prints once as
// ARRAY_[TASKS%LIMIT] with the record's Reason and priority (its first task's).
void merge_meta_records(std::vector<QueueRow>& rows, MetaRecords& metas) {
  if (metas.empty()) return;
  std::vector<char> drop(rows.size(), 0);
  for (auto& [key, meta] : metas) {
    std::sort(meta.tasks.begin(), meta.tasks.end());
    std::vector<std::uint32_t> ids;
    for (const auto& [task, row] : meta.tasks) ids.push_back(task);
    QueueRow& head = rows[meta.tasks.front().second];
    head.job_id = key.first;  // the meta record keeps the array's id
    if (ids.size() == 1)
      head.id = fmt::format("{}_{}", key.first, ids.front());
    else
      head.id = fmt::format("{}_[{}{}]", key.first, task_ranges(ids),
                            meta.max_run ? fmt::format("%{}", meta.max_run) : std::string());
    for (std::size_t k = 1; k < meta.tasks.size(); ++k) drop[meta.tasks[k].second] = 1;
  }
  std::size_t out = 0;
  for (std::size_t r = 0; r < rows.size(); ++r) {
    if (drop[r]) continue;
    if (out != r) rows[out] = std::move(rows[r]);
    ++out;
  }
  rows.resize(out);
}

}  // namespace

std::vector<QueueRow> queue_at(const engine::SimResult& result, const engine::Site& site, std::int64_t at) {
  const Config& conf = *site.config;
  std::vector<QueueRow> rows;
  MetaRecords metas;
  for (const engine::SimJob& j : result.jobs) {
    if (j.state == engine::JobState::kRejected || j.req.submit > at || j.recs.empty()) continue;
    const bool started = j.start != engine::kNoTime && j.start <= at;
    if (j.end != engine::kNoTime && j.end <= at) continue;  // finished (or cancelled while pending) by then
    QueueRow row;
    row.job_id = j.req.id;
    if (j.req.extra.get().array_job_id != 0) row.id = engine::job_label(j.req);
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
    if (const engine::RequestExtras& x = j.req.extra.get(); !started && x.array_job_id && !j.rare.get().requeues) {
      MetaRecord& meta = metas[{x.array_job_id, row.partition}];
      meta.tasks.emplace_back(x.array_task_id, rows.size());
      meta.max_run = std::max(meta.max_run, x.array_max_run);
    }
    rows.push_back(std::move(row));
  }
  merge_meta_records(rows, metas);
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
    out << (r.id.empty() ? std::to_string(r.job_id) : r.id) << '|' << r.user << '|' << r.account << '|' << r.partition
        << '|' << r.qos << '|' << r.state << '|' << r.reason << '\n';
  }
}

nlohmann::json squeue_json(const std::vector<QueueRow>& rows, std::int64_t at) {
  nlohmann::json jobs = nlohmann::json::array();
  for (const QueueRow& r : rows) {
    nlohmann::json row = {{"job_id", r.job_id}, {"user", r.user},   {"account", r.account}, {"partition", r.partition},
                          {"qos", r.qos},       {"state", r.state}, {"reason", r.reason},   {"priority", r.priority}};
    if (!r.id.empty()) row["id"] = r.id;
    jobs.push_back(std::move(row));
  }
  return {{"at", at}, {"jobs", jobs}};
}

}  // namespace sa::report
