#pragma once
// Will-run answers within one backfill cycle. An answer depends only on the demand, the nodes
// allowed and the pool, which changes only when a job starts; queues are full of jobs of the
// same shape, so one answer serves them all until then. (The test still counts for each job:
// bf_tests and the bf_max_time cost model see every job, as slurmctld would.)
//
// The list holds 64 answers, emptied when full and when backfill starts a job, but kept when a
// reservation job starts: its answers may be stale then and are used as they are (as in every
// cycle so far). A hash of each key makes a miss cost one compare per entry.
#include <cstdint>
#include <vector>

#include "engine/bitset.h"
#include "engine/resources.h"

namespace sa::engine {

struct WillRunAnswer {
  Demand d;
  NodeBitset avail;
  bool ok = false;
  std::int64_t pred = 0;
  std::size_t pos = 0;  // ends released (release-profile answers)
  bool has_alloc = false;
  Allocation alloc;
};

class WillRunAnswers {
 public:
  WillRunAnswers() : recent_(64), hashes_(64) {}

  /// The answer for (d, avail); compute(answer) fills one the list does not have.
  template <class Compute>
  WillRunAnswer& get(const Demand& d, const NodeBitset& avail, Compute&& compute) {
    const std::uint64_t h = hash_of(d, avail);
    for (std::size_t i = 0; i < n_recent_; ++i) {
      if (hashes_[i] != h) continue;
      WillRunAnswer& w = recent_[i];
      if (w.d == d && w.avail == avail) return w;
    }
    if (n_recent_ == recent_.size()) n_recent_ = 0;
    hashes_[n_recent_] = h;
    WillRunAnswer& w = recent_[n_recent_++];
    w.d = d;
    w.avail = avail;
    compute(w);
    return w;
  }
  /// Backfill started a job: the list is emptied.
  void job_started() { n_recent_ = 0; }
  template <class F>
  void for_each_recent(F&& f) {
    for (std::size_t i = 0; i < n_recent_; ++i) f(recent_[i]);
  }

 private:
  static std::uint64_t hash_of(const Demand& d, const NodeBitset& avail) {
    std::uint64_t h = 0x9E3779B97F4A7C15ULL;
    auto mix = [&h](std::uint64_t v) { h = (h ^ v) * 0xFF51AFD7ED558CCDULL + (h >> 29); };
    mix(d.cpus);
    mix(d.min_nodes);
    mix(d.mem_per_cpu);
    mix(d.mem_per_node);
    mix(d.gpus);
    mix(d.max_cpus_per_node);
    mix(d.cpus_per_node);
    mix(d.max_nodes);
    mix(reinterpret_cast<std::uintptr_t>(d.required));
    mix(reinterpret_cast<std::uintptr_t>(d.counted));
    mix(static_cast<std::uint64_t>(d.mem_whole_node) | static_cast<std::uint64_t>(d.mem_unknown) << 1 |
        static_cast<std::uint64_t>(d.whole_nodes) << 2 | static_cast<std::uint64_t>(d.least_loaded) << 3);
    for (std::size_t w = 0; w < (avail.size() + 63) / 64; ++w) mix(avail.word(w));
    return h;
  }

  std::vector<WillRunAnswer> recent_;
  std::vector<std::uint64_t> hashes_;  // recent_'s key hashes, apart: a miss reads one cache line or two
  std::size_t n_recent_ = 0;
};

}  // namespace sa::engine
