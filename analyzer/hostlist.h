#pragma once
// Hostlist expressions as Slurm's hostlist.c expands them (formats.md §2): zero padding set
// by the width of the LOW number as written, several bracket groups forming a product, a
// suffix after ']' from 23.02.5, duplicates kept (the caller decides), and a hard bound on
// the number of names so a typo like n[1-99999999] is a diagnostic, not an OOM.
#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "analyzer/result.h"
#include "analyzer/version.h"

namespace sa {

struct HostlistOptions {
  SlurmVersion version = kDefaultSlurmVersion;
  std::size_t max_names = 1'000'000;  // total names across the whole expression
};

/// Expands `expr` (items separated by commas or blanks; commas inside brackets do not
/// split). The error names the offending item.
Result<std::vector<std::string>> expand_hostlist(std::string_view expr,
                                                 const HostlistOptions& options = {});

/// Splits a hostlist expression into its top-level items without expanding them.
std::vector<std::string> split_hostlist_items(std::string_view expr);

/// The shortest bracket form Slurm would print for a list of names, e.g. "n[01-04],gpu1".
std::string compress_hostlist(const std::vector<std::string>& names);

}  // namespace sa
