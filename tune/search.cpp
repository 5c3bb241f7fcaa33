#include "tune/search.h"

#include <algorithm>
#include <atomic>
#include <exception>
#include <thread>

#include <fmt/format.h>

#include "engine/metrics.h"
#include "engine/simulator.h"
#include "engine/workload/default_load.h"
#include "rules/framework/lint.h"
#include "tune/evaluate.h"

namespace sa::tune {

namespace {

// A candidate read and ready to simulate: its own config and QOS table.
struct Prepared {
  std::unique_ptr<engine::LoadedSite> site;
  FindingCounts findings;
};

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

// Writes the candidate's text and QOS table and reads the text again. Sets `skip` when the
// analyzer refuses the combination.
Prepared prepare(const SearchSite& s, const SearchSpec& spec, const Analysis& base, CandidateResult& c) {
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
  Prepared p;
  p.site = make_site(s, std::move(analysis), std::move(qos));
  if (wants_findings(spec.goals)) p.findings = count_findings(*p.site);
  return p;
}

std::vector<double> run_seed(const Prepared& p, const engine::Workload& load, const std::vector<Goal>& goals) {
  engine::Site site = p.site->site;
  engine::add_assumed_qos(site, load);
  engine::SimOptions options;
  options.partition_map = p.site->partition_map;
  if (load.until != engine::kNoTime) options.until = load.until;
  engine::Simulator simulator(site, options);
  const engine::SimResult result = simulator.run(load);
  const engine::Metrics metrics = engine::compute_metrics(result, site);
  const RunView view{result, metrics, site, &p.findings};
  std::vector<double> out;
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

void summarise(CandidateResult& c, const std::vector<std::vector<double>>& per_seed, const std::vector<Goal>& goals) {
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
  std::stable_sort(ranked.begin(), ranked.end(), [](const CandidateResult& a, const CandidateResult& b) {
    if (a.passes != b.passes) return a.passes > b.passes;
    if (a.score != b.score) return a.score > b.score;
    return a.index < b.index;
  });
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

Result<SearchOutcome> run_search(const SearchSite& s, const SearchSpec& spec) {
  if (auto e = check_space(s, spec)) return Error{*e};
  if (auto e = check_grid_size(spec)) return Error{*e};
  std::vector<CandidateResult> grid(grid_size(spec));
  for (std::size_t i = 0; i < grid.size(); ++i) {
    grid[i].index = i;
    grid[i].values = grid_values(spec.dims, i);
  }
  return run_candidates(s, spec, std::move(grid), s.loads);
}

SearchOutcome run_candidates(const SearchSite& s, const SearchSpec& spec, std::vector<CandidateResult> candidates,
                             const std::vector<engine::Workload>& loads) {
  const std::size_t total = candidates.size();
  const Analysis& base = *s.base->conf;
  // Reading the texts is quick and stays on this thread; the simulations fan out.
  std::vector<CandidateResult> all(total + 1);
  std::vector<Prepared> prepared(total + 1);
  prepared[0].site = make_site(s, analyze_text(s.conf_path, s.conf_text, s.analyze), s.base->site.qos);
  if (wants_findings(spec.goals)) prepared[0].findings = count_findings(*prepared[0].site);
  for (const Dimension& d : spec.dims) {
    all[0].values.push_back(current_value(
        s.conf_text,
        base.config.setting("SchedulerParameters") ? base.config.setting("SchedulerParameters")->value : "",
        s.base->site.qos, d));
  }
  all[0].conf_text = s.conf_text;
  for (std::size_t i = 1; i <= total; ++i) {
    all[i] = std::move(candidates[i - 1]);
    prepared[i] = prepare(s, spec, base, all[i]);
  }
  const std::size_t seeds = loads.size();
  std::vector<std::vector<std::vector<double>>> values(total + 1, std::vector<std::vector<double>>(seeds));
  parallel_for((total + 1) * seeds, spec.jobs, [&](std::size_t task) {
    const std::size_t c = task / seeds, k = task % seeds;
    if (prepared[c].site) values[c][k] = run_seed(prepared[c], loads[k], spec.goals);
  });
  SearchOutcome out;
  summarise(all[0], values[0], spec.goals);
  out.baseline = std::move(all[0]);
  for (std::size_t i = 1; i <= total; ++i) {
    if (all[i].skip_reason) {
      out.skipped.push_back(std::move(all[i]));
      continue;
    }
    summarise(all[i], values[i], spec.goals);
    for (std::size_t g = 0; g < spec.goals.size(); ++g) {
      all[i].goals[g].beats_baseline = beats(spec.goals[g], all[i].goals[g].value, out.baseline.goals[g].value);
    }
    out.ranked.push_back(std::move(all[i]));
  }
  rank_candidates(out.ranked, spec.goals, out.conflict);
  return out;
}

}  // namespace sa::tune
