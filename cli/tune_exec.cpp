// Where the candidates of `slurm-advisor tune` run: on this machine's threads (resumable with
// --out DIR), as one shard of a job array (--shard i/M), or nowhere yet: --executor slurm
// writes the array's batch script and manifest (tune_array.cpp), and --merge DIR reads the
// shards back. Every way ends in tune::rank_results and report_outcome, so the report of a
// merged or resumed run is the report of a local one, byte for byte.
#include <filesystem>
#include <iostream>
#include <set>

#include <fmt/format.h>

#include "cli/common.h"
#include "cli/tune_exec.h"
#include "cli/tune_options.h"
#include "cli/version_info.h"
#include "tune/progress.h"
#include "tune/resume.h"
#include "tune/run_dir.h"
#include "tune/shard.h"

namespace sa::cli {

namespace fs = std::filesystem;

namespace {

// Options that change how or where a run happens or is printed, never a value: left out of
// the manifest and its hash, so a run can be resumed with more --jobs or merged as JSON or HTML.
const std::set<std::string> kNotSpec = {"--jobs",     "--format",      "--output", "--executor",    "--out",
                                        "--shard",    "--shards",      "--submit", "--sbatch-args", "--merge",
                                        "--progress", "--no-progress", "--config", "--no-config",   "--help"};

// The options that decide the values, as --name=value in definition order (repeatable ones in
// the order given), and the positionals: parsed again, they give the same options back.
void spec_args(const CLI::App& cmd, std::vector<std::string>& args, std::vector<std::string>& positionals) {
  for (const CLI::Option* opt : cmd.get_options()) {
    if (opt->count() == 0 || kNotSpec.count(opt->get_name())) continue;
    for (const std::string& value : opt->results()) {
      if (opt->get_positional()) {
        positionals.push_back(value);
      } else {
        args.push_back(opt->get_name() + "=" + value);
      }
    }
  }
}

void add_files(const SourceManager& sources, std::vector<tune::InputFile>& files) {
  for (std::size_t i = 0; i < sources.file_count(); ++i) {
    const SourceFile& f = sources.file(static_cast<FileId>(i));
    files.push_back({f.path, tune::sha256_hex(f.content)});
  }
}

std::string this_binary() {
  std::error_code ec;
  const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  return ec ? std::string("slurm-advisor") : exe.string();
}

// Runs the candidates of `slots` not already in `values`, recording each (with --out) and
// showing progress as it finishes.
void simulate_missing(const TuneOptions& o, const TuneSession& t, const tune::SearchPlan& plan,
                      const std::vector<std::size_t>& slots, const tune::RunRecords* records,
                      std::vector<tune::SeedValues>& values) {
  const bool show = !o.exec.no_progress && (o.exec.progress || tune::stderr_is_terminal());
  tune::Progress progress(show ? &std::cerr : nullptr, tune::stderr_is_terminal(), plan, t.spec.goals, slots.size());
  std::vector<std::size_t> todo;
  for (std::size_t slot : slots) {
    if (values[slot].empty()) {
      todo.push_back(slot);
    } else {
      progress.finished(slot, values[slot]);
    }
  }
  auto fresh = tune::simulate_slots(t.site, t.spec, plan, todo, [&](std::size_t slot, const tune::SeedValues& v) {
    if (records) {
      if (auto e = records->record(slot, v)) std::cerr << "slurm-advisor: warning: " << *e << "\n";
    }
    progress.finished(slot, v);
  });
  progress.close();
  for (std::size_t slot : todo) values[slot] = std::move(fresh[slot]);
}

// Opens the run directory; a shard also checks it is one of the array the manifest was written
// for, since the merge counts the shards the manifest names.
std::optional<std::string> open_dir(const std::string& dir, const tune::Manifest& m,
                                    const std::optional<tune::ShardId>& shard) {
  if (auto e = tune::open_run_dir(dir, m)) return e;
  if (!shard) return std::nullopt;
  auto written = tune::read_manifest(dir);
  if (!written) return written.error();
  if (written->shards == shard->count) return std::nullopt;
  return fmt::format("{} was written for {} shards, not {}", tune::manifest_path(dir), written->shards, shard->count);
}

// A local run or one shard: the values of `slots`, from DIR's records where there are some.
int run_here(const TuneOptions& o, const TuneSession& t, const tune::Manifest& m, tune::SearchPlan plan,
             const std::optional<tune::ShardId>& shard) {
  const std::vector<std::size_t> slots = shard ? tune::shard_slots(*shard, plan.runnable()) : plan.runnable();
  std::vector<tune::SeedValues> values(plan.candidates.size());
  std::optional<tune::RunRecords> records;
  if (!o.exec.out.empty()) {
    if (auto e = open_dir(o.exec.out, m, shard)) {
      std::cerr << "slurm-advisor: " << *e << "\n";
      return kExitUsage;
    }
    records.emplace(o.exec.out, m.spec_hash);
    std::vector<std::string> warnings;
    values = records->load(plan.candidates.size(), t.site.loads.size(), t.spec.goals.size(), warnings);
    for (const std::string& w : warnings) std::cerr << "slurm-advisor: warning: " << w << "\n";
  }
  try {
    simulate_missing(o, t, plan, slots, records ? &*records : nullptr, values);
  } catch (const std::exception& e) {
    if (!shard) throw;  // main() reports it
    // The merge names a failed shard with its reason; the finished candidates stay recorded.
    (void)tune::write_failed_shard(o.exec.out, *shard, m.spec_hash, fmt::format("internal error: {}", e.what()));
    std::cerr << "slurm-advisor: internal error: " << e.what() << "\n";
    return kExitUsage;
  }
  if (shard) {
    if (auto e = tune::write_shard(o.exec.out, *shard, m.spec_hash, slots, values)) {
      std::cerr << "slurm-advisor: " << *e << "\n";
      return kExitUsage;
    }
    std::cerr << fmt::format("slurm-advisor: wrote {} ({} run{})\n", tune::shard_path(o.exec.out, shard->index),
                             slots.size(), slots.size() == 1 ? "" : "s");
    return kExitOk;
  }
  return report_outcome(o, t, tune::rank_results(std::move(plan), values, t.spec.goals));
}

// The combinations of executor options that mean nothing; a message or nothing.
std::optional<std::string> misuse(const TuneOptions& o) {
  const TuneExecOptions& e = o.exec;
  const bool slurm = e.executor == "slurm";
  if (!e.merge.empty()) {
    if (!o.site.paths.conf.empty() || !o.goals.empty() || !o.vary.empty() || !o.search.spec.empty() ||
        !e.shard.empty() || slurm || !e.out.empty()) {
      return "--merge DIR takes the run's options from DIR/manifest.json; give only --format and --output with it";
    }
    return std::nullopt;
  }
  if (o.site.paths.conf.empty() || (o.search.spec.empty() && (o.goals.empty() || o.vary.empty()))) {
    return "slurm.conf, --goal and --vary are required (or --spec FILE for the goals and the space, or --merge DIR)";
  }
  if (!e.shard.empty() && (slurm || e.out.empty())) return "--shard i/M needs --out DIR and the local executor";
  if (slurm && e.out.empty()) return "--executor slurm needs --out DIR (where the script, manifest and shards go)";
  if (!slurm && (e.shards || e.submit || !e.sbatch_args.empty())) {
    return "--shards, --submit and --sbatch-args go with --executor slurm";
  }
  return std::nullopt;
}

// Successive halving picks each rung's candidates from the previous rung's ranks: it has no
// fixed list of runs to split into shards or to record for a resumption.
std::optional<std::string> halving_refused(const TuneOptions& o, const tune::SearchSpec& spec) {
  const TuneExecOptions& e = o.exec;
  if (e.executor != "slurm" && e.shard.empty() && e.out.empty()) return std::nullopt;
  const std::string why =
      o.search.search == "auto" ? fmt::format(" (the grid has more than {} points)", spec.max_candidates) : "";
  return fmt::format(
      "--search {} runs successive halving{}, which picks each rung's candidates from the previous rung's ranks "
      "and so runs on this machine only, without --out; use --search grid (raising --max-candidates if needed) "
      "with --executor slurm, --shard, --merge or --out",
      o.search.search, why);
}

}  // namespace

void add_exec_options(CLI::App& cmd, TuneExecOptions& o) {
  cmd.add_option("--executor", o.executor,
                 "Where candidates run: local (this machine, --jobs threads) or slurm (write a job array "
                 "into --out; with --submit, submit it)")
      ->check(CLI::IsMember({"local", "slurm"}));
  cmd.add_option("--out", o.out,
                 "Run directory: the manifest, each finished candidate's values (a run given the same "
                 "directory again resumes), the shards and the batch script");
  cmd.add_option("--shards", o.shards, "--executor slurm: array tasks (default: one per run, at most 32)")
      ->check(CLI::Range(1, 1000));
  cmd.add_flag("--submit", o.submit, "--executor slurm: submit the array with sbatch and print its job id");
  cmd.add_option("--sbatch-args", o.sbatch_args,
                 "--executor slurm: more sbatch options for the array, e.g. '--partition=debug --time=30'");
  cmd.add_option("--shard", o.shard, "Run shard i of M (i/M, from 0) into --out DIR/shard-i.json");
  cmd.add_option("--merge", o.merge, "Merge the shards in this run directory and print the report a local run prints");
  auto* on = cmd.add_flag("--progress", o.progress, "Show the progress line on stderr even when it is not a terminal");
  cmd.add_flag("--no-progress", o.no_progress, "Never show the progress line")->excludes(on);
}

tune::Manifest make_manifest(const TuneOptions& o, const CLI::App& cmd, const TuneSession& t,
                             const tune::SearchPlan& plan) {
  tune::Manifest m;
  m.version = kToolVersion;
  m.binary = this_binary();
  std::error_code ec;
  m.cwd = fs::current_path(ec).string();
  spec_args(cmd, m.args, m.positionals);
  for (const tune::Goal& g : t.spec.goals) m.goals.push_back(g.text);
  for (const tune::Dimension& d : t.spec.dims) m.dims.push_back(d.spec);
  m.load = t.load;
  for (std::size_t k = 0; !t.in->has_workload && k < o.seeds; ++k) m.seeds.push_back(o.site.seed + k);
  add_files(t.in->conf->sources, m.files);
  add_files(t.in->sources, m.files);
  // --spec FILE decides the goals and the space: an edited file is another run.
  if (!o.search.spec.empty()) m.files.push_back({o.search.spec, tune::sha256_hex(t.spec_text)});
  m.slots = plan.candidates.size();
  m.runs = plan.runnable().size();
  m.jobs = o.jobs;
  m.spec_hash = tune::compute_spec_hash(m);
  return m;
}

int run_tune(const TuneOptions& given, CLI::App& cmd) {
  if (auto e = misuse(given)) {
    std::cerr << "slurm-advisor: tune: " << *e << "\n";
    return kExitUsage;
  }
  if (!given.exec.merge.empty()) return run_merge(given);
  TuneOptions o = given;
  std::optional<tune::ShardId> shard;
  if (!o.exec.shard.empty()) {
    auto parsed = tune::parse_shard(o.exec.shard);
    if (!parsed) {
      std::cerr << "slurm-advisor: " << parsed.error() << "\n";
      return kExitUsage;
    }
    shard = *parsed;
  }
  if (!o.exec.out.empty()) o.exec.out = fs::absolute(o.exec.out).lexically_normal().string();
  TuneSession t;
  if (int rc = setup_session(o, t)) return rc;
  if (uses_halving(o, t)) {
    if (auto e = halving_refused(o, t.spec)) {
      std::cerr << "slurm-advisor: tune: " << *e << "\n";
      return kExitUsage;
    }
    return run_halving(o, t);
  }
  auto plan = tune::plan_search(t.site, t.spec);
  if (!plan) {
    std::cerr << "slurm-advisor: " << plan.error() << "\n";
    return kExitUsage;
  }
  if (int rc = check_plan(*plan)) return rc;
  tune::Manifest m = make_manifest(o, cmd, t, *plan);
  if (o.exec.executor == "slurm") return write_array(o, m);
  if (shard) m.shards = shard->count;
  return run_here(o, t, m, std::move(*plan), shard);
}

}  // namespace sa::cli
