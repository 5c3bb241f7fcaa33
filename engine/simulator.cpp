#include "engine/simulator.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>

#include <fmt/format.h>

#include "analyzer/hostlist.h"
#include "analyzer/text_util.h"
#include "analyzer/values.h"

namespace sa::engine {

namespace {

// Phases of events that fall on the same second (lower runs first).
std::uint8_t phase_of(int type) {
  // kEnd, kSubmit, kEligible, kPriority, kMain, kMainFull, kBackfill, kSnapshot, kMainDirect,
  // kNodeEvent, kTimeslice, kGraceEnd
  static const std::uint8_t kPhase[] = {0, 1, 1, 2, 3, 3, 4, 5, 3, 0, 2, 0};
  return kPhase[type];
}

constexpr std::int64_t kYear = 525600LL * 60;        // backfill's plan for jobs without a limit
constexpr std::uint32_t kTopPriority = 0xFFFF0000U;  // priority/basic's first value + 1

std::uint64_t fnv1a(const std::string& s) {
  std::uint64_t h = 1469598103934665603ULL;
  for (unsigned char c : s) {
    h ^= c;
    h *= 1099511628211ULL;
  }
  return h;
}

std::int64_t horizon_guess(const std::vector<SimJob>& jobs, std::int64_t start) {
  std::int64_t last = start;
  for (const SimJob& j : jobs) last = std::max(last, j.req.submit);
  return last - start;
}

bool listed(const std::vector<std::string>& list, const std::string& name) {
  for (const std::string& item : list) {
    if (iequals(item, name) || iequals(item, "ALL")) return true;
  }
  return false;
}

}  // namespace

std::int64_t SimJob::ran(std::int64_t now) const {
  if (start == kNoTime) return 0;
  if (suspended) return pre_sus_time;
  return pre_sus_time + now - (suspend_time != kNoTime ? suspend_time : start);
}

const char* job_event_name(JobEvent::Kind kind) {
  switch (kind) {
    case JobEvent::Kind::kSuspend:
      return "suspend";
    case JobEvent::Kind::kResume:
      return "resume";
    case JobEvent::Kind::kPreemptRequeue:
      return "preempt-requeue";
    case JobEvent::Kind::kPreemptCancel:
      return "preempt-cancel";
    case JobEvent::Kind::kPreemptGrace:
      return "preempt-signal";
  }
  return "?";
}

Simulator::Simulator(const Site& site, SimOptions options)
    : site_(site),
      conf_(*site.config),
      opt_(std::move(options)),
      prio_(*site.config, site.tree, site.qos),
      limits_(*site.config, site.tree, site.qos),
      pool_(*site.config),
      preempt_(*site.config, site_.qos) {
  for (const char* name : {"None", "Priority", "Resources", "BeginTime", kNodesUnavailableText, "Reservation",
                           "ReqNodeNotAvail, Reserved for maintenance"}) {
    reason_id(name);
  }
  for (const LimitBlock& b : opt_.lift_limits) limits_.lift(b);
  for (const Partition& p : conf_.partitions) {
    NodeBitset b(conf_.nodes.size());
    for (std::uint32_t n : p.nodes) b.set(pool_.internal_index(n));
    part_nodes_.push_back(std::move(b));
  }
  if (CoreRows::needed(conf_)) {
    rows_.emplace(conf_, pool_, part_nodes_);
    result_.sharing = true;
  }
  if (conf_.preempt.mode.gang)
    gang_.emplace(conf_, pool_.state(), rows_ && !rows_->linear() ? &rows_->layout() : nullptr);
  {
    std::int64_t kill_wait = 30, msg_timeout = 10;
    if (const Setting* st = conf_.setting("KillWait")) kill_wait = std::atoll(st->value.c_str());
    if (const Setting* st = conf_.setting("MessageTimeout")) msg_timeout = std::atoll(st->value.c_str());
    preempt_hold_ = kill_wait + msg_timeout;
  }
  node_mem_now_.assign(pool_.size(), 0);
  node_jobs_now_.assign(pool_.size(), 0);
  node_unbounded_now_.assign(pool_.size(), 0);
  result_.node_peaks.resize(pool_.size());
  if (site_.tree) {
    const std::size_t n = site_.tree->assocs.size();
    fair_share_.emplace(*site_.tree, FairShareSettings::from(conf_.priority));
    usage_.assign(n, 0.0L);
    for (std::size_t i = 0; i < n && i < site_.initial_usage.size(); ++i) usage_[i] = site_.initial_usage[i];
    fs_factor_.assign(n, 0.0);
    assoc_prio_.assign(n, 0);
    for (std::uint32_t a : site_.tree->hierarchical_order()) {
      if (site_.tree->assocs[a].is_user()) tree_users_.push_back(a);
    }
    for (std::uint32_t id = 0; id < n; ++id) {
      // An association without its own Priority inherits its parent's.
      for (std::uint32_t a = id; a != kNoAssoc; a = site_.tree->assocs[a].parent) {
        if (site_.tree->assocs[a].priority) {
          const std::uint32_t p = *site_.tree->assocs[a].priority;
          assoc_prio_[id] = p == 0xFFFFFFFFU ? 0 : p;
          break;
        }
      }
    }
  }
}

void Simulator::push(std::int64_t time, EventType type, std::uint32_t job) {
  events_.push(Event{time, phase_of(static_cast<int>(type)), seq_++, type, job});
}

std::int64_t reservation_horizon(const Workload& workload, std::int64_t until) {
  if (until != kNoTime) return until;
  std::int64_t last = 0;
  for (const JobRequest& r : workload.jobs) last = std::max(last, r.submit);
  return last + 60 * 86400;
}

SimResult Simulator::run(const Workload& workload) {
  const std::int64_t horizon = reservation_horizon(workload, opt_.until);
  if (!site_.reservations.empty())
    resv_.emplace(site_.reservations, conf_, pool_, horizon, site_.max_reservation_windows);
  bind(workload);
  result_.epoch_offset = workload.epoch_offset;
  std::int64_t first = jobs_.empty() ? 0 : jobs_.front().req.submit;
  for (const SimJob& j : jobs_) first = std::min(first, j.req.submit);
  const std::int64_t start = opt_.start != kNoTime ? opt_.start : first;
  now_ = start;
  result_.start = start;
  std::size_t future_submits = 0;
  for (std::uint32_t i = 0; i < jobs_.size(); ++i) {
    if (jobs_[i].req.submit < start) continue;  // before the clock starts: not replayed
    push(jobs_[i].req.submit, EventType::kSubmit, i);
    ++future_submits;
  }
  const SchedulerSettings& s = conf_.scheduler;
  if (prio_.multifactor()) push(start, EventType::kPriority);
  if (s.sched_interval > 0) push(start + s.sched_interval, EventType::kMainFull);
  const bool backfill = s.type == "sched/backfill" && s.bf_interval > 0;
  if (backfill) push(start + s.bf_interval, EventType::kBackfill);
  for (std::int64_t t : opt_.snapshot_at) push(t, EventType::kSnapshot);
  // The timeslicer thread wakes every SchedulerTimeSlice from slurmctld's start.
  if (gang_) {
    next_slice_at_ = start + std::max<std::uint32_t>(1, conf_.scheduler.time_slice);
    push(next_slice_at_, EventType::kTimeslice);
  }
  {
    // Timeline buckets: about 500 over the submit span plus the longest run, whole minutes.
    std::int64_t longest = 0;
    for (const SimJob& j : jobs_) longest = std::max(longest, j.req.run_time);
    const std::int64_t span = std::max<std::int64_t>(1, horizon_guess(jobs_, start) + longest);
    result_.timeline.bucket = std::max<std::int64_t>(60, (span / 500 + 59) / 60 * 60);
    result_.timeline.running.assign(conf_.partitions.size(), {});
    result_.timeline.suspended.assign(conf_.partitions.size(), {});
  }
  node_down_.assign(pool_.size(), 0);
  node_drain_.assign(pool_.size(), 0);
  for (std::uint32_t e = 0; e < site_.node_events.size(); ++e) {
    const NodeEvent& ne = site_.node_events[e];
    node_changes_.push_back({e, true});
    push(std::max(ne.start, start), EventType::kNodeEvent, static_cast<std::uint32_t>(node_changes_.size() - 1));
    ++future_node_changes_;
    if (ne.end != kOpenEnd) {
      node_changes_.push_back({e, false});
      push(std::max(ne.end, start), EventType::kNodeEvent, static_cast<std::uint32_t>(node_changes_.size() - 1));
      ++future_node_changes_;
    }
  }
  std::size_t snapshots_left = opt_.snapshot_at.size();
  const std::int64_t span_guess = jobs_.empty() ? 1 : std::max<std::int64_t>(1, jobs_.back().req.submit - start);
  std::uint64_t tick = 0;

  while (!events_.empty()) {
    const Event ev = events_.top();
    if (opt_.until != kNoTime && ev.time > opt_.until) break;
    // Everything has run and nothing more arrives: only periodic events are left.
    if (future_submits == 0 && active_jobs_ == 0 && snapshots_left == 0 && ev.type != EventType::kEnd) break;
    // Jobs left pending with nothing running and nothing more to come can only be held by
    // limits; once the scheduler has had its chances (and decaying usage its time), stop.
    if (future_submits == 0 && snapshots_left == 0 && running_.empty() && future_eligible_ == 0 &&
        future_node_changes_ == 0 && !(resv_ && resv_->changes_after(ev.time)) && ev.type != EventType::kEnd) {
      if (stuck_since_ == kNoTime) stuck_since_ = ev.time;
      if (ev.time - stuck_since_ > stuck_horizon()) break;
    } else {
      stuck_since_ = kNoTime;
    }
    events_.pop();
    now_ = ev.time;
    ++result_.counters.events;
    switch (ev.type) {
      case EventType::kSubmit:
        --future_submits;
        on_submit(ev.job);
        break;
      case EventType::kEligible:
        --future_eligible_;
        on_eligible(ev.job);
        break;
      case EventType::kEnd:
        on_end(ev.job);
        break;
      case EventType::kPriority:
        priority_pass();
        push(now_ + std::max<std::int64_t>(60, conf_.priority.calc_period), EventType::kPriority);
        break;
      case EventType::kMain:
        main_pending_at_ = kNoTime;
        if (sched_cnt_ == 0) break;  // a full run took the events first
        if (now_ - last_sched_ < s.batch_sched_delay) {
          trigger_main();
          break;
        }
        sched_cnt_ = 0;
        last_sched_ = now_;
        main_loop(false);
        break;
      case EventType::kMainDirect:
        direct_pending_at_ = kNoTime;
        main_loop(false);
        break;
      case EventType::kMainFull:
        sched_cnt_ = 0;
        last_sched_ = now_;
        main_loop(true);
        push(now_ + s.sched_interval, EventType::kMainFull);
        break;
      case EventType::kBackfill:
        backfill_cycle();
        push(now_ + s.bf_interval, EventType::kBackfill);
        break;
      case EventType::kSnapshot:
        --snapshots_left;
        take_snapshot();
        break;
      case EventType::kNodeEvent:
        --future_node_changes_;
        on_node_event(ev.job);
        break;
      case EventType::kTimeslice: {
        ++result_.counters.timeslices;
        next_slice_at_ = now_ + std::max<std::uint32_t>(1, conf_.scheduler.time_slice);
        gang_->cycle();
        apply_gang_actions();
        push(next_slice_at_, EventType::kTimeslice);
        // End events for the running jobs that end by the next slice; the rest wait. Entries
        // of jobs suspended (or ended) since are stale and dropped.
        while (!unscheduled_ends_.empty() && unscheduled_ends_.top().first <= next_slice_at_) {
          const auto [end, j] = unscheduled_ends_.top();
          unscheduled_ends_.pop();
          const SimJob& job = jobs_[j];
          if (job.state == JobState::kRunning && !job.suspended && job.planned_end == end)
            push(end, EventType::kEnd, j);
        }
        break;
      }
      case EventType::kGraceEnd:
        on_grace_end(ev.job);
        break;
    }
    if (opt_.progress && (++tick & 0xFFFF) == 0) {
      opt_.progress(std::min(1.0, static_cast<double>(now_ - start) / static_cast<double>(span_guess)));
    }
  }
  result_.end = now_;
  account_unavailable(start);
  for (std::uint32_t j : running_) {
    const SimJob& job = jobs_[j];
    close_interval(job, job.suspend_time != kNoTime ? job.suspend_time : job.start, now_, job.suspended);
  }
  {
    // Node peaks in Config order, nodes that never held a job left out.
    std::vector<NodePeak> peaks;
    for (std::uint32_t c = 0; c < conf_.nodes.size(); ++c) {
      NodePeak p = result_.node_peaks[pool_.internal_index(c)];
      if (p.jobs == 0) continue;
      p.node = c;
      peaks.push_back(p);
    }
    result_.node_peaks = std::move(peaks);
  }
  result_.jobs = std::move(jobs_);
  for (std::uint32_t i = 0; i < pool_.size(); ++i) result_.node_config_index.push_back(pool_.config_index(i));
  if (site_.tree) {
    result_.usage = usage_;
    for (std::uint32_t id = 0; id < site_.tree->assocs.size(); ++id)
      result_.target_share.push_back(fair_share_->target_share(id));
  }
  if (opt_.progress) opt_.progress(1.0);
  return std::move(result_);
}

PendingSnapshot Simulator::queue_snapshot(const Workload& workload, std::int64_t at, std::int64_t calc_at) {
  bind(workload);
  result_.epoch_offset = workload.epoch_offset;
  if (calc_at == kNoTime || calc_at > at) calc_at = at;
  if (site_.tree) {
    std::vector<AssocShare> shares = fair_share_->compute(usage_);
    for (std::size_t i = 0; i < shares.size(); ++i) fs_factor_[i] = shares[i].fs_factor;
  }
  last_decay_ = at;
  for (SimJob& job : jobs_) {
    const bool started = job.req.recorded_start != kNoTime && job.req.recorded_start <= at;
    if (job.state == JobState::kRejected || job.req.submit > at || started) continue;
    job.state = JobState::kPending;
    active_.push_back(static_cast<std::uint32_t>(&job - jobs_.data()));
    if (conf_.priority.flags.accrue_always)
      job.accrue = job.req.submit;
    else if (job.begin <= calc_at)
      job.accrue = job.begin;
    // Priced at the last pass, or at submission if it came after that pass.
    now_ = job.req.submit >= calc_at && calc_at < at ? job.req.submit : calc_at;
    if (now_ == job.req.submit && calc_at < at) job.accrue = conf_.priority.flags.accrue_always ? job.accrue : kNoTime;
    compute_priority(job, false);
  }
  now_ = at;
  take_snapshot();
  return std::move(result_.snapshots.back());
}

// --- binding the workload to the site -------------------------------------------------

void Simulator::bind(const Workload& workload) {
  // Mapping trace names onto the site is counted (SimCounters::mapped_*), not diagnosed
  // per job: a trace from another machine maps every job.
  jobs_.reserve(workload.jobs.size());
  for (const JobRequest& r : workload.jobs) {
    SimJob j;
    j.req = r;
    bind_job(j);
    jobs_.push_back(std::move(j));
  }
}

void Simulator::refuse(SimJob& job, const char* error, const std::string& detail) {
  job.state = JobState::kRejected;
  job.reject_error = error;
  job.reject_reason = detail.empty() ? std::string(error) : fmt::format("{}: {}", error, detail);
}

std::string Simulator::refusal(const JobRequest& request) {
  SimJob job;
  job.req = request;
  bind_job(job);
  if (job.state != JobState::kRejected && limits_.active()) refuse_over_submit_limits(job);
  return job.state == JobState::kRejected ? job.reject_reason : std::string();
}

bool Simulator::refuse_over_submit_limits(SimJob& job) {
  // acct_policy_validate runs against every partition the job names; one failure refuses
  // the submission ("Job violates accounting/QOS policy").
  for (const SimRecord& rec : job.recs) {
    if (const LimitBlock b = limits_.validate_submit(limit_key(job, rec), rec.tres, rec.time_limit)) {
      refuse(job, kAccountingPolicy, fmt::format("{}: {}", b.reason, describe_block(b)));
      return true;
    }
  }
  return false;
}

void Simulator::bind_job(SimJob& job) {
  const JobRequest& r = job.req;
  job.begin = std::max(r.submit, r.eligible == kNoTime ? r.submit : r.eligible);
  // Partitions: by name, through the trace map, else the default partition.
  std::vector<std::uint32_t> parts;
  auto index_of = [&](const Partition* p) { return static_cast<std::uint32_t>(p - conf_.partitions.data()); };
  for (const std::string& name : r.partitions) {
    const Partition* p = conf_.find_partition(name);
    if (!p) {
      auto it = opt_.partition_map.find(name);
      if (it != opt_.partition_map.end()) p = conf_.find_partition(it->second);
      if (!p) p = conf_.default_partition();
      ++result_.counters.mapped_partitions;
    }
    if (p && std::find(parts.begin(), parts.end(), index_of(p)) == parts.end()) parts.push_back(index_of(p));
  }
  if (r.partitions.empty()) {
    if (const Partition* p = conf_.default_partition()) parts.push_back(index_of(p));
  }
  if (parts.empty()) {
    refuse(job, kNoDefaultPartition, "none named and no Default=YES partition");
    return;
  }
  // part_ptr_list is kept in PriorityTier order, highest first.
  std::stable_sort(parts.begin(), parts.end(), [&](std::uint32_t a, std::uint32_t b) {
    return conf_.partitions[a].priority_tier > conf_.partitions[b].priority_tier;
  });
  // Association: exact (user, account), the user's first association, or a stable hash
  // onto the tree's users when the trace's users are not in it.
  if (const AssocTree* tree = site_.tree) {
    std::uint32_t id = kNoAssoc;
    if (!r.account.empty()) id = tree->find_user(r.user, r.account);
    if (id == kNoAssoc) {
      for (const Association& a : tree->assocs) {
        if (a.is_user() && a.user == r.user && (r.account.empty() || a.default_account == a.account)) {
          id = a.id;
          break;
        }
      }
    }
    if (id == kNoAssoc && !tree_users_.empty()) {
      id = tree_users_[fnv1a(r.user + "/" + r.account) % tree_users_.size()];
      ++result_.counters.mapped_users;
    }
    job.assoc = id;
  }
  std::string qos_name = r.qos;
  if (qos_name.empty() && job.assoc != kNoAssoc) qos_name = site_.tree->assocs[job.assoc].default_qos;
  if (qos_name.empty()) qos_name = "normal";
  const QosRecord* q = site_.qos.find(qos_name);
  if (!q) {
    q = site_.qos.find("normal");
    ++result_.counters.mapped_qos;
  }
  job.qos = q ? static_cast<std::int32_t>(q - site_.qos.records.data()) : -1;
  const std::string account = job.assoc != kNoAssoc ? site_.tree->assocs[job.assoc].account : r.account;
  const std::string qos_used = q ? q->name : qos_name;
  job.user_id = limits_.user_id(r.user);
  job.account_id = limits_.account_id(account);
  // AccountingStorageEnforce=qos: the QOS must be one of the association's (_job_create's
  // valid_qos check); an association without a QOS list is not checked.
  if (job.assoc != kNoAssoc && conf_.accounting.enforces("qos")) {
    const std::vector<std::string>& allowed_qos = site_.tree->assocs[job.assoc].qos;
    if (!allowed_qos.empty() && !listed(allowed_qos, qos_used)) {
      refuse(job, kInvalidQos,
             fmt::format("QOS {} is not in the QOS list of user {} in account {}", qos_used, r.user, account));
      return;
    }
  }
  if (!r.reservation.empty()) {
    job.resv = resv_ ? resv_->find(r.reservation) : -1;
    if (job.resv < 0) {
      refuse(job, kReservationInvalid, r.reservation);
      return;
    }
    if (!resv_->may_use(job.resv, r.user, account)) {
      refuse(job, kReservationAccess, r.reservation);
      return;
    }
  }
  // One record per partition, with the partition's defaults and limit checks. The refusal
  // kept is the last partition's, as job_mgr.c's _valid_job_part reports the last failure.
  const char* access_error = nullptr;
  std::string access_reason, limit_reason;
  for (std::uint32_t p : parts) {
    const Partition& part = conf_.partitions[p];
    // _part_access_check, in its order: RootOnly, the group list, then accounts and QOS
    // (_valid_job_part_acct/_qos), then whether the partition takes submissions at all.
    if (part.root_only && r.user != "root") {
      access_error = kAccessDenied;
      access_reason = fmt::format("partition {} is RootOnly", part.name);
      continue;
    }
    if (!part.allow_groups.empty() && !listed(part.allow_groups, "ALL") && !r.group.empty() &&
        !listed(part.allow_groups, r.group)) {
      access_error = kGroupDenied;
      access_reason = fmt::format("group {} is not in partition {}'s AllowGroups", r.group, part.name);
      continue;
    }
    if ((!part.allow_accounts.empty() && !listed(part.allow_accounts, account)) ||
        (!part.deny_accounts.empty() && listed(part.deny_accounts, account))) {
      access_error = kInvalidAccount;
      access_reason = fmt::format("account {} may not use partition {}", account, part.name);
      continue;
    }
    if ((!part.allow_qos.empty() && !listed(part.allow_qos, qos_used)) ||
        (!part.deny_qos.empty() && listed(part.deny_qos, qos_used))) {
      access_error = kInvalidQos;
      access_reason = fmt::format("QOS {} may not use partition {}", qos_used, part.name);
      continue;
    }
    // DRAIN and INACTIVE partitions take no new jobs; DOWN ones queue them (PartitionDown).
    if (part.state == PartitionState::kInactive || part.state == PartitionState::kDrain) {
      access_error = kPartitionNotAvail;
      access_reason =
          fmt::format("partition {} is {}", part.name, part.state == PartitionState::kDrain ? "DRAIN" : "INACTIVE");
      continue;
    }
    SimRecord rec;
    rec.part = p;
    // acct_policy_set_qos_order: the partition QOS rules unless the job QOS has OverPartQOS.
    const QosRecord* pq = part.qos.empty() ? nullptr : site_.qos.find(part.qos);
    const std::int32_t part_qos = pq ? static_cast<std::int32_t>(pq - site_.qos.records.data()) : -1;
    if (part_qos >= 0 && job.qos >= 0 && part_qos != job.qos) {
      const bool over = limits_.qos_table(job.qos).over_part_qos;
      rec.qos1 = over ? job.qos : part_qos;
      rec.qos2 = over ? part_qos : job.qos;
    } else {
      rec.qos1 = job.qos >= 0 ? job.qos : part_qos;
    }
    // A job without a time limit: under enforced limits acct_policy gives it the first
    // MaxWall that applies (QOS in precedence order, then the association's) before the
    // partition's DefaultTime or MaxTime (_set_time_limit).
    const std::int64_t max_wall = r.time_limit > 0 ? kUnlimited : limits_.default_wall(limit_key(job, rec));
    if (r.time_limit > 0)
      rec.time_limit = r.time_limit;
    else if (max_wall != kUnlimited)
      rec.time_limit = max_wall * 60;
    else if (part.default_time_set && part.default_time != kInfiniteTime)
      rec.time_limit = part.default_time;
    else
      rec.time_limit = part.max_time;  // -1: infinite
    Demand& d = rec.demand;
    d.cpus = std::max<std::uint32_t>(1, r.cpus);
    d.min_nodes = std::max<std::uint32_t>(1, r.nodes);
    d.gpus = r.gpus;
    d.whole_nodes = r.exclusive || part.oversubscribe.mode == OverSubscribe::Mode::kExclusive ||
                    conf_.select.type == "select/linear";
    d.max_cpus_per_node = part.max_cpus_per_node;
    d.cpus_per_node = r.cpus_per_node;
    if (r.mem_set) {
      if (r.mem_mb == 0)
        d.mem_whole_node = true;
      else if (r.mem_per_cpu)
        d.mem_per_cpu = r.mem_mb;
      else
        d.mem_per_node = r.mem_mb;
    } else if (part.def_mem_per_cpu) {
      d.mem_per_cpu = part.def_mem_per_cpu;
    } else if (part.def_mem_per_node) {
      d.mem_per_node = part.def_mem_per_node;
    } else if (conf_.select.def_mem_per_cpu) {
      d.mem_per_cpu = conf_.select.def_mem_per_cpu;
    } else if (conf_.select.def_mem_per_node) {
      d.mem_per_node = conf_.select.def_mem_per_node;
    } else {
      // No default anywhere: the job is given each node's whole memory, which keeps other
      // jobs off its nodes when memory is consumable (and is unbounded when it is not).
      d.mem_whole_node = true;
      d.mem_unknown = true;
    }
    NodeBitset allowed = part_nodes_[p];
    allowed &= pool_.usable();
    if (!pool_.could_ever_fit(d, allowed)) {
      access_error = kNodeConfigUnavailable;
      access_reason = fmt::format("partition {} cannot hold {} CPUs{} on {} usable nodes", part.name, d.cpus,
                                  d.gpus ? fmt::format(" and {} GPUs", d.gpus) : "", allowed.count());
      continue;
    }
    if (part.max_time >= 0 && rec.time_limit > part.max_time)
      rec.hold_reason = "PartitionTimeLimit";
    else if (rec.time_limit < 0 && part.max_time >= 0)
      rec.hold_reason = "PartitionTimeLimit";
    else if (part.max_nodes != 0xFFFFFFFFU && d.min_nodes > part.max_nodes)
      rec.hold_reason = "PartitionNodeLimit";
    else if (d.min_nodes < part.min_nodes)
      rec.hold_reason = "PartitionNodeLimit";
    else if (part.state == PartitionState::kDown)
      rec.hold_reason = "PartitionDown";
    if (!rec.hold_reason.empty() && rec.hold_reason != "PartitionDown") limit_reason = rec.hold_reason;
    rec.tres = request_tres(d, part);
    job.recs.push_back(std::move(rec));
  }
  if (job.recs.empty()) {
    refuse(job, access_error ? access_error : kNodeConfigUnavailable,
           access_reason.empty() ? "no usable partition" : access_reason);
    return;
  }
  // EnforcePartLimits: ALL rejects when any partition's limits fail, ANY when all do; NO
  // leaves the job pending with the partition's Reason.
  const std::string& enforce = conf_.enforce_part_limits;
  std::size_t held = 0;
  for (const SimRecord& rec : job.recs) held += !rec.hold_reason.empty() && rec.hold_reason != "PartitionDown";
  if ((iequals(enforce, "ALL") && held > 0) ||
      ((iequals(enforce, "ANY") || iequals(enforce, "YES")) && held == job.recs.size())) {
    // job_limits_check's failure becomes the submission's error (_job_create).
    const char* error = limit_reason == "PartitionTimeLimit"   ? kInvalidTimeLimit
                        : limit_reason == "PartitionNodeLimit" ? kInvalidNodeCount
                                                               : kPartConfigUnavailable;
    refuse(job, error, fmt::format("EnforcePartLimits={}: {}", enforce, limit_reason));
    job.recs.clear();
  }
}

// --- events ----------------------------------------------------------------------------

void Simulator::on_submit(std::uint32_t j) {
  SimJob& job = jobs_[j];
  while (submit_cursor_ < jobs_.size() && jobs_[submit_cursor_].req.submit <= now_) ++submit_cursor_;
  if (job.state == JobState::kRejected) return;
  if (limits_.active()) {
    if (refuse_over_submit_limits(job)) return;
    limits_.add_submit(limit_key(job, job.recs.front()));
  }
  job.state = JobState::kPending;
  set_reason(job, kReasonNone);
  // ACCRUE_ALWAYS counts age from submission, held or not; otherwise from its begin time.
  if (conf_.priority.flags.accrue_always) job.accrue = job.req.submit;
  active_.push_back(j);
  ++active_jobs_;
  compute_priority(job, false);
  // job_allocate() runs job_independent() at submission, which sets begin_time and from it
  // accrue_time; the submit-time priority above was computed before that, with age 0.
  if (job.begin <= now_ && job.accrue == kNoTime) job.accrue = job.begin;
  if (job.begin <= now_) {
    if (job.resv >= 0 && !resv_->active(job.resv, now_)) {
      set_reason(job, kReasonReservation);  // job_independent(): reservation not active yet
    } else if (const SimJob* ahead = ahead_at_submit(job)) {
      set_reason(job, kReasonPriority,
                 explained(job) ? fmt::format("job {} (priority {}) was ahead at submission", ahead->req.id,
                                              ahead->recs.front().priority)
                                : std::string());
    }
    if (job.resv < 0) submit_select_reason(job);
    queue_insert(j);
    trigger_main();
  } else {
    set_reason(job, kReasonBeginTime);  // job_independent(): begin time in the future
    push(job.begin, EventType::kEligible, j);
    ++future_eligible_;
  }
  // A job whose every partition record is held shows the partition's reason.
  if (std::all_of(job.recs.begin(), job.recs.end(), [](const SimRecord& r) { return !r.hold_reason.empty(); })) {
    set_reason(job, reason_id(job.recs.front().hold_reason));
  }
  bf_changed_ = true;
}

void Simulator::on_eligible(std::uint32_t j) {
  if (jobs_[j].state != JobState::kPending) return;
  if (jobs_[j].accrue == kNoTime) jobs_[j].accrue = jobs_[j].begin;
  // BeginTime stays until a scheduling pass sets another Reason: job_independent() only
  // ever sets WAIT_TIME (the captured requeue shows BeginTime up to the restart).
  queue_insert(j);
  trigger_main();
  bf_changed_ = true;
}

void Simulator::on_end(std::uint32_t j) {
  SimJob& job = jobs_[j];
  // A run cut short by a DOWN node leaves its end event behind: it no longer applies.
  if (job.state != JobState::kRunning || job.planned_end != now_) return;
  job.state = JobState::kDone;
  job.end = now_;
  if (job.ran(now_) < job.req.run_time) job.end_state = EndState::kTimeout;
  stop_running(j);
  if (limits_.active()) limits_.remove_submit(limit_key(job, job.recs.front()));
  --active_jobs_;
  trigger_direct();
  bf_changed_ = true;
}

void Simulator::trigger_main() {
  // Submissions bump job_sched_cnt; slurmctld's background loop (every second) turns it
  // into a default-depth run once batch_sched_delay has passed since its last run, unless
  // a full sched_interval run comes first. sbatch jobs never start inside the submit call.
  if (conf_.scheduler.sched_interval < 0) return;
  ++sched_cnt_;
  if (main_pending_at_ != kNoTime) return;
  const std::int64_t at = std::max(now_ + 1, last_sched_ + conf_.scheduler.batch_sched_delay);
  main_pending_at_ = at;
  push(at, EventType::kMain);
}

void Simulator::trigger_direct() {
  // A job's epilog completing calls schedule() directly: a default-depth run right away.
  if (conf_.scheduler.sched_interval < 0 || direct_pending_at_ == now_) return;
  direct_pending_at_ = now_;
  push(now_, EventType::kMainDirect);
}

// --- usage, fair share and priorities --------------------------------------------------

void Simulator::charge_usage(SimJob& job, std::int64_t from, std::int64_t to) {
  // _apply_new_usage charges suspended jobs too, up to their end_time, which stays where it
  // was when they were suspended.
  if (job.suspended && job.limit_end != kNoTime) to = std::min(to, job.limit_end);
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
    job.run_secs_done += static_cast<double>(to - from);
    limits_.job_ran(limit_key(job, job.recs[static_cast<std::size_t>(job.run_rec)]), alloc_tres(job), to - from,
                    decayed_charge(conf_.priority.decay_half_life, to - from, factor));
  }
}

