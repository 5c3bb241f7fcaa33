#pragma once
// The table `sshare -a -l -P` prints, computed from a tree and a fair-share pass, with
// Slurm's formatting: accounts indented by depth, %f numbers, `inf`, `parent`, blanks where
// sshare leaves them (src/sshare/process.c, src/common/print_fields.c).
#include <ostream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "engine/fair_share.h"

namespace sa::report {

struct SshareRow {
  std::uint32_t assoc = 0;
  std::vector<std::string> fields;  // in header order, already formatted
};

struct SshareTable {
  std::vector<std::string> header;
  std::vector<SshareRow> rows;
};

/// `long_format` adds NormUsage, LevelFS (Fair Tree only), GrpTRESMins and TRESRunMins.
/// The TRES slurmctld tracks, in its order: the eight it always registers, then the extra
/// ones AccountingStorageTRES lists (gres/gpu, license/..., ...).
std::vector<std::string> tracked_tres(const std::string& accounting_storage_tres);

/// From 25.11 sshare leaves FairShare blank on classic account rows too. TRESRunMins shows
/// every tracked TRES at 0: an offline snapshot has no running jobs.
SshareTable sshare_table(const engine::FairShare& fair_share, const std::vector<engine::AssocShare>& shares,
                         const SlurmVersion& version, bool long_format = true,
                         const std::vector<std::string>& tres = tracked_tres(""));
void print_sshare_psv(std::ostream& out, const SshareTable& table);
nlohmann::json sshare_json(const engine::FairShare& fair_share, const std::vector<engine::AssocShare>& shares);

/// printf("%f") as Slurm prints doubles; NO_VAL/INFINITE sentinels print as blanks.
std::string slurm_double(double value);

}  // namespace sa::report
