#pragma once
// Partition <-> node membership as a Boost Graph (bipartite, undirected). The rules use it
// to find overlapping partitions (gang scheduling and tiers interact through shared nodes)
// and groups of partitions that compete for the same hardware.
#include <cstdint>
#include <string>
#include <vector>

#include <boost/graph/adjacency_list.hpp>

#include "analyzer/model.h"

namespace sa {

struct GraphVertex {
  bool is_partition = false;
  std::uint32_t index = 0;  // into Config::partitions or Config::nodes
};

using PartitionNodeGraph = boost::adjacency_list<boost::vecS, boost::vecS, boost::undirectedS, GraphVertex>;

struct PartitionOverlap {
  std::uint32_t first = 0;  // partition indices, first < second
  std::uint32_t second = 0;
  std::uint32_t shared_nodes = 0;
};

/// Vertices 0..P-1 are the partitions, P..P+N-1 the nodes.
PartitionNodeGraph build_partition_graph(const Config& config);
/// Every pair of partitions sharing at least one node, in (first, second) order.
std::vector<PartitionOverlap> partition_overlaps(const Config& config);
/// Groups of partitions connected through shared nodes; each group sorted, groups ordered by
/// their first partition. A partition with no nodes is its own group.
std::vector<std::vector<std::uint32_t>> partition_groups(const Config& config);

}  // namespace sa
