// LOAD001 (rules/load/load-coverage-low) on a load that asks three times what the nodes run:
// the jobs queue on full nodes, which is the load's volume, not a policy holding nodes back.
#include <gtest/gtest.h>

#include "engine/site_loader.h"
#include "rules/framework/lint.h"

namespace {

TEST(LoadCoverage, AQueueOnFullNodesIsTheLoadsVolumeAndANote) {
  const std::string dir = std::string(SA_SOURCE_DIR) + "/rules/load/load-coverage-low/fires/";
  sa::engine::SitePaths paths;
  paths.conf = dir + "queued_on_full_nodes.conf";
  paths.workload = dir + "queued_on_full_nodes.sacct.psv";
  auto site = sa::engine::load_site(paths);
  ASSERT_TRUE(site.ok()) << site.error();
  sa::rules::LintOptions options;
  options.only = {"LOAD001"};
  const auto report = sa::rules::run_lint(**site, options);
  ASSERT_EQ(report.findings.size(), 1u);
  const sa::rules::Finding& f = report.findings[0];
  EXPECT_EQ(f.severity, sa::Severity::kInfo);
  // 12 four-CPU jobs an hour on 16 CPUs, cut at 25 hours: 97 of 313 ran, on nodes 99% busy;
  // the jobs left pending show the Reasons they waited with.
  EXPECT_NE(f.message.find("only 97 of 313 simulated jobs started (31%): batch: 97 of 313 started (216 still pending "
                           "at the end; its nodes were 99% busy; pending with Reason Priority 215, Resources 1); the "
                           "jobs were admitted and queued on full nodes"),
            std::string::npos)
      << f.message;
  const nlohmann::json& row = f.evidence["thin_partitions"][0];
  EXPECT_EQ(row["pending_reasons"], (nlohmann::json{{"Priority", 215}, {"Resources", 1}}));
  ASSERT_TRUE(f.fix.has_value());
  EXPECT_EQ(f.fix->description.rfind("nothing to change in the config for this", 0), 0u) << f.fix->description;
}

}  // namespace
