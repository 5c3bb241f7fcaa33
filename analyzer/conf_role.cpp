#include "analyzer/conf_role.h"

#include <algorithm>
#include <string_view>

#include "analyzer/text_util.h"

namespace sa {

namespace {

bool one_of(std::string_view key, std::initializer_list<std::string_view> keys) {
  return std::any_of(keys.begin(), keys.end(), [&](std::string_view k) { return iequals(key, k); });
}

// Records a slurm.conf Includes from a node or partition file (read_config.c's tables).
bool fragment_key(std::string_view k) {
  return one_of(k, {"NodeName", "PartitionName", "NodeSet", "DownNodes", "FrontendName"});
}

// gres.conf: "Name=gpu File=...", "NodeName=n[1-4] Name=gpu ...", "AutoDetect=nvml".
bool gres_line(const ConfLine& line) {
  const std::string_view first = line.pairs.front().key;
  if (one_of(first, {"Name", "AutoDetect"})) return true;
  return iequals(first, "NodeName") &&
         std::any_of(line.pairs.begin(), line.pairs.end(), [](const Pair& p) { return iequals(p.key, "Name"); });
}

bool topology_key(std::string_view k) { return one_of(k, {"SwitchName", "BlockName", "BlockSizes"}); }

// cgroup.conf's keys (cgroup_conf.c), the common ones.
bool cgroup_key(std::string_view k) {
  return one_of(k, {"CgroupAutomount",        "CgroupMountpoint",   "CgroupPlugin",
                    "CgroupReleaseAgentDir",  "ConstrainCores",     "ConstrainDevices",
                    "ConstrainRAMSpace",      "ConstrainSwapSpace", "ConstrainKmemSpace",
                    "AllowedRAMSpace",        "AllowedSwapSpace",   "AllowedKmemSpace",
                    "AllowedDevicesFile",     "MaxRAMPercent",      "MaxSwapPercent",
                    "MaxKmemPercent",         "MinRAMSpace",        "MinKmemSpace",
                    "MemorySwappiness",       "TaskAffinity",       "IgnoreSystemd",
                    "IgnoreSystemdOnFailure", "EnableControllers",  "SystemdTimeout",
                    "SignalChildrenProcesses"});
}

}  // namespace

ConfRole sniff_conf_role(const LoadedConf& loaded) {
  std::size_t lines = 0, fragment = 0, gres = 0, topology = 0, cgroup = 0, gres_types = 0;
  for (const ConfLine& line : loaded.lines) {
    if (line.is_include || line.pairs.empty()) continue;
    ++lines;
    const std::string_view first = line.pairs.front().key;
    if (gres_line(line))
      ++gres;
    else if (fragment_key(first))
      ++fragment;
    else if (iequals(first, "GresTypes"))  // node files often declare the GRES their lines name
      ++gres_types;
    topology += topology_key(first);
    cgroup += cgroup_key(first);
  }
  if (lines == 0) return ConfRole::kWhole;
  if (gres == lines) return ConfRole::kGres;
  if (topology == lines) return ConfRole::kTopology;
  if (cgroup == lines) return ConfRole::kCgroup;
  if (fragment > 0 && fragment + gres_types == lines) return ConfRole::kFragment;
  return ConfRole::kWhole;
}

}  // namespace sa
