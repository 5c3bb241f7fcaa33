// The event queue's order: time, then phase, then insertion order; the load's submissions
// kept in a sorted list run exactly where the same kSubmit pushes would have.
#include <gtest/gtest.h>

#include <cstdint>
#include <utility>
#include <vector>

#include "engine/core/event_queue.h"

namespace sa {
namespace {

using engine::Event;
using engine::EventQueue;
using engine::EventType;

std::vector<std::pair<std::int64_t, std::uint32_t>> drain(EventQueue& q, std::vector<EventType>* types = nullptr) {
  std::vector<std::pair<std::int64_t, std::uint32_t>> out;
  while (!q.empty()) {
    const Event e = q.top();
    q.pop();
    out.emplace_back(e.time, e.job);
    if (types) types->push_back(e.type);
  }
  return out;
}

TEST(EventQueue, ArrivalsRunWhereTheSamePushesWouldHave) {
  // Jobs 10..14 submitted at 5, 3, 5, 0, 3; then a backfill, an end and a priority pass.
  const std::vector<std::int64_t> times{5, 3, 5, 0, 3};
  const std::vector<std::uint32_t> jobs{10, 11, 12, 13, 14};
  EventQueue pushed, listed;
  for (std::size_t i = 0; i < jobs.size(); ++i) pushed.push(times[i], EventType::kSubmit, jobs[i]);
  listed.set_arrivals(times, jobs);
  for (EventQueue* q : {&pushed, &listed}) {
    q->push(3, EventType::kBackfill);     // phase 4: after the submissions at 3
    q->push(3, EventType::kEnd, 99);      // phase 0: before them
    q->push(5, EventType::kEligible, 7);  // phase 1 as submissions, pushed later: after them
    q->push(0, EventType::kPriority);     // phase 2: after the submission at 0
  }
  std::vector<EventType> a, b;
  const auto want = drain(pushed, &a);
  EXPECT_EQ(drain(listed, &b), want);
  EXPECT_EQ(b, a);
  const std::vector<std::pair<std::int64_t, std::uint32_t>> order{{0, 13}, {0, 0},  {3, 99}, {3, 11}, {3, 14},
                                                                  {3, 0},  {5, 10}, {5, 12}, {5, 7}};
  EXPECT_EQ(want, order);
}

TEST(EventQueue, EventsPushedWhileRunningInterleaveWithTheArrivals) {
  EventQueue q;
  q.set_arrivals({10, 20, 30}, {0, 1, 2});
  std::vector<std::pair<std::int64_t, std::uint32_t>> seen;
  while (!q.empty()) {
    const Event e = q.top();
    q.pop();
    seen.emplace_back(e.time, e.job);
    // Each submission's job ends 15 s later.
    if (e.type == EventType::kSubmit) q.push(e.time + 15, EventType::kEnd, e.job + 100);
  }
  const std::vector<std::pair<std::int64_t, std::uint32_t>> want{{10, 0}, {20, 1},   {25, 100},
                                                                 {30, 2}, {35, 101}, {45, 102}};
  EXPECT_EQ(seen, want);
}

TEST(EventQueue, EmptyArrivalsLeaveAPlainHeap) {
  EventQueue q;
  q.set_arrivals({}, {});
  EXPECT_TRUE(q.empty());
  q.push(4, EventType::kMain);
  ASSERT_FALSE(q.empty());
  EXPECT_EQ(q.top().time, 4);
  q.pop();
  EXPECT_TRUE(q.empty());
}

}  // namespace
}  // namespace sa
