#pragma once
// What a rule sees: the loaded site (slurm.conf model, accounting tree, QOS, usage), helpers
// that turn model locations into finding locations, and the simulation every simulated rule
// shares. The engine runs once per lint; a rule that wants to show what a better setting
// would do asks for a re-simulation of the same load under a changed config, cached by label
// so two rules asking for the same variant share one run. Rules that use the simulation
// run on worker threads, so the base run and the variants overlap on a multi-core machine.
// Each re-simulation is a whole run of the load (bounded by the sim-steps limit), so a rule
// re-simulates its fix once, with the change on every partition it flags, never once per
// partition: then no config, however many partitions it has, multiplies a lint's runs. A
// finished re-simulation is held by the rules reading it, not by the context, so a lint's
// memory is its base run and the runs being read, not every run it made.
#include <atomic>
#include <cstdint>
#include <functional>
#include <future>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "analyzer/config_edit.h"
#include "engine/metrics.h"
#include "engine/site_loader.h"
#include "rules/framework/finding.h"
#include "rules/framework/suppression.h"

namespace sa::rules {

/// Which load was simulated, over what span: printed with every simulated finding.
struct Scenario {
  std::string load;        // "default synthetic load derived from the cluster", "workload F", ...
  std::uint64_t seed = 0;  // 0 when the load is a recorded trace
  std::size_t jobs = 0;
  std::int64_t start = 0, end = 0;
  std::string variant;  // empty for the site as configured, else the change simulated
  // The default load drawn from the config (or its saved copy): job sizes and run times are
  // ours, not the site's, so a rule must not read the site's typical run times from it.
  bool derived = false;
};

struct Simulation {
  Scenario scenario;
  std::unique_ptr<engine::Workload> load;  // a changed copy of the load (null: the lint's own)
  std::unique_ptr<Config> config;          // the variant's config (null: the site's own)
  engine::Site site;
  engine::SimResult result;
  engine::Metrics metrics;
};
using SimulationPtr = std::shared_ptr<const Simulation>;

class LintContext {
 public:
  /// `wants_simulation` is false under --no-simulate (then a null `load` is no defect).
  LintContext(const engine::LoadedSite& site, const engine::Workload* load, Scenario scenario,
              bool wants_simulation = true);
  ~LintContext();

  const engine::LoadedSite& site() const { return site_; }
  const Config& config() const { return site_.conf->config; }
  const AssocTree* tree() const { return site_.site.tree; }
  const QosTable& qos() const { return site_.site.qos; }
  /// True when the user gave a QOS table (without one, Slurm's lone `normal` is assumed).
  bool has_qos_table() const { return has_qos_table_; }

  /// The run of the site as configured (waiting for it if it is still running), or nullptr
  /// under --no-simulate.
  const Simulation* simulation() const;
  SimulationPtr shared_simulation() const { return base_.valid() ? base_.get() : nullptr; }
  /// The same load and seed under the config with `edits` applied to what is written and
  /// resolved again (so derived values follow as Slurm derives them); `label` names the change
  /// ("bf_window=7200"). Safe to call from several rules at once: callers while it runs wait
  /// for the one run. The run lives while a caller holds it; a label asked for after every
  /// holder let go runs again (the simulation is deterministic: the same run).
  SimulationPtr resimulate(const std::string& label, const std::vector<ConfigEdit>& edits) const;
  /// As resimulate, on a copy of the load with `change` applied to every job (CONF106: the
  /// same jobs, given no --mem); `label` names the load change and the edits together.
  SimulationPtr resimulate_load(const std::string& label, const std::vector<ConfigEdit>& edits,
                                const std::function<void(engine::JobRequest&)>& change) const;
  /// Keeps every run asked for on this thread, while it exists, alive until it ends: the lint
  /// driver opens one around each rule, so a rule that asks for the same variant for each of
  /// its findings runs it once, and the run is let go when the rule returns (unless another
  /// rule holds it).
  class RuleRuns {
   public:
    RuleRuns();
    ~RuleRuns();
    RuleRuns(const RuleRuns&) = delete;
    RuleRuns& operator=(const RuleRuns&) = delete;
    /// Adds `sim` to the innermost RuleRuns of this thread, if there is one.
    static void hold(const SimulationPtr& sim);
    /// A run held here was cancelled before its end (the rule read a partial run).
    bool read_cut_run() const;

