// Top-level settings: the one-scalar-per-line rule, the key table, defaults per version, and
// the substring-matched option strings (formats.md §1.3, §1.7, §4).
#include <gtest/gtest.h>

#include "analyzer/key_table.h"
#include "analyzer/text_util.h"
#include "tests/test_util.h"

namespace sa {
namespace {

using test::analyze_body;

TEST(Settings, OneScalarPerLine) {
  auto a = analyze_body("SchedulerType=sched/backfill SelectType=select/cons_tres\n");
  const Diagnostic* d = test::first(*a, "CONF002");
  ASSERT_TRUE(d);
  EXPECT_EQ(d->loc.column, 30);
  EXPECT_TRUE(a->diagnostics.has_errors());
}

TEST(Settings, UnknownKeyWithSuggestion) {
  auto a = analyze_body("PriortyWeightAge=1000\n");
  const Diagnostic* d = test::first(*a, "CONF003");
  ASSERT_TRUE(d);
  EXPECT_NE(d->message.find("did you mean 'PriorityWeightAge'?"), std::string::npos);
}

// The did-you-mean search keeps each key's characters as bits to rule keys out early: it
// must suggest exactly what the plain search suggests, for typos near a key and far from all.
TEST(Settings, TypoCandidatesSuggestWhatThePlainSearchSuggests) {
  const std::vector<std::string_view> keys = KeyTable::builtin().valid_keys("slurm.conf", SlurmVersion{});
  const TypoCandidates candidates(keys);
  std::vector<std::string> words = {"SchedulerTyp",
                                    "priorityweightage",
                                    "xyzzy",
                                    "",
                                    "Nodename",
                                    "SlurmctldHots",
                                    "PriortyWeightFairshare",
                                    "Include2",
                                    "q",
                                    "MaxJobCountt",
                                    "1234",
                                    "\x01\x02"};
  for (std::size_t i = 0; i < keys.size(); i += 7) {
    std::string k(keys[i]);
    words.push_back(k.substr(1));             // a dropped first letter
    if (k.size() > 3) std::swap(k[1], k[2]);  // a transposition
    words.push_back(k + "X");                 // and an extra letter
  }
  int suggested = 0;
  for (const std::string& w : words) {
    const std::string plain = closest_match(w, std::span<const std::string_view>(keys));
    EXPECT_EQ(candidates.closest(w), plain) << w;
    suggested += !plain.empty();
  }
  EXPECT_EQ(closest_match("SchedulerTyp", std::span<const std::string_view>(keys)), "SchedulerType");
  EXPECT_GT(suggested, static_cast<int>(words.size()) / 2);  // the typos near a key do find it
}

TEST(Settings, KeysAreCaseInsensitive) {
  auto a = analyze_body(
      "accountingstoragetype=accounting_storage/slurmdbd\npriorityweightage=5\nNodename=n1 cpus=2 "
      "realmemory=10\npartitionname=P1 nodes=ALL priorityTIER=9\n");
  EXPECT_TRUE(a->diagnostics.all().empty()) << a->diagnostics.all()[0].message;
  EXPECT_EQ(a->config.nodes[0].cpus, 2u);
  EXPECT_EQ(a->config.partitions[0].priority_tier, 9);
}

TEST(Settings, RemovedKeysDependOnVersion) {
  auto old_slurm = test::analyze("ClusterName=c\nSlurmctldHost=h\nNodeName=n1 RealMemory=10\nCacheGroups=0\n", "20.11");
  EXPECT_FALSE(old_slurm->diagnostics.has_errors());
  EXPECT_EQ(test::count(*old_slurm, "CONF005"), 1);  // defunct in 20.11: a warning
  auto new_slurm = analyze_body("CacheGroups=0\n", "24.05");
  const Diagnostic* d = test::first(*new_slurm, "CONF004");
  ASSERT_TRUE(d);
  EXPECT_NE(d->message.find("removed after Slurm 20.11"), std::string::npos);
}

TEST(Settings, RepeatedKeyLastWinsWithWarning) {
  auto a = analyze_body("SchedulerTimeSlice=40\nSchedulerTimeSlice=60\n");
  EXPECT_EQ(a->config.scheduler.time_slice, 60u);
  EXPECT_EQ(test::count(*a, "CONF010"), 1);
  EXPECT_FALSE(a->diagnostics.has_errors());
}

TEST(Settings, BadTypedValues) {
  auto a = analyze_body("PriorityWeightAge=lots\nPriorityFavorSmall=on\nMessageTimeout=70000\n");
  EXPECT_EQ(test::count(*a, "CONF006"), 2);
  EXPECT_EQ(test::count(*a, "CONF007"), 1);
}

TEST(Settings, MissingClusterNameAndController) {
  auto a = test::analyze("NodeName=n1\n");
  EXPECT_EQ(test::count(*a, "CONF030"), 2);
}

TEST(Settings, VersionDependentDefaults) {
  auto old_slurm = analyze_body("", "23.02");
  EXPECT_EQ(old_slurm->config.priority.type, "priority/basic");
  EXPECT_EQ(old_slurm->config.select.type, "select/linear");
  auto new_slurm = analyze_body("", "23.11");
  EXPECT_EQ(new_slurm->config.priority.type, "priority/multifactor");
  EXPECT_EQ(new_slurm->config.select.type, "select/cons_tres");
  EXPECT_EQ(new_slurm->config.select.parameters, "CR_Core_Memory");
  EXPECT_TRUE(new_slurm->config.select.memory);
  EXPECT_EQ(analyze_body("", "20.11")->config.scheduler.bf_max_job_test, 100);
  EXPECT_EQ(new_slurm->config.scheduler.bf_max_job_test, 500);
}

TEST(SchedulerParameters, SlurmSemantics) {
  auto a = analyze_body("SchedulerParameters=bf_window=2d,bf_window=100,bf_continue,defer_batch,bf_resolution=7200\n");
  const SchedulerSettings& s = a->config.scheduler;
  EXPECT_EQ(s.bf_window, 2 * 60);  // first occurrence, atoi stops at 'd', minutes -> seconds
  EXPECT_TRUE(s.bf_continue);
  EXPECT_TRUE(s.defer_batch);
  EXPECT_FALSE(s.defer);           // "defer" inside "defer_batch" does not count
  EXPECT_EQ(s.bf_resolution, 60);  // out of range: default kept
  EXPECT_EQ(s.bf_max_time, s.bf_interval);
  EXPECT_GE(test::count(*a, "CONF018"), 3);  // junk, duplicate, range
  EXPECT_FALSE(a->diagnostics.has_errors());
}

// Found by BF001 on corpora/overlap-suspend: SchedulerParameters without bf_window used to
// turn the one-day default (already seconds) into 60 days.
TEST(SchedulerParameters, UnwrittenBfWindowKeepsTheOneDayDefault) {
  EXPECT_EQ(analyze_body("SchedulerParameters=bf_continue\n")->config.scheduler.bf_window, 1440 * 60);
  EXPECT_EQ(analyze_body("")->config.scheduler.bf_window, 1440 * 60);
  EXPECT_EQ(analyze_body("SchedulerParameters=bf_window=2880\n")->config.scheduler.bf_window, 2880 * 60);
}

TEST(SchedulerParameters, TyposAreWarnings) {
  auto a = analyze_body("SchedulerParameters=max_prc_cnt=16,bf_max_job_tst=100\n");
  EXPECT_EQ(a->config.scheduler.max_rpc_cnt, 0);
  const Diagnostic* d = test::first(*a, "CONF018");
  ASSERT_TRUE(d);
  EXPECT_NE(d->message.find("did you mean 'max_rpc_cnt'?"), std::string::npos);
  EXPECT_EQ(test::count(*a, "CONF018"), 2);
  // disable_user_top is no option, and its look-alike enable_user_top would do the opposite.
  const Diagnostic* off = test::first(*analyze_body("SchedulerParameters=disable_user_top\n"), "CONF018");
  ASSERT_TRUE(off);
  EXPECT_EQ(off->message.find("did you mean"), std::string::npos) << off->message;
  EXPECT_NE(off->message.find("already off unless 'enable_user_top' is set"), std::string::npos) << off->message;
}

TEST(SchedulerParameters, SpacesAreFatal) {
  auto a = analyze_body("SchedulerParameters=bf_continue, bf_window=100\n");
  EXPECT_TRUE(a->diagnostics.has_errors());
}

TEST(SchedulerParameters, MaxSchedTimeBoundByMessageTimeout) {
  auto a = analyze_body("MessageTimeout=20\nSchedulerParameters=max_sched_time=8\n");
  EXPECT_EQ(a->config.scheduler.max_sched_time, 8);
  auto b = analyze_body("SchedulerParameters=max_sched_time=8\n");
  EXPECT_EQ(b->config.scheduler.max_sched_time, 2);  // above MessageTimeout/2 = 5: default
}

// KillWait and MessageTimeout are resolved fields (uint16 in Slurm); the validation pass and
// the resolver both read them, and each bad value is still reported once.
TEST(Settings, KillWaitAndMessageTimeoutResolvedOnce) {
  auto a = analyze_body("KillWait=99999\nmessagetimeout=70000\n");
  EXPECT_EQ(test::count(*a, "CONF006"), 2);
  EXPECT_EQ(a->config.scheduler.kill_wait, 30);
  EXPECT_EQ(a->config.scheduler.message_timeout, 10);
  auto octal = analyze_body("KillWait=010\nMessageTimeout=20\n");
  EXPECT_EQ(test::count(*octal, "CONF046"), 1);
  EXPECT_EQ(octal->config.scheduler.kill_wait, 8);
  EXPECT_EQ(octal->config.scheduler.message_timeout, 20);
}

TEST(PriorityFlags, SubstringMatchingAndTypos) {
  auto a = analyze_body("PriorityFlags=NO_FAIR_TREE,SMALL_RELATIVE_TO_TIME,INCR_ONLY,MAX_TRES,NO_NORMAL_ALL\n");
  const PriorityFlags& f = a->config.priority.flags;
  EXPECT_FALSE(f.fair_tree);
  EXPECT_TRUE(f.small_relative_to_time);
  EXPECT_TRUE(f.incr_only);
  EXPECT_TRUE(f.max_tres);
  EXPECT_TRUE(f.no_normal_qos);
  auto b = analyze_body("PriorityFlags=DEPTH_OBLIVOUS,CALCULATE_RUNNING\n");
  EXPECT_TRUE(b->config.priority.flags.fair_tree);  // the typo is silently ignored by Slurm
  EXPECT_TRUE(b->config.priority.flags.calculate_running);
  const Diagnostic* d = test::first(*b, "CONF019");
  ASSERT_TRUE(d);
  EXPECT_NE(d->message.find("DEPTH_OBLIVIOUS"), std::string::npos);
}

TEST(Priority, WeightsTimesAndAccounting) {
  auto a = analyze_body(
      "AccountingStorageType=accounting_storage/slurmdbd\nPriorityType=priority/multifactor\n"
      "PriorityWeightAge=1k\nPriorityWeightFairshare=0x10\nPriorityMaxAge=5-0\nPriorityCalcPeriod=00:00:30\n"
      "PriorityDecayHalfLife=90-0\n");
  const PrioritySettings& p = a->config.priority;
  EXPECT_EQ(p.weight_age, 1024u);
  EXPECT_EQ(p.weight_fairshare, 16u);
  EXPECT_EQ(p.max_age, 5 * 86400);
  EXPECT_EQ(p.calc_period, 60);
  EXPECT_EQ(p.decay_half_life, 90 * 86400);
  // The only diagnostic is the note that 0x10 is read as hexadecimal.
  ASSERT_EQ(a->diagnostics.all().size(), 1u);
  EXPECT_EQ(a->diagnostics.all()[0].code, "CONF050");
  EXPECT_EQ(a->diagnostics.all()[0].message, "PriorityWeightFairshare=0x10 is hexadecimal: Slurm reads 16");
}

TEST(Settings, IntegersAreReadWithBaseZeroAndNoted) {
  auto a = analyze_body(
      "AccountingStorageType=accounting_storage/"
      "slurmdbd\nPriorityWeightAge=010\nPriorityWeightQOS=0x10\nPriorityWeightJobSize=007\nPriorityWeightPartition="
      "010k\n"
      "PriorityWeightAssoc=0X1f\nNodeName=n1 CPUs=010 RealMemory=0x400\n");
  const PrioritySettings& p = a->config.priority;
  EXPECT_EQ(p.weight_age, 8u);
  EXPECT_EQ(p.weight_qos, 16u);
  EXPECT_EQ(p.weight_job_size, 7u);
  EXPECT_EQ(p.weight_partition, 8192u);
  EXPECT_EQ(p.weight_assoc, 31u);
  EXPECT_EQ(a->config.nodes[0].cpus, 8u);
  EXPECT_EQ(a->config.nodes[0].real_memory_mb, 1024u);
  EXPECT_EQ(test::count(*a, "CONF046"), 3);  // 010, 010k and CPUs=010 change value
  EXPECT_EQ(test::count(*a, "CONF050"), 4);  // 0x10, 007, 0X1f and 0x400 are notes
  std::vector<std::string> notes;
  for (const Diagnostic& d : a->diagnostics.sorted()) {
    if (d.code == "CONF050") {
      EXPECT_EQ(d.severity, Severity::kInfo);
      notes.push_back(d.message);
    }
  }
  EXPECT_EQ(notes, (std::vector<std::string>{
                       "PriorityWeightQOS=0x10 is hexadecimal: Slurm reads 16",
                       "PriorityWeightJobSize=007 starts with 0, so Slurm reads it as octal: 7 (the same here, but "
                       "010 would be 8)",
                       "PriorityWeightAssoc=0X1f is hexadecimal: Slurm reads 31",
                       "RealMemory=0x400 is hexadecimal: Slurm reads 1024",
                   }));
  EXPECT_EQ(test::first(*a, "CONF046")->message,
            "PriorityWeightAge=010 starts with 0, so Slurm reads it as octal: 8, not 10");
  auto k = analyze_body("PriorityWeightPartition=010k\n");
  EXPECT_EQ(test::first(*k, "CONF046")->message,
            "PriorityWeightPartition=010k starts with 0, so Slurm reads it as octal: 8192, not 10k");
  auto bad = analyze_body("PriorityWeightAge=08\n");  // 8 is not an octal digit: fatal in Slurm
  EXPECT_EQ(test::count(*bad, "CONF006"), 1);
  EXPECT_EQ(test::count(*bad, "CONF050"), 0);
}

TEST(Settings, ClusterLicenses) {
  auto a = analyze_body("Licenses=matlab:10,ansys;fluent:4,matlab:2\n");
  EXPECT_EQ(a->config.licenses, (std::vector<License>{{"matlab", 12}, {"ansys", 1}, {"fluent", 4}}));
  EXPECT_EQ(test::count(*a, "CONF009"), 0);
  auto bad = analyze_body("Licenses=matlab:ten\n");
  const Diagnostic* d = test::first(*bad, "CONF009");
  ASSERT_TRUE(d);
  EXPECT_EQ(d->message,
            "invalid Licenses 'matlab:ten': licence 'matlab:ten': the count after ':' is not a number; slurmctld "
            "refuses to start");
  EXPECT_TRUE(bad->config.licenses.empty());
  EXPECT_TRUE(test::first(*analyze_body("Licenses=a|b\n"), "CONF009"));
  auto lists = parse_licenses("x: 3,y:,z:-1");
  EXPECT_FALSE(lists.ok());
  EXPECT_EQ(lists.error(), "licence 'z:-1': the count is negative");
  auto ok = parse_licenses("x: 3,,y:");
  ASSERT_TRUE(ok.ok());
  EXPECT_EQ(ok->items, (std::vector<License>{{"x", 3}, {"y", 0}}));
  EXPECT_FALSE(parse_licenses("x :3").ok());
  EXPECT_FALSE(parse_licenses("x:3 ").ok());
  auto any = parse_licenses("a:1|b:2");
  ASSERT_TRUE(any.ok());
  EXPECT_TRUE(any->any_of);
  EXPECT_FALSE(parse_licenses("a|b,c").ok());
  const std::vector<License> cluster = a->config.licenses;
  EXPECT_TRUE(licenses_valid({{"matlab", 12}, {"fluent", 1}}, cluster));
  EXPECT_FALSE(licenses_valid({{"matlab", 13}}, cluster));
  EXPECT_TRUE(licenses_valid({{"matlab", 13}}, cluster, true));  // allow_zero_lic
  EXPECT_FALSE(licenses_valid({{"abaqus", 1}}, cluster, true));
  EXPECT_EQ(kInvalidLicenses, "Invalid license specification");
}

TEST(Priority, FairshareWithoutSlurmdbdIsZeroed) {
  auto a = analyze_body("PriorityType=priority/multifactor\nPriorityWeightFairshare=10000\n");
  EXPECT_EQ(a->config.priority.weight_fairshare, 0u);
  EXPECT_EQ(test::count(*a, "CONF043"), 1);
  EXPECT_EQ(test::first(*a, "CONF043")->hint,
            "set AccountingStorageType=accounting_storage/slurmdbd if it is meant to count, else "
            "PriorityWeightFairshare=0 so the config says what runs");
}

TEST(Priority, OverflowAndInfiniteAndNoDecay) {
  auto a = analyze_body(
      "AccountingStorageType=accounting_storage/slurmdbd\nPriorityType=priority/multifactor\n"
      "PriorityWeightAge=4000000000\nPriorityWeightPartition=1000000000\nPriorityMaxAge=INFINITE\n"
      "PriorityDecayHalfLife=0\n");
  EXPECT_EQ(test::count(*a, "CONF033"), 1);
  EXPECT_EQ(test::count(*a, "CONF031"), 1);
  EXPECT_EQ(test::count(*a, "CONF032"), 1);
}

TEST(Preempt, CombinationsSlurmRejects) {
  struct Case {
    const char* type;
    const char* mode;
    bool error;
  };
  for (Case c : {Case{nullptr, "GANG", false}, Case{nullptr, "REQUEUE", true}, Case{nullptr, "SUSPEND,GANG", true},
                 Case{"preempt/partition_prio", "OFF", true}, Case{"preempt/partition_prio", nullptr, true},
                 Case{"preempt/qos", nullptr, true}, Case{"preempt/qos", "WITHIN", true},
                 Case{"preempt/qos", "SUSPEND", true}, Case{"preempt/qos", "REQUEUE,GANG", false},
                 Case{"preempt/qos", "SUSPEND,GANG", false}, Case{"preempt/qos", "CANCEL,WITHIN", false},
                 Case{"preempt/partition_prio", "REQUEUE,CANCEL", true}, Case{"preempt/qos", "GANG,WITHIN", true}}) {
    std::string body;
    if (c.type) body += std::string("PreemptType=") + c.type + "\n";
    if (c.mode) body += std::string("PreemptMode=") + c.mode + "\n";
    auto a = analyze_body(body);
    EXPECT_EQ(a->diagnostics.has_errors(), c.error) << body;
  }
}

TEST(Select, ParametersAndMemory) {
  auto a = analyze_body("SelectType=select/cons_tres\nSelectTypeParameters=CR_Core,CR_Memory\n");
  EXPECT_EQ(test::count(*a, "CONF022"), 1);
  auto b = analyze_body("SelectType=select/cons_tres\nSelectTypeParameters=CR_CPU,CR_ONE_TASK_PER_CORE\n");
  EXPECT_EQ(test::count(*b, "CONF022"), 1);
  // A word Slurm once had says when it went.
  const Diagnostic* cray = test::first(
      *analyze_body("SelectType=select/cons_tres\nSelectTypeParameters=OTHER_CONS_TRES,CR_Core\n"), "CONF022");
  ASSERT_TRUE(cray);
  EXPECT_NE(cray->message.find("'OTHER_CONS_TRES' in Slurm 24.05 (it was removed after 23.11)"), std::string::npos)
      << cray->message;
  auto c =
      analyze_body("SelectType=select/cons_tres\nSelectTypeParameters=CR_Socket_Memory,CR_LLN\nDefMemPerCPU=010\n");
  EXPECT_EQ(c->config.select.resource, SelectSettings::Resource::kSocket);
  EXPECT_TRUE(c->config.select.memory);
  EXPECT_EQ(c->config.select.def_mem_per_cpu, 8u);
}

TEST(Select, DefMemPerCpuZeroWrittenIsZeroMegabytesNotNoDefault) {
  // read_config.c keeps DefMemPerCPU=0 as 0 | MEM_PER_CPU; unwritten, or under DefMemPerNode
  // (which wins), there is no default: the engine gives whole nodes only then.
  auto zero = analyze_body("SelectTypeParameters=CR_Core_Memory\nDefMemPerCPU=0\n");
  EXPECT_TRUE(zero->config.select.def_mem_per_cpu_zero);
  EXPECT_EQ(zero->config.select.def_mem_per_cpu, 0u);
  EXPECT_FALSE(analyze_body("SelectTypeParameters=CR_Core_Memory\n")->config.select.def_mem_per_cpu_zero);
  EXPECT_FALSE(analyze_body("DefMemPerNode=0\nDefMemPerCPU=0\n")->config.select.def_mem_per_cpu_zero);
  EXPECT_FALSE(analyze_body("DefMemPerCPU=2000\n")->config.select.def_mem_per_cpu_zero);
  EXPECT_FALSE(analyze_body("DefMemPerCPU=lots\n")->config.select.def_mem_per_cpu_zero);
}

TEST(Select, GpuDefaultsPartitionFirstAndOnlyUnderConsTres) {
  // cons_common _set_gpu_defaults: a partition's DefMemPerGPU/DefCPUPerGPU, written even as 0,
  // replace the cluster's; other SelectTypes never read them.
  auto a = analyze_body(
      "SelectType=select/cons_tres\nDefMemPerGPU=20000\nDefCpuPerGPU=4\nNodeName=n1 CPUs=16\n"
      "PartitionName=own Nodes=n1 DefMemPerGPU=0 DefCPUPerGPU=8\nPartitionName=inherit Nodes=n1\n");
  const Config& c = a->config;
  EXPECT_EQ(c.select.def_mem_per_gpu, 20000u);
  EXPECT_EQ(c.select.def_cpus_per_gpu, 4u);
  ASSERT_EQ(c.partitions.size(), 2u);
  EXPECT_EQ(c.mem_per_gpu_default(c.partitions[0]), 0u);
  EXPECT_EQ(c.cpus_per_gpu_default(c.partitions[0]), 8u);
  EXPECT_EQ(c.mem_per_gpu_default(c.partitions[1]), 20000u);
  EXPECT_EQ(c.cpus_per_gpu_default(c.partitions[1]), 4u);
  auto res = analyze_body(
      "SelectType=select/cons_res\nDefMemPerGPU=20000\nNodeName=n1 CPUs=16\n"
      "PartitionName=p Nodes=n1 DefCpuPerGPU=2\n");
  EXPECT_EQ(res->config.mem_per_gpu_default(res->config.partitions[0]), 0u);
  EXPECT_EQ(res->config.cpus_per_gpu_default(res->config.partitions[0]), 0u);
}

TEST(Select, MemoryTrackedWithoutRealMemory) {
  // CONF045's one message for 4 nodes of 8 CPUs without RealMemory, after `extra` lines.
  auto conf045 = [](const std::string& extra) {
    auto a = analyze_body("SelectType=select/cons_tres\nSelectTypeParameters=CR_Core_Memory\nNodeName=n[1-4] CPUs=8\n" +
                          extra);
    EXPECT_EQ(test::count(*a, "CONF045"), 1);
    const Diagnostic* d = test::first(*a, "CONF045");
    return d ? d->message : std::string();
  };
  // No default memory: a job without --mem takes the node's whole 1 MB (one job a node).
  std::string m = conf045("");
  EXPECT_NE(m.find("4 node(s) have no RealMemory, so each offers 1 MB: with no DefMemPerCPU or DefMemPerNode a job "
                   "without --mem is given that whole 1 MB and runs alone on its node"),
            std::string::npos)
      << m;
  // A default (here a partition's own) asks for more than 1 MB: such jobs cannot run there.
  m = conf045("PartitionName=p Nodes=n[1-4] DefMemPerCPU=100\n");
  EXPECT_NE(m.find("a job given the default memory or asking for memory cannot run"), std::string::npos) << m;
  // DefMemPerCPU=0: a job without --mem is given nothing and runs; one asking for memory cannot.
  m = conf045("DefMemPerCPU=0\n");
  EXPECT_NE(m.find("so each offers 1 MB: a job asking for memory cannot run there"), std::string::npos) << m;
}

TEST(Plugins, UnknownAndRemoved) {
  auto a = analyze_body("SchedulerType=sched/backfil\n");
  const Diagnostic* d = test::first(*a, "CONF020");
  ASSERT_TRUE(d);
  EXPECT_NE(d->message.find("did you mean 'sched/backfill'?"), std::string::npos);
  auto b = analyze_body("SelectType=select/cons_res\n", "23.11");
  EXPECT_EQ(test::count(*b, "CONF020"), 1);
  EXPECT_FALSE(analyze_body("SelectType=select/cons_res\n", "23.02")->diagnostics.has_errors());
  EXPECT_FALSE(analyze_body("JobCompType=jobcomp/none\n", "24.05")->diagnostics.has_errors());
}

TEST(Analyze, SchedulerTimeSliceReset) {
  auto a = analyze_body("SchedulerTimeSlice=3\n");
  EXPECT_EQ(a->config.scheduler.time_slice, 30u);
  EXPECT_EQ(test::count(*a, "CONF028"), 1);
}

// Words of another key name that key in the hint instead of a look-alike (issue 18).
TEST(SchedulerParameters, WordsOfAnotherKeyNameThatKey) {
  auto a = analyze_body("SchedulerParameters=rl_enable,enable_configless,ACCRUE_ALWAYS,kill_invalid_depend\n");
  std::vector<std::string> hints;
  for (const Diagnostic& d : a->diagnostics.all()) {
    if (d.code == "CONF018") hints.push_back(d.hint);
  }
  ASSERT_EQ(hints.size(), 4U);
  EXPECT_EQ(hints[0], "'rl_enable' is a SlurmctldParameters option: write it there (SlurmctldParameters=rl_enable)");
  EXPECT_EQ(
      hints[1],
      "'enable_configless' is a SlurmctldParameters option: write it there (SlurmctldParameters=enable_configless)");
  EXPECT_EQ(hints[2], "'ACCRUE_ALWAYS' is a PriorityFlags option: write it there (PriorityFlags=ACCRUE_ALWAYS)");
  EXPECT_EQ(hints[3], "it moved to DependencyParameters: write it there (DependencyParameters=kill_invalid_depend)");
  auto b = analyze_body("SlurmctldParameters=bf_continue\n");
  const Diagnostic* d = test::first(*b, "CONF019");
  ASSERT_TRUE(d);
  EXPECT_EQ(d->hint, "'bf_continue' is a SchedulerParameters option: write it there (SchedulerParameters=bf_continue)");
}

}  // namespace
}  // namespace sa
