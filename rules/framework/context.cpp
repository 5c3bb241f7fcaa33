#include "rules/framework/context.h"

#include <algorithm>
#include <cctype>

#include "engine/workload/default_load.h"
#include "rules/framework/withhold.h"

namespace sa::rules {

namespace {

// sprio-style snapshots of the pending queue through the run: the raw material of the
// tie and cross-partition ordering evidence. Every six hours is enough to see a policy
// that holds all week, and keeps a 1,000-node run's snapshots small.
constexpr std::int64_t kSnapshotEvery = 6 * 3600;
constexpr std::int64_t kMaxSnapshots = 200;

Location file_loc(const SourceManager& sources, const SourceLoc& loc) {
  if (!loc.valid()) return {};
  return {sources.path(loc.file), loc.line, loc.column, {}};
}

}  // namespace

LintContext::LintContext(const engine::LoadedSite& site, const engine::Workload* load, Scenario scenario,
                         bool wants_simulation)
    : site_(site), load_(load), scenario_(std::move(scenario)), wants_simulation_(wants_simulation) {
  has_qos_table_ = site.site.qos.from_input();
  for (const SourceManager* sm : std::initializer_list<const SourceManager*>{&site.conf->sources, &site.sources}) {
    for (std::size_t i = 0; i < sm->file_count(); ++i) {
      const auto id = static_cast<FileId>(i);
      suppressions_.add_file(sm->path(id), sm->file(id).content);
    }
  }
}

LintContext::~LintContext() = default;

void LintContext::start_simulation() {
  if (base_.valid() || !load_) return;
  base_ = std::async(std::launch::async, [this] { return run(nullptr, ""); }).share();
}

const Simulation* LintContext::simulation() const { return base_.valid() ? base_.get().get() : nullptr; }

namespace {
thread_local LintContext::RuleRuns* current_rule_runs = nullptr;
}  // namespace

LintContext::RuleRuns::RuleRuns() : outer_(current_rule_runs) { current_rule_runs = this; }
LintContext::RuleRuns::~RuleRuns() { current_rule_runs = outer_; }

bool LintContext::RuleRuns::read_cut_run() const {
  return std::any_of(held_.begin(), held_.end(), [](const SimulationPtr& sim) { return sim->result.cancelled; });
}

void LintContext::RuleRuns::hold(const SimulationPtr& sim) {
  if (!current_rule_runs) return;
  std::vector<SimulationPtr>& held = current_rule_runs->held_;
  if (std::find(held.begin(), held.end(), sim) == held.end()) held.push_back(sim);
}

SimulationPtr LintContext::resimulate(const std::string& label, const std::vector<ConfigEdit>& edits) const {
  return edited(label, edits, false);
}

SimulationPtr LintContext::edited(const std::string& label, const std::vector<ConfigEdit>& edits, bool pin) const {
  return variant(
      label, [&] { return run(resolve_edited(*site_.conf, edits), label); }, pin);
}

SimulationPtr LintContext::resimulate_load(const std::string& label, const std::vector<ConfigEdit>& edits,
                                           const std::function<void(engine::JobRequest&)>& change) const {
  return variant(label, [&] {
    auto load = std::make_unique<engine::Workload>(*load_);
    for (engine::JobRequest& j : load->jobs) change(j);
    return run(edits.empty() ? nullptr : resolve_edited(*site_.conf, edits), label, std::move(load));
  });
}

SimulationPtr LintContext::variant(const std::string& label, const std::function<SimulationPtr()>& make,
                                   bool pin) const {
  std::promise<SimulationPtr> promise;
  std::shared_future<SimulationPtr> future;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    Variant& v = variants_[label];
    v.asked = v.asked || !pin;
    if (v.running.valid()) {
      future = v.running;
    } else if (SimulationPtr kept = v.pinned ? v.pinned : v.done.lock()) {
      if (!pin) v.pinned.reset();
      RuleRuns::hold(kept);
      return kept;
    } else if (pin && v.asked) {
      return nullptr;  // a prefetch that started after its rule had the run: nothing to keep
    } else {
      v.running = promise.get_future().share();
      ++runs_;
    }
  }
  if (!future.valid()) {
    // This caller runs it, outside the lock. The entry is brought up to date before the
    // callers waiting for the run wake, so a prefetch pins it before a rule's wait unpins it.
    SimulationPtr sim = make();
    {
      std::lock_guard<std::mutex> lock(mutex_);
      Variant& v = variants_[label];
      v.done = sim;
      v.stop = sim->result.step_limit_stop();
      if (pin) v.pinned = sim;
      v.running = {};
    }
    promise.set_value(sim);
    RuleRuns::hold(sim);
    return sim;
  }
  SimulationPtr sim = future.get();
  RuleRuns::hold(sim);
  if (!pin) {
    std::lock_guard<std::mutex> lock(mutex_);
    variants_[label].pinned.reset();
  }
  return sim;
}

