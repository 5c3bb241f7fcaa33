#include "tune/search.h"

#include <algorithm>
#include <atomic>
#include <exception>
#include <mutex>
#include <thread>

#include <fmt/format.h>

#include "analyzer/text_util.h"
#include "engine/metrics.h"
#include "engine/simulator.h"
#include "engine/workload/default_load.h"
#include "rules/framework/lint.h"
#include "tune/evaluate.h"

namespace sa::tune {

namespace {

bool wants_findings(const std::vector<Goal>& goals) {
  return std::any_of(goals.begin(), goals.end(), [](const Goal& g) { return g.metric == Metric::kFindings; });
}

// The grid point `index` (the last dimension varies fastest).
std::vector<std::string> grid_values(const std::vector<Dimension>& dims, std::size_t index) {
  std::vector<std::string> values(dims.size());
  for (std::size_t d = dims.size(); d-- > 0;) {
    values[d] = dims[d].values[index % dims[d].values.size()];
    index /= dims[d].values.size();
  }
  return values;
}

// The first error the candidate's text has that the site's own text does not.
std::optional<std::string> new_error(const Analysis& candidate, const Analysis& base) {
  const std::vector<Diagnostic> known = base.diagnostics.sorted();
  for (const Diagnostic& d : candidate.diagnostics.sorted()) {
    if (d.severity != Severity::kError) continue;
    const bool old = std::any_of(known.begin(), known.end(), [&](const Diagnostic& k) {
      return k.severity == Severity::kError && k.code == d.code && k.message == d.message;
    });
    if (!old) return fmt::format("line {}: {} [{}]", d.loc.line, d.message, d.code);
  }
  return std::nullopt;
}

std::unique_ptr<engine::LoadedSite> make_site(const SearchSite& s, std::unique_ptr<Analysis> conf, QosTable qos) {
  auto in = std::make_unique<engine::LoadedSite>();
  in->conf = std::move(conf);
  in->tree = s.base->tree;
  in->site = s.base->site;
  in->site.qos = std::move(qos);
  in->site.tree = in->tree ? &*in->tree : nullptr;
  in->site.config = &in->conf->config;
  in->partition_map = s.base->partition_map;
  return in;
}

FindingCounts count_findings(const engine::LoadedSite& in) {
  rules::LintOptions lo;
  lo.simulate = false;  // static rules: one lint per candidate, not per seed
  FindingCounts c;
  for (const rules::Finding& f : rules::run_lint(in, lo).findings) {
    for (int level = static_cast<int>(f.severity); level < 3; ++level) ++c.at_or_above[level];
  }
  return c;
}

// Writes the candidate's text and QOS table and reads the text again: the candidate's own
// config and QOS table. Sets `skip` when the analyzer refuses the combination.
std::unique_ptr<engine::LoadedSite> prepare(const SearchSite& s, const SearchSpec& spec, const Analysis& base,
                                            CandidateResult& c) {
  std::string text = s.conf_text;
  QosTable qos = s.base->site.qos;
  const Setting* sched = s.base->conf->config.setting("SchedulerParameters");
  for (std::size_t d = 0; d < spec.dims.size(); ++d) {
    const Dimension& dim = spec.dims[d];
    const std::string& v = c.values[d];
    if (dim.kind == KeyKind::kSetting) text = set_conf_key(text, dim.key, v);
    if (dim.kind == KeyKind::kSchedParam) text = set_sched_param(text, sched ? sched->value : "", dim.key, v);
    if (dim.kind == KeyKind::kPartition) set_partition_field(text, dim.scope, dim.key, v);
    if (dim.kind == KeyKind::kQos) {
      if (std::string e = set_qos_field(qos, dim.scope, dim.key, v); !e.empty()) c.skip_reason = e;
    }
  }
  c.conf_text = text;
  if (c.skip_reason) return {};
  auto analysis = analyze_text(s.conf_path, text, s.analyze);
  if (!analysis->ok()) {
    c.skip_reason = analysis->failure;
    return {};
  }
  if (auto e = new_error(*analysis, base)) {
    c.skip_reason = *e;
    return {};
  }
  return make_site(s, std::move(analysis), std::move(qos));
}

std::vector<double> run_seed(const engine::LoadedSite& in, const FindingCounts& findings, const engine::Workload& load,
                             const std::vector<Goal>& goals) {
  const SeedRun run(in, load);
  if (run.result.step_limit) return {};  // cut: no values (SeedValues)
  const RunView view{run.result, run.metrics, run.site, &findings};
  std::vector<double> out;
  out.reserve(goals.size());
  for (const Goal& g : goals) out.push_back(evaluate(g, view));
  return out;
}

// Runs f(0..n-1) on up to `jobs` threads; the first exception is rethrown here.
template <typename F>
void parallel_for(std::size_t n, unsigned jobs, F f) {
  std::atomic<std::size_t> next{0};
  std::vector<std::exception_ptr> errors(n);
  auto work = [&] {
    for (std::size_t i = next++; i < n; i = next++) {
      try {
        f(i);
      } catch (...) {
        errors[i] = std::current_exception();
      }
    }
  };
  std::vector<std::thread> threads;
  for (unsigned t = 1; t < std::min<std::size_t>(jobs, n); ++t) threads.emplace_back(work);
  work();
  for (std::thread& t : threads) t.join();
  for (const std::exception_ptr& e : errors) {
    if (e) std::rethrow_exception(e);
  }
}

}  // namespace

void summarise(CandidateResult& c, const SeedValues& per_seed, const std::vector<Goal>& goals) {
  c.seeds = per_seed.size();
  for (std::size_t g = 0; g < goals.size(); ++g) {
    std::vector<double> v;
    for (const auto& seed : per_seed) v.push_back(seed[g]);
    GoalResult r;
    r.value = mean_interval(v);
    r.value.lo = std::max(0.0, r.value.lo);  // no metric is negative; a wide t interval can be
    r.pass = passes(goals[g], r.value.mean);
    c.passes += r.pass ? 1 : 0;
    c.score += margin(goals[g], r.value.mean);
    c.goals.push_back(r);
  }
}

namespace {

bool dominates(const CandidateResult& a, const CandidateResult& b, const std::vector<Goal>& goals) {
  bool better = false;
  for (std::size_t g = 0; g < goals.size(); ++g) {
    const double ma = margin(goals[g], a.goals[g].value.mean), mb = margin(goals[g], b.goals[g].value.mean);
    if (ma < mb) return false;
    if (ma > mb) better = true;
  }
  return better;
}

bool same_point(const CandidateResult& a, const CandidateResult& b) {
  for (std::size_t g = 0; g < a.goals.size() && g < b.goals.size(); ++g) {
    if (a.goals[g].value.mean != b.goals[g].value.mean) return false;
  }
  return true;
}

// A selector naming a partition, account or QOS the site does not have would measure no jobs
// and pass or fail for nothing; it is bad input.
std::optional<std::string> check_goal_names(const Goal& g, const engine::LoadedSite& site) {
  const Selector& s = g.selector;
  if (!s.partition.empty() && !site.conf->config.find_partition(s.partition)) {
    return fmt::format("--goal {}: no partition '{}' in slurm.conf", g.text, s.partition);
  }
  if (!s.account.empty() && site.tree && site.tree->find_account(s.account) == kNoAssoc) {
    return fmt::format("--goal {}: no account '{}' in the association tree", g.text, s.account);
  }
  if (!s.qos.empty() && site.site.qos.from_input() && !site.site.qos.find(s.qos)) {
    return fmt::format("--goal {}: no QOS '{}' in the QOS table", g.text, s.qos);
  }
  return std::nullopt;
}

}  // namespace

std::optional<std::string> check_space(const SearchSite& s, const SearchSpec& spec) {
  for (const Goal& g : spec.goals) {
    if (auto e = check_goal_names(g, *s.base)) return e;
  }
  for (const Dimension& d : spec.dims) {
    std::string probe = s.conf_text;
    if (d.kind == KeyKind::kPartition && !set_partition_field(probe, d.scope, d.key, "0")) {
      return fmt::format("--vary {}: partition '{}' is not defined in {} (a partition from an Include is not edited)",
                         d.spec, d.scope, s.conf_path);
    }
    if (d.kind == KeyKind::kQos && !s.base->site.qos.find(d.scope)) {
      return fmt::format("--vary {}: QOS '{}' is not in the QOS table{}", d.spec, d.scope,
                         s.base->site.qos.from_input() ? "" : " (give it with --qos)");
    }
  }
  return std::nullopt;
}

std::size_t grid_size(const SearchSpec& spec) {
  std::size_t total = 1;
  for (const Dimension& d : spec.dims) total = total > spec.max_candidates ? total : total * d.values.size();
  return total;
}

std::optional<std::string> check_grid_size(const SearchSpec& spec) {
  if (grid_size(spec) <= spec.max_candidates) return std::nullopt;
  return fmt::format(
      "the grid has more than {} candidates; vary fewer settings or fewer points, raise "
      "--max-candidates, or sample the space with --search halving",
      spec.max_candidates);
}

void rank_candidates(std::vector<CandidateResult>& ranked, const std::vector<Goal>& goals, bool& conflict) {
  std::stable_sort(ranked.begin(), ranked.end(), ranks_before);
  // Candidates equal on every goal are one point of the front: the goals conflict only when
  // the front has two points that differ.
  const CandidateResult* first = nullptr;
  conflict = false;
  for (std::size_t i = 0; i < ranked.size(); ++i) {
    ranked[i].rank = static_cast<int>(i) + 1;
    ranked[i].pareto = std::none_of(ranked.begin(), ranked.end(),
                                    [&](const CandidateResult& o) { return dominates(o, ranked[i], goals); });
    if (!ranked[i].pareto) continue;
    if (first && !same_point(*first, ranked[i])) conflict = true;
    if (!first) first = &ranked[i];
  }
}

bool ranks_before(const CandidateResult& a, const CandidateResult& b) {
  if (a.passes != b.passes) return a.passes > b.passes;
  if (a.score != b.score) return a.score > b.score;
  return a.index < b.index;
}

std::vector<std::size_t> SearchPlan::runnable() const {
  std::vector<std::size_t> out;
  for (std::size_t i = 0; i < candidates.size(); ++i) {
    if (!candidates[i].skip_reason) out.push_back(i);
  }
  return out;
}

Result<SearchPlan> plan_search(const SearchSite& s, const SearchSpec& spec) {
  if (auto e = check_space(s, spec)) return Error{*e};
  if (auto e = check_grid_size(spec)) return Error{*e};
  std::vector<CandidateResult> grid(grid_size(spec));
  for (std::size_t i = 0; i < grid.size(); ++i) {
    grid[i].index = i;
    grid[i].values = grid_values(spec.dims, i);
  }
  return plan_candidates(s, spec, std::move(grid));
}

SearchPlan plan_candidates(const SearchSite& s, const SearchSpec& spec, std::vector<CandidateResult> candidates) {
  const std::size_t total = candidates.size();
  const Analysis& base = *s.base->conf;
  SearchPlan plan;
  plan.candidates.resize(total + 1);
  plan.sites.resize(total + 1);
  plan.sites[0] = make_site(s, analyze_text(s.conf_path, s.conf_text, s.analyze), s.base->site.qos);
  const Setting* sched = base.config.setting("SchedulerParameters");
  for (const Dimension& d : spec.dims) {
    plan.candidates[0].values.push_back(current_value(s.conf_text, sched ? sched->value : "", s.base->site.qos, d));
  }
  plan.candidates[0].conf_text = s.conf_text;
  for (std::size_t i = 1; i <= total; ++i) {
    plan.candidates[i] = std::move(candidates[i - 1]);
    plan.sites[i] = prepare(s, spec, base, plan.candidates[i]);
  }
  return plan;
}

std::vector<SeedValues> simulate_slots(const SearchSite& s, const SearchSpec& spec, const SearchPlan& plan,
                                       const std::vector<std::size_t>& slots, const CandidateDone& done) {
  const std::size_t seeds = s.loads.size();
  std::vector<SeedValues> values(plan.candidates.size());
  // The lint behind findings[] goals is per candidate, not per seed, and stays on this thread.
  std::vector<FindingCounts> findings(plan.candidates.size());
  for (std::size_t slot : slots) {
    values[slot].resize(seeds);
    if (wants_findings(spec.goals)) findings[slot] = count_findings(*plan.sites[slot]);
  }
  // A candidate is done when its last seed is: the counter tells which worker finishes it.
  std::vector<std::atomic<std::size_t>> left(plan.candidates.size());
  for (std::size_t slot : slots) left[slot] = seeds;
  std::mutex done_mutex;
  parallel_for(slots.size() * seeds, spec.jobs, [&](std::size_t task) {
    const std::size_t c = slots[task / seeds], k = task % seeds;
    values[c][k] = run_seed(*plan.sites[c], findings[c], s.loads[k], spec.goals);
    if (--left[c] == 0 && done) {
      const std::lock_guard<std::mutex> lock(done_mutex);
      done(c, values[c]);
    }
  });
  return values;
}

std::vector<std::size_t> cut_seeds(const SeedValues& values) {
  std::vector<std::size_t> out;
  for (std::size_t k = 0; k < values.size(); ++k) {
    if (values[k].empty()) out.push_back(k);
  }
  return out;
}

namespace {

// "... on 2 of 3 seed loads (loads 1, 3)": which runs a cut candidate lost.
std::string cut_text(const std::vector<std::size_t>& cut, std::size_t seeds) {
  std::vector<std::string> ordinals;
  for (std::size_t k : cut) ordinals.push_back(std::to_string(k + 1));
  return fmt::format(
      "stopped early (WORK008: its step limit, or its clock standing still) on {} of {} seed load{} ({} {})",
      cut.size(), seeds, seeds == 1 ? "" : "s", cut.size() == 1 ? "load" : "loads", join(ordinals, ", "));
}

}  // namespace

Result<SearchOutcome> rank_results(SearchPlan plan, const std::vector<SeedValues>& values,
                                   const std::vector<Goal>& goals) {
  SearchOutcome out;
  std::vector<CandidateResult>& all = plan.candidates;
  if (std::vector<std::size_t> cut = cut_seeds(values[0]); !cut.empty()) {
    return Error{fmt::format(
        "the baseline's simulation (the current settings) {}: no candidate can be compared with it; raise the limit "
        "with --limit sim-steps=N if the load is meant to be this long",
        cut_text(cut, values[0].size()))};
  }
  summarise(all[0], values[0], goals);
  out.baseline = std::move(all[0]);
  for (std::size_t i = 1; i < all.size(); ++i) {
    if (!all[i].skip_reason) {
      if (std::vector<std::size_t> cut = cut_seeds(values[i]); !cut.empty()) {
        // Its goals would be scored on part of the load, which can make a worse policy look better.
        all[i].skip_reason = fmt::format("its simulation {}: not ranked", cut_text(cut, values[i].size()));
      }
    }
    if (all[i].skip_reason) {
      out.skipped.push_back(std::move(all[i]));
      continue;
    }
    summarise(all[i], values[i], goals);
    for (std::size_t g = 0; g < goals.size(); ++g) {
      all[i].goals[g].beats_baseline = beats(goals[g], all[i].goals[g].value, out.baseline.goals[g].value);
    }
    out.ranked.push_back(std::move(all[i]));
  }
  rank_candidates(out.ranked, goals, out.conflict);
  return out;
}

Result<SearchOutcome> run_search(const SearchSite& s, const SearchSpec& spec) {
  auto plan = plan_search(s, spec);
  if (!plan) return plan.failure();
  const std::vector<SeedValues> values = simulate_slots(s, spec, *plan, plan->runnable());
  return rank_results(std::move(*plan), values, spec.goals);
}

Result<SearchOutcome> run_candidates(const SearchSite& s, const SearchSpec& spec,
                                     std::vector<CandidateResult> candidates, std::vector<engine::Workload> loads) {
  const SearchSite rung{s.base, s.conf_path, s.conf_text, s.analyze, std::move(loads)};
  SearchPlan plan = plan_candidates(rung, spec, std::move(candidates));
  const std::vector<SeedValues> values = simulate_slots(rung, spec, plan, plan.runnable());
  return rank_results(std::move(plan), values, spec.goals);
}

}  // namespace sa::tune
