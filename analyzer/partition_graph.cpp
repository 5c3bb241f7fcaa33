#include "analyzer/partition_graph.h"

#include <algorithm>
#include <boost/graph/connected_components.hpp>
#include <map>

namespace sa {

PartitionNodeGraph build_partition_graph(const Config& config) {
  const auto parts = static_cast<std::uint32_t>(config.partitions.size());
  const auto nodes = static_cast<std::uint32_t>(config.nodes.size());
  PartitionNodeGraph graph(parts + nodes);
  for (std::uint32_t p = 0; p < parts; ++p) graph[p] = {true, p};
  for (std::uint32_t n = 0; n < nodes; ++n) graph[parts + n] = {false, n};
  for (std::uint32_t p = 0; p < parts; ++p) {
    for (std::uint32_t n : config.partitions[p].nodes) boost::add_edge(p, parts + n, graph);
  }
  return graph;
}

std::vector<PartitionOverlap> partition_overlaps(const Config& config) {
  PartitionNodeGraph graph = build_partition_graph(config);
  const auto parts = static_cast<std::uint32_t>(config.partitions.size());
  std::map<std::pair<std::uint32_t, std::uint32_t>, std::uint32_t> shared;
  for (std::uint32_t n = 0; n < config.nodes.size(); ++n) {
    std::vector<std::uint32_t> owners;
    for (auto [it, end] = boost::adjacent_vertices(parts + n, graph); it != end; ++it) {
      owners.push_back(static_cast<std::uint32_t>(*it));
    }
    std::sort(owners.begin(), owners.end());
    for (std::size_t a = 0; a < owners.size(); ++a) {
      for (std::size_t b = a + 1; b < owners.size(); ++b) ++shared[{owners[a], owners[b]}];
    }
  }
  std::vector<PartitionOverlap> out;
  out.reserve(shared.size());
  for (const auto& [pair, count] : shared) out.push_back({pair.first, pair.second, count});
  return out;
}

std::vector<std::vector<std::uint32_t>> partition_groups(const Config& config) {
  PartitionNodeGraph graph = build_partition_graph(config);
  std::vector<int> component(boost::num_vertices(graph));
  boost::connected_components(graph, component.data());
  std::map<int, std::vector<std::uint32_t>> groups;
  for (std::uint32_t p = 0; p < config.partitions.size(); ++p) groups[component[p]].push_back(p);
  std::vector<std::vector<std::uint32_t>> out;
  out.reserve(groups.size());
  for (auto& [id, members] : groups) out.push_back(std::move(members));
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace sa
