// The HTML reports in a real browser: Debian's headless Chromium, cut off from the network,
// renders the lint report of the example site, the report of a site with hostile names, a
// diff report and a tune page, with no console error and no request, the report's script run (it stamps
// data-render-ms), every chart in the DOM, and a full-page screenshot that is not blank.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <sstream>
#include <string>
#include <vector>

#include "chromium.h"
#include "cli_util.h"
#include "need_chromium.h"
#include "png_image.h"

namespace sa::browser {
namespace {

const std::string kSite = std::string(SA_SOURCE_DIR) + "/corpora/tiered-university/";
const std::string kSiteFiles =
    " --assoc " + kSite + "sacctmgr_dump.cfg --qos " + kSite + "qos.psv --usage " + kSite + "sshare_usage.psv --days 1";

std::string report(const std::string& name, const std::string& args) {
  const std::string path = test::write_temp(name, "");
  const auto r = test::run(args + " --format html --output " + path);
  EXPECT_LE(r.status, 1) << args;
  return path;
}

RenderResult render(const std::string& html, const std::string& png) {
  RenderOptions options;
  options.width = 1280;
  options.full_page = true;
  options.screenshot_path = png;
  options.timeout = std::chrono::milliseconds(60000);
  return render_in_chromium(html, options);
}

// Rendered, quiet, and the report's own script ran.
void expect_clean(const RenderResult& r) {
  ASSERT_TRUE(r.ran) << describe(r);
  EXPECT_TRUE(r.console_errors.empty()) << describe(r);
  EXPECT_TRUE(r.network_requests.empty()) << describe(r);
  EXPECT_NE(r.dom.find("data-render-ms=\""), std::string::npos) << "the report's script did not run";
}

// A page of charts and tables: many colours, much of the page drawn on, and tall.
void expect_not_blank(const std::string& png, int min_height) {
  auto image = PngImage::load(png);
  ASSERT_TRUE(image) << image.error();
  const ImageStats stats = image_stats(*image);
  EXPECT_EQ(image->width(), 1280);
  EXPECT_GE(image->height(), min_height);
  EXPECT_GT(stats.distinct_colours, 50);
  EXPECT_GT(stats.non_background, 0.03);
  EXPECT_GE(stats.content.bottom - stats.content.top, min_height / 2);
}

TEST(ReportRender, LintReportOfTheExampleSite) {
  SA_NEED_CHROMIUM();
  const std::string html = report("render_lint.html", "lint " + kSite + "slurm.conf" + kSiteFiles);
  const std::string png = html + ".png";
  const RenderResult r = render(html, png);
  expect_clean(r);
  for (const char* chart : {"chart-wait-partition", "chart-wait-tier", "chart-priority", "chart-shares",
                            "chart-backfill", "chart-utilisation", "chart-gang"}) {
    EXPECT_NE(r.dom.find(std::string("id=\"") + chart + "\""), std::string::npos) << chart;
  }
  expect_not_blank(png, 4000);
  std::cout << "[ timing   ] lint report render: " << r.elapsed_ms << " ms wall\n";
  std::filesystem::remove(html);
  std::filesystem::remove(png);
}

TEST(ReportRender, HostileNamesStayText) {
  SA_NEED_CHROMIUM();
  const std::string dir = std::string(SA_SOURCE_DIR) + "/tests/data/hostile/";
  const std::string html =
      report("render_hostile.html", "lint " + dir + "slurm.conf --assoc " + dir + "sacctmgr_dump.cfg --days 1");
  const RenderResult r = render(html, html + ".png");
  expect_clean(r);
  // After the browser parsed it: no element came from a name, the names are text.
  EXPECT_EQ(r.dom.find("<img"), std::string::npos);
  EXPECT_EQ(r.dom.find("<script>alert"), std::string::npos);
  EXPECT_NE(r.dom.find("&lt;script&gt;alert(1)&lt;/script&gt;"), std::string::npos);
  EXPECT_NE(r.dom.find("onerror=alert(2)&gt;"), std::string::npos);
  std::filesystem::remove(html);
  std::filesystem::remove(html + ".png");
}

TEST(ReportRender, DiffReport) {
  SA_NEED_CHROMIUM();
  const std::string html = report(
      "render_diff.html", "diff " + kSite + "slurm.conf " + kSite + "proposed/raise-bf-window.conf" + kSiteFiles);
  const std::string png = html + ".png";
  const RenderResult r = render(html, png);
  expect_clean(r);
  for (const char* chart : {"chart-wait-compare", "chart-shares-compare", "chart-utilisation-compare"}) {
    EXPECT_NE(r.dom.find(std::string("id=\"") + chart + "\""), std::string::npos) << chart;
  }
  expect_not_blank(png, 2000);
  std::filesystem::remove(html);
  std::filesystem::remove(png);
}

// tune's page on the hostile site: clean, its charts drawn, the site's markup still text.
TEST(ReportRender, TunePage) {
  SA_NEED_CHROMIUM();
  const std::string dir = std::string(SA_SOURCE_DIR) + "/tests/data/hostile/";
  const std::string html = report("render_tune.html", "tune " + dir +
                                                          "slurm.conf --days 1 --seeds 2 --goal "
                                                          "'wait_p95[partition=low]<=1h' --goal "
                                                          "'wait_p95[partition=high]<=1h' --vary "
                                                          "'Partition[high].PriorityTier=1,2'");
  const std::string png = html + ".png";
  const RenderResult r = render(html, png);
  expect_clean(r);
  for (const char* chart : {"chart-goal-1", "chart-goal-2"}) {
    EXPECT_NE(r.dom.find(std::string("id=\"") + chart + "\""), std::string::npos) << chart;
  }
  EXPECT_EQ(r.dom.find("<script>alert"), std::string::npos);
  EXPECT_NE(r.dom.find("plain,&lt;script&gt;alert(5)&lt;/script&gt;"), std::string::npos);
  expect_not_blank(png, 800);
  std::filesystem::remove(html);
  std::filesystem::remove(png);
}

// The finding index sorts on a header click: text columns alphabetically, then reversed on a
// second click; the severity column by its numeric key, errors first.
TEST(ReportRender, TablesSortOnAHeaderClick) {
  SA_NEED_CHROMIUM();
  const std::string html = report("render_sort.html", "lint " + kSite + "slurm.conf --no-simulate");
  const std::string codes =
      "Array.from(document.querySelectorAll('#finding-index tbody tr')).map(r => r.cells[1].textContent).join(',')";
  const std::string levels =
      "Array.from(document.querySelectorAll('#finding-index tbody tr')).map(r => r.cells[0].dataset.v).join(',')";
  RenderOptions options;
  options.scripts = {codes, "document.querySelectorAll('#finding-index thead th')[1].click(), ''",
                     codes, "document.querySelectorAll('#finding-index thead th')[1].click(), ''",
                     codes, "document.querySelectorAll('#finding-index thead th')[0].click(), ''",
                     levels};
  const RenderResult r = render_in_chromium(html, options);
  expect_clean(r);
  ASSERT_EQ(r.values.size(), 7u) << describe(r);
  auto split = [](const std::string& s) {
    std::vector<std::string> out;
    std::stringstream in(s);
    for (std::string item; std::getline(in, item, ',');) out.push_back(item);
    return out;
  };
  std::vector<std::string> before = split(r.values[0]), up = split(r.values[2]), down = split(r.values[4]);
  ASSERT_GE(before.size(), 3u);
  std::vector<std::string> sorted = before;
  std::sort(sorted.begin(), sorted.end());
  EXPECT_EQ(up, sorted);
  std::reverse(sorted.begin(), sorted.end());
  EXPECT_EQ(down, sorted);
  const std::vector<std::string> by_level = split(r.values[6]);
  EXPECT_TRUE(std::is_sorted(by_level.rbegin(), by_level.rend())) << r.values[6];
  EXPECT_NE(by_level.front(), by_level.back()) << "warnings and info both listed";
  std::filesystem::remove(html);
}

// Printed, the navigation goes and findings and charts are kept whole on a page.
TEST(ReportRender, PrintStylesheet) {
  SA_NEED_CHROMIUM();
  const std::string html = report("render_print.html", "lint " + kSite + "slurm.conf" + kSiteFiles);
  const std::string png = html + ".png";
  RenderOptions options;
  options.media = "print";
  options.full_page = true;
  options.screenshot_path = png;
  options.timeout = std::chrono::milliseconds(60000);
  options.scripts = {"getComputedStyle(document.querySelector('nav.toc')).display",
                     "getComputedStyle(document.querySelector('article.finding')).breakInside",
                     "getComputedStyle(document.querySelector('figure.chart')).breakInside"};
  const RenderResult r = render_in_chromium(html, options);
  expect_clean(r);
  ASSERT_EQ(r.values.size(), 3u) << describe(r);
  EXPECT_EQ(r.values[0], "none");
  EXPECT_EQ(r.values[1], "avoid");
  EXPECT_EQ(r.values[2], "avoid");
  expect_not_blank(png, 4000);
  std::filesystem::remove(html);
  std::filesystem::remove(png);
}

}  // namespace
}  // namespace sa::browser