   private:
    std::vector<SimulationPtr> held_;
    RuleRuns* outer_;
  };
  /// Starts `resimulate(label, edits)` on its own thread and returns at once: a rule that
  /// knows its fix before it needs the base run calls this first, so the two runs overlap.
  /// The run is kept until the label is first asked for.
  void prefetch(const std::string& label, const std::vector<ConfigEdit>& edits) const;
  /// Starts the base simulation on its own thread (the lint driver calls this once when a
  /// rule needs it), so rules can start their re-simulations meanwhile.
  void start_simulation();
  bool can_simulate() const { return load_ != nullptr; }
  bool wants_simulation() const { return wants_simulation_; }
  /// A run that stopped at the sim-steps limit: its variant label ("" for the site as
  /// configured) and where it stopped.
  struct StoppedRun {
    std::string variant;
    engine::StepLimitStop stop;
  };
  /// The run that stopped at the sim-steps limit, if one did: the base run, else the first
  /// re-simulation by label (waiting for any still running). Its evidence is withheld.
  std::optional<StoppedRun> stopped_run() const;
  /// How many re-simulations (distinct labels) were asked for so far.
  std::size_t resimulations() const;
  /// How many re-simulations ran, counting a label run again after its run was let go.
  std::size_t resimulation_runs() const;
  /// Reports the base run's progress (re-simulations are not shown).
  void set_progress(std::function<void(double)> progress) { progress_ = std::move(progress); }
  /// The site's suppression comments (every input file's).
  const Suppressions& suppressions() const { return suppressions_; }
  /// The load to simulate, as the report names it (before any run).
  const Scenario& scenario() const { return scenario_; }

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
  /// Whether SchedulerParameters writes `name` (else it keeps Slurm's default).
  bool sched_param_written(const std::string& name) const;

 private:
  SimulationPtr run(std::unique_ptr<Config> config, const std::string& label,
                    std::unique_ptr<engine::Workload> load = nullptr) const;
  /// resimulate(), pinned for a prefetch.
  SimulationPtr edited(const std::string& label, const std::vector<ConfigEdit>& edits, bool pin) const;
  /// The variant `label`, run by `make` for the caller that finds no run of it (outside the
  /// lock); callers while it runs wait. `pin` (prefetch) keeps the run until it is asked for,
  /// and runs nothing (returning null) once a rule has asked for it.
  SimulationPtr variant(const std::string& label, const std::function<SimulationPtr()>& make, bool pin = false) const;

  // A re-simulation by label: the run while it is in flight, then only a weak reference (the
  // rules that asked hold it), and what stopped_run() needs to know of it.
  struct Variant {
    std::shared_future<SimulationPtr> running;  // valid while the run is in flight
    std::weak_ptr<const Simulation> done;
    SimulationPtr pinned;  // a prefetched run, until a rule asks for it
    bool asked = false;    // a rule has asked for it
    std::optional<engine::StepLimitStop> stop;
  };

  const engine::LoadedSite& site_;
  const engine::Workload* load_;
  Scenario scenario_;
  bool wants_simulation_ = true;
  Suppressions suppressions_;
  std::function<void(double)> progress_;
  bool has_qos_table_ = false;
  std::shared_future<SimulationPtr> base_;
  // Set when the base run stopped at its step limit or ran too thin for any of its evidence
  // to stand (withholds_everything): it cancels the re-simulations (SimOptions::cancel).
  mutable std::atomic<bool> cut_variants_{false};
  mutable std::mutex mutex_;  // guards variants_ and runs_
  mutable std::map<std::string, Variant> variants_;
  mutable std::size_t runs_ = 0;
  mutable std::vector<std::future<void>> prefetches_;  // joined by their destructors
};

/// The scenario block of a simulated finding's evidence.
nlohmann::json scenario_json(const Scenario& s);

}  // namespace sa::rules
