// libFuzzer target for the whole static lint pipeline on small inputs: a slurm.conf and a
// sacctmgr dump (split on "\n%%\n"), every rule without simulation (a simulation per input
// would run at a few execs/s; the engine's readers and caps have their own targets).
#include "analyzer/assoc_links.h"
#include "analyzer/assoc_reader.h"
#include "engine/site_loader.h"
#include "fuzz/fuzz_util.h"
#include "rules/framework/lint.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  // Small inputs (scripts/run_fuzz.sh runs this target with -max_len=2048): a site's first
  // lines reach every rule, and the parser at 4 KB has its own target (conf_fuzz).
  if (size > 2048) return 0;
  std::vector<std::string> parts = sa::fuzz::split_files(data, size);
  sa::engine::LoadedSite site;
  std::map<std::string, std::string> none;
  sa::AnalyzeOptions options;
  options.limits = sa::fuzz::fuzz_limits();
  options.includes.memory_tree = &none;
  site.conf = sa::analyze_text("/site/slurm.conf", parts[0], options);
  site.site.config = &site.conf->config;
  if (parts.size() > 1) {
    site.tree = sa::read_assoc_dump_text(site.sources.add("dump.cfg", parts[1]), site.sources, site.diagnostics);
    site.site.tree = &*site.tree;
    sa::check_accounting_links(site.conf->config, *site.tree, site.site.qos, site.conf->diagnostics, site.diagnostics);
  }
  sa::rules::LintOptions lint;
  lint.simulate = false;
  // Without simulation lint still builds the default load to find the jobs the site refuses:
  // at its full size (up to 40,000 jobs over three days) that was nine tenths of run_lint.
  // Fifty jobs, and a rate estimated on 50 draws instead of 4,000, reach the same refusal
  // paths.
  lint.default_load.max_jobs = 50;
  lint.default_load.duration = 6 * 3600;
  lint.default_load.work_samples = 50;
  sa::rules::run_lint(site, lint);
  sa::fuzz::no_internal_error(site.conf->diagnostics);
  return 0;
}
