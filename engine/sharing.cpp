#include "engine/sharing.h"

#include <algorithm>
#include <bit>
#include <numeric>

namespace sa::engine {

namespace {

bool shares(const OverSubscribe& o) {
  return o.mode == OverSubscribe::Mode::kForce || (o.mode == OverSubscribe::Mode::kYes && o.count > 1);
}

}  // namespace

UnitLayout::UnitLayout(const PoolState& state) {
  offset_.push_back(0);
  for (const NodeResources& n : state.nodes) {
    const std::uint32_t units = std::max<std::uint32_t>(1, n.cpus_total / std::max<std::uint32_t>(1, n.unit));
    units_.push_back(units);
    offset_.push_back(offset_.back() + (units + 63) / 64);
  }
}

std::uint64_t UnitLayout::valid(std::uint32_t node, std::uint32_t w) const {
  const std::uint32_t units = units_[node];
  const std::uint32_t left = units - std::min(units, w * 64);
  return left >= 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << left) - 1;
}

bool CoreRows::needed(const Config& config) {
  if (config.preempt.mode.gang) return true;
  return std::any_of(config.partitions.begin(), config.partitions.end(),
                     [](const Partition& p) { return shares(p.oversubscribe); });
}

CoreRows::CoreRows(const Config& config, const NodePool& pool, const std::vector<NodeBitset>& part_nodes)
    : pool_(pool), layout_(pool.state()) {
  linear_ = config.select.type == "select/linear";
  gang_ = config.preempt.mode.gang;
  by_part_ = config.preempt.type == "preempt/partition_prio";
  by_qos_ = config.preempt.type == "preempt/qos";
  const std::size_t n_nodes = pool.size();
  for (const NodeResources& n : pool.state().nodes) unit_cpus_.push_back(std::max<std::uint32_t>(1, n.unit));
  sockets_.assign(n_nodes, 1);
  if (!linear_ && config.select.resource == SelectSettings::Resource::kCore) {
    for (std::uint32_t i = 0; i < n_nodes; ++i) {
      const std::uint32_t sockets = std::max<std::uint32_t>(1, config.nodes[pool.config_index(i)].sockets);
      if (layout_.units(i) % sockets == 0) sockets_[i] = sockets;
    }
  }
  one_row_jobs_.assign(n_nodes, 0);
  reserved_jobs_.assign(n_nodes, 0);
  sharing_jobs_.assign(n_nodes, 0);
  available_jobs_.assign(n_nodes, 0);
  // Until 23.11.6 any job of another sharing partition on a node keeps a ONE_ROW job off it;
  // from 23.11.7 only if a job on the node actually shares (cons_tres/job_test.c
  // _is_node_busy and _is_job_sharing: share_res, i.e. -s, or a FORCE partition; NEWS
  // "Allow running jobs on overlapping partitions if jobs don't specify -s").
  busy_needs_sharing_job_ = config.version.at_least(23, 11, 7);
  free_view_.assign(n_nodes, 0);
  for (std::size_t i = 0; i < config.partitions.size(); ++i) {
    const Partition& p = config.partitions[i];
    Part part;
    part.tier = p.priority_tier;
    part.mode_off = p.preempt_mode && p.preempt_mode->base == PreemptMode::Base::kOff && !p.preempt_mode->gang &&
                    !p.preempt_mode->within;
    // part_data_create_res: FORCE:n and YES:n give n rows, NO and EXCLUSIVE one; preempt/qos
    // adds a row a preemptor may use.
    std::uint32_t rows =
        p.oversubscribe.mode == OverSubscribe::Mode::kForce || p.oversubscribe.mode == OverSubscribe::Mode::kYes
            ? std::max<std::uint32_t>(1, p.oversubscribe.count)
            : 1;
    part.share = rows;
    if (by_qos_) ++rows;
    part.rows.resize(rows);
    for (Row& r : part.rows) r.mask.assign(layout_.total_words(), 0);
    part.all_rows.assign(layout_.total_words(), 0);
    part.node_jobs.assign(n_nodes, 0);
    part_nodes[i].for_each([&](std::size_t n) { part.cpus_total += pool.state().nodes[n].cpus_total; });
    parts_.push_back(std::move(part));
  }
  by_tier_.resize(parts_.size());
  std::iota(by_tier_.begin(), by_tier_.end(), 0U);
  std::stable_sort(by_tier_.begin(), by_tier_.end(),
                   [this](std::uint32_t a, std::uint32_t b) { return parts_[a].tier > parts_[b].tier; });
  part_oversub_.reserve(config.partitions.size());
  for (const Partition& p : config.partitions) part_oversub_.push_back(p.oversubscribe);
}

