#pragma once
// topology.conf for TopologyPlugin=topology/tree, read as Slurm 22.05 reads it
// (src/plugins/topology/tree/topology_tree.c: _read_topo_file, _parse_switches,
// _validate_switches, _find_child_switches): SwitchName lines with exactly one of Nodes= or
// Switches=, a leaf's level 0, an upper switch's level one above its highest child, its nodes
// the union of its children's. What makes slurmctld refuse to start (a duplicate switch, an
// unknown or self child, no tree, a hostlist it cannot read) is an error and the topology is
// dropped; what it only logs (unknown node names, nodes on no leaf, nodes on two leaves) is a
// warning and the topology is kept.
#include <cstdint>
#include <string>
#include <vector>

#include "analyzer/conf_loader.h"
#include "analyzer/diagnostics.h"
#include "analyzer/input_limits.h"
#include "analyzer/model.h"

namespace sa {

/// More switches than this are not read (the engine keeps a leaf-to-leaf distance table).
inline constexpr std::size_t kMaxTopologySwitches = 4096;

/// Reads `loaded` (a topology.conf with its Includes) into `config.topology`; node names are
/// checked against `config.nodes`. Leaves `config.topology` empty when Slurm would not start.
void read_topology(const LoadedConf& loaded, const SlurmVersion& version, const InputLimits& limits, Config& config,
                   DiagnosticSink& sink);

/// Whether the config's TopologyPlugin is topology/tree (the plugin that reads SwitchName lines).
bool uses_topology_tree(const Config& config);

}  // namespace sa
