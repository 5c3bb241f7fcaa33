// `sacctmgr dump` lines -> AssocTree. Follows sacctmgr load's reading (file_functions.c):
// titles and option names are case-insensitive and may be abbreviated, `Parent` sets the
// parent of the lines that follow and must name an account defined earlier (root is
// implicit), Fairshare=parent may be written as the word or as 2147483647.
#include "analyzer/assoc_reader.h"

#include <fmt/format.h>
#include <cmath>
#include <map>
#include <set>

#include "analyzer/assoc_dump_lines.h"
#include "analyzer/assoc_options.h"
#include "analyzer/text_util.h"
#include "analyzer/values.h"

namespace sa {

using namespace assoc_detail;  // NOLINT(google-build-using-namespace): the option names

namespace {

class DumpReader {
 public:
  DumpReader(DiagnosticSink& sink, int max_depth) : sink_(sink), max_depth_(max_depth) {
    Association root;
    root.account = "root";
    tree_.assocs.push_back(root);
    accounts_["root"] = 0;
  }

  AssocTree run(const std::vector<DumpLine>& lines) {
    for (const DumpLine& line : lines) handle(line);
    finish();
    return std::move(tree_);
  }

 private:
  void handle(const DumpLine& line) {
    const DumpField& name = line.fields[0];
    if (name.has_equals) {
      sink_.error("ACCT001", name.loc,
                  fmt::format("the first field of a '{}' line must be a name, not an option", printable(line.title)));
      return;
    }
    std::string title = to_lower(line.title);
    if (title == "cluster" || title == "machine") {
      cluster(line);
    } else if (title == "parent") {
      parent(line);
    } else if (title == "account" || title == "project") {
      account(line);
    } else if (title == "user") {
      user(line);
    } else {
      std::string guess = closest_match(line.title, {"Cluster", "Parent", "Account", "User"});
      sink_.error("ACCT001", line.loc,
                  fmt::format("unknown line title '{}'{}", printable(line.title),
                              guess.empty() ? "" : fmt::format("; did you mean '{}'?", guess)));
    }
  }

  void cluster(const DumpLine& line) {
    tree_.cluster = to_lower(line.fields[0].value);
    tree_.assocs[0].loc = line.loc;
    apply_options(line, tree_.assocs[0]);
  }

  void parent(const DumpLine& line) {
    const DumpField& name = line.fields[0];
    auto it = accounts_.find(to_lower(name.value));
    if (too_deep_.count(to_lower(name.value))) {
      parent_ = kTooDeep;  // its lines were reported with the account itself
      return;
    }
    if (it == accounts_.end()) {
      sink_.error("ACCT002", name.loc,
                  fmt::format("Parent '{}' is not defined by an earlier Account line; the lines that follow have "
                              "no parent",
                              printable(name.value)),
                  "define the account (under its own parent) before using it as a Parent");
      parent_ = kNoAssoc;
      return;
    }
    parent_ = it->second;
  }

  bool check_parent(const DumpLine& line) {
    if (parent_ == kTooDeep) {
      // An account under a dropped one is dropped too, and so are the lines under it.
      if (!iequals(line.title, "user")) too_deep_.insert(to_lower(line.fields[0].value));
      return false;
    }
    if (parent_ != kNoAssoc) return true;
    sink_.error("ACCT002", line.loc,
                fmt::format("'{}' has no valid Parent, so it belongs to no account", printable(line.fields[0].value)));
    return false;
  }