NodeReq CoreRows::node_req(std::uint32_t part, bool job_oversubscribe) const {
  const OverSubscribe& o = part_oversub_[part];
  if (o.mode == OverSubscribe::Mode::kExclusive) return NodeReq::kReserved;
  if (o.mode == OverSubscribe::Mode::kForce) return NodeReq::kAvailable;
  if (o.mode == OverSubscribe::Mode::kYes && o.count > 1 && job_oversubscribe) return NodeReq::kAvailable;
  return NodeReq::kOneRow;
}

NodeBitset CoreRows::usable_for(std::uint32_t part, NodeReq req, const NodeBitset& allowed) const {
  NodeBitset out = allowed;
  const bool own_shares = parts_[part].rows.size() - (by_qos_ ? 1 : 0) >= 2;
  allowed.for_each([&](std::size_t i) {
    // _is_node_busy(sharing_only): jobs of other partitions that share CPUs.
    const std::uint32_t other_sharing = sharing_jobs_[i] - (own_shares ? parts_[part].node_jobs[i] : 0);
    // 23.11.7 tests every job on the node for sharing, its own partition's too.
    const bool busy = other_sharing > 0 && (!busy_needs_sharing_job_ || available_jobs_[i] > 0);
    bool drop = false;
    if (reserved_jobs_[i] > 0) {
      drop = true;
    } else if (one_row_jobs_[i] > 0) {
      drop = req != NodeReq::kOneRow || busy;
    } else if (req == NodeReq::kReserved) {
      drop = std::any_of(parts_.begin(), parts_.end(), [i](const Part& p) { return p.node_jobs[i] > 0; });
    } else if (req == NodeReq::kOneRow) {
      drop = busy;
    }
    if (drop) out.reset(i);
  });
  return out;
}

std::uint32_t CoreRows::free_cpus(const PoolState& state, std::uint32_t i, const Masks& excluded) const {
  const std::uint32_t off = layout_.offset(i);
  std::uint32_t free_units = 0;
  for (std::uint32_t w = 0; w < layout_.words(i); ++w) {
    std::uint64_t taken = 0;
    for (const std::vector<std::uint64_t>* m : excluded) taken |= (*m)[off + w];
    free_units += static_cast<std::uint32_t>(std::popcount(layout_.valid(i, w) & ~taken));
  }
  return std::min(state.nodes[i].cpus_total, free_units * unit_cpus_[i]);
}

bool CoreRows::try_fit(const PoolState& state, const Demand& d, const NodeBitset& candidates, const Masks& excluded,
                       Allocation* out) {
  if (!pool_.fit_pass(state, d, candidates, false, out,
                      [&](std::uint32_t i, const NodeResources&) { return free_cpus(state, i, excluded); })) {
    return false;
  }
  if (out) pick_units(d, excluded, *out);
  return true;
}

