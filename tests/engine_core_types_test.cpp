// The engine's compact value types: interned names (Atom) and vectors that cost a pointer
// while empty (RareVec), which every job holds.
#include <gtest/gtest.h>

#include <fmt/format.h>

#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "engine/core/atom.h"
#include "engine/core/packed_vec.h"
#include "engine/core/rare_box.h"
#include "engine/core/rare_vec.h"
#include "engine/sim_result.h"
#include "tests/engine_test_util.h"

namespace sa {
namespace {

using engine::Atom;
using engine::PackedVec;
using engine::RareVec;

TEST(Atom, EqualTextIsOneStringAndReadsAsThatText) {
  const std::string alice = "alice";
  const Atom a = alice;
  const Atom b = "alice";
  EXPECT_EQ(&a.str(), &b.str());  // interned once
  EXPECT_EQ(a, b);
  EXPECT_EQ(a, "alice");
  EXPECT_EQ(a, alice);
  EXPECT_NE(a, Atom("bob"));
  EXPECT_EQ(a.size(), 5U);
  const std::string& read = a;  // code that reads a name as a string is unchanged
  EXPECT_EQ(read, "alice");
  EXPECT_EQ(a + "/x", "alice/x");
  EXPECT_EQ(fmt::format("[{}]", a), "[alice]");
  std::ostringstream os;
  os << a;
  EXPECT_EQ(os.str(), "alice");
  EXPECT_EQ(sizeof(Atom), sizeof(void*));
}

TEST(Atom, EmptyAndDefaultAreTheSameAndOrderIsByText) {
  EXPECT_TRUE(Atom().empty());
  EXPECT_EQ(Atom(), Atom(""));
  EXPECT_EQ(Atom().str(), "");
  // Interned later, ordered by text all the same: nothing depends on interning order.
  const Atom z = "zz-interned-first", a = "aa-interned-second";
  EXPECT_LT(a, z);
  std::map<Atom, int> m{{z, 1}, {a, 2}};
  EXPECT_EQ(m.begin()->first, "aa-interned-second");
  EXPECT_EQ(std::hash<Atom>{}(a), std::hash<std::string_view>{}("aa-interned-second"));
}

TEST(RareVec, EmptyCostsOnePointerAndActsAsAVector) {
  EXPECT_EQ(sizeof(RareVec<double>), sizeof(void*));
  RareVec<int> v;
  EXPECT_TRUE(v.empty());
  EXPECT_EQ(v.size(), 0U);
  EXPECT_EQ(v.begin(), v.end());
  EXPECT_TRUE(v.vec().empty());
  v.push_back(3);
  v.emplace_back(4);
  v.resize(3, 9);
  EXPECT_EQ(v.vec(), (std::vector<int>{3, 4, 9}));
  EXPECT_EQ(v.front(), 3);
  EXPECT_EQ(v.back(), 9);
  EXPECT_EQ(*v.rbegin(), 9);
  int sum = 0;
  for (int x : v) sum += x;
  EXPECT_EQ(sum, 16);
  v.clear();
  EXPECT_TRUE(v.empty());
}

TEST(RareVec, CopiesAreDeepAndCompareByContent) {
  RareVec<int> a{1, 2};
  RareVec<int> b = a;
  b[0] = 7;
  EXPECT_EQ(a[0], 1);
  EXPECT_FALSE(a == b);
  b = a;
  EXPECT_TRUE(a == b);
  EXPECT_TRUE(a == (std::vector<int>{1, 2}));
  a = std::vector<int>{};
  EXPECT_TRUE(a.empty());
  EXPECT_TRUE(a == RareVec<int>{});
  RareVec<int> moved = std::move(b);
  EXPECT_EQ(moved.size(), 2U);
}

// The README's memory per job rests on these sizes (64-bit libstdc++): a field that makes a
// job record, its request or a queue record grow shows up here before it shows in peak RSS.
TEST(PackedVec, OnePointerNothingWhileEmptyAndActsAsAVector) {
  EXPECT_EQ(sizeof(PackedVec<engine::ReasonSpan>), sizeof(void*));
  PackedVec<std::int64_t> v;
  EXPECT_TRUE(v.empty());
  EXPECT_EQ(v.capacity(), 0U);
  EXPECT_EQ(v.begin(), v.end());
  for (std::int64_t i = 0; i < 100; ++i) v.push_back(i * i);
  EXPECT_EQ(v.size(), 100U);
  EXPECT_EQ(v[99], 9801);
  EXPECT_EQ(v.back(), 9801);
  EXPECT_EQ(v.at(3), 9);
  EXPECT_THROW((void)v.at(100), std::out_of_range);
  v.emplace_back(v[0]);  // an argument that points into the vector survives its growth
  EXPECT_EQ(v.back(), 0);
  v.resize(3);
  EXPECT_EQ(v.vec(), (std::vector<std::int64_t>{0, 1, 4}));
  v.resize(5, 7);
  EXPECT_EQ(v, (std::vector<std::int64_t>{0, 1, 4, 7, 7}));
  v.pop_back();
  v.shrink_to_fit();
  EXPECT_EQ(v.capacity(), 4U);
  v.clear();
  EXPECT_TRUE(v.empty());
  EXPECT_EQ(v.capacity(), 4U);  // clear keeps the storage, as std::vector does
  v.shrink_to_fit();
  EXPECT_EQ(v.capacity(), 0U);
  v.assign(3, 2);
  EXPECT_EQ(v, (std::vector<std::int64_t>{2, 2, 2}));
}

TEST(PackedVec, CopiesAreDeepMovesTakeTheBlock) {
  PackedVec<Atom> a{Atom("x"), Atom("y")};
  PackedVec<Atom> b = a;
  b[0] = "z";
  EXPECT_EQ(a[0], "x");
  EXPECT_FALSE(a == b);
  b = a;
  EXPECT_TRUE(a == b);
  const Atom* block = a.data();
  PackedVec<Atom> c = std::move(a);
  EXPECT_EQ(c.data(), block);
  EXPECT_TRUE(a.empty());  // NOLINT(bugprone-use-after-move): a moved-from vector is empty
  a = std::vector<Atom>{Atom("q")};
  EXPECT_EQ(a.size(), 1U);
  a = PackedVec<Atom>{};
  EXPECT_TRUE(a.empty());
  std::vector<Atom> seen(c.rbegin(), c.rend());
  EXPECT_EQ(seen, (std::vector<Atom>{Atom("y"), Atom("x")}));
}

TEST(RareBox, ReadsDefaultsUntilTheFirstWriteAndCopiesDeep) {
  engine::RareBox<engine::JobRare> a;
  EXPECT_FALSE(a.allocated());
  EXPECT_EQ(a.get().suspend_time, engine::kNoTime);  // the defaults, nothing allocated
  EXPECT_EQ(a.get().name_group, -1);
  EXPECT_FALSE(a.allocated());
  a.edit().requeues = 2;
  ASSERT_TRUE(a.allocated());
  engine::RareBox<engine::JobRare> b = a;
  b.edit().requeues = 5;
  EXPECT_EQ(a.get().requeues, 2U);
  EXPECT_EQ(b.get().requeues, 5U);
  b = engine::RareBox<engine::JobRare>{};
  EXPECT_FALSE(b.allocated());
  a.reset();
  EXPECT_EQ(a.get().requeues, 0U);
  EXPECT_EQ(sizeof(a), sizeof(void*));
}

// Jobs that run to the end keep no JobRare; a refused one keeps its refusal there.
TEST(RareBox, OnlyJobsWithRareStateAllocateIt) {
  const test::SimSite site(
      "NodeName=n[1-2] CPUs=4 RealMemory=1000\nPartitionName=p Nodes=ALL Default=YES MaxTime=60\n");
  const engine::SimResult r =
      site.run({test::job(1, 0, 4, 30, 60, "p"), test::job(2, 0, 8, 30, 60, "p"), test::job(3, 5, 16, 30, 60, "p")});
  ASSERT_EQ(r.jobs.size(), 3U);
  EXPECT_EQ(test::find_job(r, 1).state, engine::JobState::kDone);
  EXPECT_EQ(test::find_job(r, 2).state, engine::JobState::kDone);
  EXPECT_FALSE(test::find_job(r, 1).rare.allocated());
  EXPECT_FALSE(test::find_job(r, 2).rare.allocated());
  const engine::SimJob& refused = test::find_job(r, 3);  // more CPUs than the partition has
  EXPECT_EQ(refused.state, engine::JobState::kRejected);
  EXPECT_TRUE(refused.rare.allocated());
  EXPECT_EQ(refused.rare.get().reject_error, engine::kNodeConfigUnavailable);
}

// A finished job keeps its allocation as runs of 24 bytes: the same pieces come back, sums
// over them do not wrap at 32 bits, and memory beyond 32 bits keeps the pieces.
TEST(AllocationCompact, RunsGiveThePiecesBackAndKeepWideMemory) {
  engine::Allocation a;
  for (std::uint32_t n = 4; n < 7; ++n) a.pieces.push_back({n, 8, 0, 0, 3'000'000'000ULL, 3'000'000'000ULL});
  a.pieces.push_back({9, 2, 1, 0, 100, 120});
  const std::vector<engine::AllocPiece> before(a.pieces.begin(), a.pieces.end());
  a.compact();
  EXPECT_TRUE(a.pieces.empty());
  ASSERT_EQ(a.runs.size(), 2U);
  EXPECT_EQ(a.runs[0].count, 3U);
  EXPECT_EQ(a.mem(), 9'000'000'100ULL);
  EXPECT_EQ(a.cpus(), 26U);
  EXPECT_EQ(a.nodes(), 4U);
  const std::vector<engine::AllocPiece> after = a.expanded();
  ASSERT_EQ(after.size(), before.size());
  for (std::size_t i = 0; i < after.size(); ++i) {
    EXPECT_EQ(after[i].node, before[i].node);
    EXPECT_EQ(after[i].mem, before[i].mem);
    EXPECT_EQ(after[i].mem_req, before[i].mem_req);
  }
  engine::Allocation wide;
  wide.pieces.push_back({0, 1, 0, 0, 5'000'000'000ULL, 1});
  wide.compact();
  EXPECT_EQ(wide.pieces.size(), 1U);  // kept as it was
  EXPECT_TRUE(wide.runs.empty());
  EXPECT_EQ(wide.mem(), 5'000'000'000ULL);
}

TEST(JobLayout, RecordSizesStayWhereTheMemoryFiguresPutThem) {
  EXPECT_LE(sizeof(engine::JobRequest), 160U);
  EXPECT_LE(sizeof(engine::SimJob), 328U);
  // 216 bytes: with malloc's 8-byte header a queue record fills a 224-byte block.
  EXPECT_LE(sizeof(engine::SimRecord), 216U);
  EXPECT_LE(sizeof(engine::Demand), 64U);
  EXPECT_LE(sizeof(engine::ReasonSpan), 16U);
}

}  // namespace
}  // namespace sa
