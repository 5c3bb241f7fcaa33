// The executors of `slurm-advisor tune`: shards merged into the local run's report byte for
// byte, a missing or damaged shard named with the command that re-runs it, resumption from the
// candidates recorded in --out, the job-array script's quoting (run here without Slurm), and
// the progress line. The real Slurm run is tests/tune_slurm_e2e.sh.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "tests/cli_util.h"
#include "tune/batch_script.h"
#include "tune/shard.h"

namespace {

namespace fs = std::filesystem;
using sa::test::run;
using namespace sa::tune;

const std::string kSmall = std::string(SA_SOURCE_DIR) + "/tests/data/tune/small.conf";
// 6 grid points, 2 refused by the analyzer (sched/bogus): the baseline and 4 candidates run.
const std::string kSearch = "tune " + kSmall +
                            " --goal 'backfill_share>=5%' --goal 'starved==0' --seeds 2 --days 1 "
                            "--vary SchedulerType=sched/builtin,sched/backfill,sched/bogus --vary bf_window=30,240";

std::string read(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

void write(const fs::path& p, const std::string& text) { std::ofstream(p, std::ios::binary) << text; }

std::string quoted(const fs::path& p) { return shell_quote(p.string()); }

// Runs the three shards of kSearch into `dir` (the array script written first, not submitted).
void run_shards(const fs::path& dir) {
  ASSERT_EQ(run(kSearch + " --executor slurm --shards 3 --out " + quoted(dir)).status, 0);
  for (int i = 0; i < 3; ++i) {
    ASSERT_EQ(run(kSearch + " --shard " + std::to_string(i) + "/3 --out " + quoted(dir)).status, 0);
  }
}

TEST(TuneShard, IdsAndSlots) {
  auto id = parse_shard("2/5");
  ASSERT_TRUE(id);
  EXPECT_EQ(id->index, 2u);
  EXPECT_EQ(id->count, 5u);
  EXPECT_FALSE(parse_shard("5/5"));
  EXPECT_FALSE(parse_shard("1/0"));
  EXPECT_FALSE(parse_shard("-1/3"));
  EXPECT_FALSE(parse_shard("1"));
  EXPECT_NE(parse_shard("x/3").error().find("whole numbers"), std::string::npos);
  // Runs dealt round robin over the runnable slots (2, 3 and 6 refused here).
  const std::vector<std::size_t> runnable = {0, 1, 4, 5, 7, 8, 9};
  EXPECT_EQ(shard_slots({0, 3}, runnable), (std::vector<std::size_t>{0, 5, 9}));  // the baseline is shard 0's
  EXPECT_EQ(shard_slots({1, 3}, runnable), (std::vector<std::size_t>{1, 7}));
  EXPECT_EQ(shard_slots({2, 3}, {0, 1}), (std::vector<std::size_t>{}));
}

TEST(TuneBatchScript, QuotingAndWords) {
  EXPECT_EQ(shell_quote("/tmp/a.conf"), "/tmp/a.conf");
  EXPECT_EQ(shell_quote("a b"), "'a b'");
  EXPECT_EQ(shell_quote("it's"), "'it'\\''s'");
  EXPECT_EQ(shell_quote("$(x)"), "'$(x)'");
  EXPECT_EQ(shell_quote(""), "''");
  EXPECT_EQ(sbatch_quote("--comment=a b\"c"), "--comment=a\\ b\\\"c");
  EXPECT_EQ(sbatch_quote(":x"), "\\:x");
  EXPECT_FALSE(sbatch_quote("a\nb"));
  auto words = split_words(" --partition=debug  --comment='a b' \"c\\\"d\" e\\ f ");
  ASSERT_TRUE(words);
  EXPECT_EQ(*words, (std::vector<std::string>{"--partition=debug", "--comment=a b", "c\"d", "e f"}));
  EXPECT_FALSE(split_words("--comment='a"));
}

TEST(TuneExec, ShardsMergeToTheLocalReportByteForByte) {
  const auto dir = sa::test::fresh_test_dir("tune_exec");
  const auto text1 = run(kSearch + " --jobs 1"), json1 = run(kSearch + " --jobs 1 --format json");
  const auto text4 = run(kSearch + " --jobs 4"), json4 = run(kSearch + " --jobs 4 --format json");
  ASSERT_EQ(text1.status, 0);
  EXPECT_EQ(text1.out, text4.out);
  EXPECT_EQ(json1.out, json4.out);
  run_shards(dir / "run");
  const auto text = run("tune --merge " + quoted(dir / "run"));
  EXPECT_EQ(text.status, 0);
  EXPECT_EQ(text.out, text1.out);
  const auto json = run("tune --merge " + quoted(dir / "run") + " --format json");
  EXPECT_EQ(json.out, json1.out);
  // The 5 runs (slots 0-4; 5 and 6 are refused) over 3 shards: shard 1 has runs 1 and 4.
  const auto shard1 = nlohmann::json::parse(read(dir / "run" / "shard-1.json"));
  EXPECT_EQ(shard1["shards"], 3);
  ASSERT_EQ(shard1["candidates"].size(), 2u);
  EXPECT_EQ(shard1["candidates"][0]["candidate"], 1);
  EXPECT_EQ(shard1["candidates"][1]["candidate"], 4);
}

TEST(TuneExec, MissingShardIsNamedWithTheCommandThatRerunsIt) {
  const auto dir = sa::test::fresh_test_dir("tune_exec");
  run_shards(dir / "run");
  fs::remove(dir / "run" / "shard-1.json");
  auto r = run("tune --merge " + quoted(dir / "run"), true);
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.out.find("shard 1 of 3: missing"), std::string::npos) << r.out;
  const std::string marker = "re-run it alone with:\n    ";
  const auto at = r.out.find(marker);
  ASSERT_NE(at, std::string::npos) << r.out;
  const std::string command =
      r.out.substr(at + marker.size(), r.out.find('\n', at + marker.size()) - at - marker.size());
  EXPECT_NE(command.find("--shard=1/3"), std::string::npos) << command;
  EXPECT_NE(r.out.find("sbatch --array=1 "), std::string::npos) << r.out;
  // The exact command, pasted into a shell, brings the shard back.
  ASSERT_EQ(std::system(("sh -c " + shell_quote(command + " 2>/dev/null")).c_str()), 0) << command;
  EXPECT_EQ(run("tune --merge " + quoted(dir / "run")).out, run(kSearch).out);
}

TEST(TuneExec, DamagedShardsAndManifestsAreDiagnosticsNotCrashes) {
  const auto dir = sa::test::fresh_test_dir("tune_exec");
  run_shards(dir / "run");
  const fs::path shard = dir / "run" / "shard-2.json";
  const std::string good = read(shard);
  auto merge = [&] { return run("tune --merge " + quoted(dir / "run"), true); };
  auto patched = [&](const std::string& patch) {
    nlohmann::json j = nlohmann::json::parse(good);
    j.merge_patch(nlohmann::json::parse(patch));
    return j.dump();
  };
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"{\"format\": \"slurm-advisor-tune-shard\", \"candid", "shard 2 of 3: corrupted"},
      {"\x01\x02 not json", "shard 2 of 3: corrupted"},
      {"[1, 2]", "shard 2 of 3: corrupted"},
      {patched(R"({"spec_hash": "0123456789abcdef"})"), "from another run"},
      {patched(R"({"shard": 1})"), "does not say it is shard 2/3"},
      {patched(R"({"candidates": [{"candidate": 2, "seeds": [[1, "x"]]}]})"),
       "candidate 2 does not have 2 seeds of 2 numbers"},
      {patched(R"({"candidates": [{"candidate": 3, "seeds": []}]})"), "not this shard's"},
      {patched(R"({"candidates": []})"), "incomplete"},
      {patched(R"({"error": "out of memory"})"), "failed: out of memory"},
  };
  for (const auto& [content, expected] : cases) {
    write(shard, content);
    const auto r = merge();
    EXPECT_EQ(r.status, 2) << content;
    EXPECT_NE(r.out.find(expected), std::string::npos) << content << "\n" << r.out;
  }
  write(shard, good);
  EXPECT_EQ(merge().status, 0);
  write(dir / "run" / "manifest.json", "{\"format\": 3}");
  auto r = merge();
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.out.find("is not a tune manifest"), std::string::npos) << r.out;
  r = run("tune --merge " + quoted(dir / "nowhere"), true);
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.out.find("cannot merge"), std::string::npos) << r.out;
}

