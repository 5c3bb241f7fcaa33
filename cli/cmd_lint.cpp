// `slurm-advisor lint` and `slurm-advisor rules`.
#include "cli/cmd_lint.h"

#include <iostream>
#include <memory>
#include <sstream>

#include "cli/common.h"
#include "cli/engine_options.h"
#include "cli/site_inputs.h"
#include "report/lint_report.h"
#include "rules/framework/lint.h"
#include "rules/framework/rule.h"

namespace sa::cli {

namespace {

struct LintCliOptions {
  SiteOptions site;
  std::string format = "text", output, fail_on = "error", baseline, severity, color = "auto", source_root = ".";
  bool no_simulate = false, no_evidence = false, quiet = false;
  std::string progress = "auto";
  std::vector<std::string> severity_overrides, disable;  // lines of a severity file, one each
};

// One --severity-override or --disable value read as a line of a severity file, so the
// command line (and .slurm-advisor.toml through it) accepts exactly what the file does.
Result<rules::SeverityOverrides> severity_line(const std::string& value, bool off) {
  const std::string line = off ? value + " = off" : value;
  return rules::parse_severity_file(off ? "--disable" : "--severity-override", line);
}

CLI::Validator severity_line_check(bool off) {
  return CLI::Validator(
      [off](std::string& value) {
        auto parsed = severity_line(value, off);
        return parsed ? std::string() : parsed.error().substr(parsed.error().find(": ") + 2);
      },
      off ? "CODE" : "CODE=LEVEL");
}

void merge(rules::SeverityOverrides& into, const rules::SeverityOverrides& from) {
  for (const auto& [k, v] : from.by_code) into.by_code.insert_or_assign(k, v);
  for (const auto& [k, v] : from.by_check) into.by_check.insert_or_assign(k, v);
}

bool lint_options(const LintCliOptions& o, rules::LintOptions& lo) {
  lo.simulate = !o.no_simulate;
  lo.default_load = o.site.default_load();
  lo.progress = progress_bar(o.quiet ? "never" : o.progress);
  if (!o.severity.empty()) {
    auto overrides = rules::read_severity_file(o.severity);
    if (!overrides) {
      std::cerr << "slurm-advisor: " << overrides.error() << "\n";
      return false;
    }
    lo.overrides = std::move(*overrides);
  }
  for (bool off : {false, true}) {  // the command line's lines win over the --severity file's
    for (const std::string& value : off ? o.disable : o.severity_overrides) {
      if (auto parsed = severity_line(value, off)) merge(lo.overrides, *parsed);  // checked when parsed
    }
  }
  if (!o.baseline.empty()) {
    auto baseline = rules::read_baseline(o.baseline);
    if (!baseline) {
      std::cerr << "slurm-advisor: " << baseline.error() << "\n";
      return false;
    }
    lo.baseline = std::move(*baseline);
  }
  return true;
}

int run_lint_command(const LintCliOptions& o) {
  rules::LintOptions lo;
  if (!lint_options(o, lo)) return kExitUsage;
  SiteOptions site = o.site;
  site.paths.sniff_role = true;  // gres.conf, topology.conf and Include fragments get one note (CONF052)
  auto in = load_site(site, !o.no_simulate);
  if (!in) return kExitUsage;
  if (!o.no_simulate && !save_load(o.site, in->workload)) return kExitUsage;
  const rules::LintReport report = rules::run_lint(*in, lo);
  const Severity threshold = *rules::parse_level(o.fail_on);
  std::ostringstream text;
  const bool terminal = o.format == "text";
  const bool color = terminal && o.output.empty() && use_color(o.color);
  if (o.format == "json") {
    write_json(text, report::lint_json(report));
  } else if (o.format == "sarif") {
    write_json(text, report::lint_sarif(report, o.source_root));
  } else if (o.format == "html") {
    text << report::lint_html(report, threshold);
  } else {
    report::print_lint_text(text, report, {color, !o.no_evidence});
  }
  if (!write_text(o.output, text.str(), terminal, color)) return kExitUsage;
  return report.count_at_or_above(threshold) > 0 ? kExitFindings : kExitOk;
}

}  // namespace

void register_lint(CLI::App& app, std::function<int()>& runner) {
  auto o = std::make_shared<LintCliOptions>();
  CLI::App* cmd = app.add_subcommand("lint", "Find policy defects, with evidence from a simulation of the site");
  add_site_options(*cmd, o->site, false);
  cmd->add_option("--format", o->format, "Output format")->check(CLI::IsMember({"text", "json", "sarif", "html"}));
  cmd->add_option("--output,-o", o->output, "Write the report here instead of stdout");
  cmd->add_option("--fail-on", o->fail_on, "Exit 1 when a finding at or above this severity remains (default error)")
      ->check(CLI::IsMember({"error", "warning", "info"}));
  cmd->add_option("--baseline", o->baseline,
                  "A previous `lint --format json` output: its findings are reported but do not fail the run");
  cmd->add_option("--severity", o->severity,
                  "Severity overrides: lines `CODE = error|warning|info|off` or `check-family = LEVEL`");
  cmd->add_option("--severity-override", o->severity_overrides,
                  "CODE=LEVEL or check-family=LEVEL, LEVEL error|warning|info|off (repeatable; wins "
                  "over --severity)")
      ->check(severity_line_check(false));
  cmd->add_option("--disable", o->disable, "Switch a rule off: its findings are dropped (repeatable)")
      ->check(severity_line_check(true));
  cmd->add_flag("--no-simulate", o->no_simulate, "Static checks only: no simulation, no simulated evidence");
  cmd->add_flag("--no-evidence", o->no_evidence, "Text format: one line per finding, without evidence");
  add_save_load_option(*cmd, o->site);
  cmd->add_option("--progress", o->progress,
                  "Progress bar on stderr: auto (on a terminal, runs over a second), always or never")
      ->check(CLI::IsMember({"auto", "always", "never"}));
  cmd->add_flag("--quiet,-q", o->quiet, "No progress bar");
  cmd->add_option("--source-root", o->source_root, "SARIF: paths are written relative to this directory (default .)");
  cmd->add_option("--color", o->color, "Colour: auto, always or never")
      ->check(CLI::IsMember({"auto", "always", "never"}));
  cmd->footer(
      "Without --workload or --synthetic, lint simulates a default load derived from the cluster and says so.\n"
      "Exit status: 0 nothing at or above --fail-on, 1 findings at or above it, 2 the tool could not run.");
  cmd->callback([o, &runner] { runner = [o] { return run_lint_command(*o); }; });
}

void register_rules(CLI::App& app, std::function<int()>& runner) {
  auto code = std::make_shared<std::string>();
  auto format = std::make_shared<std::string>("text");
  CLI::App* cmd = app.add_subcommand("rules", "List the lint rules, or show one rule's documentation");
  cmd->add_option("code", *code, "A rule code, e.g. BF001")->type_name("CODE");
  cmd->add_option("--format", *format, "Output format")->check(CLI::IsMember({"text", "json"}));
  cmd->callback([code, format, &runner] {
    runner = [code, format] {
      if (!code->empty()) {
        const rules::Rule* r = rules::find_rule(*code);
        if (!r) {
          std::cerr << "slurm-advisor: no rule '" << *code << "'; `slurm-advisor rules` lists them\n";
          return static_cast<int>(kExitUsage);
        }
        std::cout << r->doc;
        return static_cast<int>(kExitOk);
      }
      nlohmann::json list = nlohmann::json::array();
      for (const rules::Rule& r : rules::registry()) {
        const char* sim = r.simulation == rules::SimUse::kRequired   ? "simulated"
                          : r.simulation == rules::SimUse::kEvidence ? "static+evidence"
                                                                     : "static";
        if (*format == "json") {
          list.push_back({{"code", r.code},
                          {"slug", r.slug},
                          {"check", rules::check_name(r.check)},
                          {"severity", rules::level_name(r.severity)},
                          {"simulation", sim},
                          {"summary", r.summary}});
        } else {
          std::cout << r.code << "  " << r.slug << "  [" << rules::check_name(r.check) << ", "
                    << rules::level_name(r.severity) << ", " << sim << "]\n         " << r.summary << "\n";
        }
      }
      if (*format == "json") write_json(std::cout, {{"rules", list}});
      return static_cast<int>(kExitOk);
    };
  });
}

}  // namespace sa::cli