void CoreRows::pick_units(const Demand& d, const Masks& excluded, Allocation& a) const {
  a.units.clear();
  for (AllocPiece& p : a.pieces) {
    const std::uint32_t off = layout_.offset(p.node);
    const std::uint32_t words = layout_.words(p.node);
    p.unit_word = static_cast<std::uint32_t>(a.units.size());
    std::uint32_t want = d.whole_nodes ? layout_.units(p.node) : (p.cpus + unit_cpus_[p.node] - 1) / unit_cpus_[p.node];
    if (sockets_[p.node] > 1 && !d.whole_nodes) {
      // CR_Core: the default block:cyclic distribution deals cores over the sockets in turn
      // (captured: 2 cores per node on 2x4 cores take 0,4 then 1,5 ...).
      a.units.resize(a.units.size() + words, 0);
      const std::uint32_t per_socket = layout_.units(p.node) / sockets_[p.node];
      for (std::uint32_t k = 0; k < per_socket && want > 0; ++k) {
        for (std::uint32_t sk = 0; sk < sockets_[p.node] && want > 0; ++sk) {
          const std::uint32_t u = sk * per_socket + k;
          std::uint64_t taken = 0;
          for (const std::vector<std::uint64_t>* m : excluded) taken |= (*m)[off + u / 64];
          if (taken >> (u % 64) & 1U) continue;
          a.units[p.unit_word + u / 64] |= std::uint64_t{1} << (u % 64);
          --want;
        }
      }
      continue;
    }
    for (std::uint32_t w = 0; w < words; ++w) {
      std::uint64_t taken = 0;
      for (const std::vector<std::uint64_t>* m : excluded) taken |= (*m)[off + w];
      // A whole-node job holds every unit; others the lowest free ones (cores in order).
      std::uint64_t free = layout_.valid(p.node, w) & (d.whole_nodes ? ~std::uint64_t{0} : ~taken);
      std::uint64_t mine = 0;
      while (want > 0 && free) {
        const std::uint64_t bit = free & (~free + 1);
        mine |= bit;
        free &= free - 1;
        --want;
      }
      a.units.push_back(mine);
    }
  }
}

bool CoreRows::place(const PoolState& state, std::uint32_t part, const Demand& d, NodeReq req, bool qos_preemptor,
                     const NodeBitset& allowed, Allocation* out) {
  if (linear_) return place_linear(state, part, d, req, allowed, out);
  const NodeBitset cand = usable_for(part, req, allowed);
  Masks excluded;
  // Step 1: idle CPUs across all partitions, which are the nodes' free CPUs.
  for (const Part& p : parts_) excluded.push_back(&p.all_rows);
  NodeBitset idle_cpus = cand;
  idle_cpus &= d.whole_nodes ? state.idle : state.free;
  if (pool_.fit_pass(state, d, idle_cpus, false, out,
                     [](std::uint32_t, const NodeResources& n) { return n.cpus_free; })) {
    if (out) pick_units(d, excluded, *out);
    return true;
  }
  // A job that may not share CPUs stops here unless gang scheduling is on.
  if (!gang_ && req == NodeReq::kOneRow) return false;
  // Step 2: without the CPUs of partitions it could never preempt (higher tier or
  // PreemptMode=OFF). Without preempt/partition_prio every core stays available.
  Masks above;
  const Part& own = parts_[part];
  if (by_part_) {
    for (const Part& p : parts_) {
      if (p.tier > own.tier || p.mode_off) above.push_back(&p.all_rows);
    }
  }
  if (!try_fit(state, d, cand, above, nullptr)) return false;
  // Step 3: idle CPUs of its own tier; then, while the job still fits, lower tiers' CPUs
  // are given up one partition at a time (highest first), so it lands on them only when it
  // must.
  Masks same = above;
  for (const Part& p : parts_) {
    if (p.tier == own.tier) same.push_back(&p.all_rows);
  }
  // (A bound first: the partition's CPUs outside its own rows.)
  if (own.cpus_total - own.all_rows_cpus >= d.cpus && try_fit(state, d, cand, same, nullptr)) {
    for (std::uint32_t q : by_tier_) {
      if (parts_[q].tier >= own.tier) continue;
      Masks tighter = same;
      tighter.push_back(&parts_[q].all_rows);
      if (!try_fit(state, d, cand, tighter, nullptr)) break;
      same = std::move(tighter);
    }
    return try_fit(state, d, cand, same, out);
  }
  // Step 4: one of its own partition's rows, fullest first (unless preempt/qos, whose extra
  // row must stay last); a row never used takes the job on whatever step 2 left.
  Part& mine = parts_[part];
  if (!mine.any_row) return try_fit(state, d, cand, above, out);
  std::vector<Row>& rows = mine.rows;
  if (rows.size() > 1 && !by_qos_) {
    for (std::size_t i = 0; i < rows.size(); ++i) {
      for (std::size_t j = i + 1; j < rows.size(); ++j) {
        if (rows[j].set_count > rows[i].set_count) std::swap(rows[i], rows[j]);
      }
    }
  }
  std::size_t c = rows.size();
  if (by_qos_ && !qos_preemptor) --c;
  if (by_qos_ && req != NodeReq::kAvailable) c = 1;
  for (std::size_t i = 0; i < c; ++i) {
    if (!rows[i].allocated) return try_fit(state, d, cand, above, out);
    if (mine.cpus_total - rows[i].set_cpus < d.cpus) continue;  // the row cannot hold it
    Masks in_row = above;
    in_row.push_back(&rows[i].mask);
    if (try_fit(state, d, cand, in_row, out)) return true;
  }
  return false;
}