void LintContext::prefetch(const std::string& label, const std::vector<ConfigEdit>& edits) const {
  if (!base_.valid()) return;  // not simulating (--no-simulate, or no load)
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (variants_.count(label)) return;
  }
  auto started = std::async(std::launch::async, [this, label, edits] { edited(label, edits, true); });
  std::lock_guard<std::mutex> lock(mutex_);
  prefetches_.push_back(std::move(started));
}

SimulationPtr LintContext::run(std::unique_ptr<Config> config, const std::string& label,
                               std::unique_ptr<engine::Workload> changed) const {
  auto sim = std::make_shared<Simulation>();
  sim->config = std::move(config);
  sim->load = std::move(changed);
  const engine::Workload& load = sim->load ? *sim->load : *load_;
  sim->site = site_.site;
  engine::add_assumed_qos(sim->site, load);
  if (sim->config) sim->site.config = sim->config.get();
  sim->scenario = scenario_;
  sim->scenario.variant = label;
  engine::SimOptions options;
  options.partition_map = site_.partition_map;
  if (!label.empty()) options.cancel = &cut_variants_;
  if (label.empty() && !sim->config) options.progress = progress_;
  // The default load stops a day after its last arrival; a recorded or profiled load runs
  // to its end. Snapshots cover the arrivals either way.
  if (scenario_.end > scenario_.start) options.until = scenario_.end;
  const std::int64_t first = load.jobs.front().submit, last = load.jobs.back().submit;
  // A year-long trace gets at most kMaxSnapshots, spread evenly.
  const std::int64_t every = std::max(kSnapshotEvery, (last - first) / kMaxSnapshots);
  for (std::int64_t t = first + every; t <= last; t += every) options.snapshot_at.push_back(t);
  engine::Simulator simulator(sim->site, options);
  sim->result = simulator.run(load);
  sim->metrics = engine::compute_metrics(sim->result, sim->site);
  // Every finding a re-simulation could back would be withheld: the variants still running
  // stop, and those asked for later stop at once (a starved 1,000-node site ran four more
  // full runs for nothing).
  if (label.empty() &&
      (sim->result.step_limit ||
       withholds_everything(engine::load_coverage(sim->result, site_.conf->config), site_.conf->config)))
    cut_variants_ = true;
  sim->scenario.start = sim->result.start;
  sim->scenario.end = sim->result.end;
  return sim;
}

std::size_t LintContext::resimulations() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return variants_.size();
}

std::size_t LintContext::resimulation_runs() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return runs_;
}

std::optional<LintContext::StoppedRun> LintContext::stopped_run() const {
  const Simulation* base = simulation();
  if (!base) return std::nullopt;
  if (auto stop = base->result.step_limit_stop()) return StoppedRun{"", *stop};
  // Wait for the runs still going (a prefetch no rule asked for), then read the entries.
  std::vector<std::shared_future<SimulationPtr>> running;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    for (const auto& [label, v] : variants_) {
      if (v.running.valid()) running.push_back(v.running);
    }
  }
  for (const auto& r : running) r.wait();
  std::lock_guard<std::mutex> lock(mutex_);
  for (const auto& [label, v] : variants_) {
    if (v.stop) return StoppedRun{label, *v.stop};
  }
  return std::nullopt;
}

Location LintContext::conf_loc(const SourceLoc& loc) const { return file_loc(site_.conf->sources, loc); }
Location LintContext::acct_loc(const SourceLoc& loc) const { return file_loc(site_.sources, loc); }

Location LintContext::conf_file() const { return {site_.conf->sources.path(site_.conf->root), 0, 0, {}}; }

Location LintContext::setting_loc(const std::string& key) const {
  const Setting* s = config().setting(key);
  return s ? conf_loc(s->loc) : conf_file();
}

namespace {

// Where `name` starts in a SchedulerParameters value (npos: not written).
std::size_t sched_param_at(const std::string& v, const std::string& name) {
  for (std::size_t at = v.find(name); at != std::string::npos; at = v.find(name, at + 1)) {
    const bool starts = at == 0 || v[at - 1] == ',';
    const std::size_t after = at + name.size();
    const bool ends = after == v.size() || v[after] == '=' || v[after] == ',';
    if (starts && ends) return at;
  }
  return std::string::npos;
}

}  // namespace

Location LintContext::sched_param_loc(const std::string& name) const {
  const Setting* s = config().setting("SchedulerParameters");
  if (!s) return conf_file();
  const std::size_t at = sched_param_at(s->value, name);
  if (at == std::string::npos) return conf_loc(s->loc);
  Location where = conf_loc(s->value_loc);
  where.column += static_cast<int>(at);
  return where;
}

bool LintContext::sched_param_written(const std::string& name) const {
  const Setting* s = config().setting("SchedulerParameters");
  return s && sched_param_at(s->value, name) != std::string::npos;
}

nlohmann::json scenario_json(const Scenario& s) {
  nlohmann::json j = {
      {"load", s.load}, {"jobs", s.jobs}, {"start", s.start}, {"end", s.end}, {"span_seconds", s.end - s.start}};
  if (s.seed) j["seed"] = s.seed;
  if (!s.variant.empty()) j["variant"] = s.variant;
  return j;
}

}  // namespace sa::rules
