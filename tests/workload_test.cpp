// Workload readers: SWF with its header, sacct -P with columns in any order and every
// time/memory spelling, malformed lines as diagnostics (skipped or stopping the read),
// synthetic profiles, and every trace in ../shared/corpora/workloads read without a crash.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <map>
#include <random>

#include "engine/workload/job_shape.h"
#include "engine/workload/submit_line.h"
#include "engine/workload/synthetic.h"
#include "engine/workload/trace_fields.h"
#include "engine/workload/workload.h"
#include "tests/scratch_dir.h"
#include "tests/test_util.h"

namespace sa {
namespace {

using engine::JobRequest;

engine::Workload read_text(const std::string& text, DiagnosticSink& sink, bool stop = false) {
  static SourceManager sources;  // diagnostics keep FileIds; the manager must outlive them
  FileId f = sources.add("trace", text);
  if (engine::looks_like_swf(text)) return engine::read_swf(f, sources, sink, {stop});
  return engine::read_sacct(f, sources, sink, {stop});
}

TEST(TraceFields, TimesDurationsAndMemory) {
  EXPECT_EQ(engine::parse_trace_time("1795280679"), 1795280679);
  EXPECT_EQ(engine::parse_trace_time("2021-12-10T14:23:28"), 1639146208);
  EXPECT_FALSE(engine::parse_trace_time("Unknown"));
  EXPECT_FALSE(engine::parse_trace_time("None"));
  EXPECT_EQ(engine::parse_trace_duration("3-00:00:00"), 3 * 86400);
  EXPECT_EQ(engine::parse_trace_duration("23:33:25"), 23 * 3600 + 33 * 60 + 25);
  EXPECT_EQ(engine::parse_trace_duration("01:12.345"), 72);  // MM:SS.frac
  EXPECT_FALSE(engine::parse_trace_duration("UNLIMITED"));
  auto m = engine::parse_trace_memory("4000Mc");
  ASSERT_TRUE(m);
  EXPECT_EQ(m->mb, 4000u);
  EXPECT_EQ(m->per, engine::TraceMemory::Per::kCpu);
  m = engine::parse_trace_memory("2Gn");
  EXPECT_EQ(m->mb, 2048u);
  EXPECT_EQ(m->per, engine::TraceMemory::Per::kNode);
  m = engine::parse_trace_memory("62.50G");
  EXPECT_EQ(m->mb, 64000u);
  EXPECT_EQ(m->per, engine::TraceMemory::Per::kJob);
  EXPECT_FALSE(engine::parse_trace_memory("lots"));
}

TEST(SwfReader, HeaderFieldsAndSkippedJobs) {
  DiagnosticSink sink;
  auto w = read_text(
      "; Version: 2.2\n; UnixStartTime: 1027839845\n;\n"
      "    1        0 308434  31405   30  31405    -1   30  37980    -1  1   1   1  -1 -1  1 -1 -1\n"
      "   12   342343      5    553   40 552.21    -1   40  43200  2048  1   4   2  -1  3  1 -1 -1\n"
      "   13   342350     -1     -1   -1     -1    -1   -1     -1    -1  5   4   2  -1  3  1 -1 -1\n"
      "   14   oops\n",
      sink);
  EXPECT_EQ(w.epoch_offset, 1027839845);
  ASSERT_EQ(w.jobs.size(), 2u);
  const JobRequest& j = w.jobs[1];
  EXPECT_EQ(j.id, 12u);
  EXPECT_EQ(j.submit, 342343);
  EXPECT_EQ(j.run_time, 553);
  EXPECT_EQ(j.cpus, 40u);
  EXPECT_EQ(j.time_limit, 43200);
  EXPECT_EQ(j.mem_mb, 2u);  // 2048 KB per processor
  EXPECT_TRUE(j.mem_per_cpu);
  EXPECT_EQ(j.user, "user4");
  EXPECT_EQ(j.account, "group2");
  ASSERT_EQ(j.partitions.size(), 1u);
  EXPECT_EQ(j.partitions[0], "queue3");
  EXPECT_EQ(w.skipped_lines, 2u);
  ASSERT_EQ(sink.count(Severity::kError), 1);
  EXPECT_EQ(sink.all().back().code, "WORK001");
  EXPECT_EQ(sink.all().back().loc.line, 7);
}

TEST(SacctReader, ColumnsInAnyOrderWithStepsAndUnits) {
  DiagnosticSink sink;
  auto w = read_text(
      "State|ReqMem|Partition|JobID|Submit|Start|End|Timelimit|ReqCPUS|NNodes|Account|User|QOS|Extra\n"
      "COMPLETED|4000Mc|batch|101|2021-12-10T14:23:28|2021-12-10T14:23:30|2021-12-10T15:23:30|02:00:00|8|2|Chem|ann|"
      "Normal|x\n"
      "COMPLETED|4000Mc||101.batch|2021-12-10T14:23:28|2021-12-10T14:23:30|2021-12-10T15:23:30||8|1|chem|ann||x\n"
      "PENDING|16G|debug,batch|102|2021-12-10T14:30:00|Unknown|Unknown|00:30:00|4|1|bio|bob|low|x\n"
      "CANCELLED by 0|1G|batch|103|2021-12-10T14:31:00|None|2021-12-10T14:35:00|00:30:00|4|1|bio|bob|low|x\n",
      sink);
  ASSERT_EQ(w.jobs.size(), 3u);
  const JobRequest& a = w.jobs[0];
  EXPECT_EQ(a.id, 101u);
  EXPECT_EQ(a.run_time, 3600);
  EXPECT_EQ(a.time_limit, 7200);
  EXPECT_EQ(a.cpus, 8u);
  EXPECT_EQ(a.nodes, 2u);
  EXPECT_EQ(a.mem_mb, 4000u);
  EXPECT_TRUE(a.mem_per_cpu);
  EXPECT_EQ(a.account, "chem");  // Slurm stores account and QOS names lower-cased
  EXPECT_EQ(a.qos, "normal");
  EXPECT_EQ(a.extra.get().recorded_start, a.submit + 2);
  const JobRequest& b = w.jobs[1];
  EXPECT_EQ(b.extra.get().recorded_start, engine::kNoTime);
  EXPECT_EQ(b.run_time, 1800);  // still pending: its limit stands in for the run time
  EXPECT_EQ(b.mem_mb, 4096u);   // 16G for the job, per CPU
  ASSERT_EQ(b.partitions.size(), 2u);
  EXPECT_EQ(b.partitions[1], "batch");
  // Job 103 was cancelled while pending: kept, pending until its scancel (End), and a run
  // the replay starts before then lasts until then at most.
  const JobRequest& c = w.jobs[2];
  EXPECT_EQ(c.id, 103u);
  EXPECT_EQ(c.extra.get().cancelled_at, c.submit + 240);
  EXPECT_EQ(c.run_time, 240);
  EXPECT_EQ(w.skipped_lines, 0u);
  EXPECT_FALSE(sink.has_errors());
}

TEST(SacctReader, MalformedLinesAreDiagnosedThenSkippedOrStop) {
  const std::string text =
      "JobIDRaw|Submit|ElapsedRaw|ReqCPUS\n"
      "1|1000|60|4\n"
      "2|yesterday|60|4\n"
      "3|1010|60\n"
      "4|1020|60|4\n";
  DiagnosticSink sink;
  auto w = read_text(text, sink);
  EXPECT_EQ(w.jobs.size(), 2u);
  ASSERT_EQ(sink.count(Severity::kError), 2);
  std::vector<int> lines;
  for (const Diagnostic& d : sink.sorted()) lines.push_back(d.loc.line);
  EXPECT_EQ(lines, (std::vector<int>{3, 4}));
  EXPECT_EQ(sink.sorted()[0].loc.column, 3);  // the Submit field
  DiagnosticSink stop_sink;
  auto stopped = read_text(text, stop_sink, true);
  EXPECT_EQ(stopped.jobs.size(), 1u);
}

TEST(SacctReader, MissingColumnsAndDuplicateIds) {
  DiagnosticSink sink;
  auto w = read_text("User|Account\nann|chem\n", sink);
  EXPECT_TRUE(w.jobs.empty());
  ASSERT_EQ(sink.all().size(), 1u);
  EXPECT_EQ(sink.all()[0].code, "WORK003");
  DiagnosticSink dup;
  auto d = read_text("JobID|Submit|ElapsedRaw|ReqCPUS\n7|100|5|1\n7|200|5|1\n", dup);
  ASSERT_EQ(d.jobs.size(), 2u);
  EXPECT_EQ(d.jobs[0].id, 7u);
  EXPECT_EQ(d.jobs[1].id, 8u);
  EXPECT_EQ(dup.all()[0].code, "WORK004");
}

TEST(SubmitLine, ShellWordsAndSbatchOptionForms) {
  auto words = engine::shell_words(R"(sbatch -C "a&b" --comment='two words' x\ y "q\"uote")");
  ASSERT_TRUE(words.ok());
  EXPECT_EQ(*words, (std::vector<std::string>{"sbatch", "-C", "a&b", "--comment=two words", "x y", "q\"uote"}));
  EXPECT_FALSE(engine::shell_words("sbatch -C 'a&b").ok());
  auto o = engine::parse_submit_line(
      "sbatch -N2-4 -n 16 --ntasks-per-node=4 -c2 --mem 8G -J my-job --gres=gpu:a100:2 -C '[rack1|rack2]' "
      "-d afterok:12:13,singleton -L matlab:2,ansys -w 'n[1-2]' --exclude=n9 -Hv --begin=now+1hour "
      "--exclusive job.sh -N 99 --mem=1");
  ASSERT_TRUE(o.ok()) << o.error();
  EXPECT_EQ(o->program, "sbatch");
  EXPECT_EQ(o->nodes, "2-4");
  EXPECT_EQ(o->ntasks, "16");
  EXPECT_EQ(o->ntasks_per_node, "4");
  EXPECT_EQ(o->cpus_per_task, "2");
  EXPECT_EQ(o->mem, "8G");  // -N 99 and --mem=1 belong to job.sh, not to sbatch
  EXPECT_EQ(o->gres, "gpu:a100:2");
  EXPECT_EQ(o->constraint, "[rack1|rack2]");
  EXPECT_EQ(o->dependency, "afterok:12:13,singleton");
  EXPECT_EQ(o->licenses, "matlab:2,ansys");
  EXPECT_EQ(o->nodelist, "n[1-2]");
  EXPECT_EQ(o->exclude, "n9");
  EXPECT_TRUE(o->hold);
  EXPECT_EQ(o->begin, "now+1hour");
  EXPECT_EQ(o->exclusive, "");
  EXPECT_TRUE(o->unknown.empty());
  EXPECT_FALSE(o->mem_per_cpu);
  auto last = engine::parse_submit_line("srun --mem-per=2000 --gpus-per-node=v100:1 --bogus -Z -n");
  ASSERT_FALSE(last.ok());  // -n needs a value
  EXPECT_EQ(last.error(), "-n needs a value");
  auto prefix = engine::parse_submit_line("srun --mem-per-c=2000 --gpus-per-node=v100:1 --bogus -Z hostname");
  ASSERT_TRUE(prefix.ok());
  EXPECT_EQ(prefix->mem_per_cpu, "2000");  // a unique prefix of --mem-per-cpu
  EXPECT_EQ(prefix->gpus_per_node, "v100:1");
  EXPECT_EQ(prefix->unknown, (std::vector<std::string>{"--bogus", "-Z"}));
  std::string huge = "sbatch";
  for (int i = 0; i < 10'000; ++i) huge += " -C 'a&b' --mem=\"1G\"";
  auto many = engine::parse_submit_line(huge + " job.sh");
  ASSERT_TRUE(many.ok());
  EXPECT_EQ(many->mem, "1G");
  EXPECT_TRUE(engine::parse_submit_line(std::string(100'000, '"')).ok());  // 50,000 empty words
  EXPECT_FALSE(engine::parse_submit_line(std::string(99'999, '\'')).ok());
  EXPECT_TRUE(engine::parse_submit_line("").ok());
  // Noise through every reader of this file: answers or errors, never a crash or a hang.
  std::mt19937 rng(21);
  const std::string alphabet = "-=:,?+_*()'\"\\ abdfkNnCcxw0123456789|;";
  for (int round = 0; round < 300; ++round) {
    std::string noise(1 + rng() % 200, ' ');
    for (char& ch : noise) ch = alphabet[rng() % alphabet.size()];
    (void)engine::parse_submit_line("sbatch " + noise);
    (void)engine::parse_dependency(noise);
    (void)parse_licenses(noise);
    (void)engine::parse_node_range(noise);
    (void)engine::parse_mem_option(noise);
    (void)engine::parse_gres_gpus(noise);
  }
}

TEST(SubmitLine, ValueReaders) {
  EXPECT_EQ(engine::parse_node_range("2-4"), std::make_pair(2u, 4u));
  EXPECT_EQ(engine::parse_node_range("3"), std::make_pair(3u, 3u));
  EXPECT_EQ(engine::parse_node_range("1k"), std::make_pair(1024u, 1024u));
  EXPECT_FALSE(engine::parse_node_range("4-2"));
  EXPECT_FALSE(engine::parse_node_range("two"));
  EXPECT_EQ(engine::parse_mem_option("8G"), 8192u);
  EXPECT_EQ(engine::parse_mem_option("1500"), 1500u);
  EXPECT_EQ(engine::parse_mem_option("1025K"), 2u);  // K rounds up to whole MB
  EXPECT_EQ(engine::parse_mem_option("4GB"), 4096u);
  EXPECT_FALSE(engine::parse_mem_option("4Q"));
  EXPECT_FALSE(engine::parse_mem_option("-1"));
  EXPECT_EQ(engine::parse_gres_gpus("gpu:a100:2,shard:4"), 2u);
  EXPECT_EQ(engine::parse_gres_gpus("gpu"), 1u);
  EXPECT_EQ(engine::parse_gres_gpus("gres/gpu:3"), 3u);
  EXPECT_EQ(engine::parse_gres_gpus("mps:100"), 0u);
  EXPECT_FALSE(engine::parse_gres_gpus("gpu:a100:x:2"));
  EXPECT_EQ(engine::parse_gpu_count("a100:4"), 4u);
  auto d = engine::parse_dependency("afterok:12:13+5,singleton?afternotok:7_*(unfulfilled)");
  ASSERT_TRUE(d.ok()) << d.error();
  ASSERT_EQ(d->items.size(), 4u);
  EXPECT_EQ(d->items[0], (engine::Dependency{engine::DependencyType::kAfterOk, 12, 0}));
  EXPECT_EQ(d->items[1], (engine::Dependency{engine::DependencyType::kAfterOk, 13, 300}));
  EXPECT_EQ(d->items[2].type, engine::DependencyType::kSingleton);
  EXPECT_EQ(d->items[3], (engine::Dependency{engine::DependencyType::kAfterNotOk, 7, 0}));
  EXPECT_TRUE(d->any);
  auto old = engine::parse_dependency("101,102");
  ASSERT_TRUE(old.ok());
  EXPECT_EQ(old->items[1], (engine::Dependency{engine::DependencyType::kAfterAny, 102, 0}));
  EXPECT_TRUE(engine::parse_dependency("0")->items.empty());
  EXPECT_FALSE(engine::parse_dependency("afterfoo:1").ok());
  EXPECT_FALSE(engine::parse_dependency("afterok:0").ok());
  EXPECT_FALSE(engine::parse_dependency("after:5+0").ok());
  EXPECT_FALSE(engine::parse_dependency("afterok:5x").ok());
}

TEST(SacctReader, ShapeFromColumnsAndSubmitLine) {
  DiagnosticSink sink;
  auto w = read_text(
      "JobIDRaw|Submit|ElapsedRaw|ReqCPUS|ReqNodes|ReqMem|NTasks|ReqTRES|AllocTRES|Constraints|Licenses|SubmitLine\n"
      "1|100|60|32|2|16000M|32|billing=32,cpu=32,license/matlab=2,node=2|cpu=32,gres/gpu=4|ib&[r1*1&r2*1]||"
      "sbatch -N2-3 --ntasks-per-node=16 --mem=8000 -d afterany:0 -x n7 -H job.sh\n"
      "2|110|60|8||4000M||billing=8,cpu=8,node=1||a&&b|ansys:2|sbatch -n 8 --mem-per-cpu=500 -L x:1 --frobnicate\n"
      "3|120|60|4||8G||||||\n",
      sink);
  ASSERT_EQ(w.jobs.size(), 3u);
  const JobRequest& a = w.jobs[0];
  EXPECT_EQ(a.nodes, 2u);
  EXPECT_EQ(a.extra.get().max_nodes, 3u);
  EXPECT_EQ(a.extra.get().ntasks, 32u);
  EXPECT_EQ(a.extra.get().ntasks_per_node, 16u);
  EXPECT_EQ(a.cpus_per_node, 16u);
  EXPECT_EQ(a.mem_mb, 8000u);  // --mem is per node: SubmitLine puts back what ReqMem's total lost
  EXPECT_FALSE(a.mem_per_cpu);
  EXPECT_EQ(a.gpus, 4u);  // from AllocTRES when ReqTRES has none
  EXPECT_EQ(a.extra.get().constraint, "ib&[r1*1&r2*1]");
  EXPECT_EQ(a.licenses, (std::vector<License>{{"matlab", 2}}));
  EXPECT_TRUE(a.dependencies.empty());  // "afterany:0" cannot be read: a warning
  EXPECT_EQ(a.extra.get().exclude, "n7");
  EXPECT_TRUE(a.hold);
  const JobRequest& b = w.jobs[1];
  EXPECT_EQ(b.nodes, 1u);  // ReqTRES node= when ReqNodes is empty
  EXPECT_EQ(b.extra.get().ntasks, 8u);
  EXPECT_EQ(b.mem_mb, 500u);
  EXPECT_TRUE(b.mem_per_cpu);
  EXPECT_EQ(b.extra.get().constraint, "a&&b");                  // kept as written, with a warning
  EXPECT_EQ(b.licenses, (std::vector<License>{{"ansys", 2}}));  // the column wins over -L
  const JobRequest& c = w.jobs[2];
  EXPECT_EQ(c.mem_mb, 2048u);  // no SubmitLine: ReqMem's total, spread per CPU as before
  EXPECT_TRUE(c.mem_per_cpu);
  EXPECT_EQ(c.extra.get().max_nodes, 0u);
  EXPECT_TRUE(c.extra.get().constraint.empty());
  EXPECT_FALSE(sink.has_errors());
  EXPECT_EQ(test::where(sink), (std::vector<std::string>{"WORK001 2:101", "WORK001 3:46", "WORK007 3:57"}));
}

// --mem-per-gpu does not set the job's memory (ReqMem is then its GPUs' total), so the
// request keeps none and the engine gives each node its GPUs' share; --cpus-per-gpu is kept.
TEST(SacctReader, PerGpuMemoryAndCpusFromTheSubmitLine) {
  DiagnosticSink sink;
  auto w = read_text(
      "JobIDRaw|Submit|ElapsedRaw|ReqCPUS|ReqNodes|ReqMem|SubmitLine\n"
      "1|100|60|1|1|2000M|sbatch --gres=gpu:1 --mem-per-gpu=2000 --cpus-per-gpu=1 --wrap x\n"
      "2|100|60|1|1|1000M|sbatch --gres=gpu:2 --mem-per-g=2G --wrap x\n"
      "3|100|60|1|1|1000M|sbatch --gres=gpu:1 --mem-per-gpu=lots --cpus-per-gpu=0 --wrap x\n",
      sink);
  ASSERT_EQ(w.jobs.size(), 3u);
  EXPECT_FALSE(w.jobs[0].mem_set);
  EXPECT_EQ(w.jobs[0].extra.get().mem_per_gpu, 2000u);
  EXPECT_EQ(w.jobs[0].extra.get().cpus_per_gpu, 1u);
  EXPECT_EQ(w.jobs[1].extra.get().mem_per_gpu, 2048u);  // a unique prefix, with a unit
  EXPECT_EQ(w.jobs[1].extra.get().gpus_per_node, 2u);
  EXPECT_TRUE(w.jobs[2].mem_set);  // unreadable: ReqMem stays the request, with a warning
  EXPECT_EQ(w.jobs[2].extra.get().mem_per_gpu, 0u);
  EXPECT_EQ(w.jobs[2].extra.get().cpus_per_gpu, 0u);
  EXPECT_FALSE(sink.has_errors());
  EXPECT_EQ(test::where(sink).size(), 2u);
}

// JobID 123_4 is task 4 of array 123 (JobIDRaw stays the job's id); --array's %N (or -a's)
// is the throttle. The row of the tasks still pending (5_[3-9]) is one job, task 3.
TEST(SacctReader, ArrayTasksFromJobIdAndTheirThrottleFromTheSubmitLine) {
  DiagnosticSink sink;
  auto w = read_text(
      "JobIDRaw|JobID|Submit|ElapsedRaw|ReqCPUS|ReqNodes|Start|State|SubmitLine\n"
      "12|3_1|100|60|1|1|110|COMPLETED|sbatch --array=1-2 --wrap x\n"
      "3|3_2|100|60|1|1|170|COMPLETED|sbatch --array=1-2 --wrap x\n"
      "9|5_1|100|60|1|1|110|COMPLETED|sbatch -a 1-9%2 --wrap x\n"
      "5|5_[3-9]|100|0|1|1|Unknown|PENDING|sbatch -a 1-9%2 --wrap x\n"
      "7|7|100|60|1|1|110|COMPLETED|sbatch --array=1-3%x --wrap x\n",
      sink);
  ASSERT_EQ(w.jobs.size(), 5u);
  std::map<std::uint32_t, engine::RequestExtras> x;  // by JobIDRaw
  for (const JobRequest& j : w.jobs) x[j.id] = j.extra.get();
  EXPECT_EQ(x[12].array_job_id, 3u);
  EXPECT_EQ(x[12].array_task_id, 1u);
  EXPECT_EQ(x[12].array_max_run, 0u);
  EXPECT_EQ(x[3].array_job_id, 3u);
  EXPECT_EQ(x[3].array_task_id, 2u);
  EXPECT_EQ(x[9].array_job_id, 5u);
  EXPECT_EQ(x[9].array_max_run, 2u);
  EXPECT_EQ(x[5].array_job_id, 5u);
  EXPECT_EQ(x[5].array_task_id, 3u);
  EXPECT_EQ(x[7].array_job_id, 0u);  // not a task: its --array is ignored
  EXPECT_FALSE(sink.has_errors());
  EXPECT_EQ(test::where(sink).size(), 1u);  // '%x' is not a count
  // Without JobIDRaw every task has its array's id: renumbered, with one note for them all.
  DiagnosticSink only_id;
  auto t = read_text(
      "JobID|Submit|ElapsedRaw|ReqCPUS\n"
      "8_1|100|60|1\n8_2|100|60|1\n8_3|100|60|1\n",
      only_id);
  ASSERT_EQ(t.jobs.size(), 3u);
  EXPECT_EQ(t.jobs[0].id, 8u);
  EXPECT_EQ(t.jobs[1].id, 9u);
  EXPECT_EQ(t.jobs[2].id, 10u);
  EXPECT_EQ(t.jobs[2].extra.get().array_task_id, 3u);
  ASSERT_EQ(only_id.all().size(), 1u);
  EXPECT_EQ(only_id.all()[0].code, "WORK004");
  EXPECT_NE(only_id.all()[0].message.find("2 array task(s)"), std::string::npos) << only_id.all()[0].message;
  EXPECT_NE(only_id.all()[0].message.find("renumbered from 9 on"), std::string::npos) << only_id.all()[0].message;
}

// --time-min in whole minutes (rounded up); sacct's Timelimit is the limit the job ran with
// (backfill may have cut it), so the SubmitLine's --time is the one asked for.
TEST(SacctReader, TimeMinAndTheAskedLimitFromTheSubmitLine) {
  DiagnosticSink sink;
  auto w = read_text(
      "JobIDRaw|Submit|ElapsedRaw|ReqCPUS|TimelimitRaw|SubmitLine\n"
      "1|100|60|1|2|sbatch -t 10 --time-min=2 --wrap x\n"
      "2|100|60|1|5|sbatch --time-min=1:30 --wrap x\n"
      "3|100|60|1|5|sbatch --time=1-00:00:00 --wrap x\n"
      "4|100|60|1|5|sbatch --time-min=soon --wrap x\n",
      sink);
  ASSERT_EQ(w.jobs.size(), 4u);
  EXPECT_EQ(w.jobs[0].time_limit, 600);
  EXPECT_EQ(w.jobs[0].extra.get().time_min, 120);
  EXPECT_EQ(w.jobs[1].time_limit, 300);  // no --time: the column's
  EXPECT_EQ(w.jobs[1].extra.get().time_min, 120);
  EXPECT_EQ(w.jobs[2].time_limit, 300);  // no --time-min: the column's, as ever
  EXPECT_EQ(w.jobs[2].extra.get().time_min, engine::kNoTime);
  EXPECT_EQ(w.jobs[3].extra.get().time_min, engine::kNoTime);
  EXPECT_FALSE(sink.has_errors());
  EXPECT_EQ(test::where(sink).size(), 1u);  // 'soon' is not a time
}

// MaxMemPerCPU raised these jobs' CPUs (the max_mem capture's jobs 1 and 2): ReqTRES keeps the
// CPUs asked, which the replay asks again; without ReqTRES, ReqCPUS is read as raised and the
// memory per CPU as ReqMem over it, not the SubmitLine's, so the engine raises nothing twice.
TEST(SacctReader, CpusRaisedByMaxMemPerCpuAreReadAsAsked) {
  DiagnosticSink sink;
  auto with_tres = read_text(
      "JobIDRaw|Submit|ElapsedRaw|ReqCPUS|ReqMem|ReqTRES|SubmitLine\n"
      "1|100|60|6|10000M|billing=2,cpu=2,mem=10000M,node=1|sbatch -n 2 --mem-per-cpu=5000 --wrap x\n"
      "2|100|60|5|9000M|billing=2,cpu=2,mem=9000M,node=1|sbatch -n 5 --wrap x\n",
      sink);
  ASSERT_EQ(with_tres.jobs.size(), 2u);
  EXPECT_EQ(with_tres.jobs[0].cpus, 2u);
  EXPECT_EQ(with_tres.jobs[0].mem_mb, 5000u);
  EXPECT_TRUE(with_tres.jobs[0].mem_per_cpu);
  EXPECT_EQ(with_tres.jobs[1].cpus, 5u);  // 5 is no multiple of 2: not a MaxMemPerCPU raise
  auto without = read_text(
      "JobIDRaw|Submit|ElapsedRaw|ReqCPUS|ReqMem|SubmitLine\n"
      "1|100|60|6|10000M|sbatch -n 2 --mem-per-cpu=5000 --wrap x\n",
      sink);
  ASSERT_EQ(without.jobs.size(), 1u);
  EXPECT_EQ(without.jobs[0].cpus, 6u);
  EXPECT_EQ(without.jobs[0].mem_mb, 1667u);
  EXPECT_TRUE(without.jobs[0].mem_per_cpu);
  EXPECT_FALSE(sink.has_errors());
}

// sbatch lowers -N's maximum to -n's task count before it submits (opt.c _opt_verify), so
// -N 1-2 -n 1 is a one-node job to slurmctld (a serial one for pack_serial_at_end).
TEST(SacctReader, ANodeMaximumAboveTheTaskCountIsLoweredAsSbatchDoes) {
  DiagnosticSink sink;
  auto w = read_text(
      "JobIDRaw|Submit|ElapsedRaw|ReqCPUS|ReqNodes|SubmitLine\n"
      "1|100|60|1|1|sbatch -N 1-2 -n 1 --wrap x\n"
      "2|100|60|3|2|sbatch -N 2-4 -n 3 --wrap x\n"
      "3|100|60|3|1|sbatch -N 1-4 --wrap x\n",
      sink);
  ASSERT_EQ(w.jobs.size(), 3u);
  EXPECT_EQ(w.jobs[0].extra.get().max_nodes, 1u);
  EXPECT_EQ(w.jobs[1].extra.get().max_nodes, 3u);
  EXPECT_EQ(w.jobs[2].extra.get().max_nodes, 4u);  // no -n: nothing to lower it to
  EXPECT_FALSE(sink.has_errors());
}

// --switches=COUNT[@MAX_TIME] (slurm_opt.c arg_set_switches): the time is time_str2secs's
// (a bare number is minutes); INFINITE leaves the wait at max_switch_wait.
TEST(SacctReader, SwitchesFromTheSubmitLine) {
  DiagnosticSink sink;
  auto w = read_text(
      "JobIDRaw|Submit|ElapsedRaw|ReqCPUS|SubmitLine\n"
      "1|100|60|1|sbatch --switches=2@5:00 --wrap x\n"
      "2|100|60|1|sbatch --switches=1 --wrap x\n"
      "3|100|60|1|sbatch --switches 3@2 --wrap x\n"
      "4|100|60|1|sbatch --switches=1@1-2:00 --wrap x\n"
      "5|100|60|1|sbatch --switches=1@INFINITE --wrap x\n"
      "6|100|60|1|sbatch --wrap x\n",
      sink);
  ASSERT_EQ(w.jobs.size(), 6u);
  EXPECT_EQ(w.jobs[0].extra.get().switches, 2u);
  EXPECT_EQ(w.jobs[0].extra.get().switch_wait, 300);
  EXPECT_EQ(w.jobs[1].extra.get().switches, 1u);
  EXPECT_EQ(w.jobs[1].extra.get().switch_wait, engine::kNoTime);
  EXPECT_EQ(w.jobs[2].extra.get().switches, 3u);
  EXPECT_EQ(w.jobs[2].extra.get().switch_wait, 120);
  EXPECT_EQ(w.jobs[3].extra.get().switch_wait, 86400 + 7200);
  EXPECT_EQ(w.jobs[4].extra.get().switches, 1u);
  EXPECT_EQ(w.jobs[4].extra.get().switch_wait, engine::kNoTime);
  EXPECT_EQ(w.jobs[5].extra.get().switches, 0u);
  EXPECT_FALSE(sink.has_errors());
}

TEST(SacctReader, ASubmitLineWithAScriptsNewlinesIsOneRowAndTabsKeepPipes) {
  // sacct prints a SubmitLine's newlines as they are: the row goes on over the next lines.
  DiagnosticSink sink;
  auto w = read_text(
      "JobIDRaw|Submit|ElapsedRaw|ReqCPUS|SubmitLine|State\n"
      "1|100|5|4|sbatch --wrap 'if true\n"
      "  then echo -N 2\n"
      "fi' -N 2|COMPLETED\n"
      "2|110|5|1|sbatch -n 1|COMPLETED\n",
      sink);
  ASSERT_EQ(w.jobs.size(), 2u) << sink.all().size();
  EXPECT_EQ(w.jobs[0].nodes, 2u);  // -N 2 after the script, not the echo's
  EXPECT_EQ(w.jobs[1].id, 2u);
  EXPECT_EQ(sink.count(Severity::kError), 0);
  // A short row followed by rows is not a broken value: it alone is reported, the rest read.
  DiagnosticSink short_sink;
  auto s = read_text("JobIDRaw|Submit|ElapsedRaw|ReqCPUS|SubmitLine|State\n3|100|5\n4|110|5|1|sbatch|COMPLETED\n",
                     short_sink);
  ASSERT_EQ(s.jobs.size(), 1u);
  EXPECT_EQ(s.jobs[0].id, 4u);
  EXPECT_EQ(short_sink.count(Severity::kError), 1);
  // sacct -P --delimiter=$'\t': a '|' inside a value stays in it.
  DiagnosticSink tab_sink;
  auto t = read_text("JobIDRaw\tSubmit\tElapsedRaw\tReqCPUS\tConstraints\n5\t100\t5\t1\tamd|intel\n", tab_sink);
  ASSERT_EQ(t.jobs.size(), 1u);
  EXPECT_EQ(t.jobs[0].extra.get().constraint, "amd|intel");
}

TEST(SyntheticProfile, ErrorsCarryLineAndColumn) {
  SourceManager sources;
  DiagnosticSink sink;
  FileId f = sources.add("profile", "seed = 1\njobs_per_hour = -3\nruntime = gaussian 10\ncpu = 4\nusers = ann\n");
  engine::read_profile(f, sources, sink);
  std::vector<std::pair<int, std::string>> got;
  for (const Diagnostic& d : sink.sorted()) got.emplace_back(d.loc.line, d.code);
  EXPECT_EQ(got,
            (std::vector<std::pair<int, std::string>>{{2, "WORK005"}, {3, "WORK005"}, {4, "WORK005"}, {5, "WORK005"}}));
  EXPECT_EQ(sink.sorted()[2].hint, "did you mean 'cpus'?");
  EXPECT_EQ(sink.sorted()[1].loc.column, 11);
}

TEST(SyntheticProfile, SeededAndShapedByTheProfile) {
  auto conf = test::analyze_body(
      "NodeName=n[1-4] CPUs=8\nPartitionName=a Nodes=n[1-4] Default=YES MaxTime=04:00:00\n"
      "PartitionName=b Nodes=n[1-4] MaxTime=01:00:00\n");
  SourceManager sources;
  DiagnosticSink sink;
  FileId f = sources.add("profile",
                         "seed = 5\nstart = 1000\nduration = 10-00:00:00\njobs_per_hour = 12\ncpus = 2:1, 8:3\n"
                         "runtime = uniform 600 7200\nlimit_factor = 2 2\nlimit_round = 600\npartition = a:1, b:1\n"
                         "users = ann:chem:3, bob:bio:1\n");
  engine::Profile p = engine::read_profile(f, sources, sink);
  ASSERT_FALSE(sink.has_errors());
  engine::Workload w = engine::generate(p, conf->config, nullptr);
  // About 12 an hour for 240 hours.
  EXPECT_GT(w.jobs.size(), 2600u);
  EXPECT_LT(w.jobs.size(), 3150u);
  std::size_t ann = 0, eight = 0;
  for (const JobRequest& j : w.jobs) {
    EXPECT_GE(j.submit, 1000);
    EXPECT_LT(j.submit, 1000 + 10 * 86400);
    const std::int64_t cap = j.partitions[0] == "a" ? 4 * 3600 : 3600;
    EXPECT_LE(j.time_limit, cap);
    EXPECT_EQ(j.time_limit % 600, j.time_limit == cap ? cap % 600 : 0);
    EXPECT_LE(j.run_time, j.time_limit);
    ann += j.user == "ann";
    eight += j.cpus == 8;
  }
  EXPECT_NEAR(static_cast<double>(ann) / static_cast<double>(w.jobs.size()), 0.75, 0.03);
  EXPECT_NEAR(static_cast<double>(eight) / static_cast<double>(w.jobs.size()), 0.75, 0.03);
  engine::Workload again = engine::generate(p, conf->config, nullptr);
  ASSERT_EQ(again.jobs.size(), w.jobs.size());
  for (std::size_t i = 0; i < w.jobs.size(); ++i) {
    EXPECT_EQ(again.jobs[i].submit, w.jobs[i].submit);
    EXPECT_EQ(again.jobs[i].run_time, w.jobs[i].run_time);
  }
}

TEST(SharedWorkloads, EveryTraceReadsWithoutACrash) {
  const std::filesystem::path dir = std::filesystem::path(SA_SHARED_DIR) / "corpora" / "workloads";
  if (!std::filesystem::exists(dir)) GTEST_SKIP() << "no ../shared";
  const auto tmp = sa::test::scratch_dir() / "sa_workloads";
  std::filesystem::create_directories(tmp);
  std::size_t read = 0, with_jobs = 0;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    std::string path = entry.path().string();
    if (entry.path().extension() == ".machines") continue;
    if (entry.path().extension() == ".gz") {
      const std::string out = (tmp / entry.path().stem()).string();
      ASSERT_EQ(std::system(("gzip -dc '" + path + "' > '" + out + "'").c_str()), 0) << path;
      path = out;
    }
    SourceManager sources;
    DiagnosticSink sink;
    auto w = engine::read_workload(path, sources, sink);
    ASSERT_TRUE(w.ok()) << path << ": " << w.error();
    ++read;
    if (!w->jobs.empty()) ++with_jobs;
    for (const JobRequest& j : w->jobs) {
      ASSERT_GE(j.cpus, 1u) << path;
      ASSERT_GE(j.run_time, 0) << path;
    }
  }
  std::filesystem::remove_all(tmp);
  EXPECT_GE(read, 13u);
  // Six SWF files (plain, Alea's extended, slurm_sim_tools' ';' form) and three sacct -P
  // dumps give jobs; fixed-width sacct, a dump without Submit, the header-less xdmod log
  // and a CSV are refused with WORK003.
  EXPECT_GE(with_jobs, 9u);
}

TEST(SyntheticProfile, ReservationLinesBecomeReservations) {
  SourceManager sources;
  DiagnosticSink sink;
  const FileId f =
      sources.add("p.txt",
                  "start = 1000\n"
                  "reservation = maint start=+1-00:00:00 duration=02:00:00 nodes=n[1-2] flags=maint,daily\n"
                  "reservation = proj start=5000 end=+2-00:00:00 nodecnt=3 users=alice,bob\n"
                  "reservation = broken start=+1 nodes=n1\n");
  engine::Profile p = engine::read_profile(f, sources, sink);
  ASSERT_EQ(p.reservations.size(), 2u);
  EXPECT_EQ(p.reservations[0].name, "maint");
  EXPECT_EQ(p.reservations[0].start, 1000 + 86400);
  EXPECT_EQ(p.reservations[0].end, 1000 + 86400 + 7200);
  EXPECT_EQ(p.reservations[0].nodes, (std::vector<std::string>{"n1", "n2"}));
  EXPECT_TRUE(p.reservations[0].has_flag("MAINT"));
  EXPECT_TRUE(p.reservations[0].has_flag("DAILY"));
  EXPECT_EQ(p.reservations[1].start, 5000);
  EXPECT_EQ(p.reservations[1].end, 1000 + 2 * 86400);
  EXPECT_EQ(p.reservations[1].node_count, 3u);
  EXPECT_EQ(p.reservations[1].users, (std::vector<std::string>{"alice", "bob"}));
  ASSERT_EQ(sink.all().size(), 1u);  // the broken one: no end
  EXPECT_EQ(sink.all()[0].code, "WORK005");
  EXPECT_EQ(sink.all()[0].loc.line, 4);
}

}  // namespace
}  // namespace sa
