#pragma once
// Backfill's view of the future within one cycle (backfill.c _attempt_backfill with
// cons_tres's _will_run_test): the node states the machine passes through as running jobs end
// at their planned ends. Built once per cycle and again after each start, never per tested
// job: a will-run test reads node states at a position in the end order instead of giving
// the running jobs back to a copy of the pool and taking them again.
#include <algorithm>
#include <cstdint>
#include <vector>

#include "engine/bitset.h"
#include "engine/resources.h"

namespace sa::engine {

class ReleaseProfile {
 public:
  struct End {
    std::int64_t end;         // planned end (start + limit)
    const Allocation* alloc;  // what it hands back
    std::int64_t overdue;     // the end guessed once `end` has passed (release_in_batches)
  };
  /// The states of `base` (kept by reference: it must outlive the profile's use and change
  /// only through a new build) as `ends`, in planned-end order, hand their allocations back
  /// one after another.
  void build(const PoolState& base, std::vector<End> ends);

  /// The will-run test on the profile (release_in_batches): whether the demand fits on
  /// `avail` now or once some ends are released; `pred` the predicted start and `pos` the
  /// ends released by then, for allocate(). The decision takes no allocation: most answers
  /// only move a plan later, and the fit is repeated for the few that are used.
  bool will_run(const NodePool& pool, const Demand& d, const NodeBitset& avail, std::int64_t now,
                std::int64_t window_linear, bool prefer_busy, std::int64_t& pred, std::size_t& pos);
  /// The allocation will_run() found at `pos` (same demand, nodes and options).
  void allocate(const NodePool& pool, const Demand& d, const NodeBitset& avail, std::size_t pos, bool prefer_busy,
                Allocation& out);
  /// Whether fewer of `avail`'s nodes that are also in `also` are candidates at `pos` (as
  /// will_run() set it) than the demand needs: then its allocation there takes a node
  /// outside `also`.
  bool too_few_within(const NodePool& pool, const Demand& d, const NodeBitset& avail, std::size_t pos,
                      const NodeBitset& also);
  /// Whether will_run() on the same arguments must fail or predict a start after `t`: even
  /// with every end by `t` released fewer of `avail`'s nodes are free (idle for whole-node
  /// demands) than the demand needs. Candidates only grow as ends are released, so a walk
  /// that fits has released an end after `t`, and predicts that end or a later one.
  bool cannot_start_by(const NodePool& pool, const Demand& d, const NodeBitset& avail, std::int64_t now,
                       std::int64_t t);

  /// Node `i` once the first `p` ends are released: the base state with the pieces of those
  /// ends on it given back in order, exactly as PoolState::give_back leaves it.
  const NodeResources& node_at(std::uint32_t i, std::size_t p) const {
    const NodeResources* n = &base_->nodes[i];
    for (std::uint32_t s = first_[i]; s < first_[i + 1] && steps_[s].pos < p; ++s) n = &steps_[s].after;
    return *n;
  }

 private:
  struct Step {
    std::uint32_t pos;    // the end whose release leads to this state
    NodeResources after;  // the node once it is released
  };
  // Each end's nodes, and the nodes whose free-CPU or idle bit its release turns on, as
  // bitmaps over the words its nodes span: allocations follow selection order, so the span
  // is short even on big machines, and a test is a few word ANDs.
  struct Span {
    std::uint32_t first_word = 0, words = 0, bits = 0;  // bits: offset into the *_bits_ arrays
  };
  /// Whether end k holds one of `nodes` (a NodeBitset's words).
  bool touches(std::size_t k, const std::uint64_t* nodes) const;
  /// Adds the allowed nodes end k's release opens to `cand`; returns how many were new.
  std::size_t open(std::size_t k, bool idle, const NodeBitset& allowed, NodeBitset& cand) const;
  /// Candidates once the first p ends are released: allowed nodes free (or idle) by then.
  std::size_t candidates_at(std::size_t p, bool idle, const NodeBitset& allowed, NodeBitset& cand);

  /// What the demand can take of an idle node when every node is alike (0 when it takes
  /// none): on such a pool a fit among idle nodes is decided by their count.
  bool idle_capacity(const NodePool& pool, const Demand& d, std::uint32_t& cap) const;

  /// Whether every one of `nodes` is idle once the first p ends are released.
  bool all_idle(std::size_t p, const NodeBitset& nodes);

  /// Whether will_run()'s walks may leave out the candidates that give the demand nothing:
  /// the fit is then NodePool's in-order walk (no cap on the node count, no -w, counted
  /// features or switches), where a node of capacity 0 is passed over without a trace.
  static bool may_skip_dead(const NodePool& pool, const Demand& d);
  /// Marks the candidates not yet looked at in their state at p (checked_) and those of them
  /// that give the demand nothing (dead_); sets walk_ to the candidates less the dead.
  void skip_dead(const NodePool& pool, const Demand& d, std::size_t p);
  /// End k's release changes its nodes: they are looked at again.
  void forget_dead(std::size_t k);

