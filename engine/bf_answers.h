#pragma once
// Will-run answers within one backfill cycle. An answer depends only on the demand, the nodes
// allowed and the pool, which changes only when a job starts; queues are full of jobs of the
// same shape, so one answer serves them all until then. (The test still counts for each job:
// bf_tests and the bf_max_time cost model see every job, as slurmctld would.)
//
// The list holds 64 answers, emptied when full and when backfill starts a job, but kept when a
// reservation job starts: its answers may be stale then and are used as they are (as in every
// cycle so far). A hash table over the keys' hashes finds an answer in a probe or two.
#include <array>
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
  bool known = false;  // ok and pred are computed (else only added to the list)
};

class WillRunAnswers {
 public:
  WillRunAnswers() : recent_(64), hashes_(64) {}

  /// The entry for (d, avail); one the list does not have is added with known == false, for
  /// the caller to fill (entries are added in the same order whether or not they are
  /// filled at once, so the list is emptied at the same points).
  WillRunAnswer& entry(const Demand& d, const NodeBitset& avail) {
    const std::uint64_t h = hash_of(d, avail);
    std::size_t slot = h >> 57;  // the top 7 bits: a place in index_
    for (; index_[slot]; slot = (slot + 1) % index_.size()) {
      const std::size_t i = index_[slot] - 1U;
      WillRunAnswer& w = recent_[i];
      if (hashes_[i] == h && w.d == d && w.avail == avail) return w;
    }
    if (n_recent_ == recent_.size()) {
      empty();
      slot = h >> 57;
    }
    index_[slot] = static_cast<std::uint8_t>(n_recent_ + 1);
    hashes_[n_recent_] = h;
    WillRunAnswer& w = recent_[n_recent_++];
    w.d = d;
    w.avail = avail;
    w.known = false;
    return w;
  }
  /// Backfill started a job: the list is emptied.
  void job_started() { empty(); }
  template <class F>
  void for_each_recent(F&& f) {
    for (std::size_t i = 0; i < n_recent_; ++i) f(recent_[i]);
  }

 private:
  void empty() {
    n_recent_ = 0;
    index_.fill(0);
  }

  // Each field and word is multiplied by its own odd constant and the products summed, so no
  // multiply waits for another (a chained mix cost more than the compares it saves); the
  // key is compared in full on a hash match, so the hash only has to spread keys.
  static std::uint64_t hash_of(const Demand& d, const NodeBitset& avail) {
    constexpr std::uint64_t k[4] = {0x9E3779B97F4A7C15ULL, 0xC2B2AE3D27D4EB4FULL, 0x165667B19E3779F9ULL,
                                    0xFF51AFD7ED558CCDULL};
    std::uint64_t h =
        (std::uint64_t{d.cpus} << 32 | d.min_nodes) * k[0] + d.mem_per_cpu * k[1] + d.mem_per_node * k[2] +
        (std::uint64_t{d.gpus} << 32 | d.max_cpus_per_node) * k[3] +
        (std::uint64_t{d.cpus_per_node} << 32 | d.max_nodes) * k[1] +
        (reinterpret_cast<std::uintptr_t>(d.required) ^ reinterpret_cast<std::uintptr_t>(d.counted) << 1) * k[2] +
        (static_cast<std::uint64_t>(d.mem_whole_node) | static_cast<std::uint64_t>(d.mem_unknown) << 1 |
         static_cast<std::uint64_t>(d.whole_nodes) << 2 | static_cast<std::uint64_t>(d.least_loaded) << 3);
    const std::size_t words = (avail.size() + 63) / 64;
    for (std::size_t w = 0; w < words; ++w) h += (avail.word(w) ^ w) * k[w % 4] + (avail.word(w) >> 32);
    return (h ^ h >> 31) * k[3];
  }

  std::vector<WillRunAnswer> recent_;
  std::vector<std::uint64_t> hashes_;
  // Open addressing over the key hashes: entry + 1 of each, 0 where empty (at most half full).
  std::array<std::uint8_t, 128> index_{};  // recent_'s key hashes, apart: a miss reads one cache line or two
  std::size_t n_recent_ = 0;
};

}  // namespace sa::engine
