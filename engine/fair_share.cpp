#include "engine/fair_share.h"

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <ctime>
#include <functional>
#include <limits>

namespace sa::engine {

namespace {
// The level_fs Slurm gives a FairShare=parent account (NO_VAL): it sorts just below +inf.
constexpr long double kNoValLevelFs = 4294967294.0L;
}  // namespace

FairShareSettings FairShareSettings::from(const PrioritySettings& priority) {
  FairShareSettings s;
  if (priority.flags.depth_oblivious) {
    s.algorithm = FairShareAlgorithm::kDepthOblivious;
  } else if (!priority.flags.fair_tree) {
    s.algorithm = FairShareAlgorithm::kClassic;
  }
  s.dampening = std::max<std::uint32_t>(1, priority.fairshare_dampening_factor);
  return s;
}

FairShare::FairShare(const AssocTree& tree, FairShareSettings settings) : tree_(tree), settings_(settings) {
  const std::size_t n = tree.assocs.size();
  fs_parent_.assign(n, kNoAssoc);
  fs_children_.assign(n, {});
  level_shares_.assign(n, 0);
  fair_tree_shares_.assign(n, 0.0);
  classic_shares_.assign(n, 0.0);
  const std::vector<std::uint32_t> order = tree.hierarchical_order();
  // Siblings are listed in creation order (assoc_mgr's children lists follow slurmdbd's lft
  // order), which is what Fair Tree's stable sort leaves tied associations in. The input
  // file's order is the best record of it: `sacctmgr load` creates in file order.
  std::vector<std::uint32_t> creation_order;
  std::vector<std::uint32_t> stack{tree.root};
  while (!stack.empty()) {
    const std::uint32_t id = stack.back();
    stack.pop_back();
    creation_order.push_back(id);
    std::vector<std::uint32_t> kids = tree.assocs[id].children;
    std::sort(kids.begin(), kids.end(), std::greater<>());
    for (std::uint32_t k : kids) stack.push_back(k);
  }
  for (std::uint32_t id : creation_order) {
    const Association& a = tree.assocs[id];
    if (a.is_user()) ++user_count_;
    if (id == tree.root) continue;
    // The fair-share parent skips FairShare=parent ancestors, which flattens their children
    // into the grandparent's level (assoc_mgr's fs_assoc_ptr).
    std::uint32_t p = a.parent;
    while (p != tree.root && tree.assocs[p].use_parent()) p = tree.assocs[p].parent;
    fs_parent_[id] = p;
    fs_children_[p].push_back(id);
  }
  // A FairShare=parent child adds the level sum of its own children list, which is always
  // empty (its children were moved up), so it contributes nothing.
  std::vector<std::uint32_t> level_sum(n, 0);
  for (std::uint32_t id = 0; id < n; ++id) {
    for (std::uint32_t child : fs_children_[id]) {
      if (!tree.assocs[child].use_parent()) level_sum[id] += tree.assocs[child].shares_raw;
    }
  }
  // Root is nobody's child, so its level_shares stays 0: Fair Tree gives it S = 0 (and so
  // to a FairShare=parent child of root); the classic product starts at 1.0.
  fair_tree_shares_[tree.root] = 0.0;
  classic_shares_[tree.root] = 1.0;
  for (std::uint32_t id : order) {
    if (id == tree.root) continue;
    const Association& a = tree.assocs[id];
    level_shares_[id] = level_sum[fs_parent_[id]];
    if (a.use_parent()) {
      fair_tree_shares_[id] = fair_tree_shares_[fs_parent_[id]];
      classic_shares_[id] = classic_shares_[fs_parent_[id]];
      continue;
    }
    fair_tree_shares_[id] = level_shares_[id] ? static_cast<double>(a.shares_raw) / level_shares_[id] : 0.0;
    // Classic: the product of shares/level over the association and its direct ancestors
    // below root, skipping FairShare=parent levels; 0 if any level has no shares.
    double product = 1.0;
    for (std::uint32_t x = id; x != tree.root; x = tree.assocs[x].parent) {
      if (tree.assocs[x].use_parent()) continue;
      std::uint32_t level = level_sum[fs_parent_[x]];
      if (level == 0) {
        product = 0.0;
        break;
      }
      product *= static_cast<double>(tree.assocs[x].shares_raw) / level;
    }
    classic_shares_[id] = product;
  }
}

void FairShare::rebuild_usage(std::vector<AssocShare>& out, const std::vector<long double>& user_usage) const {
  // Account usage is the sum of the leaf users' usage along the direct parent chain.
  for (const Association& a : tree_.assocs) {
    if (!a.is_user() || a.id >= user_usage.size()) continue;
    long double u = user_usage[a.id];
    for (std::uint32_t x = a.id; x != kNoAssoc; x = tree_.assocs[x].parent) out[x].usage_raw += u;
  }
  const long double root_usage = out[tree_.root].usage_raw;
  for (AssocShare& s : out) {
    s.usage_norm = root_usage > 0 ? static_cast<double>(std::min(1.0L, s.usage_raw / root_usage)) : 0.0;
  }
  // Root's usage_norm keeps its NO_VAL initial value, which sshare prints as a blank.
  out[tree_.root].usage_norm = kNoValDouble;
}

std::vector<AssocShare> FairShare::compute(const std::vector<long double>& user_usage) const {
  std::vector<AssocShare> out(tree_.assocs.size());
  rebuild_usage(out, user_usage);
  if (settings_.algorithm == FairShareAlgorithm::kFairTree) {
    fair_tree(out);
  } else {
    classic(out);
  }
  return out;
}

void FairShare::fair_tree(std::vector<AssocShare>& out) const {
  // Root keeps its initial values: effective usage 1.0 and no level fair share (NO_VAL).
  out[tree_.root].shares_norm = fair_tree_shares_[tree_.root];
  out[tree_.root].usage_efctv = 1.0;
  out[tree_.root].level_fs = kNoValLevelFs;
  for (const Association& a : tree_.assocs) {
    if (a.id == tree_.root) continue;
    AssocShare& s = out[a.id];
    s.shares_norm = fair_tree_shares_[a.id];
    const long double parent_usage = out[fs_parent_[a.id]].usage_raw;
    const long double u = parent_usage != 0 ? s.usage_raw / parent_usage : 0.0L;
    s.usage_efctv = static_cast<double>(u);
    if (a.use_parent()) {
      s.level_fs = a.is_user() ? std::numeric_limits<long double>::infinity() : kNoValLevelFs;
    } else if (s.shares_norm == 0) {
      s.level_fs = 0;  // checked first: zero shares rank last even with zero usage
    } else if (u == 0) {
      s.level_fs = std::numeric_limits<long double>::infinity();
    } else {
      s.level_fs = static_cast<long double>(s.shares_norm) / u;
    }
  }
  std::uint32_t rank = user_count_, rnt = user_count_;
  rank_level(out, fs_children_[tree_.root], rank, rnt, false);
}

// fair_tree.c _calc_tree_fs: siblings sorted by level_fs (descending, users first on exact
// ties, otherwise association order); tied users share a rank and the next untied user takes
// the no-tie rank; the first child of a tied account inherits the current rank.
void FairShare::rank_level(std::vector<AssocShare>& out, const std::vector<std::uint32_t>& siblings,
                           std::uint32_t& rank, std::uint32_t& rnt, bool account_tied) const {
  std::vector<std::uint32_t> sorted = siblings;
  std::stable_sort(sorted.begin(), sorted.end(), [&](std::uint32_t x, std::uint32_t y) {
    long double lx = out[x].level_fs, ly = out[y].level_fs;
    if (lx == ly) return tree_.assocs[x].is_user() && !tree_.assocs[y].is_user();
    return lx > ly;
  });
  long double previous = kNoValLevelFs;
  for (std::uint32_t id : sorted) {
    bool tied;
    if (account_tied) {
      tied = true;
      account_tied = false;
    } else {
      tied = previous == out[id].level_fs;
    }
    if (tree_.assocs[id].is_user()) {
      if (!tied) rank = rnt;
      out[id].fs_factor = rank / static_cast<double>(user_count_);
      --rnt;
    } else {
      // The documented merge of tied accounts never happens in Slurm's code (algorithms.md
      // §3.2): each account's own children are ranked on their own.
      rank_level(out, fs_children_[id], rank, rnt, tied);
    }
    previous = out[id].level_fs;
  }
}

void FairShare::classic(std::vector<AssocShare>& out) const {
  const bool oblivious = settings_.algorithm == FairShareAlgorithm::kDepthOblivious;
  out[tree_.root].usage_efctv = 1.0;
  out[tree_.root].shares_norm = classic_shares_[tree_.root];
  for (std::uint32_t id : tree_.hierarchical_order()) {
    if (id == tree_.root) continue;
    const Association& a = tree_.assocs[id];
    AssocShare& s = out[id];
    s.shares_norm = classic_shares_[id];
    const std::uint32_t p = fs_parent_[id];
    const double un = s.usage_norm;
    if (a.use_parent()) {
      s.usage_efctv = out[p].usage_efctv;
    } else if (p == tree_.root) {
      s.usage_efctv = un;
    } else if (oblivious) {
      s.usage_efctv = depth_oblivious_usage(out, id);
    } else if (level_shares_[id] == 0) {
      s.usage_efctv = out[p].usage_efctv;
    } else {
      s.usage_efctv = un + (out[p].usage_efctv - un) * a.shares_raw / level_shares_[id];
    }
  }
  for (std::uint32_t id = 0; id < out.size(); ++id) {
    const AssocShare& s = out[id];
    out[id].fs_factor = s.shares_norm > 0 ? std::pow(2.0, -(s.usage_efctv / s.shares_norm) / settings_.dampening) : 0.0;
  }
}

double FairShare::classic_user_factor(std::uint32_t user, const std::vector<AssocShare>& at_start, long double user_raw,
                                      long double root_raw) const {
  const Association& a = tree_.assocs[user];
  const std::uint32_t p = fs_parent_[user];
  const double un = root_raw > 0 ? static_cast<double>(user_raw / root_raw) : 0.0;
  double ue;
  if (a.use_parent()) {
    ue = at_start[p].usage_efctv;
  } else if (p == tree_.root) {
    ue = un;
  } else if (settings_.algorithm == FairShareAlgorithm::kDepthOblivious) {
    std::vector<AssocShare> live = at_start;
    live[user].usage_norm = un;
    ue = depth_oblivious_usage(live, user);
  } else if (level_shares_[user] == 0) {
    ue = at_start[p].usage_efctv;
  } else {
    ue = un + (at_start[p].usage_efctv - un) * a.shares_raw / level_shares_[user];
  }
  const double s = classic_shares_[user];
  return s > 0 ? std::pow(2.0, -(ue / s) / settings_.dampening) : 0.0;
}

double FairShare::depth_oblivious_usage(const std::vector<AssocShare>& out, std::uint32_t id) const {
  // priority_multifactor.c _set_usage_efctv with DEPTH_OBLIVIOUS (algorithms.md §3.3).
  const std::uint32_t p = fs_parent_[id];
  const double s = out[id].shares_norm, un = out[id].usage_norm;
  const double sp = out[p].shares_norm, uep = out[p].usage_efctv;
  if (s == 0 || sp == 0 || uep == 0 || un == 0) return un;
  double sibling_usage = 0;
  for (std::uint32_t sib : fs_children_[p]) {
    if (!tree_.assocs[sib].use_parent()) sibling_usage += out[sib].usage_norm;
  }
  const double ratio_p = uep / sp;
  const double ratio_s = sibling_usage / sp;
  const double ratio_l = (un / s) / ratio_s;
  double k = 1.0;
  if (ratio_p != 0 && ratio_l != 0 && std::log(ratio_p) * std::log(ratio_l) < 0) {
    k = 1.0 / (1.0 + std::pow(5.0 * std::log(ratio_p), 2));
  }
  return ratio_p * std::pow(ratio_l, k) * s;
}

double decay_per_second(std::int64_t half_life_seconds) {
  if (half_life_seconds <= 0) return 1.0;
  return 1.0 - 0.693 / static_cast<double>(half_life_seconds);
}

double decay_over(std::int64_t half_life_seconds, std::int64_t seconds) {
  if (seconds <= 0) return 1.0;
  double d = std::pow(decay_per_second(half_life_seconds), static_cast<double>(seconds));
  return std::max(d, DBL_MIN);
}

double decayed_charge(std::int64_t half_life_seconds, std::int64_t seconds, double rate) {
  if (seconds <= 0) return 0.0;
  return static_cast<double>(seconds) * decay_over(half_life_seconds, seconds) * rate;
}

std::int64_t next_usage_reset(UsageReset period, std::int64_t after) {
  if (period == UsageReset::kNone || period == UsageReset::kNow) return -1;
  std::time_t t = static_cast<std::time_t>(after);
  std::tm tm{};
  gmtime_r(&t, &tm);
  tm.tm_hour = tm.tm_min = tm.tm_sec = 0;
  switch (period) {
    case UsageReset::kDaily:
      tm.tm_mday += 1;
      break;
    case UsageReset::kWeekly:
      tm.tm_mday += 7 - tm.tm_wday;
      break;  // next Sunday 00:00
    case UsageReset::kMonthly:
      tm.tm_mday = 1;
      tm.tm_mon += 1;
      break;
    case UsageReset::kQuarterly:
      tm.tm_mday = 1;
      tm.tm_mon = (tm.tm_mon / 3 + 1) * 3;
      break;
    case UsageReset::kYearly:
      tm.tm_mday = 1;
      tm.tm_mon = 0;
      tm.tm_year += 1;
      break;
    default:
      return -1;
  }
  return static_cast<std::int64_t>(timegm(&tm));
}

}  // namespace sa::engine