  /// The nodes free (or idle) once the first p ends are released, as words; kept per
  /// profile for the positions asked so far (rows grow on demand, from the last one).
  const std::uint64_t* open_at(std::size_t p, bool idle);
  /// Row p of `rows` (words_ each), grown from the last: each row the one before with end
  /// k's span of `bits` ORed in (row 0 is the caller's).
  const std::uint64_t* grown_row(std::vector<std::uint64_t>& rows, const std::vector<std::uint64_t>& bits,
                                 std::size_t p) const;

  // nodes_needed() for the last demand asked: a plan asks cannot_start_by of the same demand
  // at every try, and the count has a division in it.
  struct NeededMemo {
    std::uint32_t cpus = 0, min_nodes = 0, max_cpus_per_node = 0;
    std::size_t need = 0;
    const NodePool* pool = nullptr;
    std::size_t get(const NodePool& p, const Demand& d);
  } needed_;

  const PoolState* base_ = nullptr;
  bool uniform_ = false;  // every node has the same CPUs, memory, GPUs and allocation unit
  std::vector<End> ends_;
  std::vector<std::uint32_t> first_, fill_;  // per node: its steps in steps_ (CSR)
  std::vector<Step> steps_;
  std::vector<Span> spans_;
  std::vector<std::uint64_t> node_bits_, freed_bits_, idled_bits_;
  NodeBitset free_now_, idle_now_, cand_, cand_idle_;
  // will_run()'s walks on one demand: 90 % of the candidates a walk offered gave nothing on
  // CliMA's default load (GPU jobs on nodes whose GPUs or memory are taken), and a later walk
  // offered them again unchanged.
  NodeBitset checked_, dead_, walk_, unchecked_;
  // What the walks found of the nodes before any release (the pool as built), per demand:
  // the next job of the same shape starts from there (a few shapes fill a queue).
  struct DeadAtStart {
    Demand d;
    NodeBitset checked, dead;
  };
  std::vector<DeadAtStart> dead_at_start_;
  std::size_t dead_at_start_next_ = 0;
  /// Loads checked_ and dead_ for `d` before any release; returns the entry to keep them in.
  DeadAtStart& start_dead(const Demand& d);
  /// Sets walk_ to cand_ less the nodes found dead before any release for `d` that no end
  /// before `pos` holds (so they are dead at pos too); false if nothing is known of `d`.
  bool skip_dead_at(const Demand& d, std::size_t pos);
  /// The nodes some end before p holds (their state at p is not the built one), as words.
  const std::uint64_t* touched_by(std::size_t p);
  std::vector<std::uint64_t> touched_rows_;           // touched_by's rows, words_ each
  std::size_t words_ = 0;                             // words of a node bitmap
  std::vector<std::uint64_t> open_free_, open_idle_;  // open_at's rows, words_ each
};

/// The will-run test's release walk (cons_tres _will_run_test): running jobs that hold a node
/// the job may use are released in planned-end order in batches of growing time windows
/// (30 s, then doubling, or +bf_window_linear), and the job is tried after each batch; the
/// predicted start is the end of the last job released. A batch cut short after 200 removals
/// is not tried. `ends[k].end` is end k's planned end; touches(k): end k holds an allowed
/// node; release(k): hand it back; fits(p): the job fits once the first p ends are released;
/// overdue(k): the end slurmctld guesses for end k once it has passed (_guess_job_end: the
/// planned end plus KillWait and OverTimeLimit; a job runs past its end until the next
/// periodic limit test, and longer under OverTimeLimit).
template <class Ends, class Touches, class Release, class Fits, class Overdue>
bool release_in_batches(const Ends& ends, std::int64_t now, std::int64_t window_linear, Touches&& touches,
                        Release&& release, Fits&& fits, Overdue&& overdue, std::int64_t& pred) {
  // The batches follow the planned ends as they are, past or not; only the predicted start
  // is guessed for an end that has passed.
  auto end_of = [&](std::size_t k) { return ends[k].end; };
  std::int64_t window = 30, end_time = 0;
  std::size_t it = 0;
  bool more = true;
  while (more) {
    std::int64_t last = -1;
    bool skip_test = false;
    int removed = 0;
    while (true) {
      if (it == ends.size()) {
        more = false;
        break;
      }
      const std::size_t k = it++;
      if (!touches(k)) continue;
      const std::int64_t e_end = end_of(k);
      if (!end_time) end_time = e_end + (30 - e_end % 30);
      last = static_cast<std::int64_t>(k);
      release(k);
      if (it == ends.size()) {
        more = false;
        break;
      }
      if (end_of(it) > end_time + window) break;
      if (removed++ > 200) {
        skip_test = true;
        break;
      }
    }
    if (last < 0) break;
    if (skip_test) continue;
    do {
      window = window_linear > 0 ? window + window_linear : window * 2;
    } while (it < ends.size() && end_of(it) > end_time + window);
    if (fits(it)) {
      const auto k = static_cast<std::size_t>(last);
      pred = end_of(k) > now ? end_of(k) : std::max(now + 1, overdue(k));
      return true;
    }
  }
  return false;
}

}  // namespace sa::engine