void Simulator::priority_pass() {
  ++result_.counters.priority_passes;
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
  in.cpus = job.state == JobState::kRunning ? job.alloc.cpus() : rec.demand.cpus;
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
      v = d.cpus;
    else if (w.tres == "node")
      v = d.min_nodes;
    else if (w.tres == "mem") {
      if (d.mem_per_cpu)
        v = static_cast<double>(d.mem_per_cpu) * d.cpus;
      else if (d.mem_per_node)
        v = static_cast<double>(d.mem_per_node) * d.min_nodes;
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
  }
}

// --- the queue ---------------------------------------------------------------------------

bool Simulator::queue_less(const QueueEntry& a, const QueueEntry& b) const {
  const SimJob& ja = jobs_[a.job];
  const SimJob& jb = jobs_[b.job];
  const SimRecord& ra = ja.recs[a.rec];
  const SimRecord& rb = jb.recs[b.rec];
  // Preemptors before the jobs they may preempt (preempt/qos; tiers already order
  // partition_prio's), then jobs with a reservation.
  const std::uint32_t pa = preempt_.queue_rank(ja.qos), pb = preempt_.queue_rank(jb.qos);
  if (pa != pb) return pa > pb;
  if ((ja.resv >= 0) != (jb.resv >= 0)) return ja.resv >= 0;
  const std::uint16_t ta = conf_.partitions[ra.part].priority_tier, tb = conf_.partitions[rb.part].priority_tier;
  if (ta != tb) return ta > tb;
  if (ra.priority != rb.priority) return ra.priority > rb.priority;
  if (ja.req.submit != jb.req.submit) return ja.req.submit < jb.req.submit;
  if (ja.req.id != jb.req.id) return ja.req.id < jb.req.id;
  return a.rec < b.rec;
}

