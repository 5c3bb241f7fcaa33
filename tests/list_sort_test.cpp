// slurm_list_sort (engine/core/list_sort.h) orders as glibc's qsort does, also under a
// comparator that is not a strict weak order: sort_job_queue2's preemption test. The expected
// orders below were printed by glibc 2.36's qsort (Debian 12) on the same inputs and
// comparator (rock-paper-scissors: each goes before the one it beats, ties keep their order).
#include <gtest/gtest.h>

#include <algorithm>
#include <vector>

#include "engine/core/list_sort.h"

namespace sa::engine {
namespace {

struct Item {
  int kind, index;
};

bool beats(int x, int y) { return (x == 0 && y == 2) || (x == 2 && y == 1) || (x == 1 && y == 0); }

std::vector<int> sorted_indices(const std::vector<int>& kinds) {
  std::vector<Item> v;
  for (int i = 0; i < static_cast<int>(kinds.size()); ++i) v.push_back({kinds[static_cast<std::size_t>(i)], i});
  slurm_list_sort(v, [](const Item& a, const Item& b) { return beats(a.kind, b.kind); });
  std::vector<int> out;
  for (const Item& it : v) out.push_back(it.index);
  return out;
}

TEST(SlurmListSort, NonTransitiveComparatorGivesGlibcQsortsOrder) {
  EXPECT_EQ(sorted_indices({0, 1, 2}), (std::vector<int>{0, 2, 1}));
  EXPECT_EQ(sorted_indices({0, 1, 2, 0, 1, 2, 2, 1, 0}), (std::vector<int>{5, 6, 1, 4, 7, 0, 3, 8, 2}));
  EXPECT_EQ(sorted_indices({2, 2, 1, 0, 1, 0, 2, 1}), (std::vector<int>{0, 1, 6, 2, 4, 7, 3, 5}));
}

TEST(SlurmListSort, AStrictOrderSortsStably) {
  std::vector<Item> v;
  for (int i = 0; i < 200; ++i) v.push_back({(i * 37) % 11, i});
  std::vector<Item> want = v;
  std::stable_sort(want.begin(), want.end(), [](const Item& a, const Item& b) { return a.kind < b.kind; });
  slurm_list_sort(v, [](const Item& a, const Item& b) { return a.kind < b.kind; });
  for (std::size_t i = 0; i < v.size(); ++i) EXPECT_EQ(v[i].index, want[i].index) << i;
}

}  // namespace
}  // namespace sa::engine
