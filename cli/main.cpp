// slurm-advisor: an offline configuration advisor and policy linter for Slurm.
#include <exception>
#include <functional>
#include <iostream>
#include <new>

#include <CLI/CLI.hpp>

#include "cli/about.h"
#include "cli/cmd_accounting.h"
#include "cli/cmd_check.h"
#include "cli/cmd_compare.h"
#include "cli/cmd_diff.h"
#include "cli/cmd_generate.h"
#include "cli/cmd_lint.h"
#include "cli/cmd_simulate.h"
#include "cli/cmd_squeue.h"
#include "cli/cmd_tune.h"
#include "cli/common.h"
#include "cli/config_options.h"

int main(int argc, char** argv) {
  using namespace sa::cli;
  CLI::App app{"slurm-advisor: check Slurm configurations and policies before you deploy them"};
  app.require_subcommand(1);
  app.set_version_flag("--version", version_text());
  std::function<int()> runner;
  register_check(app, runner);
  register_model(app, runner);
  register_codes(app, runner);
  register_sshare(app, runner);
  register_tree(app, runner);
  register_simulate(app, runner);
  register_sprio(app, runner);
  register_squeue(app, runner);
  register_explain(app, runner);
  register_lint(app, runner);
  register_rules(app, runner);
  register_diff(app, runner);
  register_compare(app, runner);
  register_tune(app, runner);
  ConfigFlags config;  // .slurm-advisor.toml, for every command
  register_config(app, runner, config);
  add_config_options(app, config);
  register_generators(app, runner);
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    app.exit(e);
    return kExitUsage;
  }
  if (!apply_project_config(app, config)) return kExitUsage;
  try {
    return runner ? runner() : kExitUsage;
  } catch (const std::bad_alloc&) {
    // An input the limits let through can still need more memory than the machine has.
    std::cerr << "slurm-advisor: the input is too large for the memory available; lower the limits "
                 "(--limit, see docs/limits.md) or give the tool more memory\n";
  } catch (const std::exception& e) {
    std::cerr << "slurm-advisor: internal error: " << e.what() << "\n";
  } catch (...) {
    std::cerr << "slurm-advisor: internal error\n";
  }
  return kExitUsage;
}