// A run with relative paths, merged from elsewhere: the merge reads the site from the run's
// directory (the report names small.conf as the run did) and writes --output where it is asked;
// an input changed since the shards ran is refused.
TEST(TuneExec, MergeReadsTheSiteFromTheRunsDirectory) {
  const auto dir = sa::test::fresh_test_dir("tune_exec");
  fs::create_directories(dir / "site");
  fs::create_directories(dir / "elsewhere");
  fs::copy_file(kSmall, dir / "site" / "small.conf");
  const std::string in_site =
      "cd " + quoted(dir / "site") + " && " + SA_BINARY + " tune small.conf" + kSearch.substr(kSearch.find(" --goal"));
  ASSERT_EQ(std::system((in_site + " > local.txt").c_str()), 0);
  ASSERT_EQ(std::system((in_site + " --executor slurm --shards 2 --out run > /dev/null").c_str()), 0);
  for (const char* task : {"0", "1"}) {
    ASSERT_EQ(std::system(
                  ("SLURM_ARRAY_TASK_ID=" + std::string(task) + " sh " + quoted(dir / "site" / "run" / "tune-array.sh"))
                      .c_str()),
              0);
  }
  const std::string merge = "cd " + quoted(dir / "elsewhere") + " && " + SA_BINARY + " tune --merge ../site/run";
  ASSERT_EQ(std::system((merge + " --output merged.txt").c_str()), 0);
  EXPECT_EQ(read(dir / "elsewhere" / "merged.txt"), read(dir / "site" / "local.txt"));
  EXPECT_NE(read(dir / "site" / "local.txt").find("--- small.conf"), std::string::npos);
  std::ofstream(dir / "site" / "small.conf", std::ios::app) << "# edited after the array ran\n";
  const auto r = run("tune --merge " + quoted(dir / "site" / "run"), true);
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.out.find("changed since it was written"), std::string::npos) << r.out;
}

