// The CI examples stay true to the CLI: every `slurm-advisor SUBCOMMAND ...` that
// examples/ci/*.yml and docs/ci.md show uses a subcommand, options and --format values the
// binary's --help lists; the YAML keeps the shape its CI system needs; the examples install
// the released .deb rather than build; and scripts/pre-commit-lint.sh
// passes lint's exit status through. An admin copies these files as they are, so a renamed
// option must fail here rather than in a site's pipeline.
#include <sys/wait.h>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

#include "cli_util.h"

namespace {

namespace fs = std::filesystem;
using sa::test::run;
using sa::test::write_temp;

const std::string kSource = SA_SOURCE_DIR;
const std::vector<std::string> kExamples = {"examples/ci/github-actions.yml", "examples/ci/gitlab-ci.yml"};

std::string read_file(const std::string& rel) {
  std::ifstream in(kSource + "/" + rel, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

// Lines with backslash continuations joined, so a wrapped command is one line; each keeps the
// number of its first physical line.
std::vector<std::pair<int, std::string>> logical_lines(const std::string& text) {
  std::vector<std::pair<int, std::string>> out;
  std::istringstream in(text);
  std::string line;
  int number = 0;
  bool continued = false;
  while (std::getline(in, line)) {
    ++number;
    if (continued) {
      out.back().second += " " + line;
    } else {
      out.emplace_back(number, line);
    }
    continued = !line.empty() && line.back() == '\\';
    if (continued) out.back().second.pop_back();
  }
  return out;
}

// The `code spans` of a line of prose or of a YAML comment.
std::vector<std::string> code_spans(const std::string& text) {
  std::vector<std::string> spans;
  static const std::regex span("`([^`]+)`");
  for (std::sregex_iterator it(text.begin(), text.end(), span), end; it != end; ++it) spans.push_back((*it)[1]);
  return spans;
}

// The code in a file: markdown fences whole and prose by its code spans; YAML lines before
// their comment whole and the comment by its code spans. Prose that names the tool in passing
// ("slurm-advisor builds...") is then never read as a command.
std::vector<std::pair<int, std::string>> code_in(const std::string& rel) {
  const bool markdown = rel.ends_with(".md");
  std::vector<std::pair<int, std::string>> code;
  bool fenced = false;
  for (auto& [number, line] : logical_lines(read_file(rel))) {
    if (markdown && line.starts_with("```")) {
      fenced = !fenced;
      continue;
    }
    std::string prose = line;
    if (markdown && fenced) {
      prose.clear();
      code.emplace_back(number, line);
    } else if (!markdown) {
      const auto hash = line.find('#') == 0 ? 0 : line.find(" #");
      code.emplace_back(number, line.substr(0, hash));
      prose = hash == std::string::npos ? "" : line.substr(hash);
    }
    for (const std::string& span : code_spans(prose)) {
      // Prose shortens `slurm-advisor lint --x` to `lint --x`; check those too.
      const bool bare = span.starts_with("lint ") || span.starts_with("diff ");
      code.emplace_back(number, bare ? "slurm-advisor " + span : span);
    }
  }
  return code;
}

struct Command {
  std::string where, subcommand;
  std::vector<std::string> words;
};

// Every `slurm-advisor WORD ...` that starts a shell command (so not `name: slurm-advisor lint`),
// cut where the command ends.
std::vector<Command> commands_in(const std::string& rel) {
  static const std::regex call(R"((?:^\s*|[;|&(]\s*)slurm-advisor\s+([a-z][a-z-]*)([^|;&>`)]*))");
  std::vector<Command> out;
  for (const auto& [number, text] : code_in(rel)) {
    for (std::sregex_iterator it(text.begin(), text.end(), call), end; it != end; ++it) {
      Command c{rel + ":" + std::to_string(number), (*it)[1], {}};
      std::istringstream words((*it)[2].str());
      for (std::string w; words >> w;) c.words.push_back(w);
      out.push_back(std::move(c));
    }
  }
  return out;
}

// What a subcommand's --help offers: option names, and the values --format accepts.
struct Help {
  std::set<std::string> options, formats;
};

const Help& help_of(const std::string& subcommand) {
  static std::map<std::string, Help> cache;
  if (auto it = cache.find(subcommand); it != cache.end()) return it->second;
  Help& h = cache[subcommand];
  std::istringstream lines(run(subcommand + " --help").out);
  static const std::regex option_line(R"(^\s+(-[^\s]+)(?:\s+\S*\{([^}]*)\})?)");
  std::smatch m;
  for (std::string line; std::getline(lines, line);) {
    if (!std::regex_search(line, m, option_line)) continue;
    std::istringstream names(m[1].str());
    for (std::string name; std::getline(names, name, ',');) h.options.insert(name);
    if (m[1].str() == "--format") {
      std::istringstream values(m[2].str());
      for (std::string v; std::getline(values, v, ',');) h.formats.insert(v);
    }
  }
  return h;
}

std::set<std::string> subcommands() {
  std::set<std::string> names;
  std::istringstream lines(run("--help").out);
  bool listed = false;
  for (std::string line; std::getline(lines, line);) {
    if (line.starts_with("Subcommands:")) listed = true;
    std::istringstream words(line);
    if (std::string name; listed && line.starts_with("  ") && words >> name) names.insert(name);
  }
  return names;
}

// Runs a shell command line (not the binary itself) and returns its exit status.
int shell_status(const std::string& command) {
  const int raw = std::system((command + " >/dev/null 2>&1").c_str());
  return WIFEXITED(raw) ? WEXITSTATUS(raw) : -1;
}

TEST(CiExamples, EveryCommandUsesSubcommandsAndOptionsTheCliAccepts) {
  const std::set<std::string> known = subcommands();
  ASSERT_TRUE(known.count("lint") && known.count("diff")) << "slurm-advisor --help lists no lint or diff";
  for (const std::string& rel : {kExamples[0], kExamples[1], std::string("docs/ci.md")}) {
    const std::vector<Command> commands = commands_in(rel);
    std::set<std::string> seen;
    for (const Command& c : commands) {
      seen.insert(c.subcommand);
      if (!known.count(c.subcommand)) {
        ADD_FAILURE() << c.where << ": no subcommand '" << c.subcommand << "'";
        continue;
      }
      const Help& help = help_of(c.subcommand);
      for (std::size_t i = 0; i < c.words.size(); ++i) {
        const std::string& w = c.words[i];
        if (w.size() < 2 || w[0] != '-') continue;
        const std::string name = w.substr(0, w.find('='));
        EXPECT_TRUE(help.options.count(name)) << c.where << ": `" << c.subcommand << "` has no option " << name;
        if (name == "--format" && i + 1 < c.words.size()) {
          EXPECT_TRUE(help.formats.count(c.words[i + 1]))
              << c.where << ": `" << c.subcommand << " --format` does not take " << c.words[i + 1];
        }
      }
    }
    // The extraction must keep finding the commands, or this test would pass on nothing.
    EXPECT_TRUE(seen.count("lint") && seen.count("diff")) << rel << ": no lint or diff command found";
    EXPECT_GE(commands.size(), 3u) << rel;
  }
}

TEST(CiExamples, GithubWorkflowHasTheShapeActionsNeeds) {
  const std::string y = read_file(kExamples[0]);
  for (const char* key : {"\non:\n", "\npermissions:\n", "\njobs:\n", "runs-on:", "steps:", "security-events: write",
                          "uses: github/codeql-action/upload-sarif@", "uses: actions/upload-artifact@",
                          "fetch-depth: 0", "git show \"origin/$BASE:"}) {
    EXPECT_NE(y.find(key), std::string::npos) << kExamples[0] << " lacks " << key;
  }
  // Branch names reach the shell through env, never spliced into a command (script injection).
  for (const auto& [number, line] : logical_lines(y)) {
    if (line.find("git ") != std::string::npos || line.find("slurm-advisor ") != std::string::npos) {
      EXPECT_EQ(line.find("${{"), std::string::npos) << kExamples[0] << ":" << number;
    }
  }
}

TEST(CiExamples, GitlabJobHasTheShapeGitlabNeeds) {
  const std::string y = read_file(kExamples[1]);
  for (const char* key : {"stages:", "\nslurm-advisor:\n", "  image: debian:12", "  script:", "  artifacts:",
                          "when: always", "CI_MERGE_REQUEST_TARGET_BRANCH_NAME", "git show \"origin/$BASE:"}) {
    EXPECT_NE(y.find(key), std::string::npos) << kExamples[1] << " lacks " << key;
  }
}

TEST(CiExamples, YamlFilesHaveNoTabsAndEvenIndentation) {
  for (const std::string& rel : {kExamples[0], kExamples[1], std::string(".pre-commit-hooks.yaml")}) {
    const std::string y = read_file(rel);
    ASSERT_FALSE(y.empty()) << rel;
    EXPECT_EQ(y.find('\t'), std::string::npos) << rel << ": YAML forbids tabs in indentation";
    std::istringstream lines(y);
    int number = 0;
    for (std::string line; std::getline(lines, line);) {
      ++number;
      const auto indent = line.find_first_not_of(' ');
      if (indent != std::string::npos) {
        EXPECT_EQ(indent % 2, 0u) << rel << ":" << number << ": odd indentation";
      }
    }
  }
}

// The words after each `apt-get install ... --no-install-recommends`.
std::vector<std::vector<std::string>> apt_installs(const std::string& yaml) {
  std::vector<std::vector<std::string>> out;
  for (const auto& [number, line] : logical_lines(yaml)) {
    const auto at = line.find("--no-install-recommends");
    if (line.find("apt-get install") == std::string::npos || at == std::string::npos) continue;
    std::istringstream words(line.substr(at + std::string("--no-install-recommends").size()));
    out.emplace_back();
    for (std::string w; words >> w;) out.back().push_back(w);
  }
  return out;
}

// The examples install the released .deb, never build from source: apt-get installs it so the
// libraries it declares come along (dpkg -i would leave them out), and the job itself needs
// only git, certificates and curl to fetch it.
TEST(CiExamples, ExamplesInstallTheReleasedPackage) {
  const std::set<std::string> job_needs = {"git", "ca-certificates", "curl"};
  for (const std::string& rel : kExamples) {
    const std::string y = read_file(rel);
    const auto installs = apt_installs(y);
    ASSERT_EQ(installs.size(), 2u) << rel << ": expected the job's tools, then the .deb";
    for (const std::string& p : installs[0]) EXPECT_TRUE(job_needs.count(p)) << rel << ": installs " << p;
    EXPECT_EQ(installs[1], std::vector<std::string>{"/tmp/slurm-advisor.deb"}) << rel;
    EXPECT_NE(y.find("curl -fsSL -o /tmp/slurm-advisor.deb \"$SLURM_ADVISOR_DEB_URL\""), std::string::npos) << rel;
    static const std::regex url(R"(SLURM_ADVISOR_DEB_URL: https://\S+/slurm-advisor_[0-9][^_/]*-1_amd64\.deb)");
    EXPECT_TRUE(std::regex_search(y, url)) << rel << ": the URL does not name a package as `make package` names it";
    for (const char* build : {"cmake ", "dpkg -i", "git clone"}) {
      EXPECT_EQ(y.find(build), std::string::npos) << rel << ": " << build << "(the examples install, not build)";
    }
  }
}

TEST(CiExamples, DocsLinkEveryExample) {
  const std::string doc = read_file("docs/ci.md");
  for (const std::string& rel :
       {kExamples[0], kExamples[1], std::string(".pre-commit-hooks.yaml"), std::string("scripts/pre-commit-lint.sh")}) {
    EXPECT_NE(doc.find("(../" + rel + ")"), std::string::npos) << "docs/ci.md does not link " << rel;
  }
}

TEST(PreCommitHook, ManifestRunsTheScriptOnSlurmConf) {
  const std::string m = read_file(".pre-commit-hooks.yaml");
  EXPECT_NE(m.find("- id: slurm-advisor-lint\n"), std::string::npos);
  EXPECT_NE(m.find("  entry: scripts/pre-commit-lint.sh\n"), std::string::npos);
  EXPECT_NE(m.find("  language: script\n"), std::string::npos);
  const auto perms = fs::status(kSource + "/scripts/pre-commit-lint.sh").permissions();
  EXPECT_NE(perms & fs::perms::owner_exec, fs::perms::none) << "scripts/pre-commit-lint.sh is not executable";
}

TEST(PreCommitHook, ScriptExitsWithLintsStatus) {
  const std::string hook = "SLURM_ADVISOR='" + std::string(SA_BINARY) + "' " + kSource + "/scripts/pre-commit-lint.sh";
  const std::string site = kSource + "/corpora/tiered-university/slurm.conf";
  // The example site has warnings and no error: clean at the hook's --fail-on error.
  const int direct = run("lint " + site + " --no-simulate --fail-on error").status;
  EXPECT_EQ(direct, 0);
  EXPECT_EQ(shell_status(hook + " " + site), direct);
  EXPECT_EQ(shell_status(hook + " --fail-on warning -- " + site),
            run("lint " + site + " --no-simulate --fail-on warning").status);
  EXPECT_EQ(shell_status(hook + " --fail-on warning -- " + site), 1);
  // A partition naming an undefined node: slurmctld refuses it, an error.
  const std::string broken = write_temp("broken_slurm.conf",
                                        "ClusterName=c\nSlurmctldHost=h\nNodeName=n[1-2] CPUs=4 RealMemory=1000\n"
                                        "PartitionName=p Nodes=n[1-3] Default=YES\n");
  EXPECT_EQ(run("lint " + broken + " --no-simulate --fail-on error").status, 1);
  EXPECT_EQ(shell_status(hook + " " + broken), 1);
  EXPECT_EQ(shell_status(hook + " " + site + " " + broken), 1);  // the worst file decides
  // Could not run: a missing file, or no binary.
  EXPECT_EQ(shell_status(hook + " /nonexistent/slurm.conf"), 2);
  EXPECT_EQ(shell_status(hook + " " + broken + " /nonexistent/slurm.conf"), 2);
  EXPECT_EQ(shell_status("SLURM_ADVISOR=/nonexistent/slurm-advisor " + kSource + "/scripts/pre-commit-lint.sh " + site),
            2);
  EXPECT_EQ(shell_status(hook), 0);  // no files: nothing to check
  fs::remove(broken);
}

}  // namespace
