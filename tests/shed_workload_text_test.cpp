// simulate drops a recorded load's text once it is read (100,000 SWF lines are megabytes the
// run never reads again) and keeps the lines its diagnostics cite, whose snippets print as
// before; the site's own files keep their text.
#include <gtest/gtest.h>

#include <sstream>
#include <string>

#include "analyzer/source_manager.h"
#include "engine/site_loader.h"
#include "report/diagnostic_printer.h"
#include "tests/cli_util.h"

namespace sa {
namespace {

TEST(SourceManager, KeepLinesLeavesOnlyThoseLines) {
  SourceManager sources;
  const FileId f = sources.add("w.txt", "one\ntwo\r\nthree\nfour");
  sources.keep_lines(f, {4, 2, 2, 9});
  EXPECT_TRUE(sources.file(f).content.empty());
  EXPECT_EQ(sources.line_text(f, 2), "two");
  EXPECT_EQ(sources.line_text(f, 4), "four");
  EXPECT_EQ(sources.line_text(f, 1), "");
  EXPECT_EQ(sources.line_text(f, 3), "");
  EXPECT_EQ(sources.line_text(f, 9), "");
  EXPECT_EQ(sources.path(f), "w.txt");
  sources.keep_lines(f, {4});  // again: a kept line can be kept
  EXPECT_EQ(sources.line_text(f, 4), "four");
  EXPECT_EQ(sources.line_text(f, 2), "");
}

TEST(ShedWorkloadText, DiagnosedLinesStillPrintTheirSnippet) {
  engine::SitePaths paths;
  const std::string conf =
      "ClusterName=c\nSlurmctldHost=h\nNodeName=n[1-2] CPUs=4 RealMemory=1000\n"
      "PartitionName=p Nodes=ALL Default=YES\n";
  paths.conf = test::write_temp("shed.conf", conf);
  // Job id 7 twice: the second is renumbered with a warning at line 3.
  paths.workload = test::write_temp("shed.swf",
                                    "; a comment\n"
                                    "7 0 0 60 1 -1 -1 1 120 -1 1 1 1 -1 1 -1 -1 -1\n"
                                    "7 10 0 60 2 -1 -1 2 120 -1 1 1 1 -1 1 -1 -1 -1\n");
  auto loaded = engine::load_site(paths);
  ASSERT_TRUE(loaded) << loaded.error();
  engine::LoadedSite& in = **loaded;
  ASSERT_EQ(in.workload.jobs.size(), 2U);
  std::ostringstream before;
  report::print_diagnostics_text(before, in.diagnostics.all(), in.sources);
  ASSERT_NE(before.str().find("WORK004"), std::string::npos) << before.str();
  ASSERT_NE(before.str().find("7 10 0 60 2"), std::string::npos) << before.str();

  engine::shed_workload_text(in, 0);
  const auto [first, last] = in.workload_files;
  ASSERT_EQ(last - first, 1);
  EXPECT_TRUE(in.sources.file(first).content.empty());
  EXPECT_EQ(in.sources.line_text(first, 2), "");  // cited by no diagnostic
  std::ostringstream after;
  report::print_diagnostics_text(after, in.diagnostics.all(), in.sources);
  EXPECT_EQ(after.str(), before.str());
  for (FileId f = 0; f < first; ++f) EXPECT_FALSE(in.sources.file(f).content.empty());  // the site's files
}

TEST(ShedWorkloadText, SmallLoadsKeepTheirText) {
  engine::SitePaths paths;
  paths.conf = test::write_temp("shed_small.conf",
                                "ClusterName=c\nSlurmctldHost=h\nNodeName=n1 CPUs=4 RealMemory=1000\n"
                                "PartitionName=p Nodes=ALL Default=YES\n");
  paths.workload = test::write_temp("shed_small.swf", "1 0 0 60 1 -1 -1 1 120 -1 1 1 1 -1 1 -1 -1 -1\n");
  auto loaded = engine::load_site(paths);
  ASSERT_TRUE(loaded) << loaded.error();
  engine::shed_workload_text(**loaded);  // under the default 1 MiB
  EXPECT_FALSE((*loaded)->sources.file((*loaded)->workload_files.first).content.empty());
}

}  // namespace
}  // namespace sa
