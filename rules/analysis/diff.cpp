#include "rules/analysis/diff.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include <fmt/format.h>

#include "engine/site_loader.h"
#include "rules/analysis/evidence.h"

namespace sa::rules {

namespace {

// What each gathered place says of itself (BF001: "partition gpu: jobs up to 7-00:00:00").
std::multiset<std::string> place_notes(const Finding& f) {
  std::multiset<std::string> notes;
  for (const Location& r : f.related) notes.insert(r.note);
  return notes;
}

// Findings of the two configs match on code and the flagged line's text: the files have
// different names, and a changed line is a finding removed and one added.
// The code and the flagged line's text without its indentation.
std::string flagged(const Finding& f) {
  std::string text = f.snippet;
  text.erase(0, text.find_first_not_of(" \t"));
  return f.code + "|" + text;
}

std::string match_key(const Finding& f) {
  std::string key = flagged(f) + "|" + (f.loc.line > 0 ? "" : f.message);
  for (const std::string& n : place_notes(f)) key += "|" + n;  // a group that changed places changed
  return key;
}

// A finding the other config folds into a group of its kind (consolidate_repeats gathers
// findings whose texts differ only in names and numbers, so a list that grows by one name
// can join or leave a group) is still reported there: it is one of the group's places, with
// its own text as the place's note.
bool folded_into(const Finding& f, const std::vector<Finding>& others) {
  for (const Finding& g : others) {
    if (g.code != f.code) continue;
    for (const Location& r : g.related) {
      if (r.note == f.message) return true;
    }
  }
  return false;
}

void diff_findings(const LintReport& before, const LintReport& after, LintDiff& out) {
  std::multiset<std::string> old_keys, new_keys;
  for (const Finding& f : before.findings) old_keys.insert(match_key(f));
  for (const Finding& f : after.findings) new_keys.insert(match_key(f));
  for (const Finding& f : after.findings) {
    auto it = old_keys.find(match_key(f));
    if (it == old_keys.end() && folded_into(f, before.findings)) {
      ++out.unchanged;
    } else if (it == old_keys.end()) {
      out.added.push_back(f);
    } else {
      old_keys.erase(it);
      ++out.unchanged;
    }
  }
  for (const Finding& f : before.findings) {
    auto it = new_keys.find(match_key(f));
    if (it == new_keys.end() && folded_into(f, after.findings)) {
      ++out.unchanged;  // still reported, as a place of a group
    } else if (it == new_keys.end()) {
      out.removed.push_back(f);
    } else {
      new_keys.erase(it);
    }
  }
  // A finding left on each side with the same code and flagged line, or the only one of its
  // code on each side, is the same cause over other places (a rule that gathers its places):
  // changed, not removed and added.
  auto pair_up = [&](auto same) {
    for (auto a = out.added.begin(); a != out.added.end();) {
      auto r = std::find_if(out.removed.begin(), out.removed.end(), [&](const Finding& x) { return same(x, *a); });
      if (r == out.removed.end()) {
        ++a;
        continue;
      }
      const std::multiset<std::string> was = place_notes(*r);
      bool gained = a->related.size() > r->related.size();
      for (const std::string& n : place_notes(*a)) gained = gained || (!n.empty() && was.count(n) == 0);
      out.changed.push_back({*r, *a, gained});
      out.removed.erase(r);
      a = out.added.erase(a);
    }
  };
  pair_up([&](const Finding& x, const Finding& y) { return flagged(x) == flagged(y); });
  auto only_one = [&](const std::string& code) {
    auto n = [&](const std::vector<Finding>& v) {
      return std::count_if(v.begin(), v.end(), [&](const Finding& f) { return f.code == code; });
    };
    return n(out.added) == 1 && n(out.removed) == 1;
  };
  pair_up([&](const Finding& x, const Finding& y) { return x.code == y.code && only_one(x.code); });
}

void compare(const std::string& what, const std::string& a, const std::string& b, LintDiff& out) {
  if (a != b) out.settings.push_back({what, a, b});
}

void diff_settings(const Config& a, const Config& b, LintDiff& out) {
  std::set<std::string> keys;
  for (const auto& [k, v] : a.settings) keys.insert(k);
  for (const auto& [k, v] : b.settings) keys.insert(k);
  for (const std::string& k : keys) {
    const Setting* x = a.setting(k);
    const Setting* y = b.setting(k);
    compare(x ? x->key : y->key, x ? x->value : "", y ? y->value : "", out);
  }
  std::set<std::string> names;
  for (const Partition& p : a.partitions) names.insert(p.name);
  for (const Partition& p : b.partitions) names.insert(p.name);
  for (const std::string& n : names) {
    const Partition* x = a.find_partition(n);
    const Partition* y = b.find_partition(n);
    if (!x || !y) {
      compare("PartitionName=" + n, x ? "defined" : "", y ? "defined" : "", out);
      continue;
    }
    std::set<std::string> pk;
    for (const auto& [k, v] : x->raw) pk.insert(k);
    for (const auto& [k, v] : y->raw) pk.insert(k);
    for (const std::string& k : pk) {
      auto vx = x->raw.find(k), vy = y->raw.find(k);
      compare("PartitionName=" + n + " " + k, vx == x->raw.end() ? "" : vx->second,
              vy == y->raw.end() ? "" : vy->second, out);
    }
  }
  compare("nodes", std::to_string(a.nodes.size()), std::to_string(b.nodes.size()), out);
}

void diff_group(const char* group, const std::map<std::string, engine::WaitStats>& a,
                const std::map<std::string, engine::WaitStats>& b, LintDiff& out) {
  for (const auto& [name, before] : a) {
    auto it = b.find(name);
    if (it != b.end())
      out.metrics.push_back({group, name, before, it->second, std::nullopt, std::nullopt, std::nullopt});
  }
}

void diff_runs(const Simulation& a, const Simulation& b, LintDiff& out) {
  out.utilization_before = a.metrics.utilization;
  out.utilization_after = b.metrics.utilization;
  out.coverage_before = engine::load_coverage(a.result, a.config ? *a.config : *a.site.config);
  out.coverage_after = engine::load_coverage(b.result, b.config ? *b.config : *b.site.config);
  diff_group("partition", a.metrics.by_partition, b.metrics.by_partition, out);
  diff_group("account", a.metrics.by_account, b.metrics.by_account, out);
  diff_group("size", a.metrics.by_size, b.metrics.by_size, out);
  for (MetricChange& m : out.metrics) {
    if (m.group != "account") continue;
    for (const auto& s : a.metrics.account_shares) {
      if (s.account == m.name) {
        m.share_before = s.actual;
        m.share_target = s.target;
      }
    }
    for (const auto& s : b.metrics.account_shares) {
      if (s.account == m.name) m.share_after = s.actual;
    }
  }
  // The same load in both runs: jobs match by position (and id).
  const std::size_t n = std::min(a.result.jobs.size(), b.result.jobs.size());
  for (std::size_t i = 0; i < n; ++i) {
    const engine::SimJob& x = a.result.jobs[i];
    const engine::SimJob& y = b.result.jobs[i];
    if (x.req.id != y.req.id || x.start == y.start) continue;
    out.moved.push_back({x.req.id, x.req.user, x.req.account, partition_of(b, y), x.req.submit, x.start, y.start});
  }
  auto shift = [&](const MovedJob& m) {
    const std::int64_t end = std::max(a.result.end, b.result.end);
    return std::abs((m.start_after < 0 ? end : m.start_after) - (m.start_before < 0 ? end : m.start_before));
  };
  std::stable_sort(out.moved.begin(), out.moved.end(), [&](const MovedJob& p, const MovedJob& q) {
    return shift(p) != shift(q) ? shift(p) > shift(q) : p.job < q.job;
  });
  if (out.moved.size() > 10) out.moved.resize(10);
}

// One line for a run that stopped early (its step limit, or a still clock); nothing for a
// whole run.
void cut_run(const char* which, const Simulation& sim, LintDiff& out) {
  const std::optional<engine::StepLimitStop> stop = sim.result.step_limit_stop();
  if (!stop) return;
  out.cut_runs.push_back(
      engine::step_limit_text(*stop, sim.site.max_sim_steps, fmt::format("the {} config's simulation", which)) +
      " (WORK008)");
  out.stalled_run = out.stalled_run || stop->stalled;
}

}  // namespace

std::vector<Regression> outcome_regressions(const LintDiff& d, double pct) {
  std::vector<Regression> out;
  const double factor = 1.0 + pct / 100.0;
  constexpr double kMinWaitIncrease = 600;  // seconds
  for (const MetricChange& m : d.metrics) {
    if (m.group == "partition" || m.group == "size") {
      const double a = m.before.p95, b = m.after.p95;
      if (b > a * factor && b - a >= kMinWaitIncrease) {
        out.push_back({"p95 wait", m.group, m.name, a, b,
                       fmt::format("{} {}: p95 wait {} -> {} (+{:.1f}%)", m.group, m.name,
                                   slurm_duration(static_cast<std::int64_t>(a)),
                                   slurm_duration(static_cast<std::int64_t>(b)), a > 0 ? 100.0 * (b - a) / a : 100.0)});
      }
    }
    if (m.group == "account" && m.share_before && m.share_after && m.share_target && *m.share_target > 0) {
      const double a = std::abs(*m.share_before - *m.share_target), b = std::abs(*m.share_after - *m.share_target);
      if (b - a > pct / 100.0 * *m.share_target) {
        out.push_back({"share off target", "account", m.name, *m.share_before, *m.share_after,
                       fmt::format("account {}: delivered share {:.1f}% -> {:.1f}% against a target of {:.1f}%", m.name,
                                   100 * *m.share_before, 100 * *m.share_after, 100 * *m.share_target)});
      }
    }
  }
  if (d.coverage_before && d.coverage_after) {
    const auto a = static_cast<double>(d.coverage_before->total.pending_at_end);
    const auto b = static_cast<double>(d.coverage_after->total.pending_at_end);
    if (b > a * factor && b - a >= 1) {
      out.push_back({"jobs never started", "run", "all", a, b,
                     fmt::format("jobs still pending at the end of the run: {:.0f} -> {:.0f}", a, b)});
    }
  }
  return out;
}

std::vector<const Finding*> LintDiff::worse() const {
  std::vector<const Finding*> out;
  for (const Finding& f : added) out.push_back(&f);
  for (const ChangedFinding& c : changed) {
    if (c.gained) out.push_back(&c.after);
  }
  return out;
}

LintDiff diff_lints(const LintReport& before, const LintReport& after, const Config& old_config,
                    const Config& new_config) {
  LintDiff out;
  diff_findings(before, after, out);
  diff_settings(old_config, new_config, out);
  if (before.simulation && after.simulation) {
    out.scenario = after.scenario;
    cut_run("old", *before.simulation, out);
    cut_run("new", *after.simulation, out);
    if (out.cut_runs.empty()) diff_runs(*before.simulation, *after.simulation, out);
  }
  return out;
}

}  // namespace sa::rules
