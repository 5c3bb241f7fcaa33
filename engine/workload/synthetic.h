#pragma once
// Synthetic loads from a small profile file (`key = value` lines, '#' comments): arrival
// rate with a daily cycle, job size, run-time and time-limit distributions, the
// user/account mix drawn from the share tree, partition and QOS mixes; seeded, and
// byte-identical for the same profile and seed on every platform (own RNG and sampling).
#include <cstdint>
#include <functional>
#include <string>

#include <utility>
#include <vector>
#include "analyzer/reservation_model.h"

#include "analyzer/assoc_model.h"
#include "analyzer/diagnostics.h"
#include "analyzer/input_limits.h"
#include "analyzer/model.h"
#include "engine/workload/workload.h"

namespace sa::engine {

struct Distribution {
  enum class Kind { kFixed, kUniform, kExponential, kLognormal } kind = Kind::kFixed;
  double a = 0, b = 0;  // fixed: a; uniform: [a, b]; exponential: mean a; lognormal: median a, sigma b
};

template <typename T>
using Weighted = std::vector<std::pair<T, double>>;

struct Profile {
  std::uint64_t seed = 1;
  std::int64_t start = 0;
  std::int64_t duration = 86400;
  std::int64_t max_jobs = 0;  // 0: no cap (the duration decides)
  double jobs_per_hour = 60;
  double daily_cycle = 0;  // amplitude in [0, 1); peak at 14:00 of the time base
  Weighted<std::uint32_t> cpus{{1, 1.0}};
  Weighted<std::uint32_t> gpus{{0, 1.0}};
  double exclusive_fraction = 0;
  Distribution runtime{Distribution::Kind::kLognormal, 1800, 1.0};
  std::int64_t runtime_max = 2 * 86400;
  double limit_factor_min = 1.0, limit_factor_max = 3.0;
  std::int64_t limit_round = 900;
  std::uint64_t mem_per_cpu = 0;     // MB; 0: the partition default
  Weighted<std::string> partitions;  // empty: the default partition
  Weighted<std::string> qos;         // empty: the association's default QOS
  bool users_from_tree = true;
  Weighted<std::pair<std::string, std::string>> users;  // (user, account) when not from the tree
  std::string name;
  /// `reservation = NAME start=+DURATION|TIME (duration=D | end=+D|TIME) nodes=HOSTLIST|ALL
  /// [flags=MAINT,DAILY,...] [users=a,b] [accounts=x]`; starts relative to the profile start.
  std::vector<Reservation> reservations;
};

/// Reads a profile; problems are WORK005 diagnostics at file:line:col.
Profile read_profile(FileId file, const SourceManager& sources, DiagnosticSink& sink, const InputLimits& limits = {});
Result<Profile> read_profile_file(const std::string& path, SourceManager& sources, DiagnosticSink& sink,
                                  const InputLimits& limits = {});

/// Generates the load. Users come from the tree (weighted by target share) when the profile
/// says `users = tree` and a tree is given; time limits respect each partition's MaxTime.
Workload generate(const Profile& profile, const Config& config, const AssocTree* tree);

/// The small deterministic generator used everywhere in the engine (SplitMix64).
class Rng {
 public:
  explicit Rng(std::uint64_t seed) : state_(seed) {}
  std::uint64_t next();
  double uniform();  // [0, 1)
  double normal();   // Box-Muller, one value per call
  double sample(const Distribution& d);

 private:
  std::uint64_t state_;
};

/// One item drawn by weight (the last one if the weights sum to nothing).
template <typename T>
const T& pick(const Weighted<T>& items, Rng& rng) {
  double total = 0;
  for (const auto& [v, w] : items) total += w;
  double x = rng.uniform() * total;
  for (const auto& [v, w] : items) {
    if (x < w) return v;
    x -= w;
  }
  return items.back().first;
}

/// The tree's user associations (not partition-specific) with their target shares, in
/// sshare's order; `admit` filters them (by association id).
Weighted<std::pair<std::string, std::string>> users_by_target_share(
    const AssocTree& tree, const std::function<bool(std::uint32_t)>& admit = {});

}  // namespace sa::engine
