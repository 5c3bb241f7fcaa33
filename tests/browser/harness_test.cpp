// Proves the browser harness itself: PNG decoding on hand-built and broken files, and headless
// Chromium runs that report console errors, block the network and time out cleanly.
#include <arpa/inet.h>
#include <fcntl.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>
#include <zlib.h>

#include <cerrno>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <string>
#include <utility>
#include <vector>

#include "chromium.h"
#include "need_chromium.h"
#include "png_image.h"
#include "tests/scratch_dir.h"

namespace sa::browser {
namespace {

const Rgba kRed{255, 0, 0, 255};
const Rgba kWhite{255, 255, 255, 255};

std::string fixture(const std::string& name) { return std::string(SA_BROWSER_DATA) + "/" + name; }

std::string temp_path(const std::string& name) { return (sa::test::scratch_dir() / ("sa_browser_" + name)).string(); }

bool contains(const std::vector<std::string>& lines, const std::string& part) {
  for (const std::string& line : lines) {
    if (line.find(part) != std::string::npos) return true;
  }
  return false;
}

// ---- a tiny PNG writer, so the decoder is tested without a browser -------------------------

void put_u32(std::string& out, std::uint32_t v) {
  for (int shift = 24; shift >= 0; shift -= 8) out += static_cast<char>((v >> shift) & 0xFF);
}

void put_chunk(std::string& out, const std::string& type, const std::string& data) {
  put_u32(out, static_cast<std::uint32_t>(data.size()));
  std::string body = type + data;
  out += body;
  put_u32(out, static_cast<std::uint32_t>(
                   ::crc32(0, reinterpret_cast<const Bytef*>(body.data()), static_cast<uInt>(body.size()))));
}

// `rows` are already filtered: each starts with its filter byte.
std::string make_png(std::uint32_t width, std::uint32_t height, int colour_type, const std::string& rows,
                     int interlace = 0, int depth = 8) {
  std::string ihdr;
  put_u32(ihdr, width);
  put_u32(ihdr, height);
  ihdr += {static_cast<char>(depth), static_cast<char>(colour_type), 0, 0, static_cast<char>(interlace)};
  uLongf size = compressBound(static_cast<uLong>(rows.size()));
  std::string packed(size, '\0');
  compress(reinterpret_cast<Bytef*>(packed.data()), &size, reinterpret_cast<const Bytef*>(rows.data()),
           static_cast<uLong>(rows.size()));
  packed.resize(size);
  std::string png("\x89PNG\r\n\x1a\n", 8);
  put_chunk(png, "IHDR", ihdr);
  put_chunk(png, "IDAT", packed);
  put_chunk(png, "IEND", "");
  return png;
}

std::string bytes(std::initializer_list<int> values) {
  std::string out;
  for (int v : values) out += static_cast<char>(v);
  return out;
}

// 2x2 RGBA: row 0 plain (filter 0), row 1 "sub" filtered (filter 1), row 2 "up" (filter 2).
std::string sample_png() {
  std::string rows = bytes({0, 10, 20, 30, 255, 15, 25, 35, 255}) + bytes({1, 200, 100, 50, 255, 5, 5, 5, 0}) +
                     bytes({2, 1, 1, 1, 0, 0, 0, 0, 0});
  return make_png(2, 3, 6, rows);
}

TEST(PngImage, DecodesFilteredRgbaRows) {
  auto image = PngImage::decode(sample_png());
  ASSERT_TRUE(image) << image.error();
  EXPECT_EQ(image->width(), 2);
  EXPECT_EQ(image->height(), 3);
  EXPECT_EQ(image->pixel(0, 0), (Rgba{10, 20, 30, 255}));
  EXPECT_EQ(image->pixel(1, 0), (Rgba{15, 25, 35, 255}));
  EXPECT_EQ(image->pixel(1, 1), (Rgba{205, 105, 55, 255}));
  EXPECT_EQ(image->pixel(0, 2), (Rgba{201, 101, 51, 255}));
  EXPECT_EQ(image->pixel(1, 2), (Rgba{205, 105, 55, 255}));
  EXPECT_EQ(image->pixel(2, 0), (Rgba{0, 0, 0, 0})) << "outside the image";
}

TEST(PngImage, StatsFindBackgroundShareAndBox) {
  // 4x3 grey image, all 7 except two 200 pixels at (1,1) and (2,1).
  std::string rows;
  for (int y = 0; y < 3; ++y) rows += y == 1 ? bytes({0, 7, 200, 200, 7}) : bytes({0, 7, 7, 7, 7});
  auto image = PngImage::decode(make_png(4, 3, 0, rows));
  ASSERT_TRUE(image) << image.error();
  ImageStats stats = image_stats(*image);
  EXPECT_EQ(stats.distinct_colours, 2);
  EXPECT_EQ(stats.background, (Rgba{7, 7, 7, 255}));
  EXPECT_DOUBLE_EQ(stats.non_background, 2.0 / 12.0);
  EXPECT_EQ(stats.content.left, 1);
  EXPECT_EQ(stats.content.top, 1);
  EXPECT_EQ(stats.content.right, 3);
  EXPECT_EQ(stats.content.bottom, 2);
  EXPECT_EQ(image_stats(*image, 1).distinct_colours, 1) << "capped";
}

TEST(PngImage, RejectsBrokenFilesWithMessages) {
  std::string good = sample_png();
  auto error_of = [](const std::string& png) {
    auto image = PngImage::decode(png);
    return image ? std::string("decoded") : image.error();
  };
  EXPECT_EQ(error_of(""), "not a PNG file (bad signature)");
  EXPECT_EQ(error_of("<html>not a png</html>"), "not a PNG file (bad signature)");
  EXPECT_EQ(error_of(good.substr(0, 8)), "truncated PNG: no IEND chunk");
  std::string bad_crc = good;
  bad_crc[43] = static_cast<char>(bad_crc[43] ^ 0x55);  // inside the IDAT payload
  EXPECT_EQ(error_of(bad_crc), "bad CRC in chunk 'IDAT'");
  EXPECT_EQ(error_of(make_png(2, 3, 6, std::string(27, '\0'), 1)), "interlaced PNGs are not supported");
  EXPECT_EQ(error_of(make_png(2, 3, 6, std::string(27, '\0'), 0, 16)), "bit depth 16 is not supported (only 8)");
  EXPECT_EQ(error_of(make_png(60000, 60000, 6, "")), "unsupported image size 60000x60000");
  EXPECT_EQ(error_of(make_png(2, 3, 6, std::string(20, '\0'))), "image data ends early (20 of 27 bytes)");
  EXPECT_EQ(error_of(make_png(2, 3, 6, std::string(40, '\0'))), "more image data than the size implies");
  EXPECT_EQ(error_of(make_png(2, 3, 6, std::string(27, '\7'))), "bad filter type 7 on row 0");
}

TEST(PngImage, EveryTruncationAndByteFlipIsAnErrorNotACrash) {
  std::string good = sample_png();
  for (std::size_t n = 0; n < good.size(); ++n) {
    EXPECT_FALSE(PngImage::decode(good.substr(0, n))) << "prefix of " << n << " bytes";
    std::string flipped = good;
    flipped[n] = static_cast<char>(flipped[n] ^ 0xFF);
    (void)PngImage::decode(flipped);  // may decode (a flip inside an ignored field) but must not crash
  }
}

TEST(PngImage, LoadReportsMissingFile) {
  auto image = PngImage::load("/nonexistent/shot.png");
  ASSERT_FALSE(image);
  EXPECT_EQ(image.error(), "cannot open '/nonexistent/shot.png'");
}

// ---- Chromium ------------------------------------------------------------------------------

TEST(Chromium, MissingBrowserIsAnErrorNotACrash) {
  RenderOptions options;
  options.chromium = "/nonexistent/chromium";
  RenderResult r = render_in_chromium(fixture("blank.html"), options);
  EXPECT_FALSE(r.ran);
  EXPECT_NE(r.error.find("cannot start '/nonexistent/chromium'"), std::string::npos) << r.error;
}

TEST(Chromium, MissingPageIsAnError) {
  SA_NEED_CHROMIUM();
  RenderResult r = render_in_chromium(fixture("no_such_page.html"));
  EXPECT_FALSE(r.ran);
  EXPECT_NE(r.error.find("no such file"), std::string::npos) << r.error;
}

TEST(Chromium, CleanPageRendersTheBoxWithoutErrors) {
  SA_NEED_CHROMIUM();
  RenderOptions options;
  options.width = 640;
  options.height = 400;
  options.screenshot_path = temp_path("clean.png");
  RenderResult r = render_in_chromium(fixture("clean_box.html"), options);
  ASSERT_TRUE(r.ran) << describe(r) << "\n" << r.log;
  EXPECT_EQ(r.exit_code, 0) << r.log;
  EXPECT_TRUE(r.console_errors.empty()) << describe(r);
  EXPECT_TRUE(r.network_requests.empty()) << describe(r);
  EXPECT_TRUE(contains(r.console_messages, "log: clean page loaded"));
  EXPECT_NE(r.dom.find("<html lang=\"en\" data-render-ms=\"12\">"), std::string::npos) << r.dom;
  EXPECT_EQ(r.dom.rfind("<!DOCTYPE html>", 0), 0u);
  std::cout << "[ timing   ] one render with screenshot: " << r.elapsed_ms << " ms\n";

  auto image = PngImage::load(r.png_path);
  ASSERT_TRUE(image) << image.error();
  EXPECT_EQ(image->width(), 640);
  EXPECT_EQ(image->height(), 400);
  // The box, to the pixel: inside its corners red, just outside white.
  for (auto [x, y] : {std::pair{100, 50}, {299, 50}, {100, 149}, {299, 149}, {200, 100}}) {
    EXPECT_EQ(image->pixel(x, y), kRed) << x << "," << y << ": " << to_string(image->pixel(x, y));
  }
  for (auto [x, y] : {std::pair{99, 50}, {300, 50}, {100, 49}, {100, 150}, {10, 10}}) {
    EXPECT_EQ(image->pixel(x, y), kWhite) << x << "," << y << ": " << to_string(image->pixel(x, y));
  }
  // The text: dark pixels in its line, so a font was found.
  int dark = 0;
  for (int y = 300; y < 330; ++y) {
    for (int x = 20; x < 300; ++x) dark += near(image->pixel(x, y), Rgba{0, 0, 0, 255}, 64) ? 1 : 0;
  }
  EXPECT_GT(dark, 100) << "no text drawn: is a font installed?";
  ImageStats stats = image_stats(*image);
  EXPECT_EQ(stats.background, kWhite);
  EXPECT_EQ(stats.content.top, 50);
  EXPECT_EQ(stats.content.right, 300);
  EXPECT_GE(stats.content.left, 20);
  EXPECT_LT(stats.content.left, 30);
  EXPECT_GT(stats.content.bottom, 305);
  EXPECT_LE(stats.content.bottom, 330);
  const double box_share = 200.0 * 100.0 / (640.0 * 400.0);
  EXPECT_GT(stats.non_background, box_share);
  EXPECT_LT(stats.non_background, box_share + 0.02);
  EXPECT_GT(stats.distinct_colours, 3) << "anti-aliased text has grey levels";

  // The real screenshot, damaged, must give errors too.
  std::ifstream in(r.png_path, std::ios::binary);
  std::string png((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_FALSE(PngImage::decode(png.substr(0, png.size() / 2)));
  std::string garbled = png;
  for (std::size_t i = png.size() / 3; i < png.size() / 3 + 16; ++i) garbled[i] = 'x';
  EXPECT_FALSE(PngImage::decode(garbled));
  std::filesystem::remove(r.png_path);
}

TEST(Chromium, ThrowingPageReportsTheException) {
  SA_NEED_CHROMIUM();
  RenderResult r = render_in_chromium(fixture("throws.html"));
  ASSERT_TRUE(r.ran) << describe(r);
  ASSERT_EQ(r.console_errors.size(), 1u) << describe(r);
  EXPECT_NE(r.console_errors[0].find("uncaught exception: Error: kaboom from the fixture"), std::string::npos)
      << r.console_errors[0];
  EXPECT_NE(r.console_errors[0].find("throws.html:8:"), std::string::npos) << r.console_errors[0];
}

TEST(Chromium, ConsoleErrorCountsAndLogAndWarnDoNot) {
  SA_NEED_CHROMIUM();
  RenderResult r = render_in_chromium(fixture("console_error.html"));
  ASSERT_TRUE(r.ran) << describe(r);
  ASSERT_EQ(r.console_errors.size(), 1u) << describe(r);
  EXPECT_NE(r.console_errors[0].find("console.error: fixture error 42"), std::string::npos) << r.console_errors[0];
  EXPECT_TRUE(contains(r.console_messages, "log: just a log line"));
  EXPECT_TRUE(contains(r.console_messages, "warning: just a warning"));
}

TEST(Chromium, ExternalRequestsAreBlockedAndReported) {
  SA_NEED_CHROMIUM();
  RenderResult r = render_in_chromium(fixture("external_fetch.html"));
  ASSERT_TRUE(r.ran) << describe(r);
  EXPECT_LT(r.elapsed_ms, 10000) << "blocked requests must fail at once, not time out";
  EXPECT_TRUE(contains(r.network_requests, "http://example.com/x.png")) << describe(r);
  EXPECT_TRUE(contains(r.network_requests, "https://example.org/data.json")) << describe(r);
  EXPECT_TRUE(contains(r.console_errors, "Failed to load resource: net::ERR_")) << describe(r);
  EXPECT_NE(r.dom.find("data-fetch=\"failed\""), std::string::npos) << r.dom;
  EXPECT_NE(r.dom.find("data-img=\"failed\""), std::string::npos) << r.dom;
}

// A listener on loopback stands in for "the network": the page's requests must never reach it.
TEST(Chromium, LoopbackRequestsNeverConnect) {
  SA_NEED_CHROMIUM();
  int listener = ::socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK, 0);
  ASSERT_GE(listener, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof addr;
  ASSERT_EQ(::bind(listener, reinterpret_cast<sockaddr*>(&addr), len), 0);
  ASSERT_EQ(::listen(listener, 8), 0);
  ASSERT_EQ(::getsockname(listener, reinterpret_cast<sockaddr*>(&addr), &len), 0);
  std::string port = std::to_string(ntohs(addr.sin_port));
  std::string page = temp_path("loopback.html");
  std::ofstream(page) << "<!doctype html><html><body><img src=\"http://127.0.0.1:" << port << "/a.png\">"
                      << "<script>fetch('http://localhost:" << port << "/b.json').catch(() => {"
                      << "document.documentElement.dataset.fetch = 'failed'; });</script></body></html>";
  RenderResult r = render_in_chromium(page);
  ASSERT_TRUE(r.ran) << describe(r);
  EXPECT_EQ(r.network_requests.size(), 2u) << describe(r);
  EXPECT_NE(r.dom.find("data-fetch=\"failed\""), std::string::npos) << r.dom;
  int accepted = ::accept(listener, nullptr, nullptr);
  EXPECT_LT(accepted, 0) << "the page reached a loopback server";
  EXPECT_TRUE(errno == EAGAIN || errno == EWOULDBLOCK);
  if (accepted >= 0) ::close(accepted);
  ::close(listener);
  std::filesystem::remove(page);
}

TEST(Chromium, BlankPageScreenshotIsOneColour) {
  SA_NEED_CHROMIUM();
  RenderOptions options;
  options.width = 320;
  options.height = 240;
  options.screenshot_path = temp_path("blank.png");
  RenderResult r = render_in_chromium(fixture("blank.html"), options);
  ASSERT_TRUE(r.ran) << describe(r);
  EXPECT_TRUE(r.console_errors.empty()) << describe(r);
  auto image = PngImage::load(r.png_path);
  ASSERT_TRUE(image) << image.error();
  ImageStats stats = image_stats(*image);
  EXPECT_EQ(stats.background, kWhite);
  EXPECT_LT(stats.non_background, 0.001);
  EXPECT_TRUE(stats.content.empty());
  std::filesystem::remove(r.png_path);
}

TEST(Chromium, FullPageScreenshotReachesTheBottom) {
  SA_NEED_CHROMIUM();
  RenderOptions options;
  options.width = 320;
  options.height = 240;
  options.full_page = true;
  options.screenshot_path = temp_path("tall.png");
  RenderResult r = render_in_chromium(fixture("tall_page.html"), options);
  ASSERT_TRUE(r.ran) << describe(r);
  auto image = PngImage::load(r.png_path);
  ASSERT_TRUE(image) << image.error();
  EXPECT_EQ(image->width(), 320);
  EXPECT_EQ(image->height(), 3000);
  EXPECT_EQ(image->pixel(90, 2925), (Rgba{0, 0, 255, 255})) << to_string(image->pixel(90, 2925));
  ImageStats stats = image_stats(*image);
  EXPECT_EQ(stats.content.top, 2900);
  EXPECT_EQ(stats.content.bottom, 2950);
  std::filesystem::remove(r.png_path);
}

TEST(Chromium, BusyPageTimesOutAndChromiumIsKilled) {
  SA_NEED_CHROMIUM();
  RenderOptions options;
  options.timeout = std::chrono::seconds(4);
  RenderResult r = render_in_chromium(fixture("busy_loop.html"), options);
  EXPECT_FALSE(r.ran);
  EXPECT_TRUE(r.timed_out) << describe(r);
  EXPECT_NE(r.error.find("timed out"), std::string::npos) << r.error;
  EXPECT_LT(r.elapsed_ms, 8000) << "killed promptly after the timeout";
}

}  // namespace
}  // namespace sa::browser