  void account(const DumpLine& line) {
    if (!check_parent(line)) return;
    const DumpField& name = line.fields[0];
    std::string acct = to_lower(name.value);  // sacctmgr load lower-cases names
    if (acct == tree_.assocs[parent_].account && !tree_.assocs[parent_].is_user()) {
      sink_.error("ACCT006", name.loc, fmt::format("account '{}' is placed under itself: a cycle", printable(acct)));
      return;
    }
    if (auto it = accounts_.find(acct); it != accounts_.end()) {
      sink_.error("ACCT004", name.loc,
                  fmt::format("account '{}' is defined again (first at line {}); an account has one parent",
                              printable(acct), tree_.assocs[it->second].loc.line));
      return;
    }
    if (beyond_depth(name, acct)) return;
    Association a;
    a.account = acct;
    a.parent = parent_;
    a.loc = name.loc;
    apply_options(line, a);
    accounts_[acct] = add(std::move(a));
  }

  void user(const DumpLine& line) {
    if (!check_parent(line)) return;
    const DumpField& name = line.fields[0];
    Association a;
    a.user = to_lower(name.value);  // sacctmgr load lower-cases user names too
    a.account = tree_.assocs[parent_].account;
    a.parent = parent_;
    a.loc = name.loc;
    apply_options(line, a);
    auto key = std::make_tuple(a.user, a.account, a.partition);
    if (auto it = users_.find(key); it != users_.end()) {
      sink_.error("ACCT004", name.loc,
                  fmt::format("duplicate association: user '{}' in account '{}'{} is already defined at line {}",
                              printable(a.user), printable(a.account),
                              a.partition.empty() ? "" : fmt::format(" partition '{}'", printable(a.partition)),
                              tree_.assocs[it->second].loc.line));
      return;
    }
    users_[key] = add(std::move(a));
  }

  // The tree walks (inheritance, fair share, sshare's order) are linear in depth per
  // association; a 50,000-deep chain from a hostile dump would make them quadratic.
  bool beyond_depth(const DumpField& name, const std::string& acct) {
    if (tree_.depth(parent_) + 1 <= max_depth_) return false;
    too_deep_.insert(acct);
    if (too_deep_.size() == 1) {
      sink_.error("ACCT015", name.loc,
                  fmt::format("account '{}' would be more than {} levels deep; it and every account and user "
                              "under it are not read",
                              printable(acct), max_depth_),
                  "raise the limit with --limit tree-depth=N");
    }
    return true;
  }

  std::uint32_t add(Association a) {
    auto id = static_cast<std::uint32_t>(tree_.assocs.size());
    a.id = id;
    tree_.assocs[a.parent].children.push_back(id);
    tree_.assocs.push_back(std::move(a));
    return id;
  }

  void apply_options(const DumpLine& line, Association& a) {
    for (std::size_t i = 1; i < line.fields.size(); ++i) apply(line.fields[i], a);
  }

  std::optional<std::int64_t> count(const DumpField& f) {
    auto n = parse_long(f.value);
    if (!n || *n < -1) {
      sink_.error("ACCT003", f.loc, fmt::format("{}='{}' is not a count", f.key, printable(f.value)));
      return std::nullopt;
    }
    if (*n == -1) return std::nullopt;  // -1 clears a limit in sacctmgr
    return *n;
  }

  std::optional<std::int64_t> minutes(const DumpField& f) {
    // The writer prints integer minutes; the loader also takes time strings.
    auto secs = parse_time_secs(f.value);
    if (!secs) {
      sink_.error("ACCT003", f.loc, fmt::format("{}='{}' is not a time", f.key, printable(f.value)));
      return std::nullopt;
    }
    if (*secs == kInfiniteTime) return std::nullopt;
    return *secs;
  }

  std::optional<TresMap> tres(const DumpField& f) {
    auto parsed = parse_tres_string(f.value);
    if (!parsed) {
      sink_.error("ACCT003", f.loc, fmt::format("{}='{}': {}", f.key, printable(f.value), parsed.error()));
      return std::nullopt;
    }
    return *parsed;
  }

