// After reading: Slurm's hierarchical child order, effective QOS lists and Max* limits
// inherited down the tree, and the per-user checks that need the whole tree.
#include <fmt/format.h>
#include <algorithm>
#include <set>

#include "analyzer/assoc_model.h"
#include "analyzer/diagnostics.h"
#include "analyzer/text_util.h"

namespace sa {

namespace {

// slurmdb's _sort_children_list: users before accounts, then by name (byte order).
void sort_children(AssocTree& tree) {
  for (Association& a : tree.assocs) {
    std::stable_sort(a.children.begin(), a.children.end(), [&](std::uint32_t x, std::uint32_t y) {
      const Association& ax = tree.assocs[x];
      const Association& ay = tree.assocs[y];
      if (ax.is_user() != ay.is_user()) return ax.is_user();
      return ax.name() < ay.name();
    });
  }
}

std::vector<std::string> apply_qos(const std::vector<std::string>& parent, const std::vector<std::string>& written) {
  bool deltas = std::any_of(written.begin(), written.end(),
                            [](const std::string& q) { return !q.empty() && (q[0] == '+' || q[0] == '-'); });
  if (!deltas) return written.empty() ? parent : written;
  std::vector<std::string> out = parent;
  for (const std::string& q : written) {
    if (q.empty()) continue;
    std::string name = (q[0] == '+' || q[0] == '-') ? q.substr(1) : q;
    auto it = std::find(out.begin(), out.end(), name);
    if (q[0] == '-') {
      if (it != out.end()) out.erase(it);
    } else if (it == out.end()) {
      out.push_back(name);
    }
  }
  return out;
}

template <typename T>
void inherit(std::optional<T>& child, const std::optional<T>& parent) {
  if (!child) child = parent;
}

// Max* limits and the default QOS apply to every association below the one that sets them;
// Grp* limits stay where they are set, because they cap the sum over that subtree.
void inherit_from_parent(AssocTree& tree, std::uint32_t id) {
  Association& a = tree.assocs[id];
  a.effective = a.limits;
  if (a.parent != kNoAssoc) {
    const Association& p = tree.assocs[a.parent];
    a.qos = apply_qos(p.qos, a.qos_written);
    if (a.default_qos.empty()) a.default_qos = p.default_qos;
    inherit(a.effective.max_tres_per_job, p.effective.max_tres_per_job);
    inherit(a.effective.max_tres_per_node, p.effective.max_tres_per_node);
    inherit(a.effective.max_tres_mins_per_job, p.effective.max_tres_mins_per_job);
    inherit(a.effective.max_tres_run_mins, p.effective.max_tres_run_mins);
    inherit(a.effective.max_jobs, p.effective.max_jobs);
    inherit(a.effective.max_jobs_accrue, p.effective.max_jobs_accrue);
    inherit(a.effective.max_submit_jobs, p.effective.max_submit_jobs);
    inherit(a.effective.max_wall_per_job, p.effective.max_wall_per_job);
  } else {
    // A cluster is created with the `normal` QOS on its root association.
    a.qos = a.qos_written.empty() ? std::vector<std::string>{"normal"} : apply_qos({}, a.qos_written);
  }
}

// Parents before children, without recursion: the tree comes from an input file.
void inherit_down(AssocTree& tree) {
  for (std::uint32_t id : tree.hierarchical_order()) inherit_from_parent(tree, id);
}

void check_users(const AssocTree& tree, DiagnosticSink& sink) {
  std::map<std::string, std::set<std::string>> accounts_of;
  for (const Association& a : tree.assocs) {
    if (a.is_user()) accounts_of[a.user].insert(a.account);
  }
  std::set<std::string> reported;
  for (const Association& a : tree.assocs) {
    if (!a.is_user() || a.default_account.empty()) continue;
    if (accounts_of[a.user].count(a.default_account) || !reported.insert(a.user).second) continue;
    sink.warning("ACCT007", a.loc,
                 fmt::format("user '{}' has DefaultAccount '{}' but no association under it; jobs without "
                             "--account are rejected",
                             printable(a.user), printable(a.default_account)));
  }
  for (const Association& a : tree.assocs) {
    if (!a.is_user() && a.id != tree.root && a.children.empty()) {
      sink.warning("ACCT008", a.loc,
                   fmt::format("account '{}' has no users and no sub-accounts", printable(a.account)));
    }
  }
}

}  // namespace

void finish_assoc_tree(AssocTree& tree, DiagnosticSink& sink) {
  sort_children(tree);
  inherit_down(tree);
  check_users(tree, sink);
}

std::uint32_t AssocTree::find_account(const std::string& account) const {
  for (const Association& a : assocs) {
    if (!a.is_user() && a.account == account) return a.id;
  }
  return kNoAssoc;
}

std::uint32_t AssocTree::find_user(const std::string& user, const std::string& account,
                                   const std::string& partition) const {
  for (const Association& a : assocs) {
    if (a.is_user() && a.user == user && a.account == account && a.partition == partition) return a.id;
  }
  return kNoAssoc;
}

std::vector<std::uint32_t> AssocTree::hierarchical_order() const {
  std::vector<std::uint32_t> out;
  std::vector<std::uint32_t> stack{root};
  while (!stack.empty()) {
    std::uint32_t id = stack.back();
    stack.pop_back();
    out.push_back(id);
    const auto& kids = assocs[id].children;
    for (auto it = kids.rbegin(); it != kids.rend(); ++it) stack.push_back(*it);
  }
  return out;
}

int AssocTree::depth(std::uint32_t id) const {
  int d = 0;
  while (assocs[id].parent != kNoAssoc) {
    id = assocs[id].parent;
    ++d;
  }
  return d;
}

std::size_t AssocTree::user_count() const {
  return static_cast<std::size_t>(
      std::count_if(assocs.begin(), assocs.end(), [](const Association& a) { return a.is_user(); }));
}

bool QosRecord::has_flag(const std::string& flag) const {
  return std::any_of(flags.begin(), flags.end(), [&](const std::string& f) { return iequals(f, flag); });
}

const QosRecord* QosTable::find(const std::string& name) const {
  for (const QosRecord& q : records) {
    if (iequals(q.name, name)) return &q;
  }
  return nullptr;
}

QosTable QosTable::slurm_default() {
  QosTable table;
  QosRecord normal;
  normal.name = "normal";
  table.records.push_back(normal);
  return table;
}

}  // namespace sa
