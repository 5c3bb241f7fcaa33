// The HTML reports in a real browser: Debian's headless Chromium, cut off from the network,
// renders the lint report of the example site, the report of a site with hostile names and a
// diff report, with no console error and no request, the report's script run (it stamps
// data-render-ms), every chart in the DOM, and a full-page screenshot that is not blank.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "chromium.h"
#include "cli_util.h"
#include "need_chromium.h"
#include "png_image.h"

namespace sa::browser {
namespace {

const std::string kSite = std::string(SA_SOURCE_DIR) + "/corpora/tiered-university/";
const std::string kSiteFiles = " --assoc " + kSite + "sacctmgr_dump.cfg --qos " + kSite + "qos.psv --usage " + kSite +
                               "sshare_usage.psv --days 1";

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
  const std::string html =
      report("render_diff.html", "diff " + kSite + "slurm.conf " + kSite + "proposed/raise-bf-window.conf" + kSiteFiles);
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

}  // namespace
}  // namespace sa::browser
