#pragma once
// The discrete-event scheduler engine: slurmctld's decay thread (usage, fair share and
// priorities every PriorityCalcPeriod), main scheduling loop (sched_interval and
// event-triggered runs) and backfill (every bf_interval), on an integer-second clock. Events
// at the same second run in a fixed phase order (ends, submits, priority pass, main loop,
// backfill, snapshots), then by insertion sequence, so a run is deterministic.
#include <atomic>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <optional>
#include <queue>
#include <string>
#include <vector>

#include "analyzer/assoc_model.h"
#include "analyzer/constraint.h"
#include "analyzer/diagnostics.h"
#include "analyzer/model.h"
#include "analyzer/reservation_model.h"
#include "engine/core/event_queue.h"
#include "engine/fair_share.h"
#include "engine/gang.h"
#include "engine/job.h"
#include "engine/job_arrays.h"
#include "engine/limits.h"
#include "engine/preemption.h"
#include "engine/priority.h"
#include "engine/probe/counter_probe.h"
#include "engine/probe/run_probes.h"
#include "engine/reservations.h"
#include "engine/resources.h"
#include "engine/sharing.h"
#include "engine/sim_result.h"
#include "engine/workload/workload.h"

namespace sa::engine {

/// The site being simulated. The association tree is optional (no fair share without it).
struct Site {
  const Config* config = nullptr;
  const AssocTree* tree = nullptr;
  QosTable qos = QosTable::slurm_default();
  std::vector<double> initial_usage;      // raw usage per association id (users), from sshare
  std::vector<Reservation> reservations;  // advanced reservations (scontrol show reservation)
  std::vector<NodeEvent> node_events;     // DOWN/DRAIN periods replayed on the nodes
  /// Windows one recurring reservation may open (InputLimits::reservation_windows): years of
  /// an HOURLY reservation, and a bound on a hostile start time decades before the load.
  std::int64_t max_reservation_windows = InputLimits{}.reservation_windows;
  /// Scheduling steps one run may take (InputLimits::sim_steps); the run stops there.
  std::int64_t max_sim_steps = InputLimits{}.sim_steps;
};

/// The account a job runs under: its association's, or the name the trace gave when it has none.
inline const std::string& job_account(const SimJob& j, const Site& site) {
  return j.assoc != kNoAssoc && site.tree ? site.tree->assocs[j.assoc].account : j.req.account.str();
}

/// The QOS a job runs under: the site's record it was bound to, or the name the trace gave.
inline const std::string& job_qos(const SimJob& j, const Site& site) {
  return j.qos >= 0 ? site.qos.records[static_cast<std::size_t>(j.qos)].name : j.req.qos.str();
}

/// Where recurring reservations stop repeating in a run: `until`, or 60 days past the last
/// submit (long enough for any job of the load to end).
std::int64_t reservation_horizon(const Workload& workload, std::int64_t until);

struct SimOptions {
  std::int64_t start = kNoTime;  // clock start; default: the first submit
  std::int64_t until = kNoTime;  // stop here; default: when every job has ended
  /// Wall-clock cost of one backfill will-run test and of one main-loop decision, in
  /// microseconds of slurmctld time: the cost model behind bf_max_time, bf_yield_interval
  /// and max_sched_time (the real values depend on the controller's CPU; see README).
  double bf_test_cost_us = 2000;
  double main_decision_cost_us = 100;
  std::vector<std::int64_t> snapshot_at;  // sprio snapshots of the pending queue
  /// Trace partition/queue name -> site partition; unknown names go to the default partition.
  std::map<std::string, std::string> partition_map;
  std::function<void(double fraction)> progress;  // called now and then with the done fraction
  /// Job ids whose reason changes are recorded with the numbers behind them (explain).
  std::vector<std::uint32_t> explain_jobs;
  /// What-if runs: limits removed, and jobs given the top priority of their tier.
  std::vector<LimitBlock> lift_limits;
  std::vector<std::uint32_t> top_priority_jobs;
  /// Set from another thread, the run stops at its next look (every 4,096 events) with
  /// SimResult::cancelled: lint sets it for its re-simulations when the base run stopped at its
  /// step limit or ran too thin for any evidence, as their evidence is then withheld anyway.
  const std::atomic<bool>* cancel = nullptr;
  /// Events the run handles within one simulated second before it stops as stuck (0: four
  /// million, or eight a job and node event if more): only an engine loop keeps the clock
  /// still that long, and the bound keeps such a loop from running (and growing) for ever.
  std::uint64_t still_events = 0;
};

/// The nodes a job may use in one partition (job_nodes.cpp): --constraint, -w and -x,
/// computed once per distinct (partition, constraint, node list, exclusion).
struct NodeChoice {
  std::int32_t nodes = -1;  // index into node_sets_; -1: the partition's nodes
  std::vector<std::int32_t> alternatives;
  std::int32_t required = -1;  // -w: the listed nodes, every one of them in the allocation
  std::uint32_t required_count = 0;
  std::uint32_t min_nodes = 0;                                       // counted features (a*2): at least this many nodes
  std::vector<std::pair<const NodeBitset*, std::uint32_t>> counted;  // per counted feature: its nodes, how many
  const char* error = nullptr;                                       // refused at submit (slurm_errno.c)
  std::string reason;
  bool at_select = false;  // by select_nodes' node test (the constraint no node set meets)
};
inline const NodeChoice kAnyNode{};

class Simulator {
 public:
  Simulator(const Site& site, SimOptions options);
  /// Runs the workload. Jobs the site cannot take are kept as REJECTED with a reason.
  SimResult run(const Workload& workload);
  /// The same, taking the workload's job requests over instead of copying them: the jobs
  /// are left empty (the rest of the workload stays). A caller done with the requests saves
  /// a copy of each (480 bytes a job) at its peak.
  SimResult run(Workload&& workload);
  /// The pending queue as it stands at `at` in a recorded job list (sacct): jobs submitted
  /// by then that had not started, priced by a priority pass at `at` with the site's usage
  /// as given (no decay or accrual). This is `sprio` from a queue snapshot.
  /// `calc_at` is when the last priority pass ran (default `at`): jobs submitted at or after
  /// it still carry their submit-time priority (age 0).
  PendingSnapshot queue_snapshot(const Workload& jobs, std::int64_t at, std::int64_t calc_at = kNoTime);
  /// Why slurmctld would refuse this job at submission ("" if it would take it): the same
  /// partition, access, size and per-job limit checks a run applies, on an empty cluster.
  /// A job it accepts but every partition denies (EnforcePartLimits=NO) gets kQueuedForEver
  /// and the reason. Generators use it to offer only jobs the site admits and can run.
  std::string refusal(const JobRequest& request);

