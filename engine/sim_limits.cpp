// Accounting limits and Reasons as the scheduler meets them (acct_policy.c): the limit key
// of a record, requested and allocated TRES, the runnable checks before and after node
// selection, what an explained job was held by, and the Reason history squeue would show.
#include <algorithm>

#include <fmt/format.h>

#include "engine/max_memory.h"
#include "engine/simulator.h"

namespace sa::engine {

std::int64_t Simulator::stuck_horizon() const {
  const SchedulerSettings& s = conf_.scheduler;
  std::int64_t h = 3 * std::max<std::int64_t>({60, s.sched_interval, s.bf_interval, conf_.priority.calc_period});
  // Usage-based limits (TRES-minutes, GrpWall) free up as usage decays: give them four
  // half-lives (usage down to 1/16), at most 60 days.
  for (std::uint32_t j : active_) {
    const std::string& name = result_.reason_names[jobs_[j].reason];
    if (jobs_[j].state == JobState::kPending &&
        (name.find("Minutes") != std::string::npos || name.find("GrpWall") != std::string::npos)) {
      h = std::max(h, std::min<std::int64_t>(4 * conf_.priority.decay_half_life, 60LL * 86400));
      break;
    }
  }
  return h;
}

LimitKey Simulator::limit_key(const SimJob& job, const SimRecord& rec) const {
  LimitKey k;
  k.assoc = job.assoc;
  k.qos1 = rec.qos1;
  k.qos2 = rec.qos2;
  k.job_qos = job.qos;
  k.user = job.user_id;
  k.account = job.account_id;
  return k;
}

TresCounts Simulator::request_tres(const Demand& d, const Partition& part) const {
  TresCounts t{};
  t[kTresCpu] = d.cpus;
  t[kTresNode] = d.min_nodes;
  t[kTresGpu] = d.gpus;
  if (d.mem_per_cpu)
    t[kTresMem] = static_cast<std::int64_t>(d.mem_per_cpu) * d.cpus;
  else if (d.mem_per_node)
    t[kTresMem] = static_cast<std::int64_t>(d.mem_per_node) * d.min_nodes;
  else if (const Node* first = first_node(conf_, part))  // job_get_tres_mem's _mem_per_node_part
    t[kTresMem] = static_cast<std::int64_t>(first->usable_mem_mb()) * d.min_nodes;
  // Billing: the partition's TRESBillingWeights over the request, else its CPUs.
  t[kTresBilling] = static_cast<std::int64_t>(weighted_billing(conf_, part, t));
  return t;
}

TresCounts Simulator::alloc_tres(const SimJob& job) const {
  TresCounts t{};
  t[kTresCpu] = job.alloc.cpus();
  t[kTresMem] = static_cast<std::int64_t>(job.alloc.mem());
  t[kTresNode] = job.alloc.nodes();
  t[kTresBilling] = static_cast<std::int64_t>(job.billable);
  t[kTresGpu] = job.alloc.gpus();
  return t;
}

bool Simulator::explained(const SimJob& job) const {
  return !opt_.explain_jobs.empty() &&
         std::find(opt_.explain_jobs.begin(), opt_.explain_jobs.end(), job.req.id) != opt_.explain_jobs.end();
}

std::string Simulator::describe_block(const LimitBlock& b) const {
  std::string who;
  if (b.qos >= 0)
    who = fmt::format("QOS {}", site_.qos.records[static_cast<std::size_t>(b.qos)].name);
  else if (b.assoc != kNoAssoc && site_.tree) {
    const Association& a = site_.tree->assocs[b.assoc];
    who = a.is_user() ? fmt::format("association {}/{}", a.account, a.user) : fmt::format("account {}", a.account);
  }
  const std::string reason = b.reason;
  if (b.tres >= 0) {
    const bool minutes = reason.find("Minutes") != std::string::npos;
    return fmt::format("{}: {} {}{} in use, this job {} {}, limit {}", who, b.used, tres_name(b.tres),
                       minutes ? "-minutes" : "", minutes ? "adds" : "wants", b.want, b.limit);
  }
  if (reason.find("Wall") != std::string::npos) {
    return b.used > 0 ? fmt::format("{}: {} wall-minutes used, limit {}", who, b.used, b.limit)
                      : fmt::format("{}: time limit {} min, limit {} min", who, b.want, b.limit);
  }
  const bool submit = reason.find("Submit") != std::string::npos;
  return fmt::format("{}: {} jobs {}, limit {}", who, b.used, submit ? "submitted" : "running", b.limit);
}

bool Simulator::limits_allow(SimJob& job, const SimRecord& rec, LimitPhase phase) {
  if (!limits_.active()) return true;
  const LimitKey key = limit_key(job, rec);
  LimitBlock b;
  if (phase != LimitPhase::kPost) b = limits_.runnable_pre(key, rec.time_limit);
  if (!b && phase != LimitPhase::kPre) b = limits_.runnable_post(key, rec.tres, rec.time_limit);
  if (!b) {
    if (limit_reason_[job.reason]) set_reason(job, kReasonNone);
    return true;
  }
  const std::uint16_t id = reason_id(b.reason);
  limit_reason_[id] = 1;
  if (!explained(job)) {
    set_reason(job, id);
    return false;
  }
  // Which running jobs hold the limit: those charged to the same QOS (and user or account
  // for per-user and per-account limits), or to the association or one below it.
  std::vector<std::uint32_t> holders;
  const std::string r = b.reason;
  for (std::uint32_t o : running_) {
    const SimJob& other = jobs_[o];
    const SimRecord& orec = other.recs[static_cast<std::size_t>(other.run_rec)];
    bool holds = false;
    if (b.qos >= 0) {
      holds = orec.qos1 == b.qos || orec.qos2 == b.qos;
      if (r.find("PerUser") != std::string::npos) holds = holds && other.user_id == job.user_id;
      if (r.find("PerAccount") != std::string::npos) holds = holds && other.account_id == job.account_id;
    } else if (b.assoc != kNoAssoc && site_.tree) {
      for (std::uint32_t a = other.assoc; a != kNoAssoc && !holds; a = site_.tree->assocs[a].parent)
        holds = a == b.assoc;
    }
    if (holds) holders.push_back(other.req.id);
  }
  std::sort(holders.begin(), holders.end());
  const RareVec<LimitBlock>& blocks = job.rare.get().limit_blocks;
  const bool seen = std::any_of(blocks.begin(), blocks.end(), [&b](const LimitBlock& x) {
    return std::string(x.reason) == b.reason && x.qos == b.qos && x.assoc == b.assoc && x.tres == b.tres;
  });
  if (!seen) job.rare.edit().limit_blocks.push_back(b);
  std::string detail = describe_block(b);
  if (!holders.empty()) {
    detail += " (running: jobs ";
    for (std::size_t i = 0; i < holders.size() && i < 10; ++i) detail += (i ? ", " : "") + std::to_string(holders[i]);
    if (holders.size() > 10) detail += fmt::format(" and {} more", holders.size() - 10);
    detail += ")";
  }
  set_reason(job, id, detail);
  return false;
}

std::uint16_t Simulator::reason_id(const std::string& name) {
  auto [it, fresh] = reason_ids_.emplace(name, static_cast<std::uint16_t>(result_.reason_names.size()));
  if (fresh) {
    result_.reason_names.push_back(name);
    limit_reason_.push_back(0);
  }
  return it->second;
}

void Simulator::set_reason(SimJob& job, std::uint16_t reason, const std::string& detail) {
  // The same Reason again is no change; its detail stays as first recorded.
  if (job.reason == reason && !job.reasons.empty()) return;
  job.reason = reason;
  // Changes within one second are all kept: squeue, polled once a second, may see either.
  std::uint32_t detail_id = 0;
  if (!detail.empty()) {
    detail_id = static_cast<std::uint32_t>(result_.reason_details.size());
    result_.reason_details.push_back(detail);
  }
  job.reasons.push_back(ReasonSpan{now_, reason, detail_id});
}

}  // namespace sa::engine
