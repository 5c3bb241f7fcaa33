// `tune --executor slurm` and `tune --merge DIR`: the job array's script and manifest, its
// submission with sbatch, and the merge of its shards into the report a local run prints.
#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <iostream>

#include <fmt/format.h>

#include "cli/common.h"
#include "cli/tune_exec.h"
#include "tune/batch_script.h"
#include "tune/shard.h"

extern char** environ;

namespace sa::cli {

namespace fs = std::filesystem;

namespace {

constexpr std::size_t kDefaultShards = 32;

// Runs argv (looked up in PATH) and returns its stdout; its stderr goes to ours.
Result<std::string> run_capture(const std::vector<std::string>& argv) {
  int fds[2];
  if (::pipe(fds) != 0) return Error{fmt::format("cannot run {}: {}", argv[0], std::strerror(errno))};
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, fds[1], STDOUT_FILENO);
  posix_spawn_file_actions_addclose(&actions, fds[0]);
  posix_spawn_file_actions_addclose(&actions, fds[1]);
  std::vector<char*> args;
  for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  pid_t pid = 0;
  const int rc = ::posix_spawnp(&pid, args[0], &actions, nullptr, args.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  ::close(fds[1]);
  std::string out;
  char buffer[4096];
  for (ssize_t n; rc == 0 && ((n = ::read(fds[0], buffer, sizeof buffer)) > 0 || (n < 0 && errno == EINTR));) {
    if (n > 0) out.append(buffer, static_cast<std::size_t>(n));
  }
  ::close(fds[0]);
  if (rc != 0) return Error{fmt::format("cannot run {}: {}", argv[0], std::strerror(rc))};
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    return Error{fmt::format("{} failed (exit status {})", argv[0], WIFEXITED(status) ? WEXITSTATUS(status) : -1)};
  }
  return out;
}

// `sbatch --parsable` prints "JOBID" or "JOBID;CLUSTER".
int submit(const std::string& script, const tune::Manifest& m, const std::string& dir) {
  auto out = run_capture({"sbatch", "--parsable", script});
  if (!out) {
    std::cerr << "slurm-advisor: " << out.error() << "; the script is " << script << "\n";
    return kExitUsage;
  }
  std::string id = out->substr(0, out->find_first_of(";\n"));
  if (id.empty() || id.find_first_not_of("0123456789") != std::string::npos) {
    std::cerr << "slurm-advisor: sbatch printed no job id: " << *out << "\n";
    return kExitUsage;
  }
  print_text(
      fmt::format("submitted job array {} ({} tasks, {} runs): {}\nwhen it has finished, merge with:\n  {} "
                  "tune --merge {}\n",
                  id, m.shards, m.runs, script, tune::shell_quote(m.binary), tune::shell_quote(dir)));
  return kExitOk;
}

// The options of the run a manifest was written for, parsed as the command line was.
std::optional<TuneOptions> manifest_options(const tune::Manifest& m, CLI::App& parser) {
  TuneOptions o;
  add_tune_options(&parser, &o);
  std::vector<std::string> args = m.args;
  args.push_back("--");
  args.insert(args.end(), m.positionals.begin(), m.positionals.end());
  std::reverse(args.begin(), args.end());  // CLI11 takes them last first
  try {
    parser.parse(args);
  } catch (const CLI::ParseError& e) {
    std::cerr << "slurm-advisor: the manifest's options do not parse: " << e.what() << "\n";
    return std::nullopt;
  }
  return o;
}

int report_problems(const std::vector<tune::ShardProblem>& problems, const tune::Manifest& m, const std::string& dir) {
  for (const tune::ShardProblem& p : problems) {
    std::string out = fmt::format("slurm-advisor: shard {} of {}: {}\n", p.shard, m.shards, p.what);
    const fs::path log = fs::path(dir) / "logs" / fmt::format("shard-{}.log", p.shard);
    std::error_code ec;
    if (fs::exists(log, ec)) out += fmt::format("  its log: {}\n", log.string());
    out += fmt::format("  re-run it alone with:\n    {}\n  or through Slurm:\n    sbatch --array={} {}\n",
                       tune::shard_rerun_command(m, dir, p.shard), p.shard,
                       tune::shell_quote(tune::batch_script_path(dir)));
    std::cerr << out;
  }
  std::cerr << fmt::format("slurm-advisor: {} of {} shards are not usable; merge again when they are\n",
                           problems.size(), m.shards);
  return kExitUsage;
}

}  // namespace

