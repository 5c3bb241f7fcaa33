#pragma once
// CPU sharing as the select plugins do it once jobs may share CPUs: an OverSubscribe=FORCE or
// YES:n partition, or gang scheduling. select/cons_tres keeps for every partition `rows` of
// core maps (FORCE:n gives n rows, preempt/qos one more; part_data.c) and places a job in
// four passes (cons_common/job_test.c _job_test, algorithms.md §7): idle cores; then without
// the cores of higher-tier and PreemptMode=OFF partitions; then without same-tier ones too
// (lower tiers given up one by one while the job still fits); then into one of its own
// partition's rows. select/linear counts jobs per node and partition instead. Sites that
// cannot share never build this: their allocations carry no unit masks.
#include <cstdint>
#include <vector>

#include "analyzer/model.h"
#include "engine/bitset.h"
#include "engine/resources.h"

namespace sa::engine {

/// _get_job_node_req: may the job share CPUs (AVAILABLE), not share them (ONE_ROW), or must
/// it have the nodes to itself (RESERVED, OverSubscribe=EXCLUSIVE)?
enum class NodeReq : std::uint8_t { kAvailable, kOneRow, kReserved };

/// Where each node's allocation units (cores, CPUs with CR_CPU, sockets with CR_Socket)
/// sit in a flat array of 64-bit words.
class UnitLayout {
 public:
  explicit UnitLayout(const PoolState& state);
  std::uint32_t offset(std::uint32_t node) const { return offset_[node]; }
  std::uint32_t words(std::uint32_t node) const { return offset_[node + 1] - offset_[node]; }
  std::uint32_t units(std::uint32_t node) const { return units_[node]; }
  std::uint32_t total_words() const { return offset_.back(); }
  /// The mask of the node's units in word w (0-based within the node).
  std::uint64_t valid(std::uint32_t node, std::uint32_t w) const;

 private:
  std::vector<std::uint32_t> offset_, units_;
};

class CoreRows {
 public:
  CoreRows(const Config& config, const NodePool& pool, const std::vector<NodeBitset>& part_nodes);
  /// Whether the site can ever put two jobs on one CPU: gang scheduling, or a partition
  /// with OverSubscribe=FORCE or YES.
  static bool needed(const Config& config);

  NodeReq node_req(std::uint32_t part, bool job_oversubscribe) const;
  /// The select plugin's choice for a job of `part` among `allowed` (partition nodes that
  /// are up and outside advanced reservations). A qos_preemptor may use preempt/qos's extra row.
  bool place(const PoolState& state, std::uint32_t part, const Demand& d, NodeReq req, bool qos_preemptor,
             const NodeBitset& allowed, Allocation* out);
  /// A job starts (or comes back) on `a`: recorded in the first row of its partition it fits
  /// (job_res_add_job), and the node's free CPUs become those no row holds.
  void add(std::uint32_t part, NodeReq req, Allocation& a, PoolState& state);
  void remove(std::uint32_t part, NodeReq req, const Allocation& a, PoolState& state);

  const UnitLayout& layout() const { return layout_; }
  bool linear() const { return linear_; }
  std::uint32_t row_count(std::uint32_t part) const { return static_cast<std::uint32_t>(parts_[part].rows.size()); }

 private:
  struct Row {
    std::vector<std::uint64_t> mask;  // flat, UnitLayout words
    std::uint64_t set_count = 0;
    std::uint64_t set_cpus = 0;  // CPUs of its set units (a bound on what a row view leaves)
    std::uint32_t jobs = 0;
    bool allocated = false;  // ever held a job (Slurm allocates row bitmaps lazily)
  };
  struct Part {
    std::vector<Row> rows;
    std::vector<std::uint64_t> all_rows;   // OR of its rows
    std::uint64_t all_rows_cpus = 0;       // CPUs of the units in all_rows
    std::uint64_t cpus_total = 0;          // CPUs of its nodes
    std::vector<std::uint16_t> node_jobs;  // jobs of this partition per node
    bool any_row = false;                  // has a row array (a job ever ran here)
    std::uint16_t tier = 1;
    bool mode_off = false;    // its PreemptMode resolves to OFF
    std::uint32_t share = 1;  // rows (select/linear: jobs per node)
  };
  using Masks = std::vector<const std::vector<std::uint64_t>*>;

  /// _verify_node_state: nodes this job may not use because of whom they already hold.
  NodeBitset usable_for(std::uint32_t part, NodeReq req, const NodeBitset& allowed) const;
  /// Free CPUs of a node when the units in any of `excluded` are taken.
  std::uint32_t free_cpus(const PoolState& state, std::uint32_t node, const Masks& excluded) const;
  bool try_fit(const PoolState& state, const Demand& d, const NodeBitset& candidates, const Masks& excluded,
               Allocation* out);
  /// Gives each piece its lowest free units (of those not in `excluded`).
  void pick_units(const Demand& d, const Masks& excluded, Allocation& a) const;
  bool place_linear(const PoolState& state, std::uint32_t part, const Demand& d, NodeReq req, const NodeBitset& allowed,
                    Allocation* out);
  void refresh_node(std::uint32_t node, PoolState& state) const;

  const NodePool& pool_;
  UnitLayout layout_;
  std::vector<Part> parts_;
  std::vector<OverSubscribe> part_oversub_;
  std::vector<std::uint32_t> by_tier_;         // partitions, highest tier first
  std::vector<std::uint32_t> unit_cpus_;       // CPUs per unit, per node
  std::vector<std::uint32_t> sockets_;         // CR_Core: sockets per node (cores dealt over them)
  std::vector<std::uint32_t> one_row_jobs_;    // node_state: ONE_ROW jobs per node
  std::vector<std::uint32_t> reserved_jobs_;   // exclusive (RESERVED) jobs per node
  std::vector<std::uint32_t> sharing_jobs_;    // jobs of partitions with 2+ rows, per node
  std::vector<std::uint32_t> available_jobs_;  // jobs that share (-s, or a FORCE partition), per node
  bool busy_needs_sharing_job_ = false;        // 23.11.7+: _is_node_busy asks for a sharing job
  std::vector<std::uint32_t> free_view_;       // select/linear: every node's CPUs
  bool linear_ = false, gang_ = false, by_part_ = false, by_qos_ = false;
};

}  // namespace sa::engine
