// `slurm-advisor check` (diagnostics) and `slurm-advisor model` (the resolved model).
#include "cli/cmd_check.h"

#include <iostream>
#include <memory>

#include "analyzer/analyze.h"
#include "analyzer/diagnostic_codes.h"
#include "cli/common.h"
#include "cli/input_options.h"
#include "report/diagnostic_printer.h"
#include "report/model_json.h"

namespace sa::cli {

namespace {

struct CheckOptions {
  std::string path;
  std::string kind = "auto";
  std::string format = "text";
  std::string color = "auto";
  VersionOption version;
  InputOptions input;
  bool quiet = false;
};

ConfKind kind_of(const std::string& kind, const std::string& path) {
  if (kind == "slurm") return ConfKind::kSlurm;
  if (kind == "gres") return ConfKind::kGres;
  if (kind == "topology") return ConfKind::kTopology;
  return guess_conf_kind(path);
}

std::unique_ptr<Analysis> run_analysis(const CheckOptions& o, const std::string& kind = "slurm") {
  AnalyzeOptions options;
  if (!o.version.resolve(options.version)) return nullptr;
  if (!o.input.resolve(options.includes, options.limits)) return nullptr;
  options.kind = kind_of(kind, o.path);
  auto analysis = analyze_file(o.path, options);
  if (!analysis->ok()) {
    std::cerr << "slurm-advisor: " << analysis->failure << "\n";
    return nullptr;
  }
  return analysis;
}

int run_check(const CheckOptions& o) {
  auto analysis = run_analysis(o, o.kind);
  if (!analysis) return kExitUsage;
  auto diagnostics = analysis->diagnostics.sorted();
  if (o.format == "json") {
    nlohmann::json j = report::diagnostics_json(diagnostics, analysis->sources);
    j["slurm_version"] = analysis->config.version.to_string();
    write_json(std::cout, j);
  } else {
    report::print_diagnostics_text(std::cout, diagnostics, analysis->sources, {use_color(o.color), true});
    if (!o.quiet) {
      std::cout << o.path << ": " << report::diagnostics_summary(diagnostics) << " (checked against Slurm "
                << analysis->config.version.to_string() << ")\n";
    }
  }
  return analysis->diagnostics.has_errors() ? kExitFindings : kExitOk;
}

}  // namespace

void register_check(CLI::App& app, std::function<int()>& runner) {
  auto options = std::make_shared<CheckOptions>();
  CLI::App* cmd = app.add_subcommand("check", "Check a slurm.conf (and its Include files) as Slurm would read it");
  cmd->add_option("slurm.conf", options->path, "Path to slurm.conf")->required();
  cmd->add_option("--format", options->format, "Output format")->check(CLI::IsMember({"text", "json"}));
  cmd->add_option("--color", options->color, "Colour: auto, always or never")
      ->check(CLI::IsMember({"auto", "always", "never"}));
  cmd->add_flag("--quiet,-q", options->quiet, "Omit the summary line");
  cmd->add_option("--kind", options->kind,
                  "File kind: slurm, gres or topology (default: from the file name, *gres*.conf and "
                  "*topology*.conf, else slurm)")
      ->check(CLI::IsMember({"auto", "slurm", "gres", "topology"}));
  add_version_option(*cmd, options->version);
  add_input_options(*cmd, options->input);
  cmd->footer("Exit status: 0 no errors, 1 errors Slurm would refuse, 2 the tool could not run.");
  cmd->callback([options, &runner] { runner = [options] { return run_check(*options); }; });
}

void register_model(CLI::App& app, std::function<int()>& runner) {
  auto options = std::make_shared<CheckOptions>();
  CLI::App* cmd = app.add_subcommand("model", "Print the resolved model of a slurm.conf as JSON");
  cmd->add_option("slurm.conf", options->path, "Path to slurm.conf")->required();
  add_version_option(*cmd, options->version);
  add_input_options(*cmd, options->input);
  cmd->footer(
      "Times are integer seconds, memory is MB, null means UNLIMITED. Diagnostics go to stderr.\n"
      "Exit status: 0 no errors, 1 errors Slurm would refuse, 2 the tool could not run.");
  cmd->callback([options, &runner] {
    runner = [options] {
      auto analysis = run_analysis(*options);
      if (!analysis) return static_cast<int>(kExitUsage);
      auto diagnostics = analysis->diagnostics.sorted();
      report::print_diagnostics_text(std::cerr, diagnostics, analysis->sources, {false, false});
      const auto max_names = static_cast<std::size_t>(analysis->sources.limits().model_node_names);
      write_json(std::cout, report::model_json(analysis->config, max_names));
      return static_cast<int>(analysis->diagnostics.has_errors() ? kExitFindings : kExitOk);
    };
  });
}

void register_codes(CLI::App& app, std::function<int()>& runner) {
  auto format = std::make_shared<std::string>("text");
  CLI::App* cmd = app.add_subcommand("codes", "List every diagnostic code check can report");
  cmd->add_option("--format", *format, "Output format")->check(CLI::IsMember({"text", "json"}));
  cmd->callback([format, &runner] {
    runner = [format] {
      if (*format == "json") {
        nlohmann::json list = nlohmann::json::array();
        for (const DiagnosticCode& c : diagnostic_codes()) {
          list.push_back({{"code", c.code}, {"slug", c.slug}, {"summary", c.summary}});
        }
        write_json(std::cout, {{"codes", list}});
      } else {
        for (const DiagnosticCode& c : diagnostic_codes()) {
          std::cout << c.code << "  " << c.slug << "\n         " << c.summary << "\n";
        }
      }
      return static_cast<int>(kExitOk);
    };
  });
}

}  // namespace sa::cli
