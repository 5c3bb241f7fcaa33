// lint over every real slurm.conf in ../shared/corpora/slurm: no crash, no internal error,
// and the rule findings compared with a reviewed list (tests/lint_corpus_expectations.tsv):
// once with static rules only (--no-simulate) and once with a one-day default load, so the
// simulated rules run on every real site too. Input diagnostics (CONF/ACCT) are pinned by
// corpus_test.cpp and left out here.
// SA_UPDATE_EXPECTATIONS=1 rewrites the list (then review the diff before committing).
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include "engine/site_loader.h"
#include "report/evidence_glossary.h"
#include "rules/framework/lint.h"
#include "rules/framework/rule.h"
#include "rules/framework/withhold.h"

namespace {

namespace fs = std::filesystem;

const fs::path kShared = SA_SHARED_DIR;
const fs::path kExpectations = fs::path(SA_SOURCE_DIR) / "tests" / "lint_corpus_expectations.tsv";

std::map<std::string, std::pair<std::string, std::string>> load_expectations() {
  std::map<std::string, std::pair<std::string, std::string>> out;
  std::ifstream in(kExpectations);
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    std::istringstream fields(line);
    std::string file, stat, sim;
    std::getline(fields, file, '\t');
    std::getline(fields, stat, '\t');
    std::getline(fields, sim, '\t');
    out[file] = {stat, sim};
  }
  return out;
}

// "BF001:2,PRIO002:1" or "none": rule findings only.
std::string summary(const sa::rules::LintReport& r) {
  std::map<std::string, int> counts;
  for (const auto& f : r.findings) {
    if (sa::rules::find_rule(f.code)) ++counts[f.code];
  }
  if (counts.empty()) return "none";
  std::string out;
  for (const auto& [code, n] : counts) out += (out.empty() ? "" : ",") + code + ":" + std::to_string(n);
  return out;
}

bool has_code(const sa::rules::LintReport& r, const std::string& code) {
  return std::any_of(r.findings.begin(), r.findings.end(), [&](const auto& f) { return f.code == code; });
}

// No evidence without a run: a simulated lint either ran at least 80% of its offered jobs
// (overall and in every partition) or says so with LOAD001; and no finding of a simulated
// rule is shown with empty evidence.
void expect_evidence_or_load001(const sa::rules::LintReport& r) {
  if (!r.coverage) {
    // (CONF052: not a whole slurm.conf, so nothing to simulate)
    EXPECT_TRUE(has_code(r, "LOAD001") || has_code(r, "CONF052")) << "nothing was simulated and nothing says so";
    return;
  }
  // Partitions below a higher tier on the same nodes may keep their jobs pending by design
  // (TIER003 judges that); everything else below 80% must be said.
  const bool thin = sa::rules::thinness(*r.coverage, *r.simulation->site.config).any();
  if (thin) {
    EXPECT_TRUE(has_code(r, "LOAD001")) << "coverage " << r.coverage->coverage() << " without LOAD001";
  }
  for (const auto& f : r.findings) {
    // Readable evidence: every key the HTML shows has its one line in the glossary.
    std::set<std::string> keys;
    sa::report::collect_evidence_keys(f.evidence, keys);
    if (f.fix) sa::report::collect_evidence_keys(f.fix->resimulated, keys);
    for (const std::string& k : keys) EXPECT_FALSE(sa::report::evidence_meaning(k).empty()) << f.code << ": key " << k;
    const sa::rules::Rule* rule = sa::rules::find_rule(f.code);
    if (!rule || rule->simulation != sa::rules::SimUse::kRequired) continue;
    EXPECT_FALSE(f.evidence.empty()) << f.code << " has no evidence: " << f.message;
  }
}

TEST(LintCorpus, EveryRealConfigLintsAsReviewed) {
  const fs::path root = kShared / "corpora" / "slurm";
  if (!fs::exists(root)) GTEST_SKIP() << "no corpora at " << root;
  std::vector<std::string> files;
  for (const auto& e : fs::directory_iterator(root)) {
    if (e.is_regular_file()) files.push_back(e.path().filename().string());
  }
  std::sort(files.begin(), files.end());
  auto expectations = load_expectations();
  const bool update = std::getenv("SA_UPDATE_EXPECTATIONS") != nullptr;
  std::ostringstream rewritten;
  rewritten << "# Reviewed lint findings per real config (see tests/lint_corpus_test.cpp).\n"
            << "# file\tstatic rules (--no-simulate)\twith a one-day default load\n";
  for (const std::string& file : files) {
    SCOPED_TRACE(file);
    sa::engine::SitePaths paths;
    paths.conf = (root / file).string();
    paths.sniff_role = true;  // as `lint` reads it
    auto site = sa::engine::load_site(paths);
    ASSERT_TRUE(site.ok()) << site.error();
    // gres.conf, topology.conf and Include parts are named (CONF052), by content alone: here
    // their file names say which they are, and one Include part (headnode.conf) sets
    // ClusterName, which makes it whole. Two more are node and partition lines with GresTypes:
    // slaclab's slac.conf (its slurm.conf Includes it) and lccfq's four-line "slurm.conf".
    const bool part = file.find("gres") != std::string::npos || file.find("topology") != std::string::npos ||
                      file.find("node") != std::string::npos || file.find("partition") != std::string::npos ||
                      file.find("slac.conf") != std::string::npos || file.find("lccfq") != std::string::npos;
    EXPECT_EQ((*site)->conf->role != sa::ConfRole::kWhole, part && file.find("headnode") == std::string::npos);
    std::string got[2];
    for (int simulate = 0; simulate < 2; ++simulate) {
      sa::rules::LintOptions o;
      o.simulate = simulate == 1;
      o.default_load.duration = 86400;
      const auto report = sa::rules::run_lint(**site, o);
      // One finding per root cause: no (code, message) twice, at most 4 of one code.
      std::set<std::pair<std::string, std::string>> seen;
      std::map<std::string, int> per_code;
      for (const auto& f : report.findings) {
        EXPECT_EQ(f.message.find("internal error"), std::string::npos) << f.message;
        EXPECT_FALSE(f.loc.file.empty()) << f.code << ": " << f.message;
        EXPECT_TRUE(seen.insert({f.code, f.message}).second) << "repeated: " << f.code << ": " << f.message;
        EXPECT_LE(++per_code[f.code], 4) << f.code << " more than 4 times";
      }
      got[simulate] = summary(report);
      if (simulate == 1) expect_evidence_or_load001(report);
    }
    rewritten << file << "\t" << got[0] << "\t" << got[1] << "\n";
    if (update) continue;
    auto found = expectations.find(file);
    ASSERT_NE(found, expectations.end()) << "no entry in " << kExpectations << "; got " << got[0] << " / " << got[1];
    EXPECT_EQ(got[0], found->second.first) << "static";
    EXPECT_EQ(got[1], found->second.second) << "simulated";
  }
  if (update) std::ofstream(kExpectations) << rewritten.str();
}

}  // namespace
