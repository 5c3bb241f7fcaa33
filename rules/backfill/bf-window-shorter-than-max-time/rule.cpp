// BF001: jobs may ask for longer than bf_window. Backfill plans only bf_window ahead, so a
// job whose expected start lies beyond it gets no reservation and smaller jobs keep
// backfilling ahead of it. The longest limit a job may ask for in a partition is its MaxTime
// cut by every MaxWall that applies there (the partition's QOS; the longest of the job QOS
// the partition admits; the association's), not MaxTime alone. One window is one cause: a
// single finding at the first partition it falls short for, the others related.
#include <algorithm>
#include <cmath>
#include <optional>

#include <fmt/format.h>

#include "analyzer/text_util.h"
#include "rules/analysis/backfill_stats.h"
#include "rules/analysis/evidence.h"
#include "rules/analysis/queue_pairs.h"
#include "rules/framework/context.h"
#include "rules/framework/fix_effect.h"
#include "rules/framework/rule.h"
#include "rules/framework/sink.h"

namespace sa::rules {

namespace {

constexpr std::int64_t kUnlimited = -1;

struct Short {
  std::size_t part = 0;
  std::int64_t cap = kUnlimited;  // the longest limit a job may ask for there; -1 unlimited
  std::string why;                // what sets the cap, when not MaxTime alone
  bool qos_unseen = false;        // it names QOS whose MaxWall could cap it, and no QOS table was given
};

bool admits_qos(const Partition& p, const std::string& q) {
  auto named = [&](const std::vector<std::string>& l) {
    return std::any_of(l.begin(), l.end(), [&](const std::string& n) { return iequals(n, q) || iequals(n, "ALL"); });
  };
  if (!p.allow_qos.empty() && !named(p.allow_qos)) return false;
  return p.deny_qos.empty() || !named(p.deny_qos);
}

std::int64_t min_cap(std::int64_t a, std::int64_t b) { return a < 0 ? b : (b < 0 ? a : std::min(a, b)); }

// The longest MaxWall any user association may run under (unlimited when one has none).
std::int64_t association_cap(const AssocTree& tree) {
  std::int64_t cap = 0;
  for (const Association& a : tree.assocs) {
    if (!a.is_user()) continue;
    std::int64_t own = kUnlimited;
    for (std::uint32_t up = a.id; up != kNoAssoc; up = tree.assocs[up].parent) {
      if (tree.assocs[up].limits.max_wall_per_job) {
        own = *tree.assocs[up].limits.max_wall_per_job;
        break;
      }
    }
    if (own < 0) return kUnlimited;
    cap = std::max(cap, own);
  }
  return cap > 0 ? cap : kUnlimited;
}

Short cap_of(const LintContext& ctx, std::size_t i, std::int64_t assoc_cap) {
  const Partition& p = ctx.config().partitions[i];
  Short s{i, p.max_time < 0 ? kUnlimited : p.max_time, {}};
  if (!ctx.has_qos_table()) {
    const bool names_qos = !p.qos.empty() || std::any_of(p.allow_qos.begin(), p.allow_qos.end(),
                                                         [](const std::string& q) { return !iequals(q, "ALL"); });
    s.qos_unseen = names_qos;
    return s;
  }
  // The job QOS the partition admits: the longest MaxWall among them (unlimited if one has none).
  std::int64_t qos_cap = 0;
  std::string longest_qos;
  for (const QosRecord& q : ctx.qos().records) {
    if (!admits_qos(p, q.name)) continue;
    const std::int64_t wall = q.max_wall && *q.max_wall > 0 ? *q.max_wall : kUnlimited;
    if (wall < 0) {
      qos_cap = kUnlimited;
      break;
    }
    if (wall > qos_cap) longest_qos = q.name;
    qos_cap = std::max(qos_cap, wall);
  }
  std::int64_t cap = s.cap;
  if (qos_cap > 0 && min_cap(cap, qos_cap) != cap) {
    cap = min_cap(cap, qos_cap);
    s.why = fmt::format("QOS MaxWall: the longest admitted QOS, {}, allows {}", longest_qos, slurm_duration(qos_cap));
  }
  if (const QosRecord* pq = p.qos.empty() ? nullptr : ctx.qos().find(p.qos); pq && pq->max_wall && *pq->max_wall > 0) {
    if (min_cap(cap, *pq->max_wall) != cap) s.why = fmt::format("partition QOS {} MaxWall", pq->name);
    cap = min_cap(cap, *pq->max_wall);
  }
  if (assoc_cap > 0 && min_cap(cap, assoc_cap) != cap) {
    cap = min_cap(cap, assoc_cap);
    s.why = "association MaxWall";
  }
  s.cap = cap;
  return s;
}

// The jobs the window left without a reservation: a backfill test found their start only past
// bf_window at least once (SimJob::bf_beyond_window). Not the jobs with long limits: those
// backfill freely under a short window, and a wider one can make them wait longer (its
// reservations then reach their runs); the ones it protects are the jobs, usually large, that
// queue behind long runs. The same job ids are followed into the re-simulation.
struct Unplanned {
  engine::WaitStats waits;
  std::vector<std::uint32_t> ids;            // ascending
  std::vector<const engine::SimJob*> worst;  // longest waits first, at most five
};

Unplanned unplanned_jobs(const Simulation& sim, const std::vector<char>& best_effort) {
  Unplanned out;
  for (const engine::SimJob& j : sim.result.jobs) {
    // A job of a partition whose long jobs the site marked best-effort is no evidence.
    if (!j.bf_beyond_window || j.recs.empty() || best_effort[j.run_or_first_rec().part]) continue;
    out.ids.push_back(j.req.id);
    out.worst.push_back(&j);
  }
  std::sort(out.ids.begin(), out.ids.end());
  out.waits = wait_stats(sim, out.worst);
  std::stable_sort(out.worst.begin(), out.worst.end(),
                   [&](auto* a, auto* b) { return wait_of(sim, *a) > wait_of(sim, *b); });
  if (out.worst.size() > 5) out.worst.resize(5);
  return out;
}

// The waits of the given jobs (ascending ids) in another run of the same load.
engine::WaitStats waits_of(const Simulation& sim, const std::vector<std::uint32_t>& ids) {
  std::vector<const engine::SimJob*> jobs;
  for (const engine::SimJob& j : sim.result.jobs) {
    if (std::binary_search(ids.begin(), ids.end(), j.req.id)) jobs.push_back(&j);
  }
  return wait_stats(sim, jobs);
}

nlohmann::json run_metrics(const Simulation& sim, const engine::WaitStats& unplanned) {
  return {{"unplanned_job_waits", wait_json(unplanned)},
          // Every job's wait on the unplanned jobs' footing (one still pending counts to the
          // end of the run), so the two read side by side.
          {"all_job_waits", wait_json(wait_stats(sim, longest_waits(sim)))},
          {"utilization", sim.metrics.utilization},
          {"pending_at_end", sim.metrics.pending_at_end},
          {"backfill_plans_beyond_window", sim.result.counters.bf_no_resv_beyond_window}};
}

std::string limit_text(std::int64_t cap) { return cap < 0 ? "UNLIMITED" : slurm_duration(cap); }

// A wider window counts as shortening the unplanned jobs' waits when their mean falls by a
// tenth and by ten minutes or more. Less is what the load's own draw moves: on the corpus,
// gains of 1 to 5 % came and went with a change to how the default load spreads its jobs,
// and turned the finding from a note to a warning and back, with a 22-day window as the fix
// (TalTech). No admin widens a window, which costs backfill time, for that.
constexpr double kShorterBy = 0.10;
constexpr double kShorterBySeconds = 600;

bool shortened(const Unplanned& before, const engine::WaitStats& later) {
  return before.waits.jobs > 0 && later.mean <= (1 - kShorterBy) * before.waits.mean &&
         before.waits.mean - later.mean >= kShorterBySeconds;
}

// What the re-simulation did to the unplanned jobs' waits where it did not shorten them
// (above): nothing, or a gain too small to count, with its figures.
std::string not_shortened(const Unplanned& before, const engine::WaitStats& later) {
  if (before.waits.jobs == 0 || later.mean >= before.waits.mean - 0.5)
    return "did not shorten the waits of the jobs the window left without a reservation";
  // Rounded down, so a gain just under the tenth never reads as one.
  const double gain = 100 * (1 - later.mean / before.waits.mean);
  return fmt::format(
      "shortened the waits of the {} jobs the window left without a reservation by {} (mean {} before, {} after)",
      before.waits.jobs, gain < 1 ? std::string("under 1 %") : fmt::format("only {:.0f} %", std::floor(gain)),
      slurm_duration(std::llround(before.waits.mean)), slurm_duration(std::llround(later.mean)));
}

// What the re-simulation of `change` did, for the message of a finding it did not bear out.
std::string measured(const Unplanned& before, const engine::WaitStats& later, FixEffect effect,
                     const std::string& change) {
  if (before.waits.jobs == 0) return "no job was planned beyond the window";
  return change +
         (effect == FixEffect::kNone ? " changed no outcome by more than 1 %" : " " + not_shortened(before, later));
}

// The run's evidence: the scenario, the unplanned jobs' and every job's waits, and the
// unplanned jobs that waited longest.
void attach_run(Finding& f, const Simulation& sim, const Unplanned& before) {
  nlohmann::json static_part = f.evidence;
  f.evidence = simulated_evidence(sim);
  f.evidence["partitions_beyond_window"] = static_part["partitions_beyond_window"];
  f.evidence["metrics"] = run_metrics(sim, before.waits);
  // Only jobs that waited are evidence of the window (a job that started at once is not).
  for (const engine::SimJob* j : before.worst) {
    if (wait_of(sim, *j) >= 60) f.evidence["examples"].push_back(job_json(sim, *j));
  }
}

// The longest limit or run time the load's jobs had in these partitions, in whole days: a
// MaxTime there and a window that long refuse, cut and leave unplanned none of them.
std::int64_t load_cover(const Simulation& sim, const std::vector<Short>& shorts, std::size_t partitions) {
  std::vector<char> in(partitions, 0);
  for (const Short& s : shorts) in[s.part] = 1;
  std::int64_t cover = 0;
  for (const engine::SimJob& j : sim.result.jobs) {
    const engine::SimRecord* rec = j.run_or_first_rec_if_any();
    if (!rec || rec->part >= in.size() || !in[rec->part]) continue;
    cover = std::max({cover, rec->time_limit, j.req.run_time});
  }
  return (cover + 86399) / 86400 * 86400;
}

// Every partition behind the finding is UNLIMITED, so there is no finite limit to raise the
// window to. The run measures the fix that gives every job a limit a window covers: MaxTime
// on those partitions and bf_window as long, at the load's own longest limit or run there.
// It gives the jobs that state no --time (a quarter of the default load's where there is no
// DefaultTime; as recorded in a recorded load) that MaxTime in place of no limit at all.
// Where that does not shorten the unplanned jobs' waits it is a note, as for finite limits;
// a partition without DefaultTime keeps a DefaultTime as the fix.
struct UnlimitedCase {
  const std::vector<Short>& shorts;
  const std::vector<char>& best_effort;
  const std::vector<std::string>& no_default;
};

void measure_unlimited(const LintContext& ctx, Finding& f, const UnlimitedCase& u) {
  const Simulation* sim = ctx.simulation();
  if (!sim) return;
  const Unplanned before = unplanned_jobs(*sim, u.best_effort);
  attach_run(f, *sim, before);
  const std::int64_t cover = load_cover(*sim, u.shorts, ctx.config().partitions.size());
  if (cover <= 0) return;  // the load ran no job there
  std::vector<ConfigEdit> edits;
  std::vector<std::string> names;
  for (const Short& s : u.shorts) {
    names.push_back(ctx.config().partitions[s.part].name);
    edits.push_back(ConfigEdit::partition_key(names.back(), "MaxTime", slurm_duration(cover)));
  }
  // A window already as long needs no raise (the jobs without a limit are what it missed).
  const bool raise = cover > ctx.config().scheduler.bf_window;
  if (raise) edits.push_back(ConfigEdit::scheduler_parameter("bf_window", std::to_string(cover / 60)));
  const std::string window = raise ? fmt::format("bf_window={}", cover / 60) : std::string();
  const std::string label = fmt::format("MaxTime={}{}{}", slurm_duration(cover), raise ? " " : "", window);
  const SimulationPtr after_run = ctx.resimulate(label, edits);
  const Simulation& after = *after_run;
  const engine::WaitStats later = waits_of(after, before.ids);
  f.fix->resimulated = run_metrics(after, later);
  f.fix->resimulated["scenario"] = scenario_json(after.scenario);
  const std::string change = fmt::format("MaxTime={} on {}{}{} (the load's longest limit or run there)",
                                         slurm_duration(cover), join(names, ", "), raise ? " with " : "", window);
  if (shortened(before, later)) {
    f.message += fmt::format(
        "; on the simulated load {} shortened the waits of the {} jobs the window left without a reservation "
        "(mean {} before, {} after)",
        change, before.waits.jobs, slurm_duration(std::llround(before.waits.mean)),
        slurm_duration(std::llround(later.mean)));
    return;
  }
  const FixEffect effect = fix_effect(f);
  const std::string what = measured(before, later, effect, change);
  // Not borne out: the measured part is kept as a fix not suggested (judge_fix does the same
  // for a fix that changed nothing or made things worse, here also for one that only traded).
  auto not_suggested = [&] {
    f.evidence["fix_effect"] = fix_effect_name(effect);
    withdraw_fix(f, label, not_shortened(before, later));
  };
  f.severity = Severity::kInfo;
  f.message += fmt::format("; on the simulated load {}, so here it is a note", what);
  if (u.no_default.empty()) {
    if (effect == FixEffect::kMixed || effect == FixEffect::kWorse) not_suggested();
    return;
  }
  not_suggested();
  f.fix = Fix{fmt::format("set a DefaultTime (about what a typical job runs) on {}", join(u.no_default, ", ")),
              "DefaultTime",
              "",
              {}};
}

void check(const LintContext& ctx, FindingSink& sink) {
  const Config& c = ctx.config();
  if (c.scheduler.type != "sched/backfill") return;
  const std::int64_t window = c.scheduler.bf_window;
  const std::int64_t assoc_cap = ctx.tree() ? association_cap(*ctx.tree()) : kUnlimited;
  std::vector<Short> shorts;
  std::vector<char> best_effort(c.partitions.size(), 0);
  for (std::size_t i = 0; i < c.partitions.size(); ++i) {
    const Partition& p = c.partitions[i];
    if (!takes_user_jobs(p)) continue;
    Short s = cap_of(ctx, i, assoc_cap);
    if (s.cap >= 0 && s.cap <= window) continue;
    if (ctx.suppressions().suppressed("BF001", ctx.conf_loc(p.loc))) {  // marked as deliberate there
      best_effort[i] = 1;
      continue;
    }
    shorts.push_back(std::move(s));
  }
  if (shorts.empty()) return;
  // The finite cap the fix must cover: the longest one (unlimited partitions need a limit).
  std::int64_t longest = 0;
  for (const Short& s : shorts) longest = std::max(longest, s.cap);
  std::vector<std::string> names;
  for (const Short& s : shorts) names.push_back(fmt::format("{} ({})", c.partitions[s.part].name, limit_text(s.cap)));
  const Partition& first = c.partitions[shorts.front().part];
  const bool window_written = ctx.sched_param_written("bf_window");
  Finding& f = sink.report(
      ctx.conf_loc(first.loc),
      fmt::format("bf_window is {} ({} min{}), shorter than the limits jobs may ask for in {}; backfill gives jobs "
                  "that would start beyond the window no reservation, so smaller jobs can keep starting ahead of them",
                  slurm_duration(window), window / 60, window_written ? "" : ", the default",
                  shorts.size() == 1
                      ? fmt::format("partition {} (up to {})", first.name, limit_text(shorts.front().cap))
                      : fmt::format("{} partitions: {}", shorts.size(), join(names, ", "))));
  // A site that caps run time with QOS MaxWall (AllowQos or a partition QOS, MaxTime left
  // UNLIMITED) looks unlimited here without its QOS table: say so rather than guess.
  std::vector<std::string> naming_qos;
  for (const Short& s : shorts) {
    if (s.qos_unseen) naming_qos.push_back(c.partitions[s.part].name);
  }
  const bool qos_unseen = !naming_qos.empty();
  if (qos_unseen) {
    f.message += fmt::format(
        "; the QOS that {} {} may cap their jobs with MaxWall, which lint sees only with --qos (`sacctmgr show qos "
        "-P`)",
        join(naming_qos, ", "), naming_qos.size() == 1 ? "names" : "name");
  }
  // Every partition behind the finding may be capped by a QOS lint cannot see (Cirrus caps
  // each QOS with MaxWall under UNLIMITED partitions): the premise itself is unknown, and the
  // default load's assumed QOS have no MaxWall either, so no run can settle it. A note.
  const bool all_unseen = naming_qos.size() == shorts.size();
  if (all_unseen) {
    f.severity = Severity::kInfo;
    f.message += "; every partition above names QOS, so this is a note until lint sees their MaxWall";
  }
  // With no limit anywhere and no DefaultTime, a job that gives no --time runs unlimited
  // (slurmctld gives it the partition's MaxTime): the usual case on small clusters, and the
  // one a DefaultTime alone mends.
  // job_submit/require_timelimit refuses a job without --time, and --time=UNLIMITED: there
  // every job states a finite limit and no DefaultTime is needed.
  const bool time_required = c.time_limit_required();
  std::vector<std::string> no_default;
  for (const Short& s : shorts) {
    const Partition& p = c.partitions[s.part];
    if (s.cap < 0 && p.default_time < 0 && !time_required) no_default.push_back(p.name);
  }
  std::vector<std::string> unlimited_parts;
  for (const Short& s : shorts) {
    if (s.cap < 0) unlimited_parts.push_back(c.partitions[s.part].name);
  }
  if (time_required && !unlimited_parts.empty()) {
    f.message += fmt::format(
        "; JobSubmitPlugins=require_timelimit makes every job state a finite --time, so UNLIMITED on {} only "
        "means a job may ask for any length",
        join(unlimited_parts, ", "));
  }
  if (!no_default.empty()) {
    f.message += fmt::format(
        "; {} {} no DefaultTime, so a job there without --time has no time limit at all and no window plans "
        "around it",
        join(no_default, ", "), no_default.size() == 1 ? "sets" : "set");
  }
  // Where bf_window is written, or would go. (With no SchedulerParameters there is no line to
  // point at; the related lines are part of the fingerprint, so the place stays otherwise.)
  if (window_written || c.setting("SchedulerParameters")) {
    Location w = ctx.sched_param_loc("bf_window");
    w.note = window_written ? "bf_window" : "SchedulerParameters, where bf_window would go";
    f.related.push_back(w);
  }
  nlohmann::json caps = nlohmann::json::array();
  for (std::size_t k = 0; k < shorts.size(); ++k) {
    const Short& s = shorts[k];
    const Partition& p = c.partitions[s.part];
    if (k > 0) {
      Location at = ctx.conf_loc(p.loc);
      at.note = fmt::format("partition {}: jobs up to {}", p.name, limit_text(s.cap));
      f.related.push_back(at);
    }
    nlohmann::json row = {{"partition", p.name}, {"longest_limit", limit_text(s.cap)}};
    if (!s.why.empty()) row["capped_by"] = s.why;
    caps.push_back(row);
  }
  f.evidence["partitions_beyond_window"] = caps;
  if (longest <= 0) {
    f.fix = Fix{std::string(qos_unseen ? "lint with --qos to see the QOS MaxWall limits; if none caps them, " : "") +
                    (no_default.empty() ? "" : "set a DefaultTime (about what a typical job runs) and ") +
                    (time_required ? "give these partitions a MaxTime (under UNLIMITED no window covers what a "
                                     "job may ask for), then raise "
                                   : "give these partitions a MaxTime (an UNLIMITED limit cannot be planned for), "
                                     "then raise ") +
                    "bf_window to the longest of them",
                "MaxTime",
                "",
                {}};
    // (With QOS unseen the premise is unknown: no run settles it.)
    if (!qos_unseen) measure_unlimited(ctx, f, UnlimitedCase{shorts, best_effort, no_default});
    return;
  }
  const std::int64_t minutes = (longest + 59) / 60;
  const std::string label = fmt::format("bf_window={}", minutes);
  const std::vector<ConfigEdit> raise = {ConfigEdit::scheduler_parameter("bf_window", std::to_string(minutes))};
  ctx.prefetch(label, raise);  // runs beside the base simulation
  f.fix = Fix{fmt::format("raise bf_window to {} (minutes, the longest {}limit above) in SchedulerParameters; a wider "
                          "window costs backfill time, so consider a larger bf_resolution with it",
                          minutes, unlimited_parts.empty() ? "" : "finite "),
              "SchedulerParameters",
              fmt::format("bf_window={}", minutes),
              {}};
  const Simulation* sim = ctx.simulation();
  if (!sim) return;
  const Unplanned before = unplanned_jobs(*sim, best_effort);
  attach_run(f, *sim, before);
  const SimulationPtr after_run = ctx.resimulate(label, raise);
  const Simulation& after = *after_run;
  const engine::WaitStats later = waits_of(after, before.ids);
  f.fix->resimulated = run_metrics(after, later);
  f.fix->resimulated["scenario"] = scenario_json(after.scenario);
  // The finding's claim is that the jobs the window leaves unplanned wait for it. Where a
  // window covering the limits does not shorten their waits on the site's own load, it is a
  // design note (many sites keep the window short on purpose: each minute of it costs
  // backfill time); the fix and its trade-offs stay visible.
  if (shortened(before, later)) return;
  const FixEffect effect = fix_effect(f);
  const std::string what = measured(before, later, effect, fmt::format("a {}-minute window", minutes));
  // An UNLIMITED partition among them is not covered by the window re-simulated: its own
  // case (no window can plan for it) stands, and the message says which part was measured.
  // Where those UNLIMITED partitions give a job without --time their DefaultTime (or every
  // job must state one), only jobs that ask for more than the window go unplanned there, as
  // in the finite partitions measured: the note stands for them too (HuginSLURM's one-node
  // priorityLLM, DefaultTime=08:00:00). Without a DefaultTime the unplanned jobs are every
  // job that gives no --time, which the window cannot mend: that stays a warning, and its fix
  // is theirs (a DefaultTime and a MaxTime), not the wider window the run did not bear out.
  if (!unlimited_parts.empty() && !no_default.empty()) {
    f.message += fmt::format(
        "; on the simulated load {} (covering the finite limits only: no window covers {} until {} a MaxTime)", what,
        join(unlimited_parts, ", "), unlimited_parts.size() == 1 ? "it has" : "they have");
    withdraw_fix(f, f.fix->description, not_shortened(before, later));
    f.fix = Fix{fmt::format("set a DefaultTime (about what a typical job runs) on {} and give {} a MaxTime (an "
                            "UNLIMITED limit cannot be planned for)",
                            join(no_default, ", "), no_default.size() == 1 ? "it" : "them"),
                "DefaultTime",
                "",
                {}};
    return;
  }
  f.severity = Severity::kInfo;
  // Where every partition's QOS are unseen the message has already said it is a note.
  if (!unlimited_parts.empty()) {
    f.message += fmt::format(
        "; on the simulated load {} for the finite limits, and {} give{} a job without --time {}, so only jobs "
        "that ask for longer go unplanned there too{}",
        what, join(unlimited_parts, ", "), unlimited_parts.size() == 1 ? "s" : "",
        time_required ? "no way to run unlimited (require_timelimit)" : "its DefaultTime",
        all_unseen ? "" : ": here it is a note");
  } else {
    f.message += fmt::format("; on the simulated load {}{}", what, all_unseen ? "" : ", so here it is a note");
  }
  // A wider window that left those jobs' waits alone and only traded other outcomes (or made
  // them worse) is not this finding's fix: it is kept as re-simulated, not suggested.
  if (effect == FixEffect::kMixed || effect == FixEffect::kWorse) {
    f.evidence["fix_effect"] = fix_effect_name(effect);
    withdraw_fix(f, f.fix->description,
                 fmt::format("{} and {} other outcomes", not_shortened(before, later),
                             effect == FixEffect::kMixed ? "only traded" : "worsened"));
  }
}

}  // namespace

}  // namespace sa::rules

SA_RULE({"BF001", "bf-window-shorter-than-max-time", Severity::kWarning, Check::kBackfillLimits, SimUse::kEvidence,
         "jobs may ask for longer than bf_window, so the longest of them get no backfill reservation", check})