void Simulator::queue_insert(std::uint32_t j) {
  for (std::uint32_t r = 0; r < jobs_[j].recs.size(); ++r) {
    if (!jobs_[j].recs[r].hold_reason.empty()) continue;
    QueueEntry e{j, r};
    if (queue_dirty_) {
      queue_.push_back(e);
    } else {
      auto at = std::upper_bound(queue_.begin(), queue_.end(), e,
                                 [this](const QueueEntry& x, const QueueEntry& y) { return queue_less(x, y); });
      queue_.insert(at, e);
    }
  }
}

void Simulator::queue_sort() {
  std::erase_if(queue_, [this](const QueueEntry& e) { return jobs_[e.job].state != JobState::kPending; });
  if (queue_dirty_) {
    std::sort(queue_.begin(), queue_.end(),
              [this](const QueueEntry& x, const QueueEntry& y) { return queue_less(x, y); });
    queue_dirty_ = false;
  }
}

void Simulator::start_job(std::uint32_t j, std::uint32_t r, const Allocation& alloc, StartedBy by) {
  SimJob& job = jobs_[j];
  const SimRecord& rec = job.recs[r];
  job.state = JobState::kRunning;
  job.start = now_;
  job.run_rec = static_cast<std::int32_t>(r);
  job.alloc = alloc;
  job.started_by = by;
  job.start_priority = rec.priority;
  job.start_factors = rec.factors;
  set_reason(job, kReasonNone);
  job.suspended = false;
  job.suspend_time = kNoTime;
  job.pre_sus_time = 0;
  job.preempt_time = kNoTime;
  if (rows_)
    rows_->add(rec.part, node_req(job, rec), job.alloc, pool_.state());
  else
    pool_.state().take(alloc);
  note_alloc(job, true);
  // Billable TRES: the partition's TRESBillingWeights over the allocation, else its CPUs.
  const Partition& part = conf_.partitions[rec.part];
  if (part.tres_billing_weights.empty()) {
    job.billable = alloc.cpus();
  } else {
    const bool max_mode = conf_.priority.flags.max_tres || conf_.priority.flags.max_tres_gres;
    double sum = 0, mx = 0, gres = 0;
    for (const TresWeight& w : part.tres_billing_weights) {
      double v = 0;
      bool is_gres = false;
      if (w.tres == "cpu")
        v = alloc.cpus() * w.weight;
      else if (w.tres == "mem")
        v = static_cast<double>(alloc.mem()) * w.weight;
      else if (w.tres == "node")
        v = alloc.nodes() * w.weight;
      else if (w.tres == "gres/gpu") {
        v = alloc.gpus() * w.weight;
        is_gres = true;
      }
      sum += v;
      if (is_gres && conf_.priority.flags.max_tres_gres)
        gres += v;
      else
        mx = std::max(mx, v);
    }
    job.billable = max_mode ? mx + gres : sum;
  }
  // Jobs are killed at their limit plus OverTimeLimit.
  std::int64_t run = job.req.run_time;
  if (rec.time_limit >= 0) {
    const std::int64_t over = static_cast<std::int64_t>(part.over_time_limit.value_or(conf_.over_time_limit)) * 60;
    run = std::min(run, rec.time_limit + over);
  }
  if (limits_.active()) limits_.job_begin(limit_key(job, rec), alloc_tres(job), rec.time_limit);
  job.planned_end = now_ + std::max<std::int64_t>(run, 0);
  schedule_end(j);
  running_.push_back(j);
  job.limit_end = now_ + (rec.time_limit < 0 ? kYear : rec.time_limit);
  const PlannedEnd key{job.expected_end(), job.req.id, j};
  if (!ends_dirty_) ends_.insert(std::upper_bound(ends_.begin(), ends_.end(), key), key);
  bf_changed_ = true;
  if (by == StartedBy::kMain)
    ++result_.counters.main_starts;
  else
    ++result_.counters.bf_starts;
  if (gang_) {
    // gs_job_start: the gang scheduler may suspend it at once, or suspend (or preempt) the
    // lower-tier jobs it overlaps.
    const PreemptMode::Base mode = preempt_.mode(rec.part, job.qos);
    gang_->job_start(j, rec.part, &job.alloc,
                     preempt_.enabled() && (mode == PreemptMode::Base::kRequeue || mode == PreemptMode::Base::kCancel));
    apply_gang_actions();
  }
}

