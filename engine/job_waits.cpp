// What holds a job besides resources and limits: dependencies (job_scheduler.c
// test_job_dependency, 22.05), a user hold (--hold; released at the time the trace records
// it eligible) and licences (licenses.c license_job_test: the main loop and backfill skip a
// job whose licences are taken, Reason Licenses; without bf_licenses backfill plans none).
#include <algorithm>

#include "engine/simulator.h"

namespace sa::engine {

void Simulator::bind_dependencies() {
  // Recorded dependencies on jobs of the same load are replayed: the job waits for the
  // simulated start or end, not for the Eligible time the trace recorded. A job the load
  // does not have (finished before the dump, or an id that never existed) counts as done,
  // as slurmctld accepted job 15 of the dependencies capture (afterok:9999) and ran it.
  auto has_deps = [](const SimJob& j) { return !j.req.dependencies.empty(); };
  if (std::none_of(jobs_.begin(), jobs_.end(), has_deps)) return;  // nothing to track
  std::map<std::uint32_t, std::uint32_t> index;
  for (std::uint32_t i = 0; i < jobs_.size(); ++i) index.emplace(jobs_[i].req.id, i);
  dependents_.assign(jobs_.size(), {});
  bind_name_groups();
  for (std::uint32_t i = 0; i < jobs_.size(); ++i) {
    SimJob& job = jobs_[i];
    bool replayed = false;
    // singleton waits on its name group (bind_name_groups), unless it is the group's first.
    const bool behind_in_group = job.rare.get().name_group >= 0 && job.rare.get().name_pos > 0;
    if (job.rare.allocated()) job.rare.edit().dep_jobs.clear();
    for (const Dependency& d : job.req.dependencies) {
      if (d.type == DependencyType::kSingleton) replayed = replayed || behind_in_group;
      auto it = index.find(d.job_id);
      const bool known = d.type != DependencyType::kSingleton && it != index.end() && it->second != i;
      job.rare.edit().dep_jobs.push_back(known ? static_cast<std::int32_t>(it->second) : -1);
      if (!known) continue;
      dependents_[it->second].push_back(i);
      replayed = true;
    }
    if (replayed) {
      job.waits_on_deps = true;
      if (!job.req.begin_set) job.begin = job.req.submit;  // the recorded Eligible was the dependency's
    }
  }
}

void Simulator::bind_name_groups() {
  // singleton (_find_singleton_job): a job waits while an earlier job of the same user and
  // name has not finished. Jobs are in submit order, so each (user, name) group is in order
  // and "earlier" is a lower position; a group keeps how far its finished prefix reaches,
  // so a check is O(1) amortised, whatever the group's size.
  const bool any = std::any_of(jobs_.begin(), jobs_.end(), [](const SimJob& j) {
    return std::any_of(j.req.dependencies.begin(), j.req.dependencies.end(),
                       [](const Dependency& d) { return d.type == DependencyType::kSingleton; });
  });
  if (!any) return;
  std::map<std::pair<std::string, std::string>, std::int32_t> by_name;
  for (std::uint32_t i = 0; i < jobs_.size(); ++i) {
    SimJob& job = jobs_[i];
    if (job.req.name.empty()) continue;
    auto [it, fresh] =
        by_name.emplace(std::make_pair(job.req.user, job.req.name), static_cast<std::int32_t>(name_groups_.size()));
    if (fresh) name_groups_.emplace_back();
    NameGroup& g = name_groups_[static_cast<std::size_t>(it->second)];
    JobRare& rare = job.rare.edit();
    rare.name_group = it->second;
    rare.name_pos = static_cast<std::uint32_t>(g.members.size());
    g.members.push_back(i);
  }
}

void Simulator::advance_name_group(NameGroup& g) {
  while (g.first_open < g.members.size()) {
    const SimJob& m = jobs_[g.members[g.first_open]];
    if (m.state == JobState::kDone)
      g.ended = std::max(g.ended, m.end);
    else if (m.state != JobState::kRejected)
      break;  // still to come, pending or running
    ++g.first_open;
  }
}

Simulator::DepState Simulator::dependency_state(const SimJob& job, std::int64_t& ready) {
  bool all = true, any = false, never_all = true;
  std::int64_t ready_all = job.begin, ready_any = kNoTime;
  const JobRare& rare = job.rare.get();
  for (std::size_t i = 0; i < job.req.dependencies.size(); ++i) {
    const Dependency& d = job.req.dependencies[i];
    const std::int32_t k = i < rare.dep_jobs.size() ? rare.dep_jobs[i] : -1;
    const SimJob* dep = k >= 0 ? &jobs_[static_cast<std::size_t>(k)] : nullptr;
    std::int64_t at = kNoTime;
    bool never = false;
    if (d.type == DependencyType::kSingleton) {
      at = job.req.submit;
      if (rare.name_group >= 0) {
        NameGroup& g = name_groups_[static_cast<std::size_t>(rare.name_group)];
        advance_name_group(g);
        // The job itself is unfinished, so the finished prefix stops at it at the most.
        at = g.first_open >= rare.name_pos ? std::max(at, g.ended) : kNoTime;
      }
    } else if (!dep || dep->state == JobState::kRejected) {
      at = job.req.submit;
    } else if (d.type == DependencyType::kAfter) {
      // after: once the job has begun, or was cancelled before it could.
      if (dep->start != kNoTime)
        at = dep->start;
      else if (dep->state == JobState::kDone)
        at = dep->end;
    } else if (dep->state == JobState::kDone) {
      // afterok needs a job that completed with exit 0 (a recorded failure, a timeout or a
      // preemption is not ok); afternotok the opposite; afterany either.
      const bool ok = dep->end_state == EndState::kCompleted && !dep->req.fails;
      const bool wants_ok = d.type == DependencyType::kAfterOk || d.type == DependencyType::kAfterCorr;
      const bool wants_failure = d.type == DependencyType::kAfterNotOk;
      if ((wants_ok && !ok) || (wants_failure && ok))
        never = true;
      else
        at = dep->end;
    }
    if (at != kNoTime) at += d.delay;
    if (at == kNoTime) all = false;
    if (!never) never_all = false;
    if (never) all = false;
    if (at != kNoTime) {
      any = true;
      ready_all = std::max(ready_all, at);
      ready_any = ready_any == kNoTime ? at : std::min(ready_any, at);
    }
    if (never && !job.req.dependency_any) {
      ready = kNoTime;
      return DepState::kNever;
    }
  }
  if (job.req.dependency_any) {
    if (any) {
      ready = std::max(job.begin, ready_any);
      return DepState::kReady;
    }
    return never_all ? DepState::kNever : DepState::kWaiting;
  }
  if (all) {
    ready = ready_all;
    return DepState::kReady;
  }
  return DepState::kWaiting;
}

bool Simulator::hold_until_ready(std::uint32_t j) {
  SimJob& job = jobs_[j];
  if (job.req.hold && job.req.eligible == kNoTime) {
    set_reason(job, reason_id("JobHeldUser"));  // never released in the trace
    return true;
  }
  if (!job.waits_on_deps) return false;
  std::int64_t ready = kNoTime;
  switch (dependency_state(job, ready)) {
    case DepState::kWaiting:
      set_reason(job, reason_id("Dependency"));
      return true;
    case DepState::kNever:
      set_reason(job, reason_id("DependencyNeverSatisfied"));
      return true;
    case DepState::kReady:
      job.waits_on_deps = false;
      job.begin = std::max(job.begin, ready);
      return false;
  }
  return false;
}

void Simulator::dependencies_moved(std::uint32_t j) {
  // A job started or ended: the jobs waiting on it may be free now (or never).
  if (!dependents_.empty()) {
    for (std::uint32_t k : dependents_[j]) recheck_dependencies(k);
  }
  // singleton: only the group's first unfinished job can have become free.
  if (const std::int32_t gi = jobs_[j].rare.get().name_group; gi >= 0) {
    NameGroup& g = name_groups_[static_cast<std::size_t>(gi)];
    advance_name_group(g);
    if (g.first_open < g.members.size()) recheck_dependencies(g.members[g.first_open]);
  }
}

void Simulator::recheck_dependencies(std::uint32_t k) {
  SimJob& other = jobs_[k];
  if (other.state != JobState::kPending || !other.waits_on_deps) return;
  if (hold_until_ready(k)) return;
  if (other.begin <= now_) {
    if (other.accrue == kNoTime) other.accrue = other.begin;
    set_reason(other, kReasonNone);
    queue_insert(k);
    trigger_main();
  } else {
    set_reason(other, kReasonBeginTime);
    events_.push(other.begin, EventType::kEligible, k);
    ++future_eligible_;
  }
  bf_changed_ = true;
}

bool Simulator::licenses_free(const SimJob& job) const {
  for (const License& l : job.req.licenses) {
    auto it = licenses_used_.find(l.name);
    const std::uint32_t used = it == licenses_used_.end() ? 0 : it->second;
    std::uint32_t total = 0;
    for (const License& c : conf_.licenses) total += c.name == l.name ? c.count : 0;
    if (used + l.count > total) return false;
  }
  return true;
}

void Simulator::take_licenses(const SimJob& job, bool take) {
  for (const License& l : job.req.licenses) {
    std::uint32_t& used = licenses_used_[l.name];
    used = take ? used + l.count : used - std::min(used, l.count);
  }
}

}  // namespace sa::engine
