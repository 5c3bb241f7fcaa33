#pragma once
// Hostlist expressions as Slurm's hostlist.c expands them (formats.md §2): zero padding set
// by the width of the LOW number as written, several bracket groups forming a product, a
// suffix after ']' from 23.02.5, duplicates kept (the caller decides), and a hard bound on
// the number of names so a typo like n[1-99999999] is a diagnostic, not an OOM.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "analyzer/input_limits.h"
#include "analyzer/result.h"
#include "analyzer/version.h"

namespace sa {

struct HostlistOptions {
  SlurmVersion version = kDefaultSlurmVersion;
  std::size_t max_names = 1'000'000;  // total names across the whole expression
  /// Names every hostlist of one config may still expand to, counted down by each expansion
  /// (--limit hostlist-names): a few KB of DownNodes or Nodes= lists, each under max_names,
  /// could otherwise name billions of hosts. Running out is an error of kind kTooLarge.
  std::int64_t* budget = nullptr;
};

/// Bounds for a file whose lists name nodes of one config (reservations, node events, a
/// profile's reservations): each list at most `max_names` names (a config has at most
/// InputLimits::nodes nodes) and the whole file at most `left` (InputLimits::hostlist_names).
/// A few KB of bracket products could otherwise name millions of hosts per line.
struct NodeListBudget {
  explicit NodeListBudget(const InputLimits& limits)
      : max_names(static_cast<std::size_t>(std::max<std::int64_t>(0, limits.nodes))), left(limits.hostlist_names) {}
  std::size_t max_names;
  std::int64_t left;
  HostlistOptions options() {
    HostlistOptions o;
    o.max_names = max_names;
    o.budget = &left;
    return o;
  }
};

/// Expands `expr` (items separated by commas or blanks; commas inside brackets do not
/// split). The error names the offending item.
Result<std::vector<std::string>> expand_hostlist(std::string_view expr, const HostlistOptions& options = {});

/// Splits a hostlist expression into its top-level items without expanding them.
std::vector<std::string> split_hostlist_items(std::string_view expr);

/// The shortest bracket form Slurm would print for a list of names, e.g. "n[01-04],gpu1".
std::string compress_hostlist(const std::vector<std::string>& names);

/// compress_hostlist one name at a time: a numbered name costs its number, not a string, so
/// millions of names (a hostile Nodes= list) can be summarised without holding them all.
class HostlistBuilder {
 public:
  void add(std::string_view name);
  std::size_t size() const { return next_seen_; }
  std::string str() const;

 private:
  struct Bucket {  // one prefix and digit count
    std::string prefix;
    std::size_t digits;
    std::size_t seen;  // when its first name came
    bool zero_padded;
    std::vector<unsigned long> numbers;
  };
  std::vector<std::unique_ptr<Bucket>> buckets_;
  std::map<std::pair<std::string, std::size_t>, std::size_t> index_;
  std::vector<std::pair<std::string, std::size_t>> plain_;  // names without a number, when seen
  Bucket* last_ = nullptr;
  std::size_t next_seen_ = 0;
};

}  // namespace sa
