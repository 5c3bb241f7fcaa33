// The engine on a big site (issue 4 goal: 5,000 nodes, 600,000 jobs over 120 days with
// default backfill limits, under 60 s on one core). SA_BENCH_DAYS shortens the span for a
// quick look; the job rate stays at 5,000 a day. Variants show how the cost grows with the
// node count and with the offered load (which sets the queue depth).
#include <benchmark/benchmark.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <ctime>
#include <limits>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "bench/bench_tree.h"

#include "analyzer/accounting_readers.h"
#include "analyzer/analyze.h"
#include "analyzer/assoc_reader.h"
#include "engine/simulator.h"
#include "engine/workload/synthetic.h"

namespace {

// The benches time whole runs, far past the step limit that bounds untrusted input.
constexpr std::int64_t kUnboundedSteps = std::numeric_limits<std::int64_t>::max();

std::string site_conf(int nodes, const char* extra = "") {
  return fmt::format(
      "ClusterName=bench\nSlurmctldHost=ctl\n{}"
      "AccountingStorageType=accounting_storage/slurmdbd\nAccountingStorageHost=db\n"
      "SelectType=select/cons_tres\nSelectTypeParameters=CR_Core_Memory\nDefMemPerCPU=3500\n"
      "PriorityType=priority/multifactor\nPriorityWeightAge=1000\nPriorityWeightFairshare=10000\n"
      "PriorityWeightJobSize=500\nPriorityWeightPartition=1000\nPriorityWeightQOS=2000\n"
      "NodeName=c[1-{}] CPUs=32 Sockets=2 CoresPerSocket=16 RealMemory=128000\n"
      "PartitionName=batch Nodes=c[1-{}] Default=YES MaxTime=2-00:00:00\n"
      "PartitionName=debug Nodes=c[1-{}] MaxTime=01:00:00 PriorityTier=2\n",
      extra, nodes, nodes, std::max(1, nodes / 50));
}

/// The benchmarks' synthetic load: 5,000 jobs a day on 5,000 nodes at load 1.0, scaled with
/// the node count; 1 to 1,024 CPUs, lognormal run times (median 3 h), limits 1.2-4x.
std::string load_profile(int days, double load, int nodes, const char* partitions) {
  return fmt::format(
      "seed = 11\nduration = {}-00:00:00\njobs_per_hour = {}\ndaily_cycle = 0.3\n"
      "cpus = 1:30, 4:15, 16:20, 32:15, 64:10, 256:7, 1024:3\n"
      "runtime = lognormal 10800 1.5\nlimit_factor = 1.2 4\npartition = {}\nusers = tree\n",
      days, 5000.0 / 24.0 * load * nodes / 5000.0, partitions);
}

using sa::bench::tree_dump;

/// A site from slurm.conf text with the 40 x 5 tree and the synthetic load on it.
struct BenchLoad {
  std::unique_ptr<sa::Analysis> conf;
  sa::SourceManager sources;
  sa::DiagnosticSink sink;
  sa::AssocTree tree;
  sa::engine::Workload workload;
  sa::engine::Site site;
  BenchLoad(const std::string& conf_text, int days, double load, int nodes, const char* partitions)
      : conf(sa::analyze_text("slurm.conf", conf_text)) {
    site.max_sim_steps = kUnboundedSteps;
    tree = sa::read_assoc_dump_text(sources.add("dump", tree_dump(40, 5)), sources, sink);
    sa::engine::Profile p =
        sa::engine::read_profile(sources.add("profile", load_profile(days, load, nodes, partitions)), sources, sink);
    workload = sa::engine::generate(p, conf->config, &tree);
    site.config = &conf->config;
    site.tree = &tree;
  }
};

double cpu_seconds() { return static_cast<double>(std::clock()) / CLOCKS_PER_SEC; }

/// Records a mode-0 run's CPU seconds per (nodes, load) and reports later modes against it
/// as counter `name` (when mode 0 ran first in this process).
void report_vs_baseline(benchmark::State& state, int mode, double per_run, const char* name) {
  static std::map<std::pair<std::string, std::pair<std::int64_t, std::int64_t>>, double> baseline;
  const auto key = std::make_pair(std::string(name), std::make_pair(state.range(0), state.range(1)));
  if (mode == 0) baseline[key] = per_run;
  auto base = baseline.find(key);
  if (mode != 0 && base != baseline.end() && base->second > 0) state.counters[name] = per_run / base->second;
}

void run_engine(benchmark::State& state) {
  const int nodes = static_cast<int>(state.range(0));
  const double load = static_cast<double>(state.range(1)) / 100.0;  // offered load vs the 5,000-node site
  const char* days_env = std::getenv("SA_BENCH_DAYS");
  const int days = days_env ? std::max(1, std::atoi(days_env)) : 120;
  const BenchLoad b(site_conf(nodes), days, load, nodes, "batch:95, debug:5");
  const sa::engine::Workload& w = b.workload;
  sa::engine::SimResult r;
  for (auto _ : state) {
    r = sa::engine::Simulator(b.site, {}).run(w);
  }
  state.counters["jobs"] = static_cast<double>(w.jobs.size());
  state.counters["jobs_per_s"] = benchmark::Counter(static_cast<double>(w.jobs.size()), benchmark::Counter::kIsRate);
  state.counters["sim_s_per_s"] = benchmark::Counter(static_cast<double>(r.end - r.start), benchmark::Counter::kIsRate);
  state.counters["bf_tests"] = static_cast<double>(r.counters.bf_tests);
  state.counters["queue"] = r.counters.bf_cycles ? static_cast<double>(r.counters.bf_queue_records) /
                                                       static_cast<double>(r.counters.bf_cycles)
                                                 : 0.0;
  std::size_t bf = 0;
  for (const auto& j : r.jobs) bf += j.started_by == sa::engine::StartedBy::kBackfill;
  state.counters["bf_starts"] = static_cast<double>(bf);
}

// --- QOS and association limits ----------------------------------------------------------
// The main benchmark's site and load with 2,000 user associations (40 accounts x 50 users)
// and AccountingStorageEnforce=associations,limits,qos, in three modes that differ only in
// the limits the dump and the QOS table carry:
//   0  none: no limit set anywhere (the limits stay inactive: the baseline);
//   1  loose: every limit below set, but far above anything the load reaches (the checks
//      and usage counters run, the schedule is the same as in mode 0: the pure cost);
//   2  biting: limits a site would set, sized from the load so they hold jobs at the peaks
//      (the schedule changes: held jobs deepen the queue).
// Limits: per account GrpTRES=cpu; per user MaxJobs and MaxTRESPerJob=cpu=1024,node=32
// (the largest job fits, so nothing is held for ever); QOS normal with MaxTRESPU=cpu and
// GrpJobs. The load is generated once from the tree without limits, so every mode replays
// the same jobs. Counters: held = jobs whose Reason history has a limit reason, h:<Reason>
// = jobs held at least once by that Reason, vs_none = this mode's CPU time per run over
// mode 0's (when mode 0 ran first in the same process), wait_h = mean wait in hours.
// The span is 30 days by default (SA_BENCH_DAYS overrides it).
constexpr int kLimitAccounts = 40, kLimitUsersPerAccount = 50;

struct LoadStats {
  std::map<std::string, double> account_cpus;  // mean CPUs busy per account, as offered
  std::map<std::string, double> user_jobs;     // mean running jobs per user
  double jobs = 0;                             // mean running jobs, all users
};

LoadStats load_stats(const sa::engine::Workload& w) {
  LoadStats s;
  if (w.jobs.empty()) return s;
  const double span = static_cast<double>(std::max<std::int64_t>(1, w.jobs.back().submit - w.jobs.front().submit));
  for (const auto& j : w.jobs) {
    const double run = static_cast<double>(j.time_limit >= 0 ? std::min(j.run_time, j.time_limit) : j.run_time) / span;
    s.account_cpus[j.account] += run * j.cpus;
    s.user_jobs[j.user] += run;
    s.jobs += run;
  }
  return s;
}

// mode 1 multiplies every limit by kLoose, which puts it out of reach.
constexpr double kLoose = 1000;

std::string limit_tree_dump(const LoadStats* st, double scale) {
  std::string out =
      "Cluster - 'bench'\nParent - 'root'\nUser - "
      "'root':DefaultAccount='root':AdminLevel='Administrator':Fairshare=1\n";
  for (int a = 0; a < kLimitAccounts; ++a) {
    const std::string name = fmt::format("acct{}", a);
    std::string limits;
    if (st) {
      // Twice the account's mean offered CPUs (at least two of the largest jobs), in 64s.
      auto it = st->account_cpus.find(name);
      const double mean = it == st->account_cpus.end() ? 0.0 : it->second;
      const auto cpus = static_cast<long long>(std::max(2048.0, std::ceil(2.0 * mean / 64) * 64) * scale);
      limits = fmt::format(":GrpTRES=cpu={}", cpus);
    }
    out += fmt::format("Account - '{}':Fairshare={}{}\n", name, 1 + a % 7, limits);
  }
  for (int a = 0; a < kLimitAccounts; ++a) {
    out += fmt::format("Parent - 'acct{}'\n", a);
    for (int u = 0; u < kLimitUsersPerAccount; ++u) {
      const std::string user = fmt::format("u{}_{}", a, u);
      std::string limits;
      if (st) {
        // MaxJobs: three times the user's mean running jobs, at least 3.
        auto it = st->user_jobs.find(user);
        const double mean = it == st->user_jobs.end() ? 0.0 : it->second;
        const auto max_jobs = static_cast<long long>(std::max(3.0, std::ceil(3.0 * mean)) * scale);
        limits = fmt::format(":MaxJobs={}:MaxTRESPerJob=cpu={},node={}", max_jobs, static_cast<long long>(1024 * scale),
                             static_cast<long long>(32 * scale));
      }
      out += fmt::format("User - '{}':DefaultAccount='acct{}':Fairshare={}{}\n", user, a, 1 + u % 3, limits);
    }
  }
  return out;
}

std::string limit_qos_table(const LoadStats* st, double scale) {
  std::string out = "Name|Priority|Flags|UsageFactor|GrpJobs|MaxTRESPU\n";
  if (!st) return out + "normal|0||1.000000||\n";
  // GrpJobs: 1.15 times the mean running jobs; MaxTRESPU: two of the largest jobs.
  return out + fmt::format("normal|0||1.000000|{}|cpu={}\n", static_cast<long long>(std::ceil(1.15 * st->jobs) * scale),
                           static_cast<long long>(2048 * scale));
}

bool is_limit_reason(const std::string& r) {
  return r.rfind("Assoc", 0) == 0 || r.rfind("QOS", 0) == 0 ||
         (r.rfind("Max", 0) == 0 && r.find("PerAccount") != std::string::npos);
}

void run_engine_limits(benchmark::State& state) {
  const int nodes = static_cast<int>(state.range(0));
  const double load = static_cast<double>(state.range(1)) / 100.0;
  const int mode = static_cast<int>(state.range(2));
  // 30 days unless SA_BENCH_DAYS says otherwise: the biting mode re-tests every held job in
  // every backfill cycle and would take minutes at 120 days.
  const char* days_env = std::getenv("SA_BENCH_DAYS");
  const int days = days_env ? std::max(1, std::atoi(days_env)) : 30;
  auto conf = sa::analyze_text("slurm.conf", site_conf(nodes, "AccountingStorageEnforce=associations,limits,qos\n"));
  sa::SourceManager sources;
  sa::DiagnosticSink sink;
  // The load comes from the tree without limits (the shares are the same in every mode).
  sa::AssocTree plain = sa::read_assoc_dump_text(sources.add("plain", limit_tree_dump(nullptr, 1)), sources, sink);
  sa::FileId profile = sources.add("profile", load_profile(days, load, nodes, "batch:95, debug:5"));
  sa::engine::Profile p = sa::engine::read_profile(profile, sources, sink);
  sa::engine::Workload w = sa::engine::generate(p, conf->config, &plain);
  const LoadStats stats = load_stats(w);
  const LoadStats* st = mode == 0 ? nullptr : &stats;
  const double scale = mode == 1 ? kLoose : 1.0;
  sa::AssocTree tree = sa::read_assoc_dump_text(sources.add("dump", limit_tree_dump(st, scale)), sources, sink);
  sa::engine::Site site;
  site.max_sim_steps = kUnboundedSteps;
  site.config = &conf->config;
  site.tree = &tree;
  site.qos = sa::read_qos_table_text(sources.add("qos", limit_qos_table(st, scale)), sources, sink);
  if (sink.has_errors()) {
    state.SkipWithError("the limits tree or QOS table did not read cleanly");
    return;
  }
  sa::engine::SimResult r;
  double cpu = 0;
  for (auto _ : state) {
    const double t0 = cpu_seconds();
    r = sa::engine::Simulator(site, {}).run(w);
    cpu += cpu_seconds() - t0;
  }
  report_vs_baseline(state, mode, cpu / static_cast<double>(state.iterations()), "vs_none");

  state.counters["jobs"] = static_cast<double>(w.jobs.size());
  state.counters["jobs_per_s"] = benchmark::Counter(static_cast<double>(w.jobs.size()), benchmark::Counter::kIsRate);
  state.counters["bf_tests"] = static_cast<double>(r.counters.bf_tests);
  state.counters["queue"] = r.counters.bf_cycles ? static_cast<double>(r.counters.bf_queue_records) /
                                                       static_cast<double>(r.counters.bf_cycles)
                                                 : 0.0;
  std::vector<char> limit(r.reason_names.size());
  for (std::size_t i = 0; i < limit.size(); ++i) limit[i] = is_limit_reason(r.reason_names[i]);
  std::map<std::string, double> by_reason;
  double held = 0, done = 0, wait = 0;
  for (const auto& j : r.jobs) {
    std::vector<char> seen(limit.size(), 0);
    bool any = false;
    for (const auto& span : j.reasons) {
      if (!limit[span.reason] || seen[span.reason]) continue;
      seen[span.reason] = 1;
      any = true;
      by_reason[r.reason_names[span.reason]] += 1;
    }
    held += any;
    if (j.state == sa::engine::JobState::kDone) {
      ++done;
      wait += static_cast<double>(j.start - j.req.submit);
    }
  }
  state.counters["held"] = held;
  for (const auto& [name, n] : by_reason) state.counters["h:" + name] = n;
  state.counters["done"] = done;
  state.counters["wait_h"] = done > 0 ? wait / done / 3600.0 : 0.0;
}

// --- Gang scheduling -------------------------------------------------------------------------
// Issue 5's goal: a 1,000-node partition with OverSubscribe=FORCE:4 over 30 simulated days
// within 3x the time of the same run without gang. Modes differ only in slurm.conf:
//   0  FORCE:4, PreemptMode=OFF: jobs share cores through the rows but are never suspended
//      (the baseline the goal names: the same run without gang);
//   1  FORCE:4, PreemptMode=GANG, SchedulerTimeSlice=30: the timeslicer rotates shared cores;
//   2  OverSubscribe=NO, no gang: no sharing at all (the engine without the row model).
// The load is the main benchmark's mix, all in `batch`, at `load` % of the reference rate
// (a debug partition with OverSubscribe=NO would be kept off every node batch jobs share,
// as cons_tres does, and its jobs would pile up), with DefMemPerCPU
// lowered so that memory allows four jobs per core; sharing happens when the load exceeds
// the machine. Counters: vs_off = CPU time over mode 0's (when mode 0
// ran first in this process), suspends, timeslices, stretch_p95, wait_h.
void run_engine_gang(benchmark::State& state) {
  const int nodes = static_cast<int>(state.range(0));
  const double load = static_cast<double>(state.range(1)) / 100.0;
  const int mode = static_cast<int>(state.range(2));
  const char* days_env = std::getenv("SA_BENCH_DAYS");
  const int days = days_env ? std::max(1, std::atoi(days_env)) : 30;
  std::string conf_text = site_conf(nodes, mode == 1 ? "PreemptMode=GANG\nSchedulerTimeSlice=30\n" : "");
  // Memory for four jobs per core (4 x 32 x 900 MB < 128,000 MB), so FORCE:4 can share.
  conf_text.replace(conf_text.find("DefMemPerCPU=3500"), 17, "DefMemPerCPU=900");
  if (mode != 2) {
    const std::string from = "PartitionName=batch Nodes=c[1-" + std::to_string(nodes) + "] Default=YES";
    conf_text.replace(conf_text.find(from), from.size(), from + " OverSubscribe=FORCE:4");
  }
  const BenchLoad b(conf_text, days, load, nodes, "batch");
  const sa::engine::Workload& w = b.workload;
  sa::engine::SimResult r;
  double cpu = 0;
  for (auto _ : state) {
    const double t0 = cpu_seconds();
    r = sa::engine::Simulator(b.site, {}).run(w);
    cpu += cpu_seconds() - t0;
  }
  report_vs_baseline(state, mode, cpu / static_cast<double>(state.iterations()), "vs_off");
  state.counters["jobs"] = static_cast<double>(w.jobs.size());
  state.counters["suspends"] = static_cast<double>(r.counters.suspends);
  state.counters["timeslices"] = static_cast<double>(r.counters.timeslices);
  std::vector<double> stretch;
  double wait = 0, done = 0;
  for (const auto& j : r.jobs) {
    if (j.state != sa::engine::JobState::kDone) continue;
    const double wall = static_cast<double>(j.end - j.start);
    const auto suspended = static_cast<double>(j.rare.get().tot_sus_time);
    stretch.push_back(wall > suspended ? wall / (wall - suspended) : 1.0);
    wait += static_cast<double>(j.start - j.begin);
    ++done;
  }
  std::sort(stretch.begin(), stretch.end());
  state.counters["stretch_p95"] = stretch.empty() ? 1.0 : stretch[stretch.size() * 95 / 100];
  state.counters["wait_h"] = done > 0 ? wait / done / 3600.0 : 0.0;
}

}  // namespace

