#include "report/sshare_table.h"

#include <fmt/format.h>
#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>

namespace sa::report {

namespace {

bool is_sentinel(double v) {
  return v == static_cast<double>(0xFFFFFFFFFFFFFFFEULL) || v == static_cast<double>(0xFFFFFFFFFFFFFFFFULL) ||
         v == static_cast<double>(0xFFFFFFFEU) || v == static_cast<double>(0xFFFFFFFFU);
}

std::string account_column(const AssocTree& tree, std::uint32_t id) {
  const Association& a = tree.assocs[id];
  // Accounts are indented one blank per level; a user row shows its account one level deeper.
  int depth = tree.depth(id);
  return std::string(static_cast<std::size_t>(depth), ' ') + a.account;
}

}  // namespace

std::string slurm_double(double value) {
  if (is_sentinel(value)) return "";
  char buffer[64];
  std::snprintf(buffer, sizeof buffer, "%f", value);
  return buffer;
}

std::vector<std::string> tracked_tres(const std::string& accounting_storage_tres) {
  std::vector<std::string> tres = {"cpu", "mem", "energy", "node", "billing", "fs/disk", "vmem", "pages"};
  std::string item;
  for (std::size_t i = 0; i <= accounting_storage_tres.size(); ++i) {
    char c = i < accounting_storage_tres.size() ? accounting_storage_tres[i] : ',';
    if (c != ',') {
      item.push_back(static_cast<char>(std::tolower(static_cast<unsigned char>(c))));
      continue;
    }
    if (!item.empty() && std::find(tres.begin(), tres.end(), item) == tres.end()) tres.push_back(item);
    item.clear();
  }
  return tres;
}

SshareTable sshare_table(const engine::FairShare& fair_share, const std::vector<engine::AssocShare>& shares,
                         const SlurmVersion& version, bool long_format, const std::vector<std::string>& tres) {
  std::vector<std::string> zero;
  for (const std::string& t : tres) zero.push_back(t + "=0");
  const std::string run_mins = fmt::format("{}", fmt::join(zero, ","));
  const bool users_only_fs = version.at_least(25, 11);
  const AssocTree& tree = fair_share.tree();
  const bool fair_tree = fair_share.settings().algorithm == engine::FairShareAlgorithm::kFairTree;
  SshareTable table;
  table.header = {"Account", "User", "RawShares", "NormShares", "RawUsage"};
  if (long_format) table.header.push_back("NormUsage");
  table.header.insert(table.header.end(), {"EffectvUsage", "FairShare"});
  if (long_format && fair_tree) table.header.push_back("LevelFS");
  if (long_format) table.header.insert(table.header.end(), {"GrpTRESMins", "TRESRunMins"});
  for (std::uint32_t id : tree.hierarchical_order()) {
    const Association& a = tree.assocs[id];
    const engine::AssocShare& s = shares[id];
    SshareRow row;
    row.assoc = id;
    auto& f = row.fields;
    f.push_back(account_column(tree, id));
    f.push_back(a.is_user() ? a.user : "");
    if (id == tree.root) {
      f.push_back("");  // sshare reports root's shares as NO_VAL
    } else {
      f.push_back(a.use_parent() ? "parent" : std::to_string(a.shares_raw));
    }
    f.push_back(slurm_double(s.shares_norm));
    f.push_back(std::to_string(static_cast<std::uint64_t>(s.usage_raw)));
    if (long_format) f.push_back(slurm_double(s.usage_norm));
    f.push_back(slurm_double(s.usage_efctv));
    f.push_back((fair_tree || users_only_fs) && !a.is_user() ? "" : slurm_double(s.fs_factor));
    if (long_format && fair_tree) f.push_back(a.use_parent() ? "" : slurm_double(static_cast<double>(s.level_fs)));
    if (long_format) {
      f.push_back("");  // GrpTRESMins: limits are not part of this table yet
      f.push_back(run_mins);
    }
    table.rows.push_back(std::move(row));
  }
  return table;
}

void print_sshare_psv(std::ostream& out, const SshareTable& table) {
  out << fmt::format("{}\n", fmt::join(table.header, "|"));
  for (const SshareRow& row : table.rows) out << fmt::format("{}\n", fmt::join(row.fields, "|"));
}

nlohmann::json sshare_json(const engine::FairShare& fair_share, const std::vector<engine::AssocShare>& shares) {
  const AssocTree& tree = fair_share.tree();
  const bool fair_tree = fair_share.settings().algorithm == engine::FairShareAlgorithm::kFairTree;
  nlohmann::json rows = nlohmann::json::array();
  auto number = [](double v) { return std::isfinite(v) ? nlohmann::json(v) : nlohmann::json("inf"); };
  for (std::uint32_t id : tree.hierarchical_order()) {
    const Association& a = tree.assocs[id];
    const engine::AssocShare& s = shares[id];
    nlohmann::json j = {{"account", a.account},
                        {"user", a.user},
                        {"partition", a.partition},
                        {"depth", tree.depth(id)},
                        {"raw_shares", id == tree.root  ? nlohmann::json(nullptr)
                                       : a.use_parent() ? nlohmann::json("parent")
                                                        : nlohmann::json(a.shares_raw)},
                        {"norm_shares", s.shares_norm},
                        {"raw_usage", static_cast<std::uint64_t>(s.usage_raw)},
                        {"norm_usage", s.usage_norm},
                        {"effective_usage", s.usage_efctv}};
    j["fair_share"] = fair_tree && !a.is_user() ? nlohmann::json(nullptr) : nlohmann::json(s.fs_factor);
    if (fair_tree) j["level_fs"] = a.use_parent() ? nlohmann::json(nullptr) : number(static_cast<double>(s.level_fs));
    rows.push_back(std::move(j));
  }
  static const char* kNames[] = {"fair_tree", "classic", "depth_oblivious"};
  return {{"algorithm", kNames[static_cast<int>(fair_share.settings().algorithm)]},
          {"dampening", fair_share.settings().dampening},
          {"rows", rows}};
}

}  // namespace sa::report
