// .slurm-advisor.toml: discovery from a config's directory upward, every key's reading, the
// errors a bad file gives (file:line:col, did-you-mean), and its precedence below the command
// line, through the binary as a user runs it.
#include <filesystem>
#include <fstream>
#include <string>

#include <gtest/gtest.h>

#include "cli/project_config.h"
#include "cli_util.h"

namespace {

namespace fs = std::filesystem;
using sa::cli::find_project_config;
using sa::cli::parse_project_config;
using sa::cli::ProjectConfig;
using sa::test::fresh_test_dir;
using sa::test::run;

const std::string kSite = std::string(SA_SOURCE_DIR) + "/corpora/tiered-university";

void write(const fs::path& path, const std::string& text) {
  fs::create_directories(path.parent_path());
  std::ofstream(path) << text;
}

std::string only_error(const ProjectConfig& c) {
  EXPECT_EQ(c.diagnostics.size(), 1u);
  return c.diagnostics.empty() ? "" : c.diagnostics.front().to_string();
}

TEST(ProjectConfigDiscovery, NearestFileFromTheDirectoryUpward) {
  const fs::path dir = fresh_test_dir("sa_config");
  write(dir / ".slurm-advisor.toml", "");
  write(dir / "site/sub/slurm.conf", "");
  EXPECT_EQ(find_project_config(dir / "site/sub"), dir / ".slurm-advisor.toml");
  write(dir / "site/.slurm-advisor.toml", "");
  EXPECT_EQ(find_project_config(dir / "site/sub"), dir / "site/.slurm-advisor.toml");
  write(dir / "site/sub/.slurm-advisor.toml", "");
  EXPECT_EQ(find_project_config(dir / "site/sub"), dir / "site/sub/.slurm-advisor.toml");
}

TEST(ProjectConfigDiscovery, RelativeStartGivesARelativeName) {
  const fs::path dir = fresh_test_dir("sa_config");
  write(dir / ".slurm-advisor.toml", "");
  write(dir / "a/b/slurm.conf", "");
  const fs::path cwd = fs::current_path();
  fs::current_path(dir);
  const auto found = find_project_config("a/b");
  fs::current_path(cwd);
  ASSERT_TRUE(found);
  EXPECT_EQ(found->string(), ".slurm-advisor.toml");
}

TEST(ProjectConfigRead, EveryKeyBecomesTheOptionValuesItStandsFor) {
  const ProjectConfig c = parse_project_config("site/.slurm-advisor.toml", R"(
slurm-version = "23.02"
fail-on = "warning"
baseline = "baseline.json"
disable = ["FAIR006", "BF001"]
[severity]
BF003 = "error"
share-imbalance = "off"
[include]
roots = ["conf.d", "./more/../extra"]
map = { "/etc/slurm" = "." }
[accounting]
assoc = "acct/sacctmgr_dump.cfg"
qos = "qos.psv"
usage = "sshare_usage.psv"
[load]
synthetic = "profile.txt"
seed = 7
days = 5
)");
  ASSERT_TRUE(c.ok()) << only_error(c);
  auto values = [&](const char* key) { return c.find(key) ? c.find(key)->values : std::vector<std::string>{"(none)"}; };
  EXPECT_EQ(values("slurm-version"), std::vector<std::string>{"23.02"});
  EXPECT_EQ(values("baseline"), std::vector<std::string>{"site/baseline.json"});
  EXPECT_EQ(values("disable"), (std::vector<std::string>{"FAIR006", "BF001"}));
  EXPECT_EQ(values("severity"), (std::vector<std::string>{"BF003=error", "share-imbalance=off"}));
  EXPECT_EQ(values("include.roots"), (std::vector<std::string>{"site/conf.d", "site/extra"}));
  EXPECT_EQ(values("include.map"), std::vector<std::string>{"/etc/slurm=site"});
  EXPECT_EQ(values("accounting.assoc"), std::vector<std::string>{"site/acct/sacctmgr_dump.cfg"});
  EXPECT_EQ(values("load.seed"), std::vector<std::string>{"7"});
  EXPECT_EQ(c.find("fail-on")->line, 3);
  EXPECT_EQ(c.find("fail-on")->key->option, std::string("--fail-on"));
}

// Each bad file and the one error it gives, exactly as printed.
struct BadFile {
  const char* text;
  const char* error;
};

const BadFile kBadFiles[] = {
    // Unknown keys: a typo of a key, the right key in the wrong table, an unknown table.
    {"\nfail_on = \"warning\"\n",
     "c.toml:2:1: error: unknown key 'fail_on' in .slurm-advisor.toml; did you mean 'fail-on'?"},
    {"assoc = \"x\"\n",
     "c.toml:1:1: error: unknown key 'assoc' in .slurm-advisor.toml; did you mean "
     "'accounting.assoc'?"},
    {"[accounting]\nasoc = \"x\"\n",
     "c.toml:2:1: error: unknown key 'accounting.asoc' in .slurm-advisor.toml; did you mean "
     "'accounting.assoc'?"},
    {"[output]\nformat = \"json\"\n",
     "c.toml:1:2: error: unknown table 'output' in .slurm-advisor.toml; `slurm-advisor config "
     "--show` lists the keys"},
    // Wrong types name the key, at the value.
    {"disable = \"FAIR006\"\n", "c.toml:1:11: error: 'disable' must be an array of strings"},
    {"[accounting]\nassoc = 3\n", "c.toml:2:9: error: 'accounting.assoc' must be a path (a string)"},
    {"fail-on = [\"x\"]\n", "c.toml:1:11: error: 'fail-on' must be a string or an integer"},
    {"slurm-version = 23.10\n",
     "c.toml:1:17: error: 'slurm-version' must be a string or an integer, not a float; quote it "
     "(slurm-version = \"...\")"},
    {"[include]\nmap = { \"etc\" = \".\" }\n",
     "c.toml:2:9: error: 'include.map' maps absolute paths as Include lines name them; 'etc' does "
     "not start with '/'"},
    // A path out of the file's directory; two load sources.
    {"[accounting]\nassoc = \"/etc/shadow\"\n",
     "c.toml:2:9: error: path '/etc/shadow' of 'accounting.assoc' is absolute; paths in "
     ".slurm-advisor.toml are "
     "relative to its directory and stay inside it (give a file elsewhere on the command line)"},
    {"[load]\nworkload = \"a.swf\"\nsynthetic = \"p.txt\"\n",
     "c.toml:2:1: error: 'load.workload' and 'load.synthetic' exclude each other; keep one"},
};

TEST(ProjectConfigRead, BadFilesGiveOneErrorAtItsPlace) {
  for (const BadFile& b : kBadFiles) EXPECT_EQ(only_error(parse_project_config("c.toml", b.text)), b.error) << b.text;
}

TEST(ProjectConfigRead, BadTomlIsADiagnosticAtItsPlace) {
  const std::string e = only_error(parse_project_config("c.toml", "fail-on = \"warning\"\nseed = = 3\n"));
  EXPECT_TRUE(e.starts_with("c.toml:2:")) << e;
  EXPECT_NE(e.find(": error: "), std::string::npos) << e;
  EXPECT_TRUE(only_error(parse_project_config("c.toml", "[load]\nseed = 1\n[load]\n")).starts_with("c.toml:3:"));
  EXPECT_FALSE(parse_project_config("c.toml", std::string("a = \"\xff\"\n")).ok());
}

TEST(ProjectConfigRead, PathsStayInsideTheFilesDirectory) {
  EXPECT_NE(only_error(parse_project_config("c.toml", "baseline = \"a/../../b.json\"\n")).find("leaves the file's"),
            std::string::npos);
  const fs::path dir = fresh_test_dir("sa_config");
  fs::create_directory_symlink("/etc", dir / "etc");
  EXPECT_NE(only_error(parse_project_config(dir / ".slurm-advisor.toml", "[include]\nroots = [\"etc\"]\n"))
                .find("through a symbolic link"),
            std::string::npos);
}

// Bad input is data: every truncation of a full file, and every byte of it replaced by each of
// a few troublesome ones, parses to settings or diagnostics, never an exception.
TEST(ProjectConfigRead, MangledFilesNeverThrow) {
  const std::string full =
      "fail-on = \"warning\"\ndisable = [\"FAIR006\"]\n[severity]\nBF001 = \"error\"\n"
      "[include]\nmap = { \"/etc/slurm\" = \".\" }\n[load]\nseed = 7\n";
  int diagnosed = 0;
  for (std::size_t n = 0; n <= full.size(); ++n) {
    EXPECT_NO_THROW(diagnosed += !parse_project_config("c.toml", full.substr(0, n)).ok());
    for (char c : {'\0', '"', '[', '=', '\n', '\xff', '\\'}) {
      std::string mangled = full;
      if (n < mangled.size()) mangled[n] = c;
      EXPECT_NO_THROW(diagnosed += !parse_project_config("c.toml", mangled).ok());
    }
  }
  EXPECT_GT(diagnosed, 100);  // the mangling did reach the parser's errors
}

// A copy of the example site with a config file beside it.
fs::path site_with_config(const std::string& toml) {
  const fs::path dir = fresh_test_dir("sa_config_site");
  for (const char* f : {"slurm.conf", "sacctmgr_dump.cfg", "qos.psv", "sshare_usage.psv"}) {
    fs::copy_file(kSite + "/" + f, dir / f);
  }
  write(dir / ".slurm-advisor.toml", toml);
  return dir;
}

TEST(ProjectConfigCli, FileSetsWhatTheCommandLineLeavesAndTheCommandLineWins) {
  // The example site has warnings and no error.
  const fs::path dir = site_with_config("fail-on = \"warning\"\n");
  const std::string conf = (dir / "slurm.conf").string();
  EXPECT_EQ(run("lint " + conf + " --no-simulate --no-config").status, 0);
  EXPECT_EQ(run("lint " + conf + " --no-simulate").status, 1);
  EXPECT_EQ(run("lint " + conf + " --no-simulate --fail-on error").status, 0);
  // --config names another file, whose paths resolve against its own directory.
  write(dir / "other/strict.toml", "fail-on = \"error\"\n");
  EXPECT_EQ(run("lint " + conf + " --no-simulate --config " + (dir / "other/strict.toml").string()).status, 0);
  // Found from a subdirectory's slurm.conf as well.
  fs::create_directories(dir / "sub");
  fs::copy_file(dir / "slurm.conf", dir / "sub/slurm.conf");
  EXPECT_EQ(run("lint " + (dir / "sub/slurm.conf").string() + " --no-simulate").status, 1);
}

TEST(ProjectConfigCli, DisableAndSeverityReachLint) {
  const fs::path dir = site_with_config("fail-on = \"warning\"\n");
  const std::string conf = (dir / "slurm.conf").string();
  const std::string codes = run("lint " + conf + " --no-simulate --format json --no-config").out;
  ASSERT_NE(codes.find("\"CONF027\""), std::string::npos) << codes;
  write(dir / ".slurm-advisor.toml", "disable = [\"CONF027\"]\n");
  EXPECT_EQ(run("lint " + conf + " --no-simulate --format json").out.find("\"CONF027\""), std::string::npos);
  write(dir / ".slurm-advisor.toml", "[severity]\nCONF027 = \"error\"\n");
  EXPECT_EQ(run("lint " + conf + " --no-simulate").status, 1);
}

TEST(ProjectConfigCli, ABadFileStopsEveryCommandWithItsPlace) {
  const fs::path dir = site_with_config("\nfail-on = \"sometimes\"\n");
  const std::string conf = (dir / "slurm.conf").string();
  const auto r = run("lint " + conf + " --no-simulate", true);
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.out.find(".slurm-advisor.toml:2:1: error: 'fail-on': "), std::string::npos) << r.out;
  EXPECT_EQ(run("check " + conf, true).status, 0) << "check takes no --fail-on: the key does not apply";
  // A value quoted back in a message cannot drive the terminal.
  write(dir / ".slurm-advisor.toml", "[load]\nseed = \"\\u001b[2J\"\n");
  const auto escaped = run("lint " + conf + " --no-simulate", true);
  EXPECT_EQ(escaped.status, 2);
  EXPECT_EQ(escaped.out.find('\x1b'), std::string::npos) << escaped.out;
  EXPECT_NE(escaped.out.find(".slurm-advisor.toml:2:1: error: 'load.seed': "), std::string::npos) << escaped.out;
  write(dir / ".slurm-advisor.toml", "[load\n");
  EXPECT_EQ(run("check " + conf).status, 2);
  EXPECT_EQ(run("check " + conf + " --no-config").status, 0);
}