TEST(TuneExec, ResumesFromTheRecordedCandidates) {
  const auto dir = sa::test::fresh_test_dir("tune_exec");
  const std::string out = " --format json --out " + quoted(dir / "run");
  const auto whole = run(kSearch + out);
  ASSERT_EQ(whole.status, 0);
  EXPECT_EQ(whole.out, run(kSearch + " --format json").out);
  std::size_t records = 0;
  for (const auto& e : fs::directory_iterator(dir / "run" / "candidates")) records += e.is_regular_file() ? 1 : 0;
  EXPECT_EQ(records, 5u);  // the baseline and the 4 candidates the analyzer accepts
  // An interrupted run: two candidates never finished; the other three come from the records.
  fs::remove(dir / "run" / "candidates" / "0.json");
  fs::remove(dir / "run" / "candidates" / "4.json");
  EXPECT_EQ(run(kSearch + out + " --jobs 2").out, whole.out);
  EXPECT_TRUE(fs::exists(dir / "run" / "candidates" / "4.json"));
  // The records are what the report is computed from: a changed one changes the baseline.
  auto record = nlohmann::json::parse(read(dir / "run" / "candidates" / "0.json"));
  record["seeds"] = {{0.5, 0}, {0.5, 0}};
  write(dir / "run" / "candidates" / "0.json", record.dump());
  const auto changed = nlohmann::json::parse(run(kSearch + out).out);
  EXPECT_DOUBLE_EQ(changed["baseline"]["goals"][0]["value"].get<double>(), 0.5);
  // A record that does not read is run again, with a warning.
  write(dir / "run" / "candidates" / "0.json", "garbage");
  const auto warned = run(kSearch + out, true);
  EXPECT_NE(warned.out.find("is not a record of this run"), std::string::npos) << warned.out;
  // Other options (other seeds) are another run: refused, not mixed in.
  const auto other = run(kSearch + out + " --seed 7", true);
  EXPECT_EQ(other.status, 2);
  EXPECT_NE(other.out.find("holds the results of another tune run"), std::string::npos) << other.out;
}

