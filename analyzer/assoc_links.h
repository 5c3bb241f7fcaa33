#pragma once
// The accounting tree seen from slurm.conf, and the tree as a Boost Graph for the rules:
// partitions that name accounts or QOS the accounting side does not have.
#include <boost/graph/adjacency_list.hpp>

#include "analyzer/assoc_model.h"
#include "analyzer/diagnostics.h"
#include "analyzer/model.h"

namespace sa {

/// Parent -> child edges; vertex i is association i (root is vertex tree.root).
using AssocGraph = boost::adjacency_list<boost::vecS, boost::vecS, boost::bidirectionalS>;
AssocGraph build_assoc_graph(const AssocTree& tree);

/// Partition AllowAccounts/DenyAccounts naming accounts the tree lacks (warnings), a
/// partition QOS missing from the QOS table (slurmctld refuses to start), AllowQos/DenyQos
/// naming unknown QOS, and association QOS lists naming unknown QOS.
/// Partition problems go to `conf_sink` (their locations are slurm.conf's, numbered by the
/// conf's own source manager), association problems to `acct_sink`.
void check_accounting_links(const Config& config, const AssocTree& tree, const QosTable& qos, DiagnosticSink& conf_sink,
                            DiagnosticSink& acct_sink);
/// Both kinds into one sink (callers whose files share one source manager).
inline void check_accounting_links(const Config& config, const AssocTree& tree, const QosTable& qos,
                                   DiagnosticSink& sink) {
  check_accounting_links(config, tree, qos, sink, sink);
}

}  // namespace sa