  void shares(const DumpField& f, Association& a) {
    if (iequals(f.value, "parent")) {
      a.shares_raw = kSharesUseParent;
      return;
    }
    auto n = parse_long(f.value);
    if (!n) {
      sink_.error("ACCT005", f.loc, fmt::format("Fairshare='{}' is neither a number nor 'parent'", printable(f.value)));
    } else if (*n < 0) {
      sink_.error("ACCT005", f.loc, fmt::format("Fairshare={} is negative", *n));
    } else if (*n > kSharesUseParent) {
      sink_.error("ACCT005", f.loc, fmt::format("Fairshare={} is above 2147483647, the largest share", *n));
    } else {
      a.shares_raw = static_cast<std::uint32_t>(*n);
      if (*n >= 1'000'000'000 && *n != kSharesUseParent) {
        sink_.warning("ACCT005", f.loc,
                      fmt::format("Fairshare={} is absurdly large; shares are relative to "
                                  "siblings, so small integers say the same",
                                  *n));
      }
    }
  }

  void apply(const DumpField& f, Association& a) {
    if (!f.has_equals) {
      sink_.error("ACCT003", f.loc, fmt::format("'{}' is not an Option=value field", printable(f.value)));
      return;
    }
    const Option option = find_option(f.key);
    switch (option) {
      case Option::kUnknown: {
        std::string guess = closest_match(f.key, option_names());
        sink_.error("ACCT003", f.loc,
                    fmt::format("unknown option '{}'{}", printable(f.key),
                                guess.empty() ? "" : fmt::format("; did you mean '{}'?", guess)));
        break;
      }
      case Option::kIgnored:
        break;
      case Option::kFairshare:
        shares(f, a);
        break;
      case Option::kDefaultAccount:
        a.default_account = to_lower(f.value);
        break;
      case Option::kDefaultQos:
        a.default_qos = to_lower(f.value);
        break;
      case Option::kQos:
        a.qos_written.clear();
        for (const std::string& q : split(to_lower(f.value), ',')) {
          if (!q.empty()) a.qos_written.push_back(std::string(trim(q)));
        }
        break;
      case Option::kPriority:
        if (auto n = count(f)) a.priority = static_cast<std::uint32_t>(*n);
        break;
      case Option::kDescription:
        a.description = f.value;
        break;
      case Option::kOrganization:
        a.organization = f.value;
        break;
      case Option::kPartition:
        a.partition = f.value;
        break;
      default:  // a limit; apply_limit names every option, so a new one cannot be missed
        apply_limit(option, f, a.limits);
        break;
    }
  }

  void apply_limit(Option option, const DumpField& f, AssocLimits& l) {
    switch (option) {
      case Option::kGrpTres:
        l.grp_tres = tres(f);
        break;
      case Option::kGrpTresMins:
        l.grp_tres_mins = tres(f);
        break;
      case Option::kGrpTresRunMins:
        l.grp_tres_run_mins = tres(f);
        break;
      case Option::kGrpJobs:
        l.grp_jobs = count(f);
        break;
      case Option::kGrpJobsAccrue:
        l.grp_jobs_accrue = count(f);
        break;
      case Option::kGrpSubmitJobs:
        l.grp_submit_jobs = count(f);
        break;
      case Option::kGrpWall:
        l.grp_wall = minutes(f);
        break;
      case Option::kMaxTresMinsPerJob:
        l.max_tres_mins_per_job = tres(f);
        break;
      case Option::kMaxTresRunMins:
        l.max_tres_run_mins = tres(f);
        break;
      case Option::kMaxTresPerJob:
        l.max_tres_per_job = tres(f);
        break;
      case Option::kMaxTresPerNode:
        l.max_tres_per_node = tres(f);
        break;
      case Option::kMaxJobs:
        l.max_jobs = count(f);
        break;
      case Option::kMaxJobsAccrue:
        l.max_jobs_accrue = count(f);
        break;
      case Option::kMaxSubmitJobs:
        l.max_submit_jobs = count(f);
        break;
      case Option::kMaxWallDurationPerJob:
        l.max_wall_per_job = minutes(f);
        break;
      case Option::kUnknown:  // not limits: apply() reads these
      case Option::kIgnored:
      case Option::kFairshare:
      case Option::kDefaultAccount:
      case Option::kDefaultQos:
      case Option::kQos:
      case Option::kPriority:
      case Option::kDescription:
      case Option::kOrganization:
      case Option::kPartition:
        break;
    }
  }

