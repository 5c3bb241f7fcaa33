#pragma once
// The simulator's clock and event queue. slurmctld's threads (the decay thread, the main
// loop's triggers, backfill, the timeslicer, job completions) all act at integer seconds;
// what falls on the same second runs in a fixed phase order and then in insertion order,
// so a run is deterministic whatever the heap does with equal keys.
#include <algorithm>
#include <cstdint>
#include <functional>
#include <numeric>
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
  kGraceEnd,
  kCancel
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
    // kMainDirect, kNodeEvent, kTimeslice, kGraceEnd, kCancel
    static constexpr std::uint8_t kPhase[] = {0, 1, 1, 2, 3, 3, 4, 5, 3, 0, 2, 0, 0};
    return kPhase[static_cast<int>(type)];
  }
  void push(std::int64_t time, EventType type, std::uint32_t job = 0) {
    heap_.push(Event{time, phase_of(type), seq_++, type, job});
  }
  /// The load's submissions, job by job (`times[i]` is job `jobs[i]`'s), in the order the
  /// same kSubmit pushes would run: by time, then by their place in `jobs`. They wait in a
  /// sorted list (12 bytes a job; the k-th keeps sequence number k) rather than in the heap (32 bytes a job, up to
  /// twice that as the heap grows): at 100,000 jobs that is most of the queue's memory, and the heap the run pushes and
  /// pops stays small. Call once, before any push: the submissions take the first sequence numbers, as pushes made
  /// first would.
  void set_arrivals(const std::vector<std::int64_t>& times, const std::vector<std::uint32_t>& jobs) {
    std::vector<std::uint32_t> order(times.size());
    std::iota(order.begin(), order.end(), 0U);
    std::stable_sort(order.begin(), order.end(), [&](std::uint32_t a, std::uint32_t b) { return times[a] < times[b]; });
    arrival_times_.resize(order.size());
    for (std::size_t k = 0; k < order.size(); ++k) {
      arrival_times_[k] = times[order[k]];
      order[k] = jobs[order[k]];
    }
    arrival_jobs_ = std::move(order);
    seq_ += times.size();
    next_ = 0;
    load_arrival();
  }
  bool empty() const { return heap_.empty() && next_ >= arrival_jobs_.size(); }
  const Event& top() const { return arrival_first() ? arrival_ : heap_.top(); }
  void pop() {
    if (!arrival_first()) {
      heap_.pop();
      return;
    }
    ++next_;
    load_arrival();
  }

 private:
  bool arrival_first() const { return next_ < arrival_jobs_.size() && (heap_.empty() || !(arrival_ > heap_.top())); }
  void load_arrival() {
    if (next_ >= arrival_jobs_.size()) {
      // All submitted: the lists go (a run's memory peaks at its end, with every job's record).
      arrival_times_ = std::vector<std::int64_t>();
      arrival_jobs_ = std::vector<std::uint32_t>();
      next_ = 0;
      return;
    }
    arrival_ =
        Event{arrival_times_[next_], phase_of(EventType::kSubmit), next_, EventType::kSubmit, arrival_jobs_[next_]};
  }
  std::uint64_t seq_ = 0;
  std::priority_queue<Event, std::vector<Event>, std::greater<>> heap_;
  std::vector<std::int64_t> arrival_times_;
  std::vector<std::uint32_t> arrival_jobs_;
  std::size_t next_ = 0;
  Event arrival_;  // the submission at next_
};

}  // namespace sa::engine