bool CoreRows::place_linear(const PoolState& state, std::uint32_t part, const Demand& d, NodeReq req,
                            const NodeBitset& allowed, Allocation* out) {
  // select/linear: whole nodes; a sharing partition's job may join nodes holding fewer than
  // `share` of its own partition's jobs, least loaded first; a job that may not share needs
  // nodes no job holds.
  const Part& own = parts_[part];
  const std::uint32_t share = req == NodeReq::kAvailable ? own.share : 1;
  for (std::uint32_t k = 0; k < share; ++k) {
    NodeBitset cand = allowed;
    allowed.for_each([&](std::size_t i) {
      std::uint32_t load = own.node_jobs[i];
      if (share == 1) {
        load = 0;
        for (const Part& p : parts_) load += p.node_jobs[i];
      }
      if (load > k) cand.reset(i);
    });
    for (std::size_t i = 0; i < free_view_.size(); ++i) free_view_[i] = state.nodes[i].cpus_total;
    if (pool_.fit_view(state, d, cand, free_view_, out)) return true;
  }
  return false;
}

void CoreRows::add(std::uint32_t part, NodeReq req, Allocation& a, PoolState& state) {
  Part& p = parts_[part];
  if (!linear_ && a.units.size() < a.pieces.size()) {
    // An allocation chosen without the rows (never expected): give it the free units.
    Masks all;
    for (const Part& q : parts_) all.push_back(&q.all_rows);
    Demand d;
    pick_units(d, all, a);
  }
  state.take(a);
  p.any_row = true;
  a.row = -1;
  if (!linear_) {
    // job_res_add_job: the first row (in its current order) where the job's units are free.
    for (std::size_t r = 0; r < p.rows.size() && a.row < 0; ++r) {
      Row& row = p.rows[r];
      bool fits = true;
      for (std::size_t k = 0; k < a.pieces.size() && fits; ++k) {
        const std::uint32_t off = layout_.offset(a.pieces[k].node);
        for (std::uint32_t w = 0; w < layout_.words(a.pieces[k].node); ++w) {
          if (row.mask[off + w] & a.units[a.pieces[k].unit_word + w]) fits = false;
        }
      }
      if (!fits) continue;
      a.row = static_cast<std::int32_t>(r);
      row.allocated = true;
      ++row.jobs;
      for (const AllocPiece& piece : a.pieces) {
        const std::uint32_t off = layout_.offset(piece.node);
        for (std::uint32_t w = 0; w < layout_.words(piece.node); ++w) {
          const std::uint64_t bits = a.units[piece.unit_word + w];
          const auto added = static_cast<std::uint64_t>(std::popcount(bits & ~row.mask[off + w]));
          row.set_count += added;
          row.set_cpus += added * unit_cpus_[piece.node];
          row.mask[off + w] |= bits;
          p.all_rows_cpus +=
              static_cast<std::uint64_t>(std::popcount(bits & ~p.all_rows[off + w])) * unit_cpus_[piece.node];
          p.all_rows[off + w] |= bits;
        }
      }
    }
    // (No row free: Slurm logs "job overflow" and tracks the job in no row; so do we.)
  }
  const bool sharing_part = p.rows.size() - (by_qos_ ? 1 : 0) >= 2;
  for (const AllocPiece& piece : a.pieces) {
    ++p.node_jobs[piece.node];
    if (req == NodeReq::kOneRow) ++one_row_jobs_[piece.node];
    if (req == NodeReq::kReserved) ++reserved_jobs_[piece.node];
    if (req == NodeReq::kAvailable) ++available_jobs_[piece.node];
    if (sharing_part) ++sharing_jobs_[piece.node];
    refresh_node(piece.node, state);
  }
}