std::int64_t Simulator::plan_limit(const SimRecord& rec) const {
  if (rec.time_limit >= 0) return rec.time_limit;
  const std::int64_t max_time = conf_.partitions[rec.part].max_time;
  return max_time >= 0 ? max_time : kYear;
}

// --- limits and reasons ---------------------------------------------------------------------

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

const SimJob* Simulator::ahead_at_submit(const SimJob& job) const {
  // _top_priority() at submission: any other eligible pending job (not held by a limit or
  // a partition rule) outside reservations with a strictly higher priority makes the new
  // job show "Priority" from the start. Partitions do not enter into it: the same-
  // reservation test (both without one) comes first and decides.
  const std::uint32_t mine = job.recs.front().priority;
  for (const QueueEntry& e : queue_) {
    const SimJob& other = jobs_[e.job];
    if (&other == &job || other.state != JobState::kPending || limit_reason_[other.reason]) continue;
    if (other.recs.front().priority > mine) return &other;
  }
  return nullptr;
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
  else if (!part.nodes.empty())
    t[kTresMem] = static_cast<std::int64_t>(conf_.nodes[part.nodes.front()].real_memory_mb) * d.min_nodes;
  // Billing: the partition's TRESBillingWeights over the request, else its CPUs.
  double sum = 0, mx = 0;
  for (const TresWeight& w : part.tres_billing_weights) {
    double v = 0;
    if (w.tres == "cpu")
      v = static_cast<double>(t[kTresCpu]) * w.weight;
    else if (w.tres == "mem")
      v = static_cast<double>(t[kTresMem]) * w.weight;
    else if (w.tres == "node")
      v = static_cast<double>(t[kTresNode]) * w.weight;
    else if (w.tres == "gres/gpu")
      v = static_cast<double>(t[kTresGpu]) * w.weight;
    sum += v;
    mx = std::max(mx, v);
  }
  const bool max_mode = conf_.priority.flags.max_tres || conf_.priority.flags.max_tres_gres;
  t[kTresBilling] = part.tres_billing_weights.empty() ? t[kTresCpu] : static_cast<std::int64_t>(max_mode ? mx : sum);
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
  const bool seen = std::any_of(job.limit_blocks.begin(), job.limit_blocks.end(), [&b](const LimitBlock& x) {
    return std::string(x.reason) == b.reason && x.qos == b.qos && x.assoc == b.assoc && x.tres == b.tres;
  });
  if (!seen) job.limit_blocks.push_back(b);
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
  job.reasons.push_back(ReasonSpan{now_, reason, detail});
}

