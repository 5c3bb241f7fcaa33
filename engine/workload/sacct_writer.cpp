#include "engine/workload/sacct_writer.h"

#include <fmt/format.h>

namespace sa::engine {

namespace {

// Keeps '|' and line breaks out of a field (a name with one would shift every column).
std::string field(const std::string& s) {
  std::string out = s;
  for (char& c : out) {
    if (c == '|' || c == '\n' || c == '\r') c = '_';
  }
  return out;
}

std::string memory(const JobRequest& j) {
  if (!j.mem_set) return "";
  return fmt::format("{}M{}", j.mem_mb, j.mem_per_cpu ? "c" : "n");
}

}  // namespace

void write_sacct_load(std::ostream& out, const Workload& w) {
  out << kSavedLoadMark << " seed=" << w.seed;
  if (w.until != kNoTime) out << " until=" << w.until;
  if (w.epoch_offset) out << " epoch_offset=" << w.epoch_offset;
  std::string qos;
  for (const std::string& q : w.assumed_qos) qos += (qos.empty() ? "" : ",") + q;
  if (!qos.empty()) out << " assumed_qos=" << qos;
  out << "\n";
  if (!w.description.empty()) out << "# description: " << field(w.description) << "\n";
  for (const std::string& idle : w.idle_partitions) out << "# idle partition: " << field(idle) << "\n";
  out << "JobIDRaw|Submit|Eligible|ElapsedRaw|Timelimit|ReqCPUS|ReqNodes|ReqMem|ReqTRES|Partition|Account|User|Group|"
         "QOS|Nice|Reservation|State\n";
  for (const JobRequest& j : w.jobs) {
    std::string parts;
    for (const std::string& p : j.partitions) parts += (parts.empty() ? "" : ",") + field(p);
    // Times as epoch seconds: the reader takes them as they are (no time zone in between).
    out << fmt::format(
        "{}|{}|{}|{}|{}|{}|{}|{}|{}|{}|{}|{}|{}|{}|{}|{}|PENDING\n", j.id, j.submit,
        j.eligible == kNoTime ? "" : std::to_string(j.eligible), j.run_time,
        j.time_limit == kNoTime ? std::string("Partition_Limit")
                                : std::to_string(j.time_limit / 60) + ":" + fmt::format("{:02}", j.time_limit % 60),
        j.cpus, j.nodes ? std::to_string(j.nodes) : "", memory(j), j.gpus ? fmt::format("gres/gpu={}", j.gpus) : "",
        parts, field(j.account), field(j.user), field(j.group), field(j.qos), j.nice, field(j.reservation));
  }
}

}  // namespace sa::engine
