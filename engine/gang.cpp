#include "engine/gang.h"

#include <algorithm>
#include <numeric>

#include "analyzer/text_util.h"

namespace sa::engine {

Gang::Gang(const Config& config, const PoolState& pool, const UnitLayout* layout) : layout_(layout) {
  // _get_gr_type: CR_Core and CR_Socket compare cores (sockets fill whole: our units are
  // sockets then); CR_CPU compares CPU counts under task/none (the default) and CPUs
  // otherwise; select/linear and CR_Memory whole nodes.
  const Setting* task = config.setting("TaskPlugin");
  const bool task_none = !task || iequals(task->value, "task/none");
  using R = SelectSettings::Resource;
  if (config.select.type == "select/linear" || config.select.resource == R::kMemory ||
      config.select.resource == R::kNone || !layout_) {
    grain_ = Grain::kNode;
  } else if (config.select.resource == R::kCpu && task_none) {
    grain_ = Grain::kCpuCount;
  } else {
    grain_ = Grain::kUnits;
  }
  for (const NodeResources& n : pool.nodes) node_cpus_.push_back(n.cpus_total);
  parts_.resize(config.partitions.size());
  for (std::size_t i = 0; i < parts_.size(); ++i) {
    GPart& p = parts_[i];
    p.tier = config.partitions[i].priority_tier;
    if (grain_ == Grain::kUnits)
      p.units.assign(layout_->total_words(), 0);
    else
      p.nodes = NodeBitset(pool.nodes.size());
    if (grain_ == Grain::kCpuCount) p.cpus.assign(pool.nodes.size(), 0);
  }
  by_tier_.resize(parts_.size());
  std::iota(by_tier_.begin(), by_tier_.end(), 0U);
  std::stable_sort(by_tier_.begin(), by_tier_.end(),
                   [this](std::uint32_t a, std::uint32_t b) { return parts_[a].tier > parts_[b].tier; });
}

const Allocation* Gang::alloc_of(std::uint32_t job) const { return allocs_[job]; }

bool Gang::fits(const Allocation& a, const GPart& p) const {
  if (p.active == 0) return true;
  if (grain_ == Grain::kUnits) {
    for (const AllocPiece& piece : a.pieces) {
      const std::uint32_t off = layout_->offset(piece.node);
      for (std::uint32_t w = 0; w < layout_->words(piece.node); ++w) {
        if (p.units[off + w] & a.units[piece.unit_word + w]) return false;
      }
    }
    return true;
  }
  bool overlap = false;
  for (const AllocPiece& piece : a.pieces) overlap = overlap || p.nodes.test(piece.node);
  if (!overlap) return true;
  if (grain_ == Grain::kNode) return false;
  // _can_cpus_fit: the CPU counts on each of the job's nodes add up to the node's CPUs.
  for (const AllocPiece& piece : a.pieces) {
    if (p.cpus[piece.node] + piece.cpus > node_cpus_[piece.node]) return false;
  }
  return true;
}

void Gang::add_active(const Allocation& a, GPart& p) {
  // The first job of a rebuild replaces what the map held.
  if (grain_ == Grain::kUnits) {
    if (p.active == 0) std::fill(p.units.begin(), p.units.end(), 0);
    for (const AllocPiece& piece : a.pieces) {
      const std::uint32_t off = layout_->offset(piece.node);
      for (std::uint32_t w = 0; w < layout_->words(piece.node); ++w) p.units[off + w] |= a.units[piece.unit_word + w];
    }
  } else {
    if (p.active == 0) {
      p.nodes = NodeBitset(p.nodes.size());
      if (grain_ == Grain::kCpuCount) std::fill(p.cpus.begin(), p.cpus.end(), 0);
    }
    for (const AllocPiece& piece : a.pieces) {
      p.nodes.set(piece.node);
      // Shadows can overcommit a node: the count is capped at its CPUs.
      if (grain_ == Grain::kCpuCount)
        p.cpus[piece.node] = std::min(node_cpus_[piece.node], p.cpus[piece.node] + piece.cpus);
    }
  }
  ++p.active;
}

void Gang::cast_shadow(const GJob& j, std::uint16_t tier) {
  // Every partition of a lower tier gets the running job as a shadow, overlapping or not.
  for (GPart& p : parts_) {
    if (p.tier >= tier) continue;
    if (std::find(p.shadows.begin(), p.shadows.end(), j.job) == p.shadows.end()) {
      p.shadows.push_back(j.job);
      p.shadows_changed = true;
    }
  }
}

void Gang::clear_shadow(std::uint32_t job) {
  for (GPart& p : parts_) {
    auto it = std::find(p.shadows.begin(), p.shadows.end(), job);
    if (it != p.shadows.end()) {
      p.shadows.erase(it);
      p.shadows_changed = true;
    }
  }
}

void Gang::stop(GJob& j, GPart& p) {
  // A job pushed out while shadows fall on its partition is preempted its own way when that
  // is REQUEUE or CANCEL; otherwise (and for plain timeslicing) it is suspended.
  const bool preempt = !p.shadows.empty() && j.preempt_not_suspend;
  actions_.push_back({preempt ? Action::Kind::kPreempt : Action::Kind::kSuspend, j.job});
  j.suspended = true;
  ++p.stopped;
  clear_shadow(j.job);
}

void Gang::update_row(GPart& p, bool add_new) {
  // _update_active_row: shadows first, then the jobs that were running, in list order;
  // those that no longer fit (a new shadow) stop. Then stopped jobs that fit again resume.
  p.active = 0;
  p.stale = false;
  p.shadows_changed = false;
  for (std::uint32_t s : p.shadows) add_active(*alloc_of(s), p);
  for (RowState pass : {RowState::kActive, RowState::kFiller}) {
    for (GJob& j : p.jobs) {
      if (j.row != pass) continue;
      if (fits(*j.alloc, p)) {
        add_active(*j.alloc, p);
        cast_shadow(j, p.tier);
      } else {
        if (!j.suspended) stop(j, p);
        j.row = RowState::kNoActive;
      }
    }
  }
  if (!add_new) return;
  for (GJob& j : p.jobs) {
    if (j.row != RowState::kNoActive || !fits(*j.alloc, p)) continue;
    add_active(*j.alloc, p);
    cast_shadow(j, p.tier);
    j.row = RowState::kFiller;
    if (j.suspended) {
      actions_.push_back({Action::Kind::kResume, j.job});
      j.suspended = false;
      --p.stopped;
    }
  }
}

void Gang::refresh(GPart& p) {
  if (p.stale) update_row(p, true);
}

void Gang::update_all_rows() {
  // Slurm rebuilds every partition. A rebuild can only suspend or resume something where a
  // job is stopped or the shadows changed; elsewhere it would rebuild the same map, so that
  // is put off until the map is read (refresh). A partition with nothing in it just forgets
  // its old map (a stale count would suspend its next job for good).
  for (std::uint32_t i : by_tier_) {
    GPart& p = parts_[i];
    if (p.jobs.empty() && p.shadows.empty()) {
      p.active = 0;
      p.stale = false;
      p.shadows_changed = false;
    } else if (p.stopped > 0 || p.shadows_changed) {
      update_row(p, true);
    } else {
      p.stale = true;
    }
  }
}

void Gang::job_start(std::uint32_t job, std::uint32_t part, const Allocation* alloc, bool preempt_not_suspend) {
  if (where_.size() <= job) {
    where_.resize(job + 1);
    allocs_.resize(job + 1, nullptr);
  }
  where_[job].part = static_cast<std::int32_t>(part);
  allocs_[job] = alloc;
  GPart& p = parts_[part];
  refresh(p);
  p.jobs.push_back(GJob{job, alloc, RowState::kNoActive, false, preempt_not_suspend});
  GJob& j = p.jobs.back();
  // _add_job_to_part: a job that fits the active map keeps running as a "filler"; one that
  // conflicts is suspended at once (or preempted under a shadow, as above).
  if (fits(*alloc, p)) {
    add_active(*alloc, p);
    j.row = RowState::kFiller;
    cast_shadow(j, p.tier);
    update_all_rows();
  } else {
    stop(j, p);
  }
}

void Gang::job_fini(std::uint32_t job) {
  if (!tracked(job)) return;
  GPart& p = parts_[static_cast<std::size_t>(where_[job].part)];
  where_[job].part = -1;
  clear_shadow(job);
  auto it = std::find_if(p.jobs.begin(), p.jobs.end(), [job](const GJob& j) { return j.job == job; });
  if (it != p.jobs.end()) {
    if (it->suspended) --p.stopped;
    p.jobs.erase(it);
  }
  // Its CPUs leave the map: the rebuild below may resume jobs, or is put off.
  p.stale = true;
  allocs_[job] = nullptr;
  // The job may have been a shadow or blocked others: every row is rebuilt.
  update_all_rows();
}

void Gang::build_row(GPart& p) {
  p.active = 0;
  p.stale = false;
  p.shadows_changed = false;
  if (p.jobs.empty()) return;
  for (std::uint32_t s : p.shadows) add_active(*alloc_of(s), p);
  for (GJob& j : p.jobs) {
    if (fits(*j.alloc, p)) {
      add_active(*j.alloc, p);
      j.row = RowState::kActive;
    }
  }
}

void Gang::cycle_part(GPart& p) {
  // _cycle_job_list: the jobs that ran this slice go to the back (in their order), fillers
  // lose their place in the map but keep their place in the list; the map is rebuilt from
  // the front; then the jobs left out are suspended and the ones taken in resumed.
  std::stable_partition(p.jobs.begin(), p.jobs.end(), [](const GJob& j) { return j.row != RowState::kActive; });
  for (GJob& j : p.jobs) j.row = RowState::kNoActive;
  build_row(p);
  for (GJob& j : p.jobs) {
    if (j.row == RowState::kNoActive && !j.suspended) stop(j, p);
  }
  for (GJob& j : p.jobs) {
    if (j.row == RowState::kActive && j.suspended) {
      actions_.push_back({Action::Kind::kResume, j.job});
      j.suspended = false;
      --p.stopped;
      cast_shadow(j, p.tier);
    }
  }
}

void Gang::cycle() {
  // jobs_active < num_jobs + num_shadows: after a rebuild that is exactly "a job is stopped".
  for (std::uint32_t i : by_tier_) {
    GPart& p = parts_[i];
    if (p.stopped == 0) continue;
    refresh(p);
    if (p.active < p.jobs.size() + p.shadows.size()) cycle_part(p);
  }
}

}  // namespace sa::engine