void CoreRows::remove(std::uint32_t part, NodeReq req, const Allocation& a, PoolState& state) {
  Part& p = parts_[part];
  state.give_back(a);
  // Rows are not repacked afterwards (part_data_build_row_bitmaps re-sorts the remaining
  // jobs into rows by first core): which row later jobs find can differ from Slurm's when
  // several rows hold jobs of one partition.
  if (!linear_ && a.row >= 0 && static_cast<std::size_t>(a.row) < p.rows.size()) {
    Row& row = p.rows[static_cast<std::size_t>(a.row)];
    if (row.jobs) --row.jobs;
    for (const AllocPiece& piece : a.pieces) {
      const std::uint32_t off = layout_.offset(piece.node);
      for (std::uint32_t w = 0; w < layout_.words(piece.node); ++w) {
        const std::uint64_t bits = a.units[piece.unit_word + w];
        const auto removed = static_cast<std::uint64_t>(std::popcount(bits & row.mask[off + w]));
        row.set_count -= removed;
        row.set_cpus -= removed * unit_cpus_[piece.node];
        row.mask[off + w] &= ~bits;
        std::uint64_t all = 0;
        for (const Row& r : p.rows) all |= r.mask[off + w];
        p.all_rows_cpus -=
            static_cast<std::uint64_t>(std::popcount(p.all_rows[off + w] & ~all)) * unit_cpus_[piece.node];
        p.all_rows[off + w] = all;
      }
    }
  }
  const bool sharing_part = p.rows.size() - (by_qos_ ? 1 : 0) >= 2;
  for (const AllocPiece& piece : a.pieces) {
    if (p.node_jobs[piece.node]) --p.node_jobs[piece.node];
    if (req == NodeReq::kOneRow && one_row_jobs_[piece.node]) --one_row_jobs_[piece.node];
    if (req == NodeReq::kReserved && reserved_jobs_[piece.node]) --reserved_jobs_[piece.node];
    if (req == NodeReq::kAvailable && available_jobs_[piece.node]) --available_jobs_[piece.node];
    if (sharing_part && sharing_jobs_[piece.node]) --sharing_jobs_[piece.node];
    refresh_node(piece.node, state);
  }
}

void CoreRows::refresh_node(std::uint32_t node, PoolState& state) const {
  // Free CPUs are the units no row of any partition holds (select/linear: a node is free
  // only when no job holds it).
  NodeResources& n = state.nodes[node];
  if (linear_) {
    n.cpus_free = n.jobs == 0 ? n.cpus_total : 0;
  } else {
    const std::uint32_t off = layout_.offset(node);
    std::uint32_t used = 0;
    for (std::uint32_t w = 0; w < layout_.words(node); ++w) {
      std::uint64_t all = 0;
      for (const Part& p : parts_) all |= p.all_rows[off + w];
      used += static_cast<std::uint32_t>(std::popcount(all & layout_.valid(node, w)));
    }
    n.cpus_free =
        std::min(n.cpus_total, (layout_.units(node) - std::min(used, layout_.units(node))) * unit_cpus_[node]);
  }
  if (n.cpus_free > 0)
    state.free.set(node);
  else
    state.free.reset(node);
}

}  // namespace sa::engine