// nodes, offered load in % of the reference rate (5,000 jobs a day on 5,000 nodes).
BENCHMARK(run_engine)->Args({5000, 100})->Args({1000, 100})->Args({5000, 130})->Unit(benchmark::kSecond)->Iterations(1);

// nodes, offered load (as above), limits mode (0 none, 1 loose, 2 biting). Mode 0 first: the
// others report their cost relative to it (vs_none).
BENCHMARK(run_engine_limits)
    ->Args({5000, 100, 0})
    ->Args({5000, 100, 1})
    ->Args({5000, 100, 2})
    ->Unit(benchmark::kSecond)
    ->Iterations(1);

// nodes, offered load (%), mode (0 FORCE:4 without gang, 1 with gang, 2 no sharing). Each
// mode 1 runs right after mode 0 at the same load and reports its cost against it (vs_off).
// At 250 % the machine is oversubscribed about 2.5 times: with gang about a million suspends
// a simulated day (SA_BENCH_DAYS=1 keeps it short). Mode 2 at such loads is an overloaded
// queue like run_engine's 200 % case; run it by hand (--benchmark_filter) when needed.
BENCHMARK(run_engine_gang)
    ->Args({1000, 100, 0})
    ->Args({1000, 100, 1})
    ->Args({1000, 250, 0})
    ->Args({1000, 250, 1})
    ->Unit(benchmark::kSecond)
    ->Iterations(1);

BENCHMARK_MAIN();
