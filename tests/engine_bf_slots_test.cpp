// Backfill's slot map and its start-time search (engine/bf_slots.h) against a plain model of
// the same map: the nodes free at each time are the usable ones less every reservation over
// it, slots split at every reservation edge. The search keeps sliding ANDs and, for jobs that
// may use every usable node, each slot's "next slot frees a node" answer kept through splits
// and reservations; the model recomputes everything for every try.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <vector>

#include "engine/bf_slots.h"

namespace sa {
namespace {

using engine::NodeBitset;
using engine::SlotMap;

struct Resv {
  std::int64_t from, to;
  NodeBitset nodes;
};

/// The map as a list of reservations, and narrow() worked out from scratch.
struct Model {
  std::int64_t begin, window_end;
  NodeBitset usable;
  std::vector<Resv> resv;

  std::vector<std::int64_t> edges() const {
    std::vector<std::int64_t> e{begin, window_end};
    for (const Resv& r : resv) {
      if (r.from > begin && r.from < window_end) e.push_back(r.from);
      if (r.to > begin && r.to < window_end) e.push_back(r.to);
    }
    std::sort(e.begin(), e.end());
    e.erase(std::unique(e.begin(), e.end()), e.end());
    return e;
  }
  NodeBitset free_in(std::int64_t b, std::int64_t e) const {
    NodeBitset f = usable;
    for (const Resv& r : resv) {
      if (r.from <= b && e <= r.to) f.subtract(r.nodes);
    }
    return f;
  }
  std::int64_t narrow(std::int64_t start, std::int64_t end, const NodeBitset& base, NodeBitset& avail) const {
    const std::vector<std::int64_t> e = edges();
    const std::size_t n = e.size() - 1;  // slots [e[k], e[k+1])
    std::size_t lo = 0;
    while (lo < n && e[lo + 1] <= start) ++lo;
    std::size_t hi = lo;
    while (hi < n && e[hi] <= end) ++hi;
    avail = base;
    for (std::size_t k = lo; k < hi; ++k) avail &= free_in(e[k], e[k + 1]);
    if (n < 2 || lo > n - 2) return 0;
    NodeBitset run = base;
    for (std::size_t k = lo; k <= std::min(hi, n - 2); ++k) {
      run &= free_in(e[k], e[k + 1]);
      NodeBitset next = base;
      next &= free_in(e[k + 1], e[k + 2]);
      next.subtract(run);
      if (!next.none()) return e[k + 1];
    }
    return 0;
  }
};

std::uint64_t step(std::uint64_t& s) {
  s = s * 6364136223846793005ULL + 1442695040888963407ULL;
  return s >> 33;
}

NodeBitset random_nodes(std::size_t n, std::uint64_t& s, std::uint64_t percent) {
  NodeBitset b(n);
  for (std::size_t i = 0; i < n; ++i) {
    if (step(s) % 100 < percent) b.set(i);
  }
  return b;
}

// 200 maps of 130 nodes (three words, a partial last one), each grown by up to 40
// reservations of five node groups; after each, searches with growing starts and ends as plan_job makes them,
// for a job on every usable node and for one on a random subset.
TEST(BackfillSlots, NarrowMatchesAMapWorkedOutFromScratch) {
  constexpr std::size_t kNodes = 130;
  std::uint64_t seed = 99;
  int tries = 0, gains = 0;
  for (int map_no = 0; map_no < 200; ++map_no) {
    Model m{600, 600 + 3600, NodeBitset(kNodes, true), {}};
    m.usable.reset(7);  // a node down: slots hold usable nodes only
    SlotMap map(m.begin, m.window_end, m.usable, nullptr);
    const NodeBitset subset = random_nodes(kNodes, seed, 70);
    NodeBitset part = m.usable;
    part &= subset;
    std::vector<NodeBitset> groups;
    for (int g = 0; g < 5; ++g) groups.push_back(random_nodes(kNodes, seed, 20));
    const int reservations = static_cast<int>(step(seed) % 40);
    for (int r = 0; r <= reservations; ++r) {
      for (const NodeBitset* base : {&m.usable, &part}) {
        SlotMap::Scan scan(map, *base);
        scan.reset();
        std::int64_t start = m.begin;
        const std::int64_t limit = 60 * static_cast<std::int64_t>(1 + step(seed) % 40);
        for (int t = 0; t < 30 && start < m.window_end; ++t) {
          NodeBitset got(kNodes), want(kNodes);
          std::size_t count = 0;
          const std::int64_t later = scan.narrow(start, start + limit, got, count);
          ASSERT_EQ(later, m.narrow(start, start + limit, *base, want)) << "map " << map_no << " start " << start;
          ASSERT_EQ(got, want) << "map " << map_no << " start " << start;
          ASSERT_EQ(count, want.count());
          ++tries;
          gains += later != 0;
          start = later ? later : start + 60 * static_cast<std::int64_t>(1 + step(seed) % 5);
        }
      }
      // The next reservation, on whole minutes, sometimes past the window's end.
      const std::int64_t from = m.begin + 60 * static_cast<std::int64_t>(step(seed) % 60);
      const std::int64_t to = from + 60 * static_cast<std::int64_t>(1 + step(seed) % 30);
      // Node groups recur (jobs reserve the same nodes one after another), so a reservation
      // often takes exactly the nodes a slot gained over the one before it.
      Resv res{from, to, groups[step(seed) % groups.size()]};
      res.nodes &= m.usable;
      map.reserve(res.from, res.to, res.nodes);
      m.resv.push_back(res);
    }
  }
  EXPECT_GT(tries, 20000);
  EXPECT_GT(gains, tries / 4);  // most tries find a later start: the gains are exercised
}

}  // namespace
}  // namespace sa
