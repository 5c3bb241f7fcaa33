#pragma once
// What the backfill-limits and gang-oversubscription rules share. Backfill: whether the
// backfill thread runs, where a SchedulerParameters option is written, the queue depth the
// cycles met, why they stopped, and the jobs they never tested. Gang: which partitions let
// jobs share CPUs or keep suspended jobs resident, the memory a job gets by default, which
// partitions overlap, and the sharing metrics of a run as evidence.
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "rules/framework/context.h"
#include "rules/framework/run_json.h"

namespace sa::rules {

// ---- Backfill ----

/// sched/backfill with bf_interval > 0 (bf_interval=-1 switches the thread off).
bool backfill_runs(const Config& c);
/// `name` is written in SchedulerParameters (as `name` or `name=...`).
bool sched_param_written(const Config& c, const std::string& name);

/// Pending queue records backfill met: the mean at cycle start over every cycle, and the
/// most records pending at once in the run (from each job's eligible and start times).
struct QueueDepth {
  double mean = 0;
  std::size_t peak = 0;
  std::int64_t peak_at = 0;
};
QueueDepth queue_depth(const Simulation& sim);

/// The most pending queue records one key held at once (records of jobs eligible and not
/// yet started; held records left out), and which key and when.
struct KeyPeak {
  std::size_t peak = 0;
  std::string key;
  std::int64_t at = 0;
};
using RecordKey = std::function<std::string(const engine::SimJob&, const engine::SimRecord&)>;
KeyPeak peak_pending(const Simulation& sim, const RecordKey& key);
/// The time-weighted share of pending records that lay below position `limit` of the queue.
double share_beyond(const Simulation& sim, std::int64_t limit);

/// The share of backfill cycles that `stopped` of them make (0 with no cycle).
double cycle_share(const Simulation& sim, std::uint64_t stopped);
/// The cycle counters: cycles, tests, starts, and each reason a cycle stopped early.
nlohmann::json cycle_json(const Simulation& sim);
/// What the run achieved: utilisation, waits overall and by size, backfill's share of
/// starts, jobs backfill never tested, jobs left pending.
nlohmann::json outcome_json(const Simulation& sim);

/// Jobs that waited at least bf_interval and never reached a will-run test (the ones
/// Metrics::never_reached_by_backfill counts), longest wait first.
std::vector<const engine::SimJob*> never_tested(const Simulation& sim);
engine::WaitStats wait_stats(const Simulation& sim, const std::vector<const engine::SimJob*>& jobs);
/// Jobs by wait, longest first (started or still pending; rejected ones left out).
std::vector<const engine::SimJob*> longest_waits(const Simulation& sim);
/// "1 job", "3 jobs".
std::string count_of(std::size_t n, const char* noun);
/// Appends up to `n` of `jobs` to evidence["examples"].
void add_examples(nlohmann::json& evidence, const Simulation& sim, const std::vector<const engine::SimJob*>& jobs,
                  std::size_t n = 5);

/// `v` rounded up to a multiple of `step`.
std::int64_t round_up(std::int64_t v, std::int64_t step);

// ---- Gang scheduling and oversubscription ----

/// Jobs of this partition may be allocated the same CPUs: OverSubscribe=FORCE:n or YES:n
/// with n >= 2 (the select plugin's row count).
std::uint32_t share_rows(const Partition& p);
/// The partition's node indices, ascending (Partition::nodes keeps the written order).
std::vector<std::uint32_t> sorted_nodes(const Partition& p);
bool partitions_overlap(const Partition& a, const Partition& b);
/// OverSubscribe as written back: "NO", "EXCLUSIVE", "YES:4", "FORCE:2".
std::string oversubscribe_text(const OverSubscribe& o);
/// Jobs of partition `part` can be suspended by preemption (they stay resident): a
/// preempt plugin is on, the job's mode resolves to SUSPEND, and something can preempt it
/// (a strictly higher-tier overlapping partition, or a QOS with a Preempt list).
bool suspendable(const LintContext& ctx, std::size_t part);
/// MB a job that takes all of `node`'s CPUs gets without --mem in partition `p`
/// (DefMemPerCPU x CPUs or DefMemPerNode, the partition's before the cluster's); 0: none.
std::uint64_t default_node_mem(const Config& c, const Partition& p, const Node& node);
/// A job of partition `p` without --mem is given 0 MB a CPU: the cluster's DefMemPerCPU=0
/// written, and no default of the partition's own.
bool default_mem_zero(const Config& c, const Partition& p);
/// A job of partition `p` without --mem is given each of its nodes' whole memory and shares
/// them with no job, where that costs anything: memory is counted for its jobs and no default
/// applies (Config::memory_counted, Config::no_default_memory), and its jobs do not take whole
/// nodes anyway (OverSubscribe=EXCLUSIVE; select/linear counts no memory). CONF106's finding.
bool whole_node_by_default(const Config& c, const Partition& p);
/// The sharing metrics of a run: jobs suspended, stretch, memory peaks per node.
nlohmann::json gang_json(const Simulation& sim);
/// Where the memory model is chosen: SelectTypeParameters, else SelectType, else the file.
Location select_loc(const LintContext& ctx);

}  // namespace sa::rules
