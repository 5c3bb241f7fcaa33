#include "report/html_writer.h"

#include <cmath>

#include <fmt/format.h>

#include "report/sha256.h"

namespace sa::report {

std::string esc(std::string_view text) {
  std::string out;
  out.reserve(text.size() + 8);
  for (char c : text) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      case '\'':
        out += "&#39;";
        break;
      default:
        // Control characters are not allowed in HTML text; a hostile name must not smuggle them in.
        if (static_cast<unsigned char>(c) < 0x20 && c != '\t' && c != '\n') break;
        if (c == 0x7f) break;
        out += c;
    }
  }
  return out;
}

std::string truncate_utf8(const std::string& text, std::size_t max) {
  if (text.size() <= max) return text;
  std::size_t cut = max > 0 ? max - 1 : 0;
  while (cut > 0 && (static_cast<unsigned char>(text[cut]) & 0xC0) == 0x80) --cut;  // not inside a character
  return text.substr(0, cut) + "…";
}

std::string fmt_count(double v) {
  if (!std::isfinite(v)) return "–";
  const auto n = static_cast<long long>(std::llround(v));
  std::string digits = std::to_string(n < 0 ? -n : n), out;
  for (std::size_t i = 0; i < digits.size(); ++i) {
    if (i && (digits.size() - i) % 3 == 0) out += ',';
    out += digits[i];
  }
  return n < 0 ? "-" + out : out;
}

std::string fmt_number(double v) {
  if (!std::isfinite(v)) return "–";
  const double a = std::fabs(v);
  if (a >= 1e6) return fmt::format("{:.1f} M", v / 1e6);
  if (a >= 1e4) return fmt::format("{:.1f} k", v / 1e3);
  if (a >= 100 || v == std::floor(v)) return fmt_count(v);
  if (a >= 1) return fmt::format("{:.2f}", v);
  return fmt::format("{:.3f}", v);
}

std::string fmt_percent(double share) { return std::isfinite(share) ? fmt::format("{:.1f} %", share * 100) : "–"; }

std::string fmt_duration(double s) {
  if (!std::isfinite(s)) return "–";
  if (s < 90) return fmt::format("{:.0f} s", s);
  if (s < 5400) return fmt::format("{:.0f} min", s / 60);
  if (s < 172800) return fmt::format("{:.1f} h", s / 3600);
  return fmt::format("{:.1f} d", s / 86400);
}

