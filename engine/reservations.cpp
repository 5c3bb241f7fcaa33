#include "engine/reservations.h"

#include <algorithm>

#include "analyzer/text_util.h"

namespace sa::engine {

namespace {

constexpr std::int64_t kDay = 86400;

// 1970-01-01 was a Thursday: weekday 0 = Monday.
int weekday(std::int64_t t) { return static_cast<int>(((t / kDay) % 7 + 3) % 7); }

bool listed(const std::vector<std::string>& list, const std::string& name) {
  for (const std::string& item : list) {
    const std::string bare = !item.empty() && item[0] == '-' ? item.substr(1) : item;
    if (iequals(bare, name)) return true;
  }
  return false;
}

std::int64_t repeat_step(const Reservation& resv) {
  if (resv.has_flag("HOURLY")) return 3600;
  if (resv.has_flag("DAILY") || resv.has_flag("WEEKDAY") || resv.has_flag("WEEKEND")) return kDay;
  if (resv.has_flag("WEEKLY")) return 7 * kDay;
  return 0;
}

}  // namespace

std::int64_t ReservationBook::windows_until(const Reservation& r, std::int64_t horizon) {
  const std::int64_t step = repeat_step(r);
  if (step == 0 || r.start >= horizon) return 1;
  return (horizon - 1 - r.start) / step + 1;
}

ReservationBook::ReservationBook(const std::vector<Reservation>& list, const Config& config, const NodePool& pool,
                                 std::int64_t horizon, std::int64_t max_windows)
    : list_(list), scratch_(config.nodes.size()) {
  for (std::uint32_t r = 0; r < list_.size(); ++r) {
    const Reservation& resv = list_[r];
    NodeBitset nodes(config.nodes.size());
    for (const std::string& name : resv.nodes) {
      if (name == "ALL") {  // a profile's nodes=ALL
        for (std::uint32_t i = 0; i < config.nodes.size(); ++i) nodes.set(i);
        continue;
      }
      if (auto found = config.node_index.find(name); found != config.node_index.end()) {
        nodes.set(pool.internal_index(found->second));
      }
    }
    if (resv.nodes.empty() && resv.node_count > 0) {
      NodeBitset from(config.nodes.size());
      const Partition* p = resv.partition.empty() ? nullptr : config.find_partition(resv.partition);
      if (p) {
        for (std::uint32_t n : p->nodes) from.set(pool.internal_index(n));
      } else {
        for (std::uint32_t i = 0; i < config.nodes.size(); ++i) from.set(i);
      }
      std::uint32_t left = resv.node_count;
      from.for_each_until([&](std::size_t i) {
        nodes.set(i);
        return --left == 0;
      });
    }
    const std::int64_t step = repeat_step(resv);
    const std::int64_t length = resv.end - resv.start;
    // Capped: a recurring reservation starting decades before the load would otherwise add
    // one window per hour of the gap.
    std::int64_t occurrences = 0;
    for (std::int64_t s = resv.start; (s < horizon || s == resv.start) && occurrences++ < max_windows; s += step) {
      const int wd = weekday(s);
      const bool skip = (resv.has_flag("WEEKDAY") && wd >= 5) || (resv.has_flag("WEEKEND") && wd < 5);
      if (!skip) windows_.push_back(ResvWindow{r, s, s + length, nodes, resv.has_flag("MAINT")});
      if (step == 0) break;
    }
  }
  std::stable_sort(windows_.begin(), windows_.end(),
                   [](const ResvWindow& a, const ResvWindow& b) { return a.start < b.start; });
}

bool ReservationBook::changes_after(std::int64_t t) const {
  for (const ResvWindow& w : windows_) {
    if (w.end > t) return true;
  }
  return false;
}

std::int32_t ReservationBook::find(const std::string& name) const {
  for (std::size_t i = 0; i < list_.size(); ++i) {
    if (list_[i].name == name) return static_cast<std::int32_t>(i);
  }
  return -1;
}

const NodeBitset* ReservationBook::excluded(std::int64_t from, std::int64_t to) {
  bool any = false;
  for (const ResvWindow& w : windows_) {
    if (w.start >= to) break;
    if (w.end <= from) continue;
    if (!any)
      scratch_.assign_and(w.nodes, w.nodes);
    else
      scratch_ |= w.nodes;
    any = true;
  }
  return any ? &scratch_ : nullptr;
}

bool ReservationBook::maint_covers(const NodeBitset& nodes, std::int64_t from, std::int64_t to) const {
  for (const ResvWindow& w : windows_) {
    if (w.start >= to) break;
    if (w.end <= from || !w.maint) continue;
    if (nodes.is_subset_of(w.nodes)) return true;
  }
  return false;
}

const ResvWindow* ReservationBook::active(std::int32_t resv, std::int64_t now) const {
  for (const ResvWindow& w : windows_) {
    if (w.start > now) break;
    if (static_cast<std::int32_t>(w.resv) == resv && w.end > now) return &w;
  }
  return nullptr;
}

bool ReservationBook::may_use(std::int32_t resv, const std::string& user, const std::string& account) const {
  const Reservation& r = list_[static_cast<std::size_t>(resv)];
  const bool by_user = r.users.empty() ? false : (listed(r.users, user) != r.users_excluded);
  const bool by_account = r.accounts.empty() ? false : (listed(r.accounts, account) != r.accounts_excluded);
  if (r.users.empty() && r.accounts.empty()) return true;
  return by_user || by_account;
}

}  // namespace sa::engine
