#pragma once
// Advanced reservations on the engine's clock (job_test_resv in reservation.c, 22.05):
// each reservation becomes one window per occurrence (DAILY, WEEKLY, WEEKDAY, WEEKEND and
// HOURLY repeat it) over a fixed node set. A job without a reservation may not use a
// window's nodes if its time limit would overlap the window, even while they are idle; a
// job that names a reservation runs only on its nodes, only while it is active.
#include <cstdint>
#include <string>
#include <vector>

#include "analyzer/model.h"
#include "analyzer/reservation_model.h"
#include "engine/bitset.h"
#include "engine/resources.h"

namespace sa::engine {

struct ResvWindow {
  std::uint32_t resv = 0;  // index into the reservation list
  std::int64_t start = 0, end = 0;
  NodeBitset nodes;  // internal node numbering
  bool maint = false;
};

class ReservationBook {
 public:
  /// Windows from `list` up to `horizon` (repeats stop there). Nodes named are mapped to
  /// the pool; a count-only reservation takes the first nodes in selection order of its
  /// partition (or the cluster), as a deterministic stand-in for slurmctld's pick.
  /// At most `max_windows` windows per reservation (site_loader says when a load needs more).
  ReservationBook(const std::vector<Reservation>& list, const Config& config, const NodePool& pool,
                  std::int64_t horizon, std::int64_t max_windows);
  /// How many windows `r` repeats into before `horizon` (1 for a one-off reservation).
  static std::int64_t windows_until(const Reservation& r, std::int64_t horizon);
  bool empty() const { return windows_.empty(); }
  const std::vector<ResvWindow>& windows() const { return windows_; }
  const std::vector<Reservation>& list() const { return list_; }
  std::int32_t find(const std::string& name) const;
  /// Nodes a job without a reservation may not use over [from, to); nullptr if none.
  const NodeBitset* excluded(std::int64_t from, std::int64_t to);
  /// A MAINT window over [from, to) covering every node in `nodes`.
  bool maint_covers(const NodeBitset& nodes, std::int64_t from, std::int64_t to) const;
  /// The window of reservation `resv` active at `now`, or nullptr.
  const ResvWindow* active(std::int32_t resv, std::int64_t now) const;
  /// A window opens or closes after `t` (pending jobs may be waiting for it).
  bool changes_after(std::int64_t t) const;
  /// Whether user/account may use reservation `resv` (Users=/Accounts= lists, '-' excludes).
  bool may_use(std::int32_t resv, const std::string& user, const std::string& account) const;

 private:
  std::vector<Reservation> list_;
  std::vector<ResvWindow> windows_;  // by start
  NodeBitset scratch_;
};

}  // namespace sa::engine
