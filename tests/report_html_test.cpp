// The HTML reports' structure: one self-contained file (nothing fetched, one inline script),
// every finding and every chart present, and every input string escaped: a sacctmgr dump
// with `<script>` and `"><img onerror=...>` names shows them as text. Rendering in Chromium
// is tests/browser/report_render_test.cpp.
#include <gtest/gtest.h>

#include <cmath>
#include <regex>
#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "cli_util.h"
#include "report/evidence_glossary.h"
#include "report/evidence_html.h"
#include "report/html_writer.h"
#include "report/svg_chart.h"

namespace sa::report {
namespace {

using test::run;

const std::string kSite = std::string(SA_SOURCE_DIR) + "/corpora/tiered-university/";
const std::string kSiteArgs = kSite + "slurm.conf --assoc " + kSite + "sacctmgr_dump.cfg --qos " + kSite +
                              "qos.psv --usage " + kSite + "sshare_usage.psv --days 1";
const std::string kHostile = std::string(SA_SOURCE_DIR) + "/tests/data/hostile/";
const std::string kHostileArgs = kHostile + "slurm.conf --assoc " + kHostile + "sacctmgr_dump.cfg --days 1";

std::size_t count(const std::string& text, const std::string& what) {
  std::size_t n = 0;
  for (std::size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

// Nothing on the page may be fetched: no src attributes, links only to anchors on the page,
// no stylesheet links, imports or url(); the only http text is SVG's namespace name.
void expect_self_contained(const std::string& html) {
  EXPECT_EQ(html.rfind("<!doctype html>", 0), 0u);
  EXPECT_NE(html.find("</html>"), std::string::npos);
  EXPECT_EQ(count(html, "<script"), 1u) << "one inline script, no other";
  // Attributes only: a hostile name may show the text `src=`, escaped.
  EXPECT_FALSE(std::regex_search(html, std::regex("<[a-zA-Z][^<>]*\\ssrc\\s*=")));
  EXPECT_EQ(count(html, "<link"), 0u);
  EXPECT_EQ(count(html, "@import"), 0u);
  EXPECT_EQ(count(html, "url("), 0u);
  EXPECT_EQ(count(html, "http"), count(html, "http://www.w3.org/2000/svg") + count(html, "http-equiv"));
  const std::regex href("href=\"([^\"]*)\"");
  for (auto it = std::sregex_iterator(html.begin(), html.end(), href); it != std::sregex_iterator(); ++it) {
    EXPECT_EQ((*it)[1].str().rfind('#', 0), 0u) << (*it)[1].str();
  }
}

const std::vector<std::string> kCharts{"chart-wait-partition", "chart-wait-tier",   "chart-priority", "chart-shares",
                                       "chart-backfill",       "chart-utilisation", "chart-gang"};

TEST(HtmlEscape, EscapesMarkupQuotesAndDropsControlCharacters) {
  EXPECT_EQ(esc("<a href='x'>&\"</a>"), "&lt;a href=&#39;x&#39;&gt;&amp;&quot;&lt;/a&gt;");
  EXPECT_EQ(esc(std::string("a\x01\x1b"
                            "b\tc\n",
                            7)),
            "ab\tc\n");
  EXPECT_EQ(esc("plain ü"), "plain ü");
}

TEST(HtmlFormat, NumbersAndDurationsForPeople) {
  EXPECT_EQ(fmt_count(1234567), "1,234,567");
  EXPECT_EQ(fmt_count(-1200), "-1,200");
  EXPECT_EQ(fmt_number(0.6949), "0.695");
  EXPECT_EQ(fmt_number(31707.317), "31.7 k");
  EXPECT_EQ(fmt_duration(45), "45 s");
  EXPECT_EQ(fmt_duration(1200), "20 min");
  EXPECT_EQ(fmt_duration(7 * 3600), "7.0 h");
  EXPECT_EQ(fmt_duration(3 * 86400), "3.0 d");
  EXPECT_EQ(fmt_percent(0.695), "69.5 %");
}

TEST(SvgChart, LabelsAreEscapedAndRowsDrawn) {
  const std::string svg = box_chart({"c", "T<i>", "cap&"}, {{"<b>p</b>", 3, 1, 2, 60, 600, 3600, 500, 4000}});
  EXPECT_NE(svg.find("id=\"c\""), std::string::npos);
  EXPECT_NE(svg.find("&lt;b&gt;p&lt;/b&gt; (3)"), std::string::npos);
  EXPECT_NE(svg.find("T&lt;i&gt;"), std::string::npos);
  EXPECT_EQ(svg.find("<b>"), std::string::npos);
  EXPECT_EQ(count(svg, "<rect"), 1u);  // one box
  const std::string stacked = stacked_chart({"s", "t", "c"}, {"age", "fairshare"}, {{"x", {10, 30}, "n=1"}});
  EXPECT_EQ(count(stacked, "<rect"), 2u);
  EXPECT_NE(stacked.find("x: fairshare 30"), std::string::npos);
  // Too little data says so instead of drawing an empty frame.
  EXPECT_NE(time_chart({"t", "t", "c"}, {{0}, "y", false, false}, {{"s", {1}}}).find("Too short"), std::string::npos);
}

TEST(SvgChart, ShortRunsStopAndGapsBreakTheLine) {
  const TimeAxis axis{{0, 3600, 7200, 10800, 14400}, "y", false, false};
  const double gap = std::nan("");
  // The second series has three values: it stops at its end instead of falling to zero.
  const std::string svg = time_chart({"t", "t", "c"}, axis, {{"a", {1, 2, gap, 2, 1}}, {"b", {1, 1, 1}}});
  EXPECT_EQ(count(svg, "<polyline"), 3u);  // a: two pieces around the gap; b: one
  const std::regex points("<polyline points=\"([^\"]*)\"");
  std::vector<std::size_t> sizes;
  for (auto it = std::sregex_iterator(svg.begin(), svg.end(), points); it != std::sregex_iterator(); ++it) {
    sizes.push_back(static_cast<std::size_t>(count((*it)[1].str(), ",")));
  }
  EXPECT_EQ(sizes, (std::vector<std::size_t>{2, 2, 3}));
  // Shares above 100 % (jobs sharing CPUs) get an axis that reaches them in whole hundreds.
  const std::string over = time_chart({"u", "u", "c"}, {{0, 3600}, "y", true, false}, {{"s", {0.5, 2.6}}});
  EXPECT_NE(over.find(">300 %<"), std::string::npos);
}

TEST(EvidenceHtml, ArraysKeepTheirOrderAndOnlyTimesBecomeDurations) {
  nlohmann::json rows = nlohmann::json::array();
  for (int i = 0; i < 12; ++i) rows.push_back({{"at", i * 60}, {"share", 0.5}});
  const std::string table = json_html("samples", rows);
  EXPECT_LT(table.find("<td>2</td>"), table.find("<td>10</td>"));
  const std::string kv = json_html("metrics", {{"sampled_times_with_2_jobs_waiting", 0.5},
                                               {"suspended_cpu_seconds", 7200},
                                               {"mean_wait_ahead", 7200},
                                               {"span_seconds", 90000}});
  EXPECT_NE(kv.find("sampled_times_with_2_jobs_waiting:</b> 0.500"), std::string::npos) << kv;
  EXPECT_NE(kv.find("suspended_cpu_seconds:</b> 7,200"), std::string::npos) << kv;
  EXPECT_NE(kv.find("mean_wait_ahead:</b> <span title=\"7,200 s\">2.0 h</span>"), std::string::npos) << kv;
  EXPECT_NE(kv.find("span_seconds:</b> <span title=\"90,000 s\">25.0 h</span>"), std::string::npos) << kv;
}

// The text and HTML reports read durations the same way (the text report once printed the
// share sampled_times_with_own_jobs_waiting=0.79 as 00:00).
TEST(EvidenceKeys, DurationsAreWaitsLimitsAndSecondsButNotSharesOrCpuSeconds) {
  EXPECT_TRUE(is_duration_key("", "wait_seconds"));
  EXPECT_TRUE(is_duration_key("", "mean_wait_ahead"));
  EXPECT_TRUE(is_duration_key("", "time_limit"));
  EXPECT_TRUE(is_duration_key("wait_seconds", "p95"));
  EXPECT_TRUE(is_duration_key("mean_wait_by_cpus", "2-16"));  // a size class's mean wait
  EXPECT_FALSE(is_duration_key("wait_seconds", "jobs"));
  EXPECT_FALSE(is_duration_key("", "sampled_times_with_own_jobs_waiting"));
  EXPECT_FALSE(is_duration_key("", "suspended_cpu_seconds"));
}

TEST(LintHtml, VerdictFollowsFailOnAsTheExitStatusDoes) {
  const auto warn = run("lint " + kSite + "slurm.conf --no-simulate --format html");
  EXPECT_EQ(warn.status, 0);
  EXPECT_NE(warn.out.find("Review before deploying: 2 findings at warning or above, none at or above error"),
            std::string::npos);
  const auto fail = run("lint " + kSite + "slurm.conf --no-simulate --format html --fail-on warning");
  EXPECT_EQ(fail.status, 1);
  EXPECT_NE(fail.out.find("Do not deploy: 2 findings at or above warning."), std::string::npos);
}

TEST(LintHtml, WithoutBackfillTheCoverageChartSaysWhy) {
  const std::string site = std::string(SA_SOURCE_DIR) + "/corpora/gang-timeslice/";
  const auto html = run("lint " + site + "slurm.conf --assoc " + site + "sacctmgr_dump.cfg --days 1 --format html");
  EXPECT_NE(html.out.find("No backfill cycle ran: SchedulerType is not sched/backfill"), std::string::npos);
  EXPECT_NE(html.out.find("id=\"chart-gang-"), std::string::npos);  // gang timeslicing suspends jobs
}

TEST(LintHtml, HasEveryFindingEveryChartAndNothingExternal) {
  const auto html = run("lint " + kSiteArgs + " --format html");
  const auto json = run("lint " + kSiteArgs + " --format json");
  ASSERT_EQ(html.status, json.status);
  const auto findings = nlohmann::json::parse(json.out)["findings"];
  ASSERT_GE(findings.size(), 5u);
  expect_self_contained(html.out);
  EXPECT_EQ(count(html.out, "<article class=\"finding\""), findings.size());
  for (std::size_t i = 0; i < findings.size(); ++i) {
    const std::string id =
        "id=\"finding-" + std::to_string(i) + "\" data-code=\"" + findings[i]["code"].get<std::string>();
    EXPECT_NE(html.out.find(id), std::string::npos) << id;
    EXPECT_NE(html.out.find(esc(findings[i]["message"].get<std::string>())), std::string::npos) << id;
  }
  for (const std::string& chart : kCharts) {
    EXPECT_NE(html.out.find("id=\"" + chart + "\""), std::string::npos) << chart;
  }
  EXPECT_GE(count(html.out, "<svg"), 6u);
  EXPECT_NE(html.out.find("id=\"verdict\""), std::string::npos);
  EXPECT_NE(html.out.find("Review before deploying"), std::string::npos);  // warnings, no errors
  // BF001's fix was re-simulated: its metrics sit beside the current ones.
  EXPECT_NE(html.out.find("with the fix"), std::string::npos);
  EXPECT_NE(html.out.find("bf_window=7200"), std::string::npos);
}

TEST(LintHtml, HostileNamesFromTheInputsAreShownAsText) {
  const auto html = run("lint " + kHostileArgs + " --format html");
  ASSERT_EQ(html.status, 1);  // CONF001 is an error
  expect_self_contained(html.out);
  EXPECT_EQ(html.out.find("<script>alert"), std::string::npos);
  EXPECT_EQ(html.out.find("<img"), std::string::npos);
  EXPECT_EQ(html.out.find("onerror=alert(2)>"), std::string::npos);
  // Account (share chart), user (example jobs), a partition value and a bad key, all as text.
  EXPECT_NE(html.out.find("&lt;script&gt;alert(1)&lt;/script&gt;"), std::string::npos);
  EXPECT_NE(html.out.find("&quot;&gt;&lt;img src=x onerror=alert(2)&gt;"), std::string::npos);
  EXPECT_NE(html.out.find("plain,&lt;script&gt;alert(5)&lt;/script&gt;"), std::string::npos);
  EXPECT_NE(html.out.find("EvilKey&lt;script&gt;alert(3)&lt;/script&gt;=1"), std::string::npos);
  EXPECT_NE(html.out.find("Do not deploy"), std::string::npos);
}

// A partition naming an account the dump lacks is a slurm.conf problem, located there (it was
// once reported in the dump file with slurm.conf's line number).
TEST(LintHtml, PartitionAccountLinksPointAtSlurmConf) {
  const auto text = run("lint " + kHostileArgs + " --no-simulate --no-evidence");
  EXPECT_NE(text.out.find("hostile/slurm.conf:14:15: warning: partition 'high' names account"), std::string::npos)
      << text.out;
}

TEST(LintHtml, WithoutSimulationSaysSoAndDrawsNoCharts) {
  const auto html = run("lint " + kSite + "slurm.conf --no-simulate --format html");
  expect_self_contained(html.out);
  EXPECT_NE(html.out.find("Not simulated"), std::string::npos);
  EXPECT_EQ(html.out.find("<figure"), std::string::npos);
}

TEST(LintHtml, OutputFileAndUnwritablePath) {
  const std::string path = test::write_temp("report.html", "");
  EXPECT_EQ(run("lint " + kSite + "slurm.conf --no-simulate --format html --output " + path).status, 0);
  std::ifstream in(path);
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_NE(text.find("</html>"), std::string::npos);
  EXPECT_EQ(run("lint " + kSite + "slurm.conf --no-simulate --format html --output /nonexistent/dir/r.html").status, 2);
}

}  // namespace
}  // namespace sa::report

namespace sa::report {
namespace {

TEST(LintHtml, EveryEvidenceKeyIsExplainedInTheGlossary) {
  const auto json = sa::test::run("lint " + kSiteArgs + " --format json");
  const auto j = nlohmann::json::parse(json.out, nullptr, false);
  ASSERT_FALSE(j.is_discarded());
  std::set<std::string> keys;
  for (const auto& f : j["findings"]) {
    sa::report::collect_evidence_keys(f["evidence"], keys);
    if (f.contains("fix") && f["fix"].contains("resimulated"))
      sa::report::collect_evidence_keys(f["fix"]["resimulated"], keys);
  }
  ASSERT_FALSE(keys.empty());
  const auto html = sa::test::run("lint " + kSiteArgs + " --format html");
  EXPECT_NE(html.out.find("id=\"glossary\""), std::string::npos);
  for (const std::string& k : keys) {
    const std::string meaning = sa::report::evidence_meaning(k);
    EXPECT_FALSE(meaning.empty()) << "no glossary line for evidence key " << k;
  }
  // The reviewer's example: a pair count is explained, not bare.
  EXPECT_NE(html.out.find("<dt>pending_pairs</dt>"), std::string::npos);
}

}  // namespace
}  // namespace sa::report

namespace sa::report {
namespace {

// tune --format html on the hostile site: the page has its sections and charts, nothing
// fetched, and the site's markup (in the diff's context lines and the skipped candidate's
// value) shown as text.
TEST(TuneHtml, StructureAndEscaping) {
  const std::string args = "tune " + kHostile + "slurm.conf --days 1 --seeds 2 --goal 'wait_p95[partition=low]<=1h' " +
                           "--goal 'wait_p95[partition=high]<=1h' --vary 'Partition[high].PriorityTier=1,2' " +
                           "--vary 'SchedulerType=sched/backfill,<b>x</b>' --format html";
  const auto html = run(args);
  ASSERT_NE(html.status, 2) << html.out;
  expect_self_contained(html.out);
  for (const char* id : {"id=\"verdict\"", "id=\"chart-goal-1\"", "id=\"chart-goal-2\"", "id=\"ranked-candidates\"",
                         "id=\"skipped-candidates\"", "id=\"diff\""}) {
    EXPECT_NE(html.out.find(id), std::string::npos) << id;
  }
  EXPECT_EQ(count(html.out, "class=\"interval\""), 4u);  // baseline and recommended on two goals
  EXPECT_EQ(html.out.find("<b>x</b>"), std::string::npos);
  EXPECT_NE(html.out.find("&lt;b&gt;x&lt;/b&gt;"), std::string::npos);
  EXPECT_EQ(html.out.find("<script>alert"), std::string::npos);
  EXPECT_NE(html.out.find("id=\"recommended-diff\""), std::string::npos);  // the edited line is the hostile one
  EXPECT_NE(html.out.find("plain,&lt;script&gt;alert(5)&lt;/script&gt;"), std::string::npos);
}

TEST(TuneHtml, ParetoFrontWhenTheGoalsConflict) {
  const std::string conf = std::string(SA_SOURCE_DIR) + "/tests/data/tune/tiers.conf";
  const auto html = run("tune " + conf +
                        " --goal 'wait_p95[partition=low]<=4h' --goal 'wait_p95[partition=high]<=8h' "
                        "--vary 'Partition[low].PriorityTier=1,2' --seeds 3 --days 1 --format html");
  ASSERT_NE(html.status, 2);
  expect_self_contained(html.out);
  EXPECT_NE(html.out.find("id=\"chart-pareto\""), std::string::npos);
  EXPECT_NE(html.out.find("id=\"pareto-front\""), std::string::npos);
  EXPECT_NE(html.out.find("id=\"diff\""), std::string::npos);
}

}  // namespace
}  // namespace sa::report
