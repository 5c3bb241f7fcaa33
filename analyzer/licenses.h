#pragma once
// Licence lists as slurmctld reads them, for slurm.conf Licenses= and a job's --licenses
// (src/slurmctld/licenses.c _build_license_list, the same parser for both): items separated by
// ',' or ';', each NAME or NAME:COUNT with COUNT read by strtol base 10 (not base 0, unlike
// slurm.conf integers) and ending the item; no whitespace before the ':', no negative count;
// a name given twice adds up. From 25.05 a job may write NAME|NAME2 (any one of them), never
// mixed with ',' or ';'.
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "analyzer/result.h"

namespace sa {

struct License {
  std::string name;
  std::uint32_t count = 1;
  bool operator==(const License&) const = default;
};

struct LicenseList {
  std::vector<License> items;  // in first-written order, repeats summed
  bool any_of = false;         // written with '|': one of the items is enough (25.05+)
};

/// Parses a licence list; empty text is an empty list. The error names the bad item.
Result<LicenseList> parse_licenses(std::string_view text);

/// Whether slurmctld takes a job's licences at submit (job_mgr.c _job_create calling
/// licenses.c license_validate): every name is configured and, unless SchedulerParameters has
/// allow_zero_lic, no count is above the configured total. Otherwise the submission fails
/// with kInvalidLicenses.
bool licenses_valid(const std::vector<License>& request, const std::vector<License>& configured,
                    bool allow_zero_lic = false);
/// slurm_errno.c's text for ESLURM_INVALID_LICENSES.
inline constexpr std::string_view kInvalidLicenses = "Invalid license specification";

}  // namespace sa
