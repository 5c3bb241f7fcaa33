// `slurm-advisor sshare` and `slurm-advisor tree`: fair share from a sacctmgr dump, an
// optional usage snapshot and QOS table, and the slurm.conf that selects the algorithm.
#include "cli/cmd_accounting.h"

#include <fmt/format.h>
#include <cmath>
#include <iostream>
#include <memory>
#include <optional>
#include <sstream>

#include "cli/common.h"
#include "cli/input_options.h"
#include "engine/fair_share.h"
#include "engine/site_loader.h"
#include "report/diagnostic_printer.h"
#include "report/sshare_table.h"

namespace sa::cli {

namespace {

struct AccountingOptions {
  std::string conf, assoc, usage, qos;
  std::string format = "psv";
  bool short_format = false;
  bool ascii = false;
  VersionOption version;
  InputOptions input;
};

// Everything the two commands read, through the one loader every engine command uses
// (engine/site_loader.h): the slurm.conf is optional here, the association dump is not.
struct AccountingInputs {
  std::unique_ptr<engine::LoadedSite> site;
  const AssocTree* tree = nullptr;
  std::vector<long double> usage;  // raw usage per association, 0 where none was recorded
  SlurmVersion version;
  PrioritySettings priority;  // Fair Tree unless --conf says otherwise
};

std::optional<AccountingInputs> load(const AccountingOptions& o) {
  AccountingInputs in;
  if (!o.version.resolve(in.version)) return std::nullopt;
  engine::SitePaths paths;
  paths.conf = o.conf;
  paths.assoc = o.assoc;
  paths.qos = o.qos;
  paths.usage = o.usage;
  paths.version = in.version;
  if (!o.input.resolve(paths.includes, paths.limits)) return std::nullopt;
  auto loaded = engine::load_site(paths);
  if (!loaded) {
    std::cerr << "slurm-advisor: " << loaded.error() << "\n";
    return std::nullopt;
  }
  in.site = std::move(*loaded);
  if (!in.site->tree) {
    std::cerr << "slurm-advisor: --assoc is required (a `sacctmgr dump` file)\n";
    return std::nullopt;
  }
  in.tree = &*in.site->tree;
  if (in.site->conf) in.priority = in.site->conf->config.priority;
  const std::vector<double>& recorded = in.site->site.initial_usage;
  in.usage.assign(in.tree->assocs.size(), 0.0L);
  for (std::size_t i = 0; i < recorded.size() && i < in.usage.size(); ++i) in.usage[i] = recorded[i];
  return in;
}

// Input problems go to stderr; the exit code says whether any was an error.
int report_inputs(const AccountingInputs& in) {
  const engine::LoadedSite& site = *in.site;
  bool errors = site.diagnostics.has_errors();
  report::print_diagnostics_text(std::cerr, site.diagnostics.sorted(), site.sources, {false, false});
  if (site.conf) {
    report::print_diagnostics_text(std::cerr, site.conf->diagnostics.sorted(), site.conf->sources, {false, false});
    errors = errors || site.conf->diagnostics.has_errors();
  }
  return errors ? kExitFindings : kExitOk;
}

void add_common(CLI::App& cmd, AccountingOptions& o) {
  cmd.add_option("--conf", o.conf,
                 "slurm.conf: PriorityFlags and FairShareDampeningFactor choose the algorithm "
                 "(without it: Fair Tree)");
  cmd.add_option("--assoc", o.assoc, "Association tree: a `sacctmgr dump` file")->required();
  cmd.add_option("--usage", o.usage, "Recorded usage: `sshare -a -l -P` or `sshare -a -P` output");
  cmd.add_option("--qos", o.qos, "QOS table: `sacctmgr show qos -P` output (default: Slurm's single `normal`)");
  add_version_option(cmd, o.version);
  add_input_options(cmd, o.input);
}

int run_sshare(const AccountingOptions& o) {
  auto in = load(o);
  if (!in) return kExitUsage;
  int status = report_inputs(*in);
  engine::FairShare fs(*in->tree, engine::FairShareSettings::from(in->priority));
  auto shares = fs.compute(in->usage);
  if (o.format == "json") {
    write_json(std::cout, report::sshare_json(fs, shares));
  } else {
    std::string tres = in->site->conf ? in->site->conf->config.accounting.tres : "";
    std::ostringstream text;
    report::print_sshare_psv(
        text, report::sshare_table(fs, shares, in->version, !o.short_format, report::tracked_tres(tres)));
    print_text(text.str());
  }
  return status;
}

std::string bar(double fraction, int width, bool ascii, const char* fill) {
  fraction = std::clamp(fraction, 0.0, 1.0);
  int cells = static_cast<int>(std::lround(fraction * width));
  std::string out;
  for (int i = 0; i < width; ++i) out += i < cells ? (ascii ? "#" : fill) : (ascii ? "." : "·");
  return out;
}

int run_tree(const AccountingOptions& o) {
  auto in = load(o);
  if (!in) return kExitUsage;
  int status = report_inputs(*in);
  engine::FairShare fs(*in->tree, engine::FairShareSettings::from(in->priority));
  auto shares = fs.compute(in->usage);
  const AssocTree& tree = *in->tree;
  std::ostringstream text;
  text << fmt::format("{:<32} {:>8}  {:<22} {:>7}  {:<22} {}\n", "association", "shares", "target share", "",
                      "delivered usage", "fair share");
  for (std::uint32_t id : tree.hierarchical_order()) {
    if (id == tree.root) continue;
    const Association& a = tree.assocs[id];
    std::string name =
        std::string(static_cast<std::size_t>(2 * (tree.depth(id) - 1)), ' ') + (a.is_user() ? a.user : a.account + "/");
    double target = fs.target_share(id);
    double used =
        shares[tree.root].usage_raw > 0 ? static_cast<double>(shares[id].usage_raw / shares[tree.root].usage_raw) : 0.0;
    std::string share_text = a.use_parent() ? "parent" : std::to_string(a.shares_raw);
    std::string factor = a.is_user() || fs.settings().algorithm != engine::FairShareAlgorithm::kFairTree
                             ? fmt::format("{:.3f}", shares[id].fs_factor)
                             : "";
    text << fmt::format("{:<32} {:>8}  {} {:>6.1f}%  {} {:>6.1f}%  {}\n", name, share_text,
                        bar(target, 20, o.ascii, "█"), 100 * target, bar(used, 20, o.ascii, "▓"), 100 * used, factor);
  }
  print_text(text.str());
  return status;
}

}  // namespace

void register_sshare(CLI::App& app, std::function<int()>& runner) {
  auto o = std::make_shared<AccountingOptions>();
  CLI::App* cmd =
      app.add_subcommand("sshare", "Print what `sshare -a -l -P` would print for an association tree and usage");
  add_common(*cmd, *o);
  cmd->add_option("--format", o->format, "psv (sshare's parsable output) or json")
      ->check(CLI::IsMember({"psv", "json"}));
  cmd->add_flag("--short", o->short_format, "The columns of `sshare -a -P` (without -l)");
  cmd->footer(
      "Exit status: 0 inputs clean, 1 an input has errors (the table is still printed), 2 the tool could not run.");
  cmd->callback([o, &runner] { runner = [o] { return run_sshare(*o); }; });
}

void register_tree(CLI::App& app, std::function<int()>& runner) {
  auto o = std::make_shared<AccountingOptions>();
  CLI::App* cmd =
      app.add_subcommand("tree", "Draw the share tree: target share against delivered usage per association");
  add_common(*cmd, *o);
  cmd->add_flag("--ascii", o->ascii, "Draw bars with ASCII characters only");
  cmd->callback([o, &runner] { runner = [o] { return run_tree(*o); }; });
}

}  // namespace sa::cli