TEST(TuneExec, ArrayScriptQuotesEveryPath) {
  const auto dir = sa::test::fresh_test_dir("tune_exec");
  const fs::path out = dir / "it's a \"run\" $HOME";
  const auto r = run(kSearch + " --executor slurm --shards 2 --jobs 2 --out " + quoted(out) +
                     " --sbatch-args \"--partition=debug --comment='a b#c'\"");
  ASSERT_EQ(r.status, 0) << r.out;
  EXPECT_NE(r.out.find("sbatch " + shell_quote((out / "tune-array.sh").string())), std::string::npos) << r.out;
  const std::string script = read(out / "tune-array.sh");
  EXPECT_NE(script.find("\n#SBATCH --array=0-1\n"), std::string::npos) << script;
  EXPECT_NE(script.find("\n#SBATCH --cpus-per-task=2\n"), std::string::npos) << script;
  EXPECT_NE(script.find("\n#SBATCH --partition=debug --comment=a\\ b\\#c\n"), std::string::npos) << script;
  EXPECT_NE(script.find("'--out=" + out.string().substr(0, out.string().find('\'')) + "'\\''s a \"run\" $HOME'"),
            std::string::npos)
      << script;
  EXPECT_NE(script.find("--shard=\"${SLURM_ARRAY_TASK_ID}\"/2"), std::string::npos) << script;
  const auto manifest = nlohmann::json::parse(read(out / "manifest.json"));
  EXPECT_EQ(manifest["shards"], 2);
  EXPECT_EQ(manifest["slots"], 7);
  EXPECT_EQ(manifest["runs"], 5);
  EXPECT_EQ(manifest["goals"][0], "backfill_share>=5%");
  // What sbatch would start, started here: each task finds its way through the quotes.
  for (const char* task : {"0", "1"}) {
    const std::string command = std::string("SLURM_ARRAY_TASK_ID=") + task + " sh " + quoted(out / "tune-array.sh");
    ASSERT_EQ(std::system(command.c_str()), 0) << read(out / "logs" / (std::string("shard-") + task + ".log"));
  }
  EXPECT_EQ(run("tune --merge " + quoted(out)).out, run(kSearch).out);
}

// --submit runs sbatch from PATH (here a stand-in that records its arguments) and prints the
// job id; an sbatch that fails is a diagnostic, and the script stays for a manual sbatch.
TEST(TuneExec, SubmitRunsSbatchAndPrintsTheJobId) {
  const auto dir = sa::test::fresh_test_dir("tune_exec");
  fs::create_directories(dir / "bin");
  const fs::path sbatch = dir / "bin" / "sbatch";
  write(sbatch, "#!/bin/sh\nprintf '%s\\n' \"$@\" > \"$(dirname \"$0\")/args\"\necho '4242;sim'\n");
  fs::permissions(sbatch, fs::perms::owner_all);
  const std::string old_path = std::getenv("PATH") ? std::getenv("PATH") : "/usr/bin:/bin";
  ::setenv("PATH", ((dir / "bin").string() + ":" + old_path).c_str(), 1);
  const std::string submit = kSearch + " --executor slurm --out " + quoted(dir / "run") + " --submit";
  auto r = run(submit);
  EXPECT_EQ(r.status, 0);
  EXPECT_NE(r.out.find("submitted job array 4242 (5 tasks, 5 runs)"), std::string::npos) << r.out;
  EXPECT_EQ(read(dir / "bin" / "args"), "--parsable\n" + (dir / "run" / "tune-array.sh").string() + "\n");
  write(sbatch, "#!/bin/sh\necho 'sbatch: error: invalid partition' >&2\nexit 1\n");
  r = run(submit, true);
  ::setenv("PATH", old_path.c_str(), 1);
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.out.find("sbatch: error: invalid partition"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("sbatch failed (exit status 1); the script is "), std::string::npos) << r.out;
}