 private:
  struct QueueEntry {
    std::uint32_t job;
    std::uint32_t rec;
  };

  // Binding jobs to the site (job_binding.cpp).
  struct Refusal {
    const char* error = nullptr;  // slurm_errno.c's message
    std::string reason;
    bool at_select = false;  // select_nodes' node tests, which a held job skips at submission
  };
  /// `take`: the workload's own requests, moved from (and freed) instead of copied.
  void bind(const Workload& workload, bool replay_dependencies = true, std::vector<JobRequest>* take = nullptr);
  void bind_one(JobRequest&& request);
  void bind_taken(std::vector<JobRequest> requests);
  void bind_job(SimJob& job);
  std::vector<std::uint32_t> job_partitions(const JobRequest& r);
  void bind_association(SimJob& job);
  std::string bind_qos(SimJob& job);  // the QOS name the job uses
  /// EnforcePartLimits=NO accepts a job this access error would refuse (it then pends).
  bool queued_despite(const char* error) const;
  const char* access_refusal(const Partition& part, const JobRequest& r, std::uint32_t assoc,
                             const std::string& account, const std::string& qos_used, std::string& reason) const;
  /// What squeue prints as the Reason of a record an access list denies (else its name).
  std::string hold_reason_text(const SimJob& job, const SimRecord& rec) const;
  std::optional<SimRecord> held_bad_constraints(const JobRequest& r, SimRecord& rec, const Refusal& refusal) const;
  std::optional<SimRecord> make_record(const SimJob& job, std::uint32_t p, const std::string& account,
                                       const std::string& qos_used, Refusal& refusal);
  std::int64_t record_time_limit(const SimJob& job, const SimRecord& rec, const Partition& part) const;
  Demand record_demand(const JobRequest& r, const Partition& part) const;
  void apply_gpu_defaults(const JobRequest& r, const Partition& part, Demand& d) const;
  void enforce_part_limits(SimJob& job, const std::string& limit_reason);
  // Dependencies, holds and licences (job_waits.cpp).
  enum class DepState { kWaiting, kReady, kNever };
  void bind_dependencies();
  /// The jobs of one user with one job name, in submit order, and how far the finished ones
  /// reach from the first (singleton's "every earlier job has finished").
  struct NameGroup {
    std::vector<std::uint32_t> members;
    std::size_t first_open = 0;    // members before it are done or refused
    std::int64_t ended = kNoTime;  // the latest end among them
  };
  void bind_name_groups();
  void advance_name_group(NameGroup& g);
  void recheck_dependencies(std::uint32_t k);
  DepState dependency_state(const SimJob& job, std::int64_t& ready);
  /// Sets the Reason and returns true while a hold or dependency keeps the job out of the queue.
  bool hold_until_ready(std::uint32_t j);
  void dependencies_moved(std::uint32_t j);
  bool licenses_free(const SimJob& job) const;
  void take_licenses(const SimJob& job, bool take);
  // The nodes a record may use (job_nodes.cpp).
  const NodeChoice* node_choice(const SimJob& job, std::uint32_t p, Refusal& refusal);
  NodeChoice make_node_choice(const JobRequest& r, std::uint32_t p);
  void apply_constraint(const Constraint& con, NodeBitset& own, NodeChoice& c);
  const NodeBitset& record_nodes(const SimRecord& rec) const;
  void refuse(SimJob& job, const char* error, const std::string& detail);
  /// Refuses `job` if a submit limit (or a per-job limit under DenyOnLimit) blocks it.
  bool refuse_over_submit_limits(SimJob& job);
  // The clock (simulator.cpp): events scheduled at the start, whether an event is still
  // worth running, one event's dispatch, and the result gathered at the end.
  std::int64_t start_clock(const Workload& workload, std::vector<JobRequest>* take = nullptr);
  SimResult run_events(std::int64_t start);
  bool worth_running(const Event& ev);
  void dispatch(const Event& ev);
  void finish(std::int64_t start);
  void on_timeslice();
  void on_submit(std::uint32_t j);
  void on_eligible(std::uint32_t j);
  void on_end(std::uint32_t j);
  void on_cancel(std::uint32_t j);
  /// A running job ends for good (completed, timed out, or cancelled by preemption).
  void finish_job(std::uint32_t j, EndState how);
  void on_node_event(std::uint32_t change);
  void requeue(std::uint32_t j);
  void new_run(SimJob& job);
  /// A running job leaves the machine: last usage charged, limits released, resources back.
  void stop_running(std::uint32_t j);
  void submit_select_reason(SimJob& job);
  void account_unavailable(std::int64_t start);
  /// Nodes a job without a reservation may use for `rec` now (advanced reservations
  /// ahead taken out); `allowed` is narrowed in place.
  void apply_reservations(const SimJob& job, const SimRecord& rec, NodeBitset& allowed);
  void priority_pass();
  void compute_priority(SimJob& job, bool incr_only);
  PriorityInput priority_input(const SimJob& job, const SimRecord& rec) const;
  void trigger_main();
  /// Each pass's queue build gives jobs shown PartitionConfig since submission their limit's
  /// Reason (see on_submit).
  void settle_limit_reasons();
  void trigger_direct();
  void main_loop(bool full);
  struct MainRun;  // one run's locals (main_loop.cpp)
  enum class MainStep { kNext, kStop, kTry };
  /// The checks before a record is tried: time and start budgets, depths, a failed
  /// partition, limits and licences.
  MainStep main_gate(MainRun& run, SimJob& job, const SimRecord& rec, bool full, bool array_task);
  /// One record's turn in a main-loop run; false ends the run.
  bool main_record(MainRun& run, const QueueEntry& e, bool full, bool array_task, Allocation& alloc);
  /// Tries to start the record; false when it cannot and may fail its partition.
  MainStep main_try(MainRun& run, const QueueEntry& e, Allocation& alloc);
  /// A reservation job: its reservation's nodes only; a failure holds back that reservation.
  void main_try_in_reservation(MainRun& run, const QueueEntry& e, NodeBitset& allowed, Allocation& alloc);
  /// Takes the partition's nodes from the rest of the run; kStop when every partition failed.
  void main_fail_partition(MainRun& run, std::uint32_t part, std::uint32_t by);
  // Sharing, gang scheduling and preemption (gang_sim.cpp).
  /// The select plugin's choice for this record among `allowed` (cons_tres rows when jobs
  /// may share CPUs, else the plain fit), each matching-OR alternative of its constraint in turn.
  /// (Each placement tests the job's --switches, which may start its wait: hence not const.)
  bool place(SimJob& job, const SimRecord& rec, const NodeBitset& allowed, Allocation* out, bool qos_preemptor = false);
  /// The record's demand as the select plugin sees it now: under topology/tree, a --switches
  /// job still within its wait4switch gets max_leaf_switches in `copy` (returned then). The
  /// first call starts the wait (wait4switch_start).
  const Demand& fit_demand(SimJob& job, const SimRecord& rec, Demand& copy);
  NodeReq node_req(const SimJob& job, const SimRecord& rec) const;
  /// When placement failed: preempt what the policy allows (node_scheduler.c _preempt_jobs).
  /// True when the job started (a preempt/qos extra row); otherwise jobs may have been
  /// signalled and the job waits for their resources; `chosen`, when given, gets the nodes
  /// the job was placed on once they are gone (left empty when nothing was signalled).
  bool try_preempt(std::uint32_t j, std::uint32_t r, const NodeBitset& allowed, StartedBy by,
                   NodeBitset* chosen = nullptr);
  struct PreemptCandidate;  // gang_sim.cpp
  /// slurm_find_preemptable_jobs: running or suspended jobs on the partition's nodes that the
  /// policy lets `job` preempt and that are past their exempt time, in preemption order.
  std::vector<PreemptCandidate> preempt_candidates(const SimJob& job, const SimRecord& rec);
  /// REQUEUE and CANCEL candidates taken off a copy of the machine one by one, in order,
  /// until the record fits: those under its chosen nodes; nullopt when it never fits.
  std::optional<std::vector<std::uint32_t>> preempt_victims(const std::vector<PreemptCandidate>& cands,
                                                            const Demand& demand, const NodeBitset& allowed,
                                                            NodeBitset& chosen);
  /// The preempt mode of running job `k` in the partition it runs in.
  PreemptMode::Base running_preempt_mode(std::uint32_t k);
  void preempt(std::uint32_t victim, std::uint32_t by, bool honour_grace);
  void stop_preempted(std::uint32_t j, std::uint32_t by);
  void suspend(std::uint32_t j);
  void resume(std::uint32_t j);
  void apply_gang_actions();
  void on_grace_end(std::uint32_t j);
  void set_limit_end(std::uint32_t j, std::int64_t end);
  void note_alloc(const SimJob& job, bool add);
  void backfill_cycle();
  friend class BackfillPass;  // one backfill cycle's state and steps (backfill.cpp, bf_will_run.cpp)
  /// `run_limit`: this run's time limit where backfill started the job with its --time-min.
  void start_job(std::uint32_t j, std::uint32_t rec, const Allocation& alloc, StartedBy by,
                 std::int64_t run_limit = kNoTime);
  /// The time limit of the job's current run (its record's, unless backfill started it with its --time-min).
  std::int64_t run_time_limit(const SimJob& job) const;
  /// OverTimeLimit of partition `part` in seconds (its own, else the cluster's).
  std::int64_t over_time(std::uint32_t part) const;
  /// The first of slurmctld's periodic time-limit tests at or after `t` (limit_check.cpp).
  std::int64_t limit_check_at(std::int64_t t) const;
  /// When a run with `left` seconds of work from now ends, given its limit end `limit_end`
  /// (kNoTime: no limit) and `over` seconds of allowance past it: its own end, or the first
  /// limit test from now on that finds it over.
  std::int64_t run_end(std::int64_t left, std::int64_t limit_end, std::int64_t over) const;
  void charge_usage(SimJob& job, std::int64_t from, std::int64_t to);
  /// The CPUs a --cpus-per-task job keeps per node once its tasks are laid out.
  void lay_out_tasks(Allocation& alloc, const Demand& d) const;
  void take_snapshot();
  bool queue_less(const QueueEntry& a, const QueueEntry& b) const;
  /// preempt/qos orders the queue by a pairwise test first (job_queue.cpp).
  bool pairwise_queue() const { return preempt_.enabled() && preempt_.kind() == PreemptPolicy::Kind::kQos; }
  void queue_insert(std::uint32_t j);
  void queue_sort();
  /// Queue records as slurmctld counts them: an array's unstarted tasks are one (job_arrays.h).
  std::size_t queue_records() const;
  /// job_array_start_test: the job's array already runs its --array %N tasks (Reason
  /// JobArrayTaskLimit set).
  bool array_throttled(SimJob& job);
  double fairshare_of(std::uint32_t assoc) const;
  std::int64_t plan_limit(const SimRecord& rec) const;
  // Limits and reasons (limits.h).
  LimitKey limit_key(const SimJob& job, const SimRecord& rec) const;
  TresCounts request_tres(const Demand& d, const Partition& part) const;
  TresCounts alloc_tres(const SimJob& job) const;
  /// Checks the job's limits for this record (before node selection, after it, or both);
  /// a block sets its Reason, a pass clears a limit Reason as acct_policy does.
  enum class LimitPhase { kPre, kPost, kBoth };
  bool limits_allow(SimJob& job, const SimRecord& rec, LimitPhase phase = LimitPhase::kBoth);
  void set_reason(SimJob& job, std::uint16_t reason, const std::string& detail = {});
  std::uint16_t reason_id(const std::string& name);
  std::string describe_block(const LimitBlock& b) const;
  bool explained(const SimJob& job) const;
  const SimJob* ahead_at_submit(const SimJob& job) const;
  std::int64_t stuck_horizon() const;
  std::string resources_detail(const SimRecord& rec, const NodeBitset& allowed) const;

