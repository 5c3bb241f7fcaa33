#pragma once
// The simulator's clock and event queue. slurmctld's threads (the decay thread, the main
// loop's triggers, backfill, the timeslicer, job completions) all act at integer seconds;
// what falls on the same second runs in a fixed phase order and then in insertion order,
// so a run is deterministic whatever the heap does with equal keys.
#include <cstdint>
#include <functional>
#include <queue>
#include <vector>

namespace sa::engine {

enum class EventType : std::uint8_t {
  kEnd,
  kSubmit,
  kEligible,
  kPriority,
  kMain,
  kMainFull,
  kBackfill,
  kSnapshot,
  kMainDirect,
  kNodeEvent,
  kTimeslice,
  kGraceEnd
};

struct Event {
  std::int64_t time = 0;
  std::uint8_t phase = 0;
  std::uint64_t seq = 0;
  EventType type = EventType::kEnd;
  std::uint32_t job = 0;  // the job (or node change) it is about
  bool operator>(const Event& o) const {
    if (time != o.time) return time > o.time;
    if (phase != o.phase) return phase > o.phase;
    return seq > o.seq;
  }
};

class EventQueue {
 public:
  /// Phases within one second: job ends and node changes first (their resources are free
  /// for what follows), submissions, the priority pass and the timeslicer, the main loop,
  /// backfill, and snapshots last (they see the second's decisions).
  static std::uint8_t phase_of(EventType type) {
    // kEnd, kSubmit, kEligible, kPriority, kMain, kMainFull, kBackfill, kSnapshot,
    // kMainDirect, kNodeEvent, kTimeslice, kGraceEnd
    static constexpr std::uint8_t kPhase[] = {0, 1, 1, 2, 3, 3, 4, 5, 3, 0, 2, 0};
    return kPhase[static_cast<int>(type)];
  }
  void push(std::int64_t time, EventType type, std::uint32_t job = 0) {
    heap_.push(Event{time, phase_of(type), seq_++, type, job});
  }
  bool empty() const { return heap_.empty(); }
  const Event& top() const { return heap_.top(); }
  void pop() { heap_.pop(); }

 private:
  std::uint64_t seq_ = 0;
  std::priority_queue<Event, std::vector<Event>, std::greater<>> heap_;
};

}  // namespace sa::engine
