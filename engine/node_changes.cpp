// Reservations and node events: which nodes a job may use now, the submit-time Reason
// when a partition could not take the job even empty, DOWN/DRAIN periods (a DOWN node
// requeues its jobs), the CPU time lost to them, and sprio-style queue snapshots.
#include <algorithm>

#include "analyzer/hostlist.h"
#include "engine/simulator.h"

namespace sa::engine {

void Simulator::submit_select_reason(SimJob& job) {
  // job_allocate's test-only select_nodes: it ignores current allocations, so it fails only
  // when the partition could not take the job even empty: every node in a maintenance
  // window the job would run into, or too few nodes up (ReqNodeNotAvail, naming them).
  const SimRecord& rec = job.recs.front();
  if (rec.hold_reason != HoldReason::kNone) return;
  const NodeBitset& part = record_nodes(rec);
  if (resv_ && resv_->maint_covers(part, now_, now_ + plan_limit(rec))) {
    set_reason(job, kReasonMaintenance);
    return;
  }
  NodeBitset up = part;
  up &= pool_.usable();
  if (up.count_at_least(rec.demand.min_nodes) && pool_.could_ever_fit(rec.demand, up)) return;
  std::vector<std::string> names;
  part.for_each([&](std::size_t n) {
    if (!pool_.usable().test(n)) names.push_back(conf_.nodes[pool_.config_index(static_cast<std::uint32_t>(n))].name);
  });
  if (!names.empty()) set_reason(job, reason_id("ReqNodeNotAvail, UnavailableNodes:" + compress_hostlist(names)));
}

void Simulator::apply_reservations(const SimJob& job, const SimRecord& rec, NodeBitset& allowed) {
  if (!resv_) return;
  if (job.resv >= 0) {
    const ResvWindow* w = resv_->active(job.resv, now_);
    if (w)
      allowed &= w->nodes;
    else
      allowed.assign_and(allowed, NodeBitset(allowed.size()));
    return;
  }
  if (const NodeBitset* ex = resv_->excluded(now_, now_ + plan_limit(rec))) allowed.subtract(*ex);
}

void Simulator::on_node_event(std::uint32_t change) {
  const NodeChange& c = node_changes_[change];
  const NodeEvent& ne = site_.node_events[c.event];
  const bool down = ne.state == "DOWN";
  for (const std::string& name : ne.nodes) {
    auto found = conf_.node_index.find(name);
    if (found == conf_.node_index.end()) continue;
    const Node* node = &conf_.nodes[found->second];
    const std::uint32_t n = pool_.internal_index(found->second);
    std::uint32_t& open = down ? node_down_[n] : node_drain_[n];
    if (c.begins)
      ++open;
    else if (open > 0)
      --open;
    pool_.set_usable(n, node->usable() && node_down_[n] == 0 && node_drain_[n] == 0);
    if (c.begins && down) {
      // A DOWN node ends its jobs; slurmctld requeues batch jobs (JobRequeue=1, the default).
      std::vector<std::uint32_t> hit;
      for (std::uint32_t j : running_) {
        for (const AllocPiece& p : jobs_[j].alloc.pieces) {
          if (p.node == n) {
            hit.push_back(j);
            break;
          }
        }
      }
      for (std::uint32_t j : hit) requeue(j);
    }
  }
  bf_changed_ = true;
  trigger_main();
}

void Simulator::account_unavailable(std::int64_t start) {
  auto overlap = [&](std::int64_t a, std::int64_t b) {
    return static_cast<double>(std::max<std::int64_t>(0, std::min(b, result_.end) - std::max(a, start)));
  };
  auto cpus_of = [&](std::size_t internal) { return static_cast<double>(pool_.state().nodes[internal].cpus_total); };
  if (resv_) {
    for (const ResvWindow& w : resv_->windows()) {
      if (!w.maint) continue;
      const double secs = overlap(w.start, w.end);
      w.nodes.for_each([&](std::size_t n) { result_.maint_cpu_seconds += secs * cpus_of(n); });
    }
  }
  for (const NodeEvent& ne : site_.node_events) {
    const double secs = overlap(ne.start, ne.end == kOpenEnd ? result_.end : ne.end);
    for (const std::string& name : ne.nodes) {
      auto found = conf_.node_index.find(name);
      if (found != conf_.node_index.end())
        result_.unavailable_cpu_seconds += secs * cpus_of(pool_.internal_index(found->second));
    }
  }
}

void Simulator::take_snapshot() {
  PendingSnapshot snap;
  snap.at = now_;
  compact_active();
  // An array's unstarted tasks are its meta record: one row under the array's id, and none
  // while the %N throttle holds it, as its begin time is set only when a task may run (the
  // job_arrays capture's sprio at +16 lists 3 for 3_[1-2] and nothing for 5_[2-4%1]).
  std::vector<char> meta_listed(arrays_.groups(), 0);
  for (std::uint32_t j : active_) {
    const SimJob& job = jobs_[j];
    // A job still waiting on a dependency has no begin time either (job_independent clears it),
    // and sprio leaves it out (the dependencies capture's sprio at +10 lists only job 13 of
    // the eight pending there).
    if (!job.eligible_pending(now_) || job.waits_on_deps) continue;
    std::uint32_t id = job.req.id;
    if (const std::int32_t g = arrays_.group_of(j); g >= 0 && JobArrays::unsplit(job)) {
      auto& listed = meta_listed[static_cast<std::size_t>(g)];
      if (listed || arrays_.throttled(g)) continue;
      listed = 1;
      id = arrays_.id(g);
    }
    for (const SimRecord& rec : job.recs) {
      SprioRow row;
      row.job_id = id;
      row.partition = conf_.partitions[rec.part].name;
      row.user = job.req.user;
      row.account = job_account(job, site_);
      row.qos = job.qos >= 0 ? site_.qos.records[static_cast<std::size_t>(job.qos)].name : "";
      row.priority = rec.priority;
      row.factors = rec.factors;
      snap.rows.push_back(std::move(row));
    }
  }
  std::stable_sort(snap.rows.begin(), snap.rows.end(),
                   [](const SprioRow& a, const SprioRow& b) { return a.job_id < b.job_id; });
  result_.snapshots.push_back(std::move(snap));
}

}  // namespace sa::engine
