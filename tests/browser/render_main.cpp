// sa_render FILE.html [PNG]: renders one HTML file in headless Chromium (the browser tests'
// harness) and prints what a performance check needs, as one JSON line: the page's own
// data-render-ms stamp (performance.now() at the first frame after the load event), the wall
// time of the whole run, console errors and requests. scripts/bench_html.sh uses it.
#include <iostream>
#include <regex>
#include <string>

#include <nlohmann/json.hpp>

#include "chromium.h"

int main(int argc, char** argv) {
  if (argc < 2) {
    std::cerr << "usage: sa_render FILE.html [SCREENSHOT.png]\n";
    return 2;
  }
  sa::browser::RenderOptions options;
  options.timeout = std::chrono::milliseconds(120000);
  if (argc > 2) {
    options.screenshot_path = argv[2];
    options.full_page = true;
  }
  const sa::browser::RenderResult r = sa::browser::render_in_chromium(argv[1], options);
  std::smatch m;
  const std::regex stamp("data-render-ms=\"([0-9]+)\"");
  nlohmann::json out = {{"ran", r.ran},
                        {"wall_ms", r.elapsed_ms},
                        {"console_errors", r.console_errors},
                        {"requests", r.network_requests},
                        {"dom_bytes", r.dom.size()}};
  if (std::regex_search(r.dom, m, stamp)) out["render_ms"] = std::stol(m[1].str());
  if (!r.ran) out["error"] = r.error;
  std::cout << out.dump() << "\n";
  return r.ran && r.console_errors.empty() ? 0 : 1;
}
