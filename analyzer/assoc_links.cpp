#include "analyzer/assoc_links.h"

#include <algorithm>

#include <fmt/format.h>
#include <map>
#include <set>

#include "analyzer/partition_access.h"
#include "analyzer/text_util.h"

namespace sa {

AssocGraph build_assoc_graph(const AssocTree& tree) {
  AssocGraph graph(tree.assocs.size());
  for (const Association& a : tree.assocs) {
    for (std::uint32_t child : a.children) boost::add_edge(a.id, child, graph);
  }
  return graph;
}

void check_accounting_links(const Config& config, const AssocTree& tree, const QosTable& qos, DiagnosticSink& conf_sink,
                            DiagnosticSink& acct_sink) {
  std::set<std::string> accounts;
  for (const Association& a : tree.assocs) {
    if (!a.is_user()) accounts.insert(a.account);
  }
  for (const Partition& p : config.partitions) {
    for (const auto* list : {&p.allow_accounts, &p.deny_accounts}) {
      // From 23.02 slurmctld drops the names without an association (accounts_list_build),
      // and an AllowAccounts left with none checks no account at all.
      const bool none_known =
          list == &p.allow_accounts && config.version.at_least(23, 2) && account_lists_checked(config) &&
          std::none_of(list->begin(), list->end(), [&](const std::string& a) { return accounts.count(a) > 0; });
      for (const std::string& account : *list) {
        if (accounts.count(account) || iequals(account, "ALL")) continue;
        conf_sink.warning(
            "ACCT013", p.loc,
            fmt::format("partition '{}' names account '{}', which the association tree does not have{}",
                        printable(p.name), printable(account),
                        none_known ? ": slurmctld drops names without an association, and with none of its "
                                     "AllowAccounts left it checks no account, so every account may use the partition"
                        : list == &p.allow_accounts ? ": no job can use that entry"
                                                    : ""));
      }
    }
    if (!p.qos.empty() && !qos.find(p.qos)) {
      conf_sink.error("ACCT014", p.loc,
                      fmt::format("partition '{}' uses QOS '{}', which the QOS table does not have; "
                                  "slurmctld refuses to start",
                                  printable(p.name), printable(p.qos)));
    }
    for (const auto* list : {&p.allow_qos, &p.deny_qos}) {
      for (const std::string& name : *list) {
        if (!qos.find(name)) {
          conf_sink.warning("ACCT014", p.loc,
                            fmt::format("partition '{}' names QOS '{}', which the QOS table does not have",
                                        printable(p.name), printable(name)));
        }
      }
    }
  }
  // read_config.c (23.11+): a Relative QOS is a percentage of its partition's TRES, so slurmctld
  // stops when a second partition takes the same one as its QOS.
  if (config.version.at_least(23, 11)) {
    std::map<std::string, const Partition*> first_user;
    for (const Partition& p : config.partitions) {
      const QosRecord* q = p.qos.empty() ? nullptr : qos.find(p.qos);
      if (!q || !q->has_flag("Relative")) continue;
      auto [it, fresh] = first_user.emplace(q->name, &p);
      if (fresh) continue;
      conf_sink.error("ACCT016", p.loc,
                      fmt::format("partition '{}' uses QOS '{}', which partition '{}' already uses and which has "
                                  "Flags=Relative: slurmctld refuses to start (a relative QOS must be unique per "
                                  "partition)",
                                  printable(p.name), printable(q->name), printable(it->second->name)),
                      "give each partition its own relative QOS, or drop Flags=Relative");
    }
  }
  std::set<std::string> reported;
  for (const Association& a : tree.assocs) {
    for (const std::string& name : a.qos) {
      if (qos.find(name) || !reported.insert(name).second) continue;
      acct_sink.warning("ACCT014", a.loc,
                        fmt::format("association {} lists QOS '{}', which the QOS table does not have",
                                    printable(a.name()), printable(name)));
    }
  }
}

}  // namespace sa