TEST(ProjectConfigCli, AccountingPathsResolveAgainstTheFile) {
  const fs::path dir = site_with_config("[accounting]\nassoc = \"sacctmgr_dump.cfg\"\nqos = \"qos.psv\"\n");
  const auto r = run("sshare --conf " + (dir / "slurm.conf").string());
  EXPECT_EQ(r.status, 0);
  EXPECT_NE(r.out.find("Account|User|RawShares"), std::string::npos) << r.out;
  // --assoc is required of sshare: from the file or the command line, and said so without either.
  const auto missing = run("sshare --no-config --conf " + (dir / "slurm.conf").string(), true);
  EXPECT_EQ(missing.status, 2);
  EXPECT_NE(missing.out.find("--assoc is required (on the command line or in .slurm-advisor.toml)"), std::string::npos)
      << missing.out;
}

TEST(ProjectConfigCli, ShowPrintsEachSettingAndWhereItCameFrom) {
  const fs::path dir = site_with_config("fail-on = \"warning\"\n[load]\nseed = 7\n");
  const auto r = run("config --show " + (dir / "slurm.conf").string());
  EXPECT_EQ(r.status, 0);
  const std::string file = (dir / ".slurm-advisor.toml").string();
  EXPECT_NE(r.out.find("# config file: " + file + "\n"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("fail-on = \"warning\""), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("# " + file + ":1 (--fail-on; lint, diff)"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("load.seed = 7"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("load.days = 3"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("# default (--days;"), std::string::npos) << r.out;
  EXPECT_EQ(run("config --show --no-config " + dir.string()).out.find("warning"), std::string::npos);
  // The values are checked as the commands check them.
  write(dir / ".slurm-advisor.toml", "[load]\ndays = 1000\n");
  const auto bad = run("config --show " + dir.string(), true);
  EXPECT_EQ(bad.status, 2);
  EXPECT_NE(bad.out.find(".slurm-advisor.toml:2:1: error: 'load.days': "), std::string::npos) << bad.out;
}

}  // namespace
