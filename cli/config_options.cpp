#include "cli/config_options.h"

#include <algorithm>
#include <filesystem>
#include <iostream>
#include <set>
#include <sstream>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "analyzer/printable.h"
#include "cli/common.h"
#include "cli/project_config.h"

namespace sa::cli {

namespace fs = std::filesystem;

namespace {

// A run's load comes from one of these options, which exclude each other: the file's load
// source applies only when the command line names none.
const std::set<std::string> kLoadSources = {"--workload", "--synthetic", "--jobs"};

bool is_hidden_or_config(const CLI::App* cmd) { return cmd->get_group().empty() || cmd->get_name() == "config"; }

bool given_on_command_line(CLI::App& cmd, const std::string& option) {
  const CLI::Option* opt = cmd.get_option_no_throw(option);
  if (opt && opt->count() > 0) return true;
  if (!kLoadSources.count(option)) return false;
  for (const std::string& source : kLoadSources) {
    const CLI::Option* o = cmd.get_option_no_throw(source);
    if (o && o->count() > 0) return true;
  }
  return false;
}

// Through the option's own validators and conversion, so a bad value is refused exactly as on
// the command line, but at the file's line.
void set_option(CLI::Option& opt, ProjectConfig& config, const ConfigSetting& s) {
  try {
    opt.clear();
    for (const std::string& v : s.values) opt.add_result(v);
    opt.run_callback();
  } catch (const CLI::ParseError& e) {
    config.diagnostics.push_back(
        {config.file.string(), s.line, s.column, fmt::format("'{}': {}", s.key->key, e.what())});
  }
}

// `only_once`: validate each option on the first command that has it (config --show).
void apply_settings(CLI::App& cmd, ProjectConfig& config, std::set<std::string>* only_once = nullptr) {
  for (const ConfigSetting& s : config.settings) {
    CLI::Option* opt = cmd.get_option_no_throw(s.key->option);
    if (!opt || given_on_command_line(cmd, s.key->option)) continue;
    if (only_once && !only_once->insert(s.key->option).second) continue;
    set_option(*opt, config, s);
  }
}

// The directory of the slurm.conf the command reads (diff: the old one), else the current one.
fs::path discovery_start(CLI::App& cmd) {
  for (const char* name : {"slurm.conf", "--conf"}) {
    const CLI::Option* opt = cmd.get_option_no_throw(name);
    if (opt && opt->count() > 0) return fs::path(opt->results().front()).parent_path();
  }
  return ".";
}

ProjectConfig load_config(const ConfigFlags& flags, const fs::path& start) {
  if (flags.none) return {};
  if (!flags.file.empty()) return read_project_config(flags.file);
  if (auto found = find_project_config(start)) return read_project_config(*found);
  return {};
}

void print_diagnostics(const ProjectConfig& config) {
  // Messages quote the file's own bytes (a value CLI11 could not convert).
  for (const ConfigDiagnostic& d : config.diagnostics) std::cerr << terminal_text(d.to_string() + "\n");
}

std::string quoted(const std::string& s, ConfigValueKind kind) {
  const bool number =
      kind == ConfigValueKind::kScalar && !s.empty() && s.find_first_not_of("0123456789") == std::string::npos;
  return number ? s : nlohmann::json(s).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

// Values in TOML's own spelling, so a line of the output can be pasted into the file.
std::string toml_value(const ConfigKey& key, const std::vector<std::string>& values) {
  std::vector<std::string> items;
  for (const std::string& v : values) {
    const auto eq = v.find('=');
    const bool pair = key.kind == ConfigValueKind::kPairTable || key.kind == ConfigValueKind::kPathTable;
    items.push_back(pair ? quoted(v.substr(0, eq), key.kind) + " = " + quoted(v.substr(eq + 1), key.kind)
                         : quoted(v, key.kind));
  }
  switch (key.kind) {
    case ConfigValueKind::kScalar:
    case ConfigValueKind::kPath:
      return items.empty() ? "" : items.front();
    case ConfigValueKind::kPathList:
    case ConfigValueKind::kWordList:
      return "[" + fmt::format("{}", fmt::join(items, ", ")) + "]";
    default:
      return "{ " + fmt::format("{}", fmt::join(items, ", ")) + (items.empty() ? "}" : " }");
  }
}

// The default as the CLI definition holds it, and the commands that take the option.
std::pair<std::string, std::string> default_and_commands(CLI::App& app, const ConfigKey& key) {
  std::string value, commands;
  for (CLI::App* cmd : app.get_subcommands([](CLI::App* c) { return !is_hidden_or_config(c); })) {
    CLI::Option* opt = cmd->get_option_no_throw(key.option);
    if (!opt) continue;
    commands += (commands.empty() ? "" : ", ") + cmd->get_name();
    if (value.empty()) value = opt->capture_default_str()->get_default_str();
  }
  if (value == "[]") value.clear();
  return {value, commands};
}

int show_config(CLI::App& app, const std::string& path, const ConfigFlags& flags) {
  std::error_code ec;
  const fs::path start = path.empty()                 ? fs::path(".")
                         : fs::is_directory(path, ec) ? fs::path(path)
                                                      : fs::path(path).parent_path();
  ProjectConfig config = load_config(flags, start);
  std::set<std::string> validated;
  for (CLI::App* cmd : app.get_subcommands([](CLI::App* c) { return !is_hidden_or_config(c); })) {
    apply_settings(*cmd, config, &validated);
  }
  if (!config.ok()) {
    print_diagnostics(config);
    return kExitUsage;
  }
  std::ostringstream out;
  out << "# "
      << (config.file.empty()
              ? "no " + std::string(kProjectConfigName) + " (searched from " + start.string() + " upward)"
              : "config file: " + config.file.string())
      << "\n";
  for (const ConfigKey& key : config_keys()) {
    const ConfigSetting* s = config.find(key.key);
    auto [fallback, commands] = default_and_commands(app, key);
    const std::string value = s                  ? toml_value(key, s->values)
                              : fallback.empty() ? "(not set)"
                                                 : quoted(fallback, key.kind);
    const std::string origin = s ? fmt::format("{}:{}", config.file.string(), s->line) : "default";
    out << fmt::format("{:<44} # {} ({}; {})\n", std::string(key.key) + " = " + value, origin, key.option, commands);
  }
  print_text(out.str());
  return kExitOk;
}

}  // namespace

void add_config_options(CLI::App& app, ConfigFlags& flags) {
  for (CLI::App* cmd : app.get_subcommands([](CLI::App* c) { return !c->get_group().empty(); })) {
    for (const ConfigKey& key : config_keys()) {
      CLI::Option* opt = cmd->get_option_no_throw(key.option);
      if (opt && opt->get_required()) flags.required_after_config.push_back(opt->required(false));
    }
    auto* file = cmd->add_option("--config", flags.file,
                                 "Read this project config instead of the " + std::string(kProjectConfigName) +
                                     " found from slurm.conf's directory upward");
    cmd->add_flag("--no-config", flags.none, "Read no project config file")->excludes(file);
  }
}

bool apply_project_config(CLI::App& app, const ConfigFlags& flags) {
  for (CLI::App* cmd : app.get_subcommands()) {
    if (is_hidden_or_config(cmd)) continue;
    ProjectConfig config = load_config(flags, discovery_start(*cmd));
    if (config.ok()) apply_settings(*cmd, config);
    if (!config.ok()) {
      print_diagnostics(config);
      return false;
    }
    for (const CLI::Option* opt : cmd->get_options()) {
      const auto& deferred = flags.required_after_config;
      if (opt->count() > 0 || std::find(deferred.begin(), deferred.end(), opt) == deferred.end()) continue;
      std::cerr << opt->get_name() << " is required (on the command line or in " << kProjectConfigName
                << ")\nRun with --help for more information.\n";
      return false;
    }
  }
  return true;
}

void register_config(CLI::App& app, std::function<int()>& runner, const ConfigFlags& flags) {
  auto path = std::make_shared<std::string>();
  auto show = std::make_shared<bool>(false);
  CLI::App* cmd = app.add_subcommand("config", "Show the project config (" + std::string(kProjectConfigName) +
                                                   ") in effect, and where each setting comes from");
  cmd->add_option("path", *path, "A slurm.conf or a directory: the search for the file starts there (default .)");
  cmd->add_flag("--show", *show, "Print the effective settings")->required();
  cmd->footer(
      "Each key stands for the option named beside it; an option given on the command line wins "
      "over the "
      "file.\nExit status: 0 the file is valid (or there is none), 2 it is not.");
  cmd->callback([&app, path, show, &flags, &runner] {
    runner = [&app, path, &flags] { return show_config(app, *path, flags); };
  });
}

}  // namespace sa::cli
