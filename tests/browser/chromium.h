#pragma once
// Renders a local HTML file in headless Chromium, cut off from the network, and reports what
// happened: console errors, attempted network requests, the DOM after scripts ran and a PNG
// screenshot. Used by the HTML report tests; drives Chromium over the DevTools protocol on a
// pipe (--remote-debugging-pipe) because its stderr log no longer carries console levels.
#include <chrono>
#include <string>
#include <vector>

namespace sa::browser {

/// The browser the tests use: SA_CHROMIUM from the build, /usr/bin/chromium otherwise.
const std::string& default_chromium();

/// True when `binary` exists and is executable; tests skip with a message when it is not.
bool chromium_available(const std::string& binary = default_chromium());

struct RenderOptions {
  int width = 1280;  // viewport in CSS pixels, device scale factor 1
  int height = 800;
  std::string screenshot_path;  // where to write the PNG of the viewport; empty: no screenshot
  // Screenshot the whole document: the viewport grows to the page height (up to 16384 px)
  // first, which re-lays out anything sized in vh units.
  bool full_page = false;
  bool dump_dom = true;                      // serialise the DOM (with its doctype) once the page settled
  std::chrono::milliseconds timeout{20000};  // the whole run; Chromium is killed after it
  // Quiet time after the load event (and after the last network event) with no request in
  // flight before the page counts as settled, so failures of loads started late still arrive.
  std::chrono::milliseconds settle{300};
  // CSS media to emulate ("print" checks the print stylesheet); empty: the screen.
  std::string media;
  // JavaScript expressions run in order once the page settled, before the DOM and the
  // screenshot are taken (a click, a query); each one's value lands in RenderResult::values.
  std::vector<std::string> scripts;
  std::string chromium = default_chromium();
};

struct RenderResult {
  bool ran = false;  // Chromium started, the page loaded and everything asked for was captured
  bool timed_out = false;
  int exit_code = -1;  // Chromium's exit status; 128+N when killed by signal N
  std::string error;   // why ran is false
  // Uncaught exceptions, console.error/console.assert calls and browser log entries at error
  // level (failed loads, CSP violations), one line each, in the order they happened.
  std::vector<std::string> console_errors;
  std::vector<std::string> console_messages;  // every console call: "log: text", "warning: ..."
  // URLs of every request the page tried that is not file:, data:, blob: or about: (all fail:
  // the proxy is a closed port and host names do not resolve).
  std::vector<std::string> network_requests;
  std::string png_path;  // the screenshot written, empty when none
  std::string dom;       // "<!DOCTYPE html>\n<html ...>...</html>" after scripts ran
  std::string log;       // Chromium's own stdout/stderr, for diagnosing failures
  long elapsed_ms = 0;   // wall time of the whole run, start to exit
  // Per RenderOptions::scripts: the value (strings as they are, anything else as JSON), or
  // "exception: ..." when the expression threw.
  std::vector<std::string> values;
};

/// Renders `html_path` (a local file) and never throws: failures are in result.error.
RenderResult render_in_chromium(const std::string& html_path, const RenderOptions& options = {});

/// One line for test failure messages: error, exit code, console errors and requests.
std::string describe(const RenderResult& result);

}  // namespace sa::browser