// --- reservations and node events -----------------------------------------------------------

void Simulator::submit_select_reason(SimJob& job) {
  // job_allocate's test-only select_nodes: it ignores current allocations, so it fails only
  // when the partition could not take the job even empty: every node in a maintenance
  // window the job would run into, or too few nodes up (ReqNodeNotAvail, naming them).
  const SimRecord& rec = job.recs.front();
  if (!rec.hold_reason.empty()) return;
  const NodeBitset& part = part_nodes_[rec.part];
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

void Simulator::stop_running(std::uint32_t j) {
  SimJob& job = jobs_[j];
  if (last_decay_ != kNoTime) charge_usage(job, std::max(last_decay_, job.start), now_);
  if (limits_.active()) {
    // Release the TRES-run-seconds the decay ticks have not consumed yet.
    const std::int64_t limit = job.recs[static_cast<std::size_t>(job.run_rec)].time_limit;
    const double left = (limit < 0 ? 0xFFFFFFFFLL * 60.0 : static_cast<double>(limit)) - job.run_secs_done;
    limits_.job_fini(limit_key(job, job.recs[static_cast<std::size_t>(job.run_rec)]), alloc_tres(job),
                     std::max(0.0, left));
  }
  close_interval(job, job.suspend_time != kNoTime ? job.suspend_time : job.start, now_, job.suspended);
  if (job.suspended) job.tot_sus_time += now_ - job.suspend_time;
  const NodeReq req = rows_ ? node_req(job, job.recs[static_cast<std::size_t>(job.run_rec)]) : NodeReq::kOneRow;
  if (rows_)
    rows_->remove(job.recs[static_cast<std::size_t>(job.run_rec)].part, req, job.alloc, pool_.state());
  else
    pool_.state().give_back(job.alloc);
  note_alloc(job, false);
  running_.erase(std::find(running_.begin(), running_.end(), j));
  const PlannedEnd key{job.expected_end(), job.req.id, j};
  if (!ends_dirty_) {  // (a dirty list is rebuilt from running_ anyway)
    auto it = std::lower_bound(ends_.begin(), ends_.end(), key);
    if (it != ends_.end() && it->job == j) ends_.erase(it);
  }
  if (gang_) {
    // gs_job_fini: the rows are rebuilt; jobs it held suspended may resume now.
    gang_->job_fini(j);
    apply_gang_actions();
  }
}

void Simulator::requeue(std::uint32_t j) {
  SimJob& job = jobs_[j];
  job.lost_cpu_seconds += static_cast<double>(job.alloc.cpus()) * static_cast<double>(job.ran(now_));
  ++job.requeues;
  stop_running(j);
  // Back to pending, eligible again after the credential lifetime (cred_expire 120 s + 1),
  // as the captures show: BeginTime for 121 s.
  job.state = JobState::kPending;
  job.start = job.planned_end = kNoTime;
  job.run_rec = -1;
  job.alloc = Allocation{};
  job.started_by = StartedBy::kNone;
  job.run_secs_done = 0;
  job.suspended = false;
  job.suspend_time = kNoTime;
  job.pre_sus_time = 0;
  job.preempt_time = kNoTime;
  job.limit_end = kNoTime;
  job.begin = now_ + 121;
  job.accrue = kNoTime;
  set_reason(job, kReasonBeginTime);
  push(job.begin, EventType::kEligible, j);
  ++future_eligible_;
}

void Simulator::take_snapshot() {
  PendingSnapshot snap;
  snap.at = now_;
  compact_active();
  for (std::uint32_t j : active_) {
    const SimJob& job = jobs_[j];
    if (job.state != JobState::kPending || job.begin > now_) continue;
    for (const SimRecord& rec : job.recs) {
      SprioRow row;
      row.job_id = job.req.id;
      row.partition = conf_.partitions[rec.part].name;
      row.user = job.req.user;
      row.account = job.assoc != kNoAssoc ? site_.tree->assocs[job.assoc].account : job.req.account;
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