TEST(TuneExec, ProgressGoesToStderrOnlyWhenAsked) {
  const auto dir = sa::test::fresh_test_dir("tune_exec");
  const std::string json = (dir / "r.json").string();
  auto r = run(kSearch + " --format json --output " + json + " --progress", true);
  ASSERT_EQ(r.status, 0) << r.out;
  EXPECT_NE(r.out.find("tune: 5/5 candidates done, best so far: "), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("(2/2 goals)"), std::string::npos) << r.out;
  EXPECT_NO_THROW(nlohmann::json::parse(read(json)));
  r = run(kSearch + " --format json --output " + json, true);  // stderr is a pipe: no progress
  EXPECT_EQ(r.out.find("candidates done"), std::string::npos) << r.out;
}

// Successive halving picks each rung's candidates from the previous rung's ranks: the executors
// and --out refuse it, before anything is written, and name --search grid.
TEST(TuneExec, HalvingIsRefusedByTheExecutors) {
  const auto dir = sa::test::fresh_test_dir("tune_exec");
  const std::string halving = kSearch + " --search halving --sample 4";
  EXPECT_NE(run(halving).status, 2);  // on this machine it runs
  for (const std::string& where :
       {std::string(" --out "), std::string(" --executor slurm --out "), std::string(" --shard 0/2 --out ")}) {
    const auto r = run(halving + where + quoted(dir / "run"), true);
    EXPECT_EQ(r.status, 2) << where << "\n" << r.out;
    EXPECT_NE(r.out.find("runs successive halving"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("use --search grid"), std::string::npos) << r.out;
    EXPECT_FALSE(fs::exists(dir / "run" / "manifest.json"));
  }
}

// A --spec file's contents are part of the spec hash (an edited file is another run); the
// output options, --format html included, are not.
TEST(TuneExec, SpecFileContentsAreInTheSpecHash) {
  const auto dir = sa::test::fresh_test_dir("tune_exec");
  const fs::path spec = dir / "spec.toml";
  write(spec, "goals = [\"backfill_share>=5%\", \"starved==0\"]\nvary = [\"bf_window=30,240\"]\n");
  const std::string cmd = "tune " + kSmall + " --spec " + quoted(spec) + " --seeds 2 --days 1 --search grid";
  const std::string out = " --out " + quoted(dir / "run");
  const auto local = run(cmd + " --format json");
  ASSERT_NE(local.status, 2) << local.out;
  ASSERT_EQ(run(cmd + " --executor slurm --shards 2" + out).status, 0);
  for (int i = 0; i < 2; ++i) ASSERT_NE(run(cmd + " --shard " + std::to_string(i) + "/2" + out).status, 2);
  EXPECT_EQ(run("tune --merge " + quoted(dir / "run") + " --format json").out, local.out);
  const auto html = run("tune --merge " + quoted(dir / "run") + " --format html --output " + quoted(dir / "t.html"));
  EXPECT_NE(html.status, 2) << html.out;
  EXPECT_NE(read(dir / "t.html").find("<html"), std::string::npos);
  write(spec, "goals = [\"backfill_share>=6%\", \"starved==0\"]\nvary = [\"bf_window=30,240\"]\n");
  const auto merged = run("tune --merge " + quoted(dir / "run"), true);
  EXPECT_EQ(merged.status, 2);
  EXPECT_NE(merged.out.find("changed since it was written"), std::string::npos) << merged.out;
  const auto resumed = run(cmd + out, true);
  EXPECT_EQ(resumed.status, 2);
  EXPECT_NE(resumed.out.find("holds the results of another tune run"), std::string::npos) << resumed.out;
}

TEST(TuneExec, OptionMisuseIsAUsageError) {
  for (const std::string& args :
       std::vector<std::string>{kSearch + " --shard 0/2", kSearch + " --executor slurm", kSearch + " --submit",
                                kSearch + " --shard 3/2 --out /tmp/x", "tune --merge /tmp/x --goal starved==0",
                                "tune " + kSmall + " --goal starved==0"}) {
    const auto r = run(args, true);
    EXPECT_EQ(r.status, 2) << args << "\n" << r.out;
    EXPECT_NE(r.out.find("slurm-advisor: "), std::string::npos) << r.out;
  }
}

}  // namespace
