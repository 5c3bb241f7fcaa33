#include "report/explain_report.h"

#include <ctime>

#include <fmt/format.h>

namespace sa::report {

namespace {

const char* started_by(engine::StartedBy by) {
  switch (by) {
    case engine::StartedBy::kMain:
      return "the main scheduler";
    case engine::StartedBy::kBackfill:
      return "backfill";
    case engine::StartedBy::kNone:
      break;
  }
  return "-";
}

std::string limit_text(std::int64_t secs) {
  if (secs < 0) return "UNLIMITED";
  return fmt::format("{}:{:02}:{:02}", secs / 3600, secs / 60 % 60, secs % 60);
}

// A moment of the run as a person reads it: a UTC date for a recorded load (epoch times),
// else the day and time into a generated load, which starts at 0.
std::string when_text(std::int64_t t) {
  constexpr std::int64_t kYear2001 = 978307200;
  if (t >= kYear2001) {
    const std::time_t tt = static_cast<std::time_t>(t);
    std::tm tm{};
    gmtime_r(&tt, &tm);
    return fmt::format("{:04}-{:02}-{:02}T{:02}:{:02}:{:02} UTC", tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday,
                       tm.tm_hour, tm.tm_min, tm.tm_sec);
  }
  return fmt::format("day {} {:02}:{:02}:{:02} of the load", t / 86400 + 1, t / 3600 % 24, t / 60 % 60, t % 60);
}

}  // namespace

std::string offset_text(std::int64_t s) {
  const char* sign = s < 0 ? "-" : "+";
  if (s < 0) s = -s;
  if (s >= 86400) return fmt::format("{}{}d {:02}:{:02}:{:02}", sign, s / 86400, s / 3600 % 24, s / 60 % 60, s % 60);
  return fmt::format("{}{:02}:{:02}:{:02}", sign, s / 3600, s / 60 % 60, s % 60);
}

void print_explanation(std::ostream& out, const engine::Explanation& e) {
  const engine::SimJob& j = e.job;
  const engine::SimRecord* rec = j.run_or_first_rec_if_any();
  const bool task = j.req.extra.get().array_job_id != 0;
  const std::string id =
      task ? fmt::format("{} (id {})", engine::job_label(j.req), j.req.id) : engine::job_label(j.req);
  out << fmt::format("Job {}: user {}, account {}, QOS {}, partition {}; {} CPUs on {} node(s), time limit {}\n", id,
                     j.req.user, e.account, e.qos, e.partition, rec ? rec->demand.cpus : j.req.cpus,
                     rec ? rec->demand.min_nodes : j.req.nodes, rec ? limit_text(rec->time_limit) : "-");
  out << fmt::format("Submitted {}", when_text(j.req.submit));
  if (j.begin > j.req.submit) out << fmt::format(", eligible {} later", offset_text(j.begin - j.req.submit));
  if (j.state == engine::JobState::kRejected) {
    out << ". Refused at submission: " << j.rare.get().reject_reason << "\n";
    return;
  }
  if (j.start != engine::kNoTime) {
    out << fmt::format("; started {} later by {} (waited {})\n", offset_text(j.start - j.req.submit).substr(1),
                       started_by(j.started_by), offset_text(j.start - j.begin).substr(1));
  } else if (j.cancelled_pending()) {
    out << fmt::format("; cancelled while pending {} after submission, when the load recorded its scancel\n",
                       offset_text(j.end - j.req.submit).substr(1));
  } else {
    out << fmt::format("; still pending when the simulation stopped ({} after submission)\n",
                       offset_text(e.run_end - j.req.submit));
  }
  if (!e.spans.empty()) out << "\nWhat held it back (offsets from submission):\n";
  for (const engine::ExplainSpan& s : e.spans) {
    out << fmt::format("  {} .. {}  {}", offset_text(s.from - j.req.submit), offset_text(s.until - j.req.submit),
                       s.reason);
    if (!s.detail.empty()) out << ": " << s.detail;
    out << '\n';
  }
  // The window's part in it (BF001): no reservation held its place then.
  if (j.bf_beyond_window) {
    out << "\nBackfill found no start for it within bf_window at least once, so it held no reservation then and "
           "smaller jobs could start ahead of it (BF001)\n";
  }
  if (!e.what_ifs.empty()) out << "\nWhat if (each a fresh simulation with one change):\n";
  for (const engine::WhatIf& w : e.what_ifs) {
    if (w.start == engine::kNoTime) {
      out << fmt::format("  {}: no earlier start\n", w.change);
    } else if (j.start != engine::kNoTime) {
      out << fmt::format("  {}: starts {} after submission ({} sooner)\n", w.change,
                         offset_text(w.start - j.req.submit), offset_text(j.start - w.start).substr(1));
    } else {
      out << fmt::format("  {}: starts {} after submission\n", w.change, offset_text(w.start - j.req.submit));
    }
  }
}

nlohmann::json explanation_json(const engine::Explanation& e) {
  const engine::SimJob& j = e.job;
  nlohmann::json spans = nlohmann::json::array();
  for (const engine::ExplainSpan& s : e.spans) {
    spans.push_back({{"from", s.from}, {"until", s.until}, {"reason", s.reason}, {"detail", s.detail}});
  }
  nlohmann::json what_ifs = nlohmann::json::array();
  for (const engine::WhatIf& w : e.what_ifs) {
    what_ifs.push_back(
        {{"change", w.change}, {"start", w.start == engine::kNoTime ? nlohmann::json() : nlohmann::json(w.start)}});
  }
  auto t = [](std::int64_t v) { return v == engine::kNoTime ? nlohmann::json() : nlohmann::json(v); };
  nlohmann::json out = {{"job_id", j.req.id},
                        {"user", j.req.user},
                        {"account", e.account},
                        {"qos", e.qos},
                        {"partition", e.partition},
                        {"submit", j.req.submit},
                        {"eligible", j.begin},
                        {"start", t(j.start)},
                        {"started_by", j.started_by == engine::StartedBy::kMain       ? "main"
                                       : j.started_by == engine::StartedBy::kBackfill ? "backfill"
                                                                                      : ""},
                        {"rejected", j.state == engine::JobState::kRejected ? nlohmann::json(j.rare.get().reject_reason)
                                                                            : nlohmann::json()},
                        {"intervals", spans},
                        {"beyond_bf_window", j.bf_beyond_window},
                        {"what_if", what_ifs}};
  if (j.cancelled_pending()) out["cancelled_while_pending_at"] = j.end;
  // An array task also under the name sacct's JobID and squeue give it, as squeue's JSON does.
  if (j.req.extra.get().array_job_id) out["id"] = engine::job_label(j.req);
  return out;
}

}  // namespace sa::report
