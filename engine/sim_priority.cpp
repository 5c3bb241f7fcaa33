// Usage, fair share and priorities: the decay thread's pass every PriorityCalcPeriod
// (priority_multifactor.c _decay_thread: decay, usage charged up to now, fair-share factors,
// every pending job priced again) and the submit-time priority.
#include <algorithm>

#include "engine/simulator.h"

namespace sa::engine {

namespace {

constexpr std::uint32_t kTopPriority = 0xFFFF0000U;  // priority/basic's first value + 1

}  // namespace

void Simulator::charge_usage(SimJob& job, std::int64_t from, std::int64_t to) {
  // _apply_new_usage charges suspended jobs too, up to their end_time, which stays where it
  // was when they were suspended.
  if (job.rare.get().suspended && job.limit_end != kNoTime) to = std::min(to, job.limit_end);
  if (!site_.tree || job.assoc == kNoAssoc || to <= from) return;
  double factor = 1.0;
  if (job.qos >= 0) {
    const double uf = site_.qos.records[static_cast<std::size_t>(job.qos)].usage_factor;
    if (uf >= 0) factor = uf;
  }
  usage_[job.assoc] += decayed_charge(conf_.priority.decay_half_life, to - from, job.billable * factor);
  if (limits_.tracks_usage() && job.run_rec >= 0) {
    // The decay thread also feeds the limits: TRES-minutes used (decayed, with UsageFactor)
    // and TRES-run-minutes released.
    job.rare.edit().run_secs_done += static_cast<double>(to - from);
    limits_.job_ran(limit_key(job, job.recs[static_cast<std::size_t>(job.run_rec)]), alloc_tres(job), to - from,
                    decayed_charge(conf_.priority.decay_half_life, to - from, factor));
  }
}

void Simulator::priority_pass() {
  counts_.priority_pass();
  steps_ += active_.size();
  const PrioritySettings& ps = conf_.priority;
  const bool classic = fair_share_ && !fair_share_->settings().algorithm_is_fair_tree();
  std::vector<AssocShare> at_start;
  std::vector<char> priced;
  if (site_.tree) {
    if (last_decay_ != kNoTime) {
      // A reset boundary crossed since the last pass zeroes every association's usage.
      const std::int64_t reset = next_usage_reset(ps.usage_reset_period, last_decay_ + result_.epoch_offset);
      if (reset >= 0 && reset <= now_ + result_.epoch_offset) std::fill(usage_.begin(), usage_.end(), 0.0L);
      // Classic: account effective usage comes from the usage before this pass's decay.
      if (classic) at_start = fair_share_->compute(usage_);
      const double d = decay_over(ps.decay_half_life, now_ - last_decay_);
      if (d != 1.0) {
        for (long double& u : usage_) u *= d;
        if (limits_.tracks_usage()) limits_.decay(d);
      }
    }
    if (classic && last_decay_ != kNoTime) {
      // Classic prices pending jobs inside the accrual loop over the job list (submit
      // order): a user's factor is fixed by that user's first pending job, from usage
      // accrued so far.
      long double root = 0;
      for (long double u : usage_) root += u;
      priced.assign(usage_.size(), 0);
      compact_active();
      for (std::uint32_t j : active_) {
        SimJob& job = jobs_[j];
        if (job.state == JobState::kRunning) {
          const long double before = job.assoc != kNoAssoc ? usage_[job.assoc] : 0.0L;
          charge_usage(job, std::max(last_decay_, job.start), now_);
          if (job.assoc != kNoAssoc) root += usage_[job.assoc] - before;
        } else if (job.state == JobState::kPending) {
          if (job.assoc != kNoAssoc && !priced[job.assoc]) {
            fs_factor_[job.assoc] = fair_share_->classic_user_factor(job.assoc, at_start, usage_[job.assoc], root);
            priced[job.assoc] = 1;
          }
          compute_priority(job, ps.flags.incr_only);
        }
      }
      // Users without a pending job get the factor the pass leaves (used at their next submit).
      for (std::uint32_t id = 0; id < usage_.size(); ++id) {
        if (!priced[id] && site_.tree->assocs[id].is_user()) {
          fs_factor_[id] = fair_share_->classic_user_factor(id, at_start, usage_[id], root);
        }
      }
      last_decay_ = now_;
      queue_dirty_ = true;
      return;
    }
    if (last_decay_ != kNoTime) {
      for (std::uint32_t j : running_) charge_usage(jobs_[j], std::max(last_decay_, jobs_[j].start), now_);
    }
    std::vector<AssocShare> shares = fair_share_->compute(usage_);
    for (std::size_t i = 0; i < shares.size(); ++i) fs_factor_[i] = shares[i].fs_factor;
  }
  last_decay_ = now_;
  compact_active();
  for (std::uint32_t j : active_) {
    if (jobs_[j].state == JobState::kPending) compute_priority(jobs_[j], ps.flags.incr_only);
  }
  queue_dirty_ = true;
}

void Simulator::compact_active() {
  std::erase_if(active_, [this](std::uint32_t j) {
    return jobs_[j].state != JobState::kPending && jobs_[j].state != JobState::kRunning;
  });
}

double Simulator::fairshare_of(std::uint32_t assoc) const {
  if (assoc == kNoAssoc || fs_factor_.empty()) return 0.0;
  return fs_factor_[assoc];
}

PriorityInput Simulator::priority_input(const SimJob& job, const SimRecord& rec) const {
  PriorityInput in;
  const PrioritySettings& ps = conf_.priority;
  in.accrue_time = job.accrue;
  in.min_nodes = rec.demand.min_nodes;
  // A pending job's size is its request as submitted (rec.tres), before MaxMemPerCPU raised its
  // CPUs (the max_mem capture: -n 2 --mem-per-cpu=5000 that ran on 6 CPUs had the priority of
  // 2 CPUs and 10000 MB).
  const std::int64_t asked_cpus = rec.tres[kTresCpu];
  in.cpus = job.state == JobState::kRunning ? job.alloc.cpus() : static_cast<std::uint32_t>(asked_cpus);
  in.time_limit = rec.time_limit;
  in.partition = rec.part;
  if (job.assoc != kNoAssoc && !assoc_prio_.empty()) in.assoc_priority = assoc_prio_[job.assoc];
  if (job.qos >= 0) in.qos_priority = site_.qos.records[static_cast<std::size_t>(job.qos)].priority;
  in.fairshare = fairshare_of(job.assoc);
  in.nice = job.req.nice;
  const Demand& d = rec.demand;
  for (const TresWeight& w : ps.weight_tres) {
    double v = 0;
    if (w.tres == "cpu" || w.tres == "billing")
      v = static_cast<double>(asked_cpus);
    else if (w.tres == "node")
      v = d.min_nodes;
    else if (w.tres == "mem") {
      if (d.mem_per_cpu || d.mem_per_node) v = static_cast<double>(rec.tres[kTresMem]);
    } else if (w.tres == "gres/gpu") {
      v = d.gpus;
    }
    in.tres_counts.push_back(v);
  }
  return in;
}

void Simulator::compute_priority(SimJob& job, bool incr_only) {
  if (!prio_.multifactor()) {
    // priority/basic: FIFO, each new job one below the last.
    const std::uint32_t p =
        static_cast<std::uint32_t>(std::max<std::int64_t>(1, static_cast<std::int64_t>(kTopPriority) - 1 - job.req.id));
    for (SimRecord& rec : job.recs) rec.priority = p;
    priority_bound_ = std::max(priority_bound_, p);
    return;
  }
  const bool top = !opt_.top_priority_jobs.empty() &&
                   std::find(opt_.top_priority_jobs.begin(), opt_.top_priority_jobs.end(), job.req.id) !=
                       opt_.top_priority_jobs.end();
  for (SimRecord& rec : job.recs) {
    PriorityFactors f = prio_.factors(priority_input(job, rec), now_);
    const std::uint32_t p = top ? 0xFFFFFFFEU : prio_.priority(f);
    if (incr_only && p < rec.priority) continue;
    rec.priority = p;
    rec.factors = std::move(f);
    priority_bound_ = std::max(priority_bound_, p);
  }
}

}  // namespace sa::engine