  void finish();

  static constexpr std::uint32_t kTooDeep = kNoAssoc - 1;

  DiagnosticSink& sink_;
  int max_depth_;
  std::set<std::string> too_deep_;
  AssocTree tree_;
  std::uint32_t parent_ = 0;  // root until a Parent line says otherwise
  std::map<std::string, std::uint32_t> accounts_;
  std::map<std::tuple<std::string, std::string, std::string>, std::uint32_t> users_;
};

}  // namespace

// Declared in assoc_tree.cpp: ordering, inheritance and user checks after reading.
void finish_assoc_tree(AssocTree& tree, DiagnosticSink& sink);

void DumpReader::finish() { finish_assoc_tree(tree_, sink_); }

Result<TresMap> parse_tres_string(const std::string& text) {
  TresMap out;
  for (const std::string& raw : split(text, ',')) {
    std::string item(trim(raw));
    if (item.empty()) continue;
    std::size_t eq = item.rfind('=');
    if (eq == std::string::npos || eq == 0) return Error{fmt::format("'{}' is not TYPE=count", item)};
    std::string name = to_lower(item.substr(0, eq));
    std::string value = item.substr(eq + 1);
    double scale = 1;
    if (name == "mem" || name == "vmem" || name.rfind("bb/", 0) == 0) {
      // Memory-like TRES take binary unit suffixes; the model keeps MB.
      static const std::string kUnits = "KMGTP";
      char last = value.empty() ? '\0' : static_cast<char>(std::toupper(static_cast<unsigned char>(value.back())));
      auto unit = kUnits.find(last);
      if (unit != std::string::npos && !value.empty()) {
        value.pop_back();
        scale = std::pow(1024.0, static_cast<double>(unit) - 1.0);
      }
    }
    auto number = parse_double(value);
    if (!number || *number < -1) return Error{fmt::format("'{}' has no valid count", item)};
    if (*number == -1) continue;  // cleared
    out[name] = static_cast<std::int64_t>(std::llround(*number * scale));
  }
  return out;
}

namespace {

// `sacctmgr` command scripts (add account ..., modify qos ...) are a different format; say
// so once instead of reporting every line.
bool is_command_script(const std::string& content, FileId file, DiagnosticSink& sink) {
  int line_no = 0;
  for (const std::string& line : split(content, '\n')) {
    ++line_no;
    std::string_view text = trim(line);
    if (text.empty() || text[0] == '#') continue;
    for (const char* verb : {"add ", "modify ", "delete ", "remove ", "list ", "show ", "create ", "update "}) {
      if (istarts_with(text, verb)) {
        sink.error("ACCT001", {file, line_no, 1},
                   "this is a sacctmgr command script, not a `sacctmgr dump` file; load it into Slurm and "
                   "pass the output of `sacctmgr dump <cluster>`");
        return true;
      }
    }
    return false;
  }
  return false;
}

}  // namespace

AssocTree read_assoc_dump_text(FileId file, const SourceManager& sources, DiagnosticSink& sink) {
  const int max_depth = sources.limits().tree_depth;
  if (is_command_script(sources.file(file).content, file, sink)) return DumpReader(sink, max_depth).run({});
  return DumpReader(sink, max_depth).run(read_dump_lines(sources, file, sink));
}

Result<AssocTree> read_assoc_dump(const std::string& path, SourceManager& sources, DiagnosticSink& sink) {
  auto file = sources.load(path);
  if (!file) return Error{file.error()};
  return read_assoc_dump_text(*file, sources, sink);
}

}  // namespace sa
