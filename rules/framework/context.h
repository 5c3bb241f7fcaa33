#pragma once
// What a rule sees: the loaded site (slurm.conf model, accounting tree, QOS, usage), helpers
// that turn model locations into finding locations, and the simulation every simulated rule
// shares. The engine runs once per lint; a rule that wants to show what a better setting
// would do asks for a re-simulation of the same load under a changed config, cached by label
// so two rules asking for the same variant share one run.
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>

#include <nlohmann/json.hpp>

#include "engine/metrics.h"
#include "engine/site_loader.h"
#include "rules/framework/finding.h"

namespace sa::rules {

/// Which load was simulated, over what span: printed with every simulated finding.
struct Scenario {
  std::string load;         // "default synthetic load derived from the cluster", "workload F", ...
  std::uint64_t seed = 0;   // 0 when the load is a recorded trace
  std::size_t jobs = 0;
  std::int64_t start = 0, end = 0;
  std::string variant;      // empty for the site as configured, else the change simulated
};

struct Simulation {
  Scenario scenario;
  std::unique_ptr<Config> config;  // the variant's config (null: the site's own)
  engine::Site site;
  engine::SimResult result;
  engine::Metrics metrics;
};

class LintContext {
 public:
  LintContext(const engine::LoadedSite& site, const engine::Workload* load, Scenario scenario);
  ~LintContext();

  const engine::LoadedSite& site() const { return site_; }
  const Config& config() const { return site_.conf->config; }
  const AssocTree* tree() const { return site_.site.tree; }
  const QosTable& qos() const { return site_.site.qos; }
  /// True when the user gave a QOS table (without one, Slurm's lone `normal` is assumed).
  bool has_qos_table() const { return has_qos_table_; }

  /// The run of the site as configured, or nullptr under --no-simulate.
  const Simulation* simulation() const { return base_.get(); }
  /// The same load and seed under a changed config; `label` names the change ("bf_window=7200").
  const Simulation& resimulate(const std::string& label, const std::function<void(Config&)>& change) const;
  /// Runs the base simulation (the lint driver calls this once when a rule needs it).
  void simulate();
  bool can_simulate() const { return load_ != nullptr; }

  // Locations.
  Location conf_loc(const SourceLoc& loc) const;  // slurm.conf family
  Location acct_loc(const SourceLoc& loc) const;  // accounting files, workloads
  /// The root slurm.conf as a whole (a setting left at its default).
  Location conf_file() const;
  /// Where a scalar key is written (its key), or the file when it is not.
  Location setting_loc(const std::string& key) const;
  /// Where `name` is written inside SchedulerParameters (or SchedulerParameters itself, or
  /// the file when it is not written).
  Location sched_param_loc(const std::string& name) const;

 private:
  std::unique_ptr<Simulation> run(std::unique_ptr<Config> config, const std::string& label) const;

  const engine::LoadedSite& site_;
  const engine::Workload* load_;
  Scenario scenario_;
  bool has_qos_table_ = false;
  std::unique_ptr<Simulation> base_;
  mutable std::map<std::string, std::unique_ptr<Simulation>> variants_;
};

/// The scenario block of a simulated finding's evidence.
nlohmann::json scenario_json(const Scenario& s);

}  // namespace sa::rules