int write_array(const TuneOptions& o, tune::Manifest m) {
  const std::string& dir = o.exec.out;
  m.shards = o.exec.shards ? o.exec.shards : std::min(m.runs, kDefaultShards);
  if (m.shards > m.runs) {
    std::cerr << fmt::format("slurm-advisor: --shards {}: more shards than runs ({}, the baseline included)\n",
                             m.shards, m.runs);
    return kExitUsage;
  }
  auto words = tune::split_words(o.exec.sbatch_args);
  auto script = words ? tune::batch_script(m, dir, *words) : Result<std::string>(words.failure());
  if (!script) {
    std::cerr << "slurm-advisor: " << script.error() << "\n";
    return kExitUsage;
  }
  // The manifest is written again when it is of this spec: it now names this array's shards.
  std::optional<std::string> e = tune::open_run_dir(dir, m);
  std::error_code ec;
  if (!e) e = tune::write_atomically(tune::manifest_path(dir), tune::manifest_json(m).dump(2) + "\n");
  if (!e && !fs::create_directories(fs::path(dir) / "logs", ec) && ec) e = "cannot create " + dir + "/logs";
  const std::string path = tune::batch_script_path(dir);
  if (!e) e = tune::write_atomically(path, *script);
  if (!e && ::chmod(path.c_str(), 0755) != 0) e = "cannot make " + path + " executable";
  if (e) {
    std::cerr << "slurm-advisor: " << *e << "\n";
    return kExitUsage;
  }
  if (o.exec.submit) return submit(path, m, dir);
  print_text(
      fmt::format("wrote {} ({} tasks, {} runs) and {}\nsubmit it with:\n  sbatch {}\nthen merge with:\n  {} "
                  "tune --merge {}\n",
                  path, m.shards, m.runs, tune::manifest_path(dir), tune::shell_quote(path),
                  tune::shell_quote(m.binary), tune::shell_quote(dir)));
  return kExitOk;
}

int run_merge(const TuneOptions& given) {
  const std::string dir = fs::absolute(given.exec.merge).lexically_normal().string();
  auto m = tune::read_manifest(dir);
  if (!m) {
    std::cerr << "slurm-advisor: cannot merge " << dir << ": " << m.error() << "\n";
    return kExitUsage;
  }
  if (m->shards == 0) {
    std::cerr << "slurm-advisor: " << dir << " holds a local run, not shards: run the same tune command with --out "
              << tune::shell_quote(dir) << " to print its report\n";
    return kExitUsage;
  }
  CLI::App parser;
  std::optional<TuneOptions> o = manifest_options(*m, parser);
  if (!o) return kExitUsage;
  o->format = given.format;
  o->output = given.output.empty() || given.output == "-" ? given.output : fs::absolute(given.output).string();
  // The options' relative paths are relative to the directory tune ran in, and so is the
  // report's slurm.conf path: reading them from there gives the local run's report.
  std::error_code ec;
  fs::current_path(m->cwd, ec);
  if (ec) {
    std::cerr << "slurm-advisor: cannot change to " << m->cwd << ", where the run's paths are relative to\n";
    return kExitUsage;
  }
  TuneSession t;
  if (int rc = setup_session(*o, t)) return rc;
  if (uses_halving(*o, t)) {
    // tune writes no array for successive halving: the run's --spec file changed since.
    std::cerr << "slurm-advisor: an input of " << dir
              << "'s run changed since it was written: its --spec file now asks for successive halving, whose "
                 "shards are not merged; run the array again with --search grid\n";
    return kExitUsage;
  }
  auto plan = tune::plan_search(t.site, t.spec);
  if (!plan) {
    std::cerr << "slurm-advisor: " << plan.error() << "\n";
    return kExitUsage;
  }
  if (int rc = check_plan(*plan)) return rc;
  if (make_manifest(*o, parser, t, *plan).spec_hash != m->spec_hash) {
    std::cerr << "slurm-advisor: an input of " << dir
              << "'s run changed since it was written (a site file, or the slurm-advisor version): its shards "
                 "cannot be merged into a report of today's inputs; run the array again\n";
    return kExitUsage;
  }
  std::vector<tune::SeedValues> values;
  const auto problems = tune::read_shards(dir, *m, *plan, t.site.loads.size(), t.spec.goals.size(), values);
  if (!problems.empty()) return report_problems(problems, *m, dir);
  return report_outcome(*o, t, tune::rank_results(std::move(*plan), values, t.spec.goals));
}

}  // namespace sa::cli