namespace {

// One stylesheet for screen and paper: charts and tables never split across printed pages,
// and the colours of severities survive black-and-white printing as words too.
constexpr const char* kStyle = R"(
:root{--fg:#1d2329;--muted:#5b6670;--line:#d5dbe0;--bg:#fff;--err:#b3261e;--warn:#a15c00;--info:#245f9e;--ok:#2e7d32}
*{box-sizing:border-box}
body{margin:0;font:14px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,"DejaVu Sans",sans-serif;color:var(--fg);background:var(--bg)}
header{padding:18px 28px;border-bottom:1px solid var(--line);background:#f5f7f9}
header h1{margin:0 0 4px;font-size:22px}
header p{margin:0;color:var(--muted)}
main{padding:8px 28px 40px;max-width:1200px}
h2{font-size:18px;margin:28px 0 8px;border-bottom:1px solid var(--line);padding-bottom:4px}
h3{font-size:15px;margin:18px 0 6px}
.cards{display:flex;flex-wrap:wrap;gap:10px;margin:10px 0}
.card{border:1px solid var(--line);border-radius:6px;padding:8px 14px;min-width:120px}
.card b{display:block;font-size:22px}
.verdict{padding:10px 14px;border-radius:6px;margin:12px 0;font-weight:600;border-left:6px solid}
.verdict.fail{border-color:var(--err);background:#fbeceb}
.verdict.warn{border-color:var(--warn);background:#fdf3e4}
.verdict.pass{border-color:var(--ok);background:#eaf4eb}
table{border-collapse:collapse;margin:6px 0 12px;font-size:13px}
th,td{border-bottom:1px solid var(--line);padding:3px 8px;text-align:left;vertical-align:top}
td.n,th.n{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}
th{white-space:nowrap}
td.mono{white-space:nowrap}
td.code{font-family:ui-monospace,Menlo,Consolas,monospace;font-size:12px;word-break:break-all;max-width:340px}
.was{color:var(--muted);text-decoration:line-through}.now{font-weight:600}
div.wide{overflow-x:auto;max-width:100%}
td.change{font-family:ui-monospace,Menlo,Consolas,monospace;font-size:12px;white-space:nowrap}
th.sort{cursor:pointer;user-select:none}
th.sort:after{content:" \2195";color:var(--muted);font-size:11px}
.sev{font-weight:700;text-transform:uppercase;font-size:11px;padding:1px 6px;border-radius:3px;color:#fff}
.sev.error{background:var(--err)}.sev.warning{background:var(--warn)}.sev.info{background:var(--info)}
.finding{border:1px solid var(--line);border-radius:6px;padding:10px 14px;margin:12px 0;break-inside:avoid-page}
.finding .msg{margin:6px 0}
.finding .loc{font-family:ui-monospace,Menlo,Consolas,monospace;color:var(--muted);font-size:12px}
.snippet{font-family:ui-monospace,Menlo,Consolas,monospace;font-size:12px;background:#f5f7f9;padding:4px 8px;margin:4px 0;white-space:pre-wrap;word-break:break-all}
.fix{border-left:4px solid var(--ok);padding:4px 10px;background:#f3f9f3;margin:8px 0}
.muted{color:var(--muted)}
code,.mono{font-family:ui-monospace,Menlo,Consolas,monospace;font-size:12px}
figure{margin:12px 0 20px;break-inside:avoid}
figcaption{color:var(--muted);font-size:12px;max-width:760px}
svg text{font:11px system-ui,"DejaVu Sans",sans-serif;fill:var(--fg)}
svg .axis{stroke:#8a959e;stroke-width:1}
svg .grid{stroke:#e4e8eb;stroke-width:1}
.legend{display:flex;flex-wrap:wrap;gap:4px 14px;font-size:12px;margin:4px 0}
.legend i{display:inline-block;width:11px;height:11px;margin-right:4px;vertical-align:-1px}
nav.toc a{margin-right:14px}
.added{color:var(--err)}.removed{color:var(--ok)}
@media print{header{background:none}main{max-width:none;padding:0 8px}nav.toc{display:none}
 th.sort:after{content:""}.finding,figure,table{break-inside:avoid}a{color:inherit;text-decoration:none}}
)";

// Sorting: a click on a th.sort orders the tbody rows by that column (numbers by data-v,
// largest first: errors, longest waits), a second click reverses it.
// The render stamp lets the browser test read how long the page took to lay out.
constexpr const char* kScript = R"(
(function(){
function key(row,i,num){var c=row.cells[i];if(!c)return num?-Infinity:"";return num?parseFloat(c.getAttribute("data-v")||"NaN"):c.textContent.trim().toLowerCase();}
document.querySelectorAll("th.sort").forEach(function(th){th.addEventListener("click",function(){
var table=th.closest("table"),body=table.tBodies[0],i=th.cellIndex,num=th.classList.contains("n");
var last=th.getAttribute("data-dir"),dir=last?-Number(last):(num?-1:1);th.setAttribute("data-dir",String(dir));
var rows=Array.prototype.slice.call(body.rows);
rows.sort(function(a,b){var x=key(a,i,num),y=key(b,i,num);if(num){if(isNaN(x))x=-Infinity;if(isNaN(y))y=-Infinity;}return x<y?-dir:x>y?dir:0;});
rows.forEach(function(r){body.appendChild(r);});});});
window.addEventListener("load",function(){requestAnimationFrame(function(){
document.documentElement.setAttribute("data-render-ms",String(Math.round(performance.now())));});});
})();
)";

const std::string& script_hash() {
  static const std::string hash = csp_script_hash(kScript);
  return hash;
}

}  // namespace

std::string page_begin(const PageHead& head) {
  return fmt::format(
      "<!doctype html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
      "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
      // No network: nothing this page shows may be fetched, even if a name tried to.
      // Scripts: only our own, named by its hash, so an injected <script> or handler never runs.
      "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; "
      "style-src 'unsafe-inline'; script-src {}; img-src data:\">\n"
      "<title>{}</title>\n<style>{}</style>\n</head>\n<body>\n<header><h1>{}</h1><p>{}</p></header>\n<main>\n",
      script_hash(), esc(head.title), kStyle, esc(head.title), esc(head.subtitle));
}

std::string page_end() { return fmt::format("</main>\n<script>{}</script>\n</body>\n</html>\n", kScript); }

std::string sort_th(std::string_view label, bool numeric) {
  return fmt::format("<th class=\"sort{}\">{}</th>", numeric ? " n" : "", esc(label));
}

std::string num_td(double value, std::string_view text) {
  return fmt::format("<td class=\"n\" data-v=\"{}\">{}</td>", std::isfinite(value) ? value : 0.0, esc(text));
}

}  // namespace sa::report
