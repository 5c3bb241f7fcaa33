#include "report/sim_charts.h"

#include <algorithm>
#include <cmath>
#include <map>

#include <fmt/format.h>

#include "engine/metrics.h"
#include "report/html_writer.h"
#include "rules/analysis/backfill_stats.h"
#include "rules/analysis/evidence.h"

namespace sa::report {

namespace {

using engine::SimJob;

bool counted(const SimJob& j) {
  return j.state != engine::JobState::kRejected && !j.recs.empty() && !j.cancelled_pending();
}

// Quartiles and whiskers by nearest rank, mean, median, p95 and max exactly as the metrics
// tables compute them (rules::wait_stats), so the chart and the tables agree.
BoxRow box_of(std::string label, std::vector<double> v) {
  BoxRow r;
  r.label = std::move(label);
  r.n = v.size();
  if (v.empty()) return r;
  std::sort(v.begin(), v.end());
  auto q = [&](double p) {
    const auto rank = static_cast<std::size_t>(std::ceil(p * static_cast<double>(v.size())));
    return v[std::clamp<std::size_t>(rank, 1, v.size()) - 1];
  };
  r.p5 = q(0.05), r.p25 = q(0.25), r.p75 = q(0.75);
  const engine::WaitStats w = rules::wait_stats(std::move(v));
  r.p50 = w.median, r.p95 = w.p95, r.max = w.max, r.mean = w.mean;
  return r;
}

// The run's timeline as the charts read it: buckets from the run's start, each bucket's
// length (the last one may be cut short by the end of the run), and a partition's
// CPU-seconds in a bucket (its rows are only as long as the partition was busy).
struct Buckets {
  const engine::PartitionTimeline& tl;
  std::int64_t span;
  std::size_t count;
  explicit Buckets(const engine::SimResult& r)
      : tl(r.timeline),
        span(std::max<std::int64_t>(1, r.end - r.start)),
        count(static_cast<std::size_t>((span + tl.bucket - 1) / tl.bucket)) {}
  std::vector<std::int64_t> offsets() const {
    std::vector<std::int64_t> x;
    for (std::size_t b = 0; b < count; ++b) x.push_back(static_cast<std::int64_t>(b) * tl.bucket);
    return x;
  }
  double seconds(std::size_t b) const {
    return static_cast<double>(std::min<std::int64_t>(tl.bucket, span - static_cast<std::int64_t>(b) * tl.bucket));
  }
  static double cell(const std::vector<std::vector<double>>& rows, std::size_t p, std::size_t b) {
    return p < rows.size() && b < rows[p].size() ? rows[p][b] : 0.0;
  }
};

const std::vector<std::string> kSizeOrder{"1", "2-16", "17-128", "129-1024", "1025+"};

std::size_t size_rank(const std::string& s) {
  return static_cast<std::size_t>(std::find(kSizeOrder.begin(), kSizeOrder.end(), s) - kSizeOrder.begin());
}

}  // namespace

std::vector<BoxRow> waits_by_partition(const rules::Simulation& sim) {
  const Config& c = *sim.site.config;
  std::vector<std::vector<double>> waits(c.partitions.size());
  for (const SimJob& j : sim.result.jobs) {
    if (counted(j)) waits[j.run_or_first_rec().part].push_back(static_cast<double>(rules::wait_of(sim, j)));
  }
  std::vector<BoxRow> rows;
  for (std::size_t p = 0; p < waits.size(); ++p) {
    if (!waits[p].empty()) rows.push_back(box_of(c.partitions[p].name, std::move(waits[p])));
  }
  return rows;
}

std::vector<BoxRow> waits_by_tier(const rules::Simulation& sim) {
  const Config& c = *sim.site.config;
  std::map<int, std::vector<double>, std::greater<>> waits;  // highest tier first, as the queue orders them
  std::map<int, std::vector<std::string>> names;
  for (const SimJob& j : sim.result.jobs) {
    if (counted(j))
      waits[c.partitions[j.run_or_first_rec().part].priority_tier].push_back(
          static_cast<double>(rules::wait_of(sim, j)));
  }
  for (const Partition& p : c.partitions) names[p.priority_tier].push_back(p.name);
  std::vector<BoxRow> rows;
  rows.reserve(waits.size());
  for (auto& [tier, w] : waits) {
    rows.push_back(box_of(fmt::format("tier {}: {}", tier, rules::join_names(names[tier])), std::move(w)));
  }
  return rows;
}

PriorityClasses priority_by_class(const rules::Simulation& sim, std::size_t max_rows) {
  const Config& c = *sim.site.config;
  const PrioritySettings& w = c.priority;
  PriorityClasses out;
  out.factors = {"age", "assoc", "fairshare", "jobsize", "partition", "qos", "tres"};
  struct Sum {
    std::vector<double> parts = std::vector<double>(7, 0.0);
    double priority = 0;
    std::size_t n = 0;
  };
  std::map<std::pair<std::size_t, std::size_t>, Sum> classes;  // (partition, size rank)
  std::map<std::pair<std::size_t, std::size_t>, std::string> size_names;
  for (const SimJob& j : sim.result.jobs) {
    if (!counted(j)) continue;
    const bool started = j.start != engine::kNoTime;
    const engine::PriorityFactors& f = started ? j.start_factors() : j.recs.front().factors;
    const std::size_t part = started ? j.run_or_first_rec().part : j.recs.front().part;
    const std::string size = engine::size_class(j.req.cpus);
    const auto key = std::make_pair(part, size_rank(size));
    size_names[key] = size;
    Sum& s = classes[key];
    double tres = 0;
    for (std::size_t i = 0; i < f.tres.size() && i < w.weight_tres.size(); ++i)
      tres += f.tres[i] * w.weight_tres[i].weight;
    const double parts[] = {f.age * w.weight_age,
                            f.assoc * w.weight_assoc,
                            f.fairshare * w.weight_fairshare,
                            f.job_size * w.weight_job_size,
                            f.partition * w.weight_partition,
                            f.qos * w.weight_qos,
                            tres};
    for (std::size_t i = 0; i < 7; ++i) s.parts[i] += parts[i];
    s.priority += started ? j.start_priority : j.recs.front().priority;
    ++s.n;
  }
  // The most populated classes when there are too many, shown in partition and size order.
  std::vector<std::pair<std::size_t, std::pair<std::size_t, std::size_t>>> by_n;
  by_n.reserve(classes.size());
  for (const auto& [key, s] : classes) by_n.push_back({s.n, key});
  std::stable_sort(by_n.begin(), by_n.end(), [](const auto& a, const auto& b) { return a.first > b.first; });
  if (by_n.size() > max_rows) by_n.resize(max_rows);
  std::sort(by_n.begin(), by_n.end(), [](const auto& a, const auto& b) { return a.second < b.second; });
  for (const auto& [n, key] : by_n) {
    const Sum& s = classes[key];
    StackRow row;
    const Partition& p = c.partitions[key.first];
    row.label = fmt::format("{} · {} CPU{} · tier {}", p.name, size_names[key], size_names[key] == "1" ? "" : "s",
                            p.priority_tier);
    for (double v : s.parts) row.parts.push_back(v / static_cast<double>(s.n));
    row.note = fmt::format("n={} · {}", fmt_count(static_cast<double>(s.n)),
                           fmt_number(s.priority / static_cast<double>(s.n)));
    out.rows.push_back(std::move(row));
  }
  return out;
}

std::vector<PairRow> account_share_rows(const rules::Simulation& sim, std::size_t max_rows) {
  std::vector<PairRow> rows;
  const AssocTree* tree = sim.site.tree;
  if (!tree) return rows;
  // The metrics already charge a parent account with its sub-accounts' usage.
  std::vector<double> delivered(tree->assocs.size(), 0.0), target(tree->assocs.size(), 0.0);
  for (const engine::AccountShare& s : sim.metrics.account_shares) {
    const std::uint32_t id = tree->find_account(s.account);
    if (id == kNoAssoc) continue;
    target[id] = s.target;
    delivered[id] = s.actual;
  }
  for (std::uint32_t id : tree->hierarchical_order()) {
    const Association& a = tree->assocs[id];
    if (a.is_user() || id == tree->root) continue;
    rows.push_back({a.account, std::max(0, tree->depth(id) - 1), target[id], delivered[id]});
    if (rows.size() == max_rows) break;
  }
  return rows;
}

CoverageSeries backfill_coverage(const rules::Simulation& sim, std::size_t max_points) {
  CoverageSeries out;
  const auto& log = sim.result.bf_log;
  out.cycles = log.size();
  for (const engine::BackfillCycle& c : log) out.stopped_early += c.stop != engine::BackfillCycle::Stop::kEnd;
  const std::int64_t start = sim.result.start, span = std::max<std::int64_t>(1, sim.result.end - start);
  const std::int64_t width = std::max<std::int64_t>(
      60, (span + static_cast<std::int64_t>(max_points) - 1) / static_cast<std::int64_t>(max_points));
  const std::size_t buckets = static_cast<std::size_t>((span + width - 1) / width);
  std::vector<double> depth(buckets, 0), tested(buckets, 0), n(buckets, 0);
  for (const engine::BackfillCycle& c : log) {
    const auto b = static_cast<std::size_t>(
        std::clamp<std::int64_t>((c.at - start) / width, 0, static_cast<std::int64_t>(buckets) - 1));
    depth[b] += c.depth, tested[b] += c.tested, ++n[b];
  }
  Series d{"queue depth at cycle start (records)", {}, true}, t{"jobs tested per cycle", {}};
  for (std::size_t b = 0; b < buckets; ++b) {
    out.axis.x.push_back(static_cast<std::int64_t>(b) * width);
    // No cycle in a bucket (backfill skips a cycle when nothing changed): a gap, not a zero.
    d.values.push_back(n[b] > 0 ? depth[b] / n[b] : std::nan(""));
    t.values.push_back(n[b] > 0 ? tested[b] / n[b] : std::nan(""));
  }
  out.axis.y_label = "records / jobs (mean per cycle)";
  out.series = {std::move(d), std::move(t)};
  return out;
}

UtilisationSeries utilisation(const rules::Simulation& sim, std::size_t max_partitions) {
  UtilisationSeries out;
  const Config& c = *sim.site.config;
  const engine::PartitionTimeline& tl = sim.result.timeline;
  const Buckets buckets(sim.result);
  std::vector<double> part_cpus(c.partitions.size(), 0);
  for (std::size_t p = 0; p < c.partitions.size(); ++p) {
    for (std::uint32_t n : c.partitions[p].nodes) part_cpus[p] += c.nodes[n].cpus;
  }
  double all_cpus = 0;
  for (const Node& n : c.nodes) all_cpus += n.cpus;
  out.axis.x = buckets.offsets();
  Series all{"all nodes", {}};
  for (std::size_t b = 0; b < buckets.count; ++b) {
    double sum = 0;
    for (std::size_t p = 0; p < c.partitions.size(); ++p) sum += Buckets::cell(tl.running, p, b);
    all.values.push_back(all_cpus > 0 ? sum / (all_cpus * buckets.seconds(b)) : 0);
  }
  out.series.push_back(std::move(all));
  // The largest partitions that ran anything, by CPUs.
  std::vector<std::size_t> parts;
  for (std::size_t p = 0; p < c.partitions.size(); ++p) {
    if (part_cpus[p] > 0 && p < tl.running.size() && !tl.running[p].empty()) parts.push_back(p);
  }
  std::stable_sort(parts.begin(), parts.end(),
                   [&](std::size_t a, std::size_t b) { return part_cpus[a] > part_cpus[b]; });
  if (parts.size() > max_partitions - 1) parts.resize(max_partitions - 1);
  std::sort(parts.begin(), parts.end());
  for (std::size_t p : parts) {
    Series s{c.partitions[p].name, {}};
    for (std::size_t b = 0; b < buckets.count; ++b) {
      s.values.push_back(Buckets::cell(tl.running, p, b) / (part_cpus[p] * buckets.seconds(b)));
    }
    out.series.push_back(std::move(s));
  }
  out.axis.percent = true;
  out.axis.y_label = "busy share of the CPUs";
  return out;
}

std::string gang_charts(const rules::Simulation& sim, const ChartOptions& o, std::size_t max_partitions) {
  const Config& c = *sim.site.config;
  const engine::PartitionTimeline& tl = sim.result.timeline;
  const Buckets buckets(sim.result);
  auto total = [](const std::vector<std::vector<double>>& rows, std::size_t p) {
    double sum = 0;
    if (p < rows.size()) {
      for (double v : rows[p]) sum += v;
    }
    return sum;
  };
  std::vector<std::size_t> parts;
  for (std::size_t p = 0; p < c.partitions.size() && parts.size() < max_partitions; ++p) {
    const bool shares = rules::share_rows(c.partitions[p]) >= 2;
    if (total(tl.suspended, p) > 0 || (sim.result.sharing && shares && total(tl.running, p) > 0)) parts.push_back(p);
  }
  const std::string of = o.run_name.empty() ? "" : " (" + o.run_name + ")";
  if (parts.empty()) {
    return note_figure({o.id_prefix + "chart-gang", "Gang scheduling and suspension" + of, ""},
                       "No partition shared CPUs between jobs and no job was suspended in this run, so there is no "
                       "timeline to draw.");
  }
  std::string out = fmt::format("<div id=\"{}chart-gang\">", esc(o.id_prefix));
  for (std::size_t p : parts) {
    TimeAxis axis;
    axis.stacked = true;
    axis.y_label = "CPUs allocated (mean)";
    axis.x = buckets.offsets();
    Series run{"running", {}}, sus{"suspended (still resident)", {}};
    for (std::size_t b = 0; b < buckets.count; ++b) {
      run.values.push_back(Buckets::cell(tl.running, p, b) / buckets.seconds(b));
      sus.values.push_back(Buckets::cell(tl.suspended, p, b) / buckets.seconds(b));
    }
    out += time_chart({fmt::format("{}chart-gang-{}", o.id_prefix, p),
                       "Running and suspended CPUs: partition " + c.partitions[p].name + of,
                       "CPUs held by running jobs and by suspended jobs (gang timeslicing or suspend preemption) per "
                       "time bucket; suspended jobs keep their memory on the node."},
                      axis, {std::move(run), std::move(sus)});
  }
  return out + "</div>\n";
}

std::string simulation_charts(const rules::Simulation& sim, const ChartOptions& o) {
  const std::string of = o.run_name.empty() ? "" : " (" + o.run_name + ")";
  auto id = [&](const char* name) { return o.id_prefix + name; };
  std::string out;
  out += box_chart({id("chart-wait-partition"), "Wait time per partition" + of,
                    "Time from eligibility to start, per partition the job ran in (jobs left pending count to the "
                    "end of the run). Log scale."},
                   waits_by_partition(sim));
  out += box_chart({id("chart-wait-tier"), "Wait time per PriorityTier" + of,
                    "The same waits grouped by the PriorityTier of the job's partition, highest tier first: Slurm "
                    "orders the queue by tier before priority."},
                   waits_by_tier(sim));
  const PriorityClasses pc = priority_by_class(sim);
  out += stacked_chart({id("chart-priority"), "Priority composition per job class" + of,
                        "Mean weighted priority factors (sprio's columns) per partition and size class, at start (or "
                        "at the end for jobs still pending); n and the mean priority on the right. The tier is not a "
                        "factor: it orders the queue before any of these."},
                       pc.factors, pc.rows);
  out += paired_chart({id("chart-shares"), "Share tree: target versus delivered" + of,
                       "Per account in tree order: the target share (product of normalised shares down the tree) "
                       "and the share of charged CPU time its jobs (and its sub-accounts' jobs) received."},
                      "target", "delivered", account_share_rows(sim));
  const CoverageSeries cov = backfill_coverage(sim);
  const ChartFrame bf{id("chart-backfill"), "Backfill coverage" + of,
                      fmt::format("Per backfill cycle, averaged over time: the pending queue records the cycle met "
                                  "and the jobs it will-run tested; gaps are times with no cycle (backfill skips a "
                                  "cycle when nothing changed). {} cycles, {} stopped early by a bf_* limit or a "
                                  "lock yield.",
                                  cov.cycles, cov.stopped_early)};
  out += cov.cycles ? time_chart(bf, cov.axis, cov.series)
                    : note_figure(bf,
                                  "No backfill cycle ran: SchedulerType is not sched/backfill, or "
                                  "bf_interval=-1 switches the backfill thread off.");
  const UtilisationSeries util = utilisation(sim);
  out += time_chart({id("chart-utilisation"), "Utilisation over time" + of,
                     "CPU-seconds of running (not suspended) jobs per time bucket over the CPUs of all nodes and of "
                     "the largest partitions (a job counts in the partition it ran in). Where jobs share CPUs "
                     "(OverSubscribe) the share can pass 100 %."},
                    util.axis, util.series);
  out += gang_charts(sim, o);
  return out;
}

}  // namespace sa::report