  const Site& site_;
  const Config& conf_;
  SimOptions opt_;
  PriorityModel prio_;
  Limits limits_;
  std::map<std::string, std::uint16_t> reason_ids_;
  std::vector<char> limit_reason_;  // per reason id: a limit reason
  std::optional<ReservationBook> resv_;
  struct NodeChange {
    std::uint32_t event;  // index into Site::node_events
    bool begins;
  };
  std::vector<NodeChange> node_changes_;
  std::vector<std::uint32_t> node_down_, node_drain_;  // per internal node: open events
  NodePool pool_;
  std::vector<NodeBitset> part_nodes_;
  std::deque<NodeBitset> node_sets_;  // records' own node sets (a deque: Demand::required points in)
  std::map<std::string, NodeChoice> node_choices_;
  std::vector<FeatureSet> cluster_features_;            // every node's active features, for submit checks
  std::vector<std::vector<std::uint32_t>> dependents_;  // per job: the jobs that depend on it (empty: no dependencies)
  std::vector<NameGroup> name_groups_;
  JobArrays arrays_;  // array tasks' meta records and throttles (empty for most loads)
  std::map<std::string, std::uint32_t> licenses_used_;
  std::optional<CoreRows> rows_;
  std::optional<Gang> gang_;
  PreemptPolicy preempt_;
  bool applying_gang_ = false;
  std::int64_t preempt_hold_ = 40;  // KillWait + MessageTimeout: no new preemptions meanwhile
  RunProbes probes_;
  CounterProbe counts_;  // counters and the backfill log, from what the policies report
  // Scheduling steps taken, against Site::max_sim_steps: an event, a queue record walked, a
  // running job read by a backfill cycle, a job priced each count 1; a main-loop try counts
  // 1 + the nodes (placing walks them), a backfill start-time try 1 + the node bitmap's words
  // (it ANDs them). So a step costs about the same whatever the mix (5-19 ns on the runs
  // measured; docs/limits.md).
  std::uint64_t steps_ = 0;
  std::uint64_t step_words_ = 1;
  std::uint64_t step_nodes_ = 1;
  std::optional<FairShare> fair_share_;
  std::vector<long double> usage_;  // per association, users only
  std::vector<double> fs_factor_;   // per association
  std::vector<std::uint32_t> assoc_prio_;
  std::vector<std::uint32_t> tree_users_;  // user associations, hierarchical order
  std::int64_t last_decay_ = kNoTime;      // g_last_ran
  std::int64_t now_ = 0;
  std::int64_t last_sched_ = -1000000;      // the background loop's last run (full or batched)
  std::int64_t main_pending_at_ = kNoTime;  // a batched run is queued for this time
  std::int64_t direct_pending_at_ = kNoTime;
  std::uint64_t sched_cnt_ = 0;  // job_sched_cnt: events since the last batched run
  bool bf_changed_ = true;
  EventQueue events_;
  std::vector<SimJob> jobs_;
  std::vector<QueueEntry> queue_;
  bool queue_dirty_ = false;
  // No job has had a priority above this (every priority is set in compute_priority): a job
  // submitted at it has no one ahead, and ahead_at_submit need not walk a deep queue of
  // equal priorities (a site without priority weights) at every submission.
  std::uint32_t priority_bound_ = 0;
  std::size_t active_jobs_ = 0;
  std::size_t future_submits_ = 0;               // submissions still to come
  std::size_t snapshots_left_ = 0;               // snapshots still to take
  std::size_t future_eligible_ = 0;              // eligibility events still to come
  std::size_t future_node_changes_ = 0;          // node events still to come
  std::size_t future_cancels_ = 0;               // recorded scancels still to come
  std::int64_t stuck_since_ = kNoTime;           // since when only limit-held jobs are left
  std::size_t submit_cursor_ = 0;                // first job (submit order) not yet submitted
  std::vector<std::uint32_t> running_;           // job indices
  std::vector<std::uint32_t> active_;            // pending or running jobs, job-list (submit) order
  std::vector<std::uint32_t> limit_reason_due_;  // shown PartitionConfig until the next pass
  /// Running jobs by the end backfill plans with (start + limit), then job id.
  struct PlannedEnd {
    std::int64_t end;
    std::uint32_t id;
    std::uint32_t job;
    bool operator<(const PlannedEnd& o) const { return end != o.end ? end < o.end : id < o.id; }
  };
  std::vector<PlannedEnd> ends_;
  /// The end backfill's will-run test guesses for a running job once its planned end has
  /// passed (cons_tres _guess_job_end): that end plus KillWait and its OverTimeLimit.
  std::int64_t overdue_end(const PlannedEnd& e) const;
  bool ends_dirty_ = false;  // a resume moved an end: ends_ is re-sorted before backfill reads it
  void sort_ends();
  void schedule_end(std::uint32_t j);
  // Gang: end events are pushed only for jobs ending before the next timeslice; the others
  // wait here (a rotated job is usually suspended again before it could end).
  using DeferredEnd = std::pair<std::int64_t, std::uint32_t>;  // (planned end, job), earliest on top
  std::priority_queue<DeferredEnd, std::vector<DeferredEnd>, std::greater<>> unscheduled_ends_;
  std::int64_t next_slice_at_ = kNoTime;
  void compact_active();
  SimResult result_;
};

}  // namespace sa::engine
