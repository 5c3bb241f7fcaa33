#include "engine/workload/synthetic.h"

#include <algorithm>
#include <cmath>
#include <numbers>

#include <fmt/format.h>

#include "analyzer/hostlist.h"
#include "analyzer/text_util.h"
#include "analyzer/values.h"
#include "engine/fair_share.h"
#include "engine/workload/trace_fields.h"

namespace sa::engine {

std::uint64_t Rng::next() {
  std::uint64_t z = (state_ += 0x9E3779B97F4A7C15ULL);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  return z ^ (z >> 31);
}

double Rng::uniform() { return static_cast<double>(next() >> 11) * 0x1.0p-53; }

double Rng::normal() {
  const double u1 = 1.0 - uniform();  // (0, 1]
  const double u2 = uniform();
  return std::sqrt(-2.0 * std::log(u1)) * std::cos(2.0 * std::numbers::pi * u2);
}

double Rng::sample(const Distribution& d) {
  switch (d.kind) {
    case Distribution::Kind::kFixed:
      return d.a;
    case Distribution::Kind::kUniform:
      return d.a + (d.b - d.a) * uniform();
    case Distribution::Kind::kExponential:
      return -d.a * std::log(1.0 - uniform());
    case Distribution::Kind::kLognormal:
      return d.a * std::exp(d.b * normal());
  }
  return d.a;
}

namespace {

struct ProfileReader {
  FileId file;
  DiagnosticSink& sink;
  NodeListBudget budget;  // the reservations' node lists, together
  int line = 0;
  int column = 1;

  void error(const std::string& message, std::string hint = {}) {
    sink.error("WORK005", {file, line, column}, message, std::move(hint));
  }

  std::optional<double> number(std::string_view text) {
    auto v = parse_double(trim(text));
    if (!v || !std::isfinite(*v)) {
      error(fmt::format("'{}' is not a number", trim(text)));
      return std::nullopt;
    }
    return *v;
  }
  std::optional<std::int64_t> duration(std::string_view text) {
    // A bare number is seconds here (sacct's "MM" reading of a bare number would surprise).
    // Range-checked before the conversion, which is undefined past int64.
    if (auto n = parse_double(trim(text)); n && *n >= 0 && *n <= static_cast<double>(kMaxTraceSeconds)) {
      return static_cast<std::int64_t>(*n);
    }
    if (auto d = parse_trace_duration(text)) return *d;
    error(fmt::format("'{}' is not a duration ([D-]HH:MM:SS or seconds)", trim(text)));
    return std::nullopt;
  }
  template <typename T, typename F>
  std::optional<Weighted<T>> weighted(std::string_view text, F parse_value) {
    Weighted<T> out;
    for (const std::string& item : split(text, ',')) {
      std::string_view s = trim(item);
      if (s.empty()) continue;
      double w = 1;
      auto colon = s.rfind(':');
      std::string_view value = s;
      if (colon != std::string_view::npos) {
        auto wv = parse_double(trim(s.substr(colon + 1)));
        if (wv && *wv >= 0) {
          w = *wv;
          value = trim(s.substr(0, colon));
        }
      }
      auto v = parse_value(value);
      if (!v) return std::nullopt;
      out.emplace_back(std::move(*v), w);
    }
    double total = 0;
    for (const auto& item : out) total += item.second;
    if (out.empty() || total <= 0) {
      error("a weighted list needs at least one item with a positive weight (item:weight, ...)");
      return std::nullopt;
    }
    return out;
  }
  std::optional<Distribution> distribution(std::string_view text) {
    const std::vector<std::string> w = split_whitespace(text);
    Distribution d;
    auto num = [&](std::size_t i) -> std::optional<double> {
      if (i >= w.size()) {
        error("missing parameter for the distribution");
        return std::nullopt;
      }
      auto v = duration(w[i]);
      return v ? std::optional<double>(static_cast<double>(*v)) : std::nullopt;
    };
    if (w.empty()) {
      error("expected fixed V | uniform A B | exponential MEAN | lognormal MEDIAN SIGMA");
      return std::nullopt;
    }
    const std::string kind = to_lower(w[0]);
    if (kind == "fixed") {
      auto a = num(1);
      if (!a) return std::nullopt;
      d = {Distribution::Kind::kFixed, *a, 0};
    } else if (kind == "uniform") {
      auto a = num(1), b = num(2);
      if (!a || !b) return std::nullopt;
      d = {Distribution::Kind::kUniform, std::min(*a, *b), std::max(*a, *b)};
    } else if (kind == "exponential" || kind == "exp") {
      auto a = num(1);
      if (!a) return std::nullopt;
      d = {Distribution::Kind::kExponential, *a, 0};
    } else if (kind == "lognormal") {
      auto a = num(1);
      if (!a) return std::nullopt;
      if (w.size() < 3) {
        error("lognormal needs MEDIAN and SIGMA");
        return std::nullopt;
      }
      auto b = parse_double(w[2]);
      if (!b || *b < 0) {
        error(fmt::format("'{}' is not a valid sigma", w[2]));
        return std::nullopt;
      }
      d = {Distribution::Kind::kLognormal, *a, *b};
    } else {
      error(fmt::format("unknown distribution '{}': use fixed, uniform, exponential or lognormal", w[0]));
      return std::nullopt;
    }
    return d;
  }
};

std::optional<std::uint32_t> count_value(ProfileReader& r, std::string_view v) {
  auto n = parse_uint(trim(v), IntWidth::k32);
  if (!n) {
    r.error(fmt::format("'{}' is not a count", trim(v)));
    return std::nullopt;
  }
  return static_cast<std::uint32_t>(*n);
}

// A time in a reservation line: +DURATION after the profile start, or an absolute time.
std::optional<std::int64_t> resv_time(ProfileReader& r, std::string_view v, std::int64_t origin) {
  if (!v.empty() && v[0] == '+') {
    if (auto d = r.duration(v.substr(1))) return origin + *d;
    return std::nullopt;
  }
  if (auto t = parse_trace_time(v)) return *t;
  r.error(fmt::format("'{}' is not a time (+DURATION after the profile start, epoch or ISO)", v));
  return std::nullopt;
}

std::optional<Reservation> reservation_value(ProfileReader& r, std::string_view value, std::int64_t origin) {
  std::vector<std::string> words = split_whitespace(value);
  if (words.empty() || words[0].find('=') != std::string::npos) {
    r.error(
        "a reservation starts with its name: `reservation = NAME start=+1-00:00:00 duration=04:00:00 nodes=ALL "
        "flags=MAINT`");
    return std::nullopt;
  }
  Reservation resv;
  resv.name = words[0];
  bool have_start = false, have_end = false;
  std::int64_t length = -1;
  for (std::size_t i = 1; i < words.size(); ++i) {
    const auto eq = words[i].find('=');
    const std::string k = to_lower(words[i].substr(0, eq));
    const std::string v = eq == std::string::npos ? "" : words[i].substr(eq + 1);
    if (k == "start") {
      auto t = resv_time(r, v, origin);
      if (!t) return std::nullopt;
      resv.start = *t;
      have_start = true;
    } else if (k == "end") {
      auto t = resv_time(r, v, origin);
      if (!t) return std::nullopt;
      resv.end = *t;
      have_end = true;
    } else if (k == "duration") {
      auto d = r.duration(v);
      if (!d) return std::nullopt;
      length = *d;
    } else if (k == "nodes") {
      if (iequals(v, "ALL")) {
        resv.nodes = {"ALL"};
      } else if (auto names = expand_hostlist(v, r.budget.options())) {
        resv.nodes = *names;
      } else {
        r.error(fmt::format("'{}' is not a hostlist: {}", v, names.error()));
        return std::nullopt;
      }
    } else if (k == "nodecnt" || k == "node_count") {
      auto n = count_value(r, v);
      if (!n) return std::nullopt;
      resv.node_count = *n;
    } else if (k == "flags") {
      for (const std::string& f : split(v, ',')) resv.flags.push_back(to_upper(f));
    } else if (k == "users") {
      resv.users = split(v, ',');
    } else if (k == "accounts") {
      resv.accounts = split(v, ',');
    } else if (k == "partition") {
      resv.partition = v;
    } else {
      r.error(
          fmt::format("unknown reservation key '{}': use start, end, duration, nodes, nodecnt, flags, users, "
                      "accounts or partition",
                      k));
      return std::nullopt;
    }
  }
  if (!have_end && length >= 0) resv.end = resv.start + length;
  if (!have_start || (!have_end && length < 0) || resv.end <= resv.start || (resv.nodes.empty() && !resv.node_count)) {
    r.error("a reservation needs start, an end or duration after it, and nodes or nodecnt");
    return std::nullopt;
  }
  return resv;
}

// The keys of when jobs arrive and how many; false when the key is none of them.
bool read_arrival_key(ProfileReader& r, const std::string& key, std::string_view value, Profile& p) {
  if (key == "seed") {
    if (auto v = parse_uint(value, IntWidth::k64))
      p.seed = *v;
    else
      r.error(fmt::format("'{}' is not a seed (an unsigned integer)", value));
  } else if (key == "start") {
    if (auto t = parse_trace_time(value))
      p.start = *t;
    else
      r.error(fmt::format("'{}' is not a time (epoch seconds or YYYY-MM-DDTHH:MM:SS)", value));
  } else if (key == "duration") {
    if (auto d = r.duration(value)) p.duration = std::max<std::int64_t>(1, *d);
  } else if (key == "jobs") {
    if (auto n = parse_uint(value, IntWidth::k64))
      p.max_jobs = static_cast<std::int64_t>(*n);
    else
      r.error(fmt::format("'{}' is not a job count", value));
  } else if (key == "jobs_per_hour") {
    if (auto v = r.number(value)) {
      if (*v > 0)
        p.jobs_per_hour = *v;
      else
        r.error("jobs_per_hour must be positive");
    }
  } else if (key == "daily_cycle") {
    if (auto v = r.number(value)) {
      if (*v >= 0 && *v < 1)
        p.daily_cycle = *v;
      else
        r.error("daily_cycle is an amplitude in [0, 1)");
    }
  } else {
    return false;
  }
  return true;
}

// The keys of what a job asks for and how long it runs; false when the key is none of them.
bool read_job_shape_key(ProfileReader& r, const std::string& key, std::string_view value, Profile& p) {
  if (key == "cpus") {
    if (auto w = r.weighted<std::uint32_t>(value, [&](std::string_view v) { return count_value(r, v); })) p.cpus = *w;
  } else if (key == "gpus") {
    if (auto w = r.weighted<std::uint32_t>(value, [&](std::string_view v) { return count_value(r, v); })) p.gpus = *w;
  } else if (key == "exclusive_fraction") {
    if (auto v = r.number(value)) {
      if (*v >= 0 && *v <= 1)
        p.exclusive_fraction = *v;
      else
        r.error("exclusive_fraction is a fraction in [0, 1]");
    }
  } else if (key == "runtime") {
    if (auto d = r.distribution(value)) p.runtime = *d;
  } else if (key == "runtime_max") {
    if (auto d = r.duration(value)) p.runtime_max = std::max<std::int64_t>(1, *d);
  } else if (key == "limit_factor") {
    const std::vector<std::string> w = split_whitespace(value);
    auto a = !w.empty() ? parse_double(w[0]) : Result<double>(Error{""});
    auto b = w.size() >= 2 ? parse_double(w[1]) : a;
    if (!a || !b || *a < 1 || *b < *a)
      r.error("limit_factor is MIN [MAX] with 1 <= MIN <= MAX");
    else {
      p.limit_factor_min = *a;
      p.limit_factor_max = *b;
    }
  } else if (key == "limit_round") {
    if (auto d = r.duration(value)) p.limit_round = std::max<std::int64_t>(60, *d);
  } else if (key == "mem_per_cpu") {
    if (auto v = parse_uint(value, IntWidth::k64))
      p.mem_per_cpu = *v;
    else
      r.error(fmt::format("'{}' is not a memory size in MB", value));
  } else {
    return false;
  }
  return true;
}

// `users = tree`, or a list of user:account[:weight]; a bad item is reported and left out.
void read_users(ProfileReader& r, std::string_view value, Profile& p) {
  if (iequals(value, "tree")) {
    p.users_from_tree = true;
    return;
  }
  p.users_from_tree = false;
  p.users.clear();
  for (const std::string& item : split(value, ',')) {
    std::vector<std::string> f = split(std::string(trim(item)), ':');
    if (f.size() < 2 || f.size() > 3 || trim(f[0]).empty() || trim(f[1]).empty()) {
      r.error(fmt::format("'{}' is not user:account[:weight]", trim(item)));
      continue;
    }
    double w = 1;
    if (f.size() == 3) {
      auto v = parse_double(trim(f[2]));
      if (!v || *v < 0) {
        r.error(fmt::format("'{}' is not a weight", f[2]));
        continue;
      }
      w = *v;
    }
    p.users.push_back({{std::string(trim(f[0])), to_lower(trim(f[1]))}, w});
  }
}

// The keys of where jobs go and who submits them; false when the key is none of them.
bool read_target_key(ProfileReader& r, const std::string& key, std::string_view value, Profile& p) {
  if (key == "partition" || key == "partitions") {
    if (auto w = r.weighted<std::string>(value, [](std::string_view v) { return std::optional<std::string>(v); }))
      p.partitions = *w;
  } else if (key == "qos") {
    if (auto w =
            r.weighted<std::string>(value, [](std::string_view v) { return std::optional<std::string>(to_lower(v)); }))
      p.qos = *w;
  } else if (key == "users") {
    read_users(r, value, p);
  } else if (key == "reservation") {
    if (auto resv = reservation_value(r, value, p.start)) p.reservations.push_back(std::move(*resv));
  } else {
    return false;
  }
  return true;
}

void report_unknown_key(ProfileReader& r, const std::string& key, const std::string& raw) {
  static const std::vector<std::string> kKeys = {
      "seed",        "start",       "duration",           "jobs",    "jobs_per_hour", "daily_cycle",
      "cpus",        "gpus",        "exclusive_fraction", "runtime", "runtime_max",   "limit_factor",
      "limit_round", "mem_per_cpu", "partition",          "qos",     "users",         "reservation"};
  r.column = static_cast<int>(raw.find_first_not_of(" \t")) + 1;
  const std::string hint = closest_match(key, kKeys);
  r.error(fmt::format("unknown profile key '{}'", key), hint.empty() ? "" : fmt::format("did you mean '{}'?", hint));
}

}  // namespace

Profile read_profile(FileId file, const SourceManager& sources, DiagnosticSink& sink, const InputLimits& limits) {
  Profile p;
  p.name = sources.path(file);
  ProfileReader r{file, sink, NodeListBudget(limits)};
  for (const std::string& raw : split(sources.file(file).content, '\n')) {
    ++r.line;
    std::string text = raw;
    if (auto hash = text.find('#'); hash != std::string::npos) text.erase(hash);
    std::string_view line = trim(text);
    if (line.empty()) continue;
    auto eq = line.find('=');
    r.column = 1;
    if (eq == std::string_view::npos) {
      r.error("expected `key = value`");
      continue;
    }
    const std::string key = to_lower(trim(line.substr(0, eq)));
    const std::string_view value = trim(line.substr(eq + 1));
    r.column = static_cast<int>(raw.find_first_not_of(" \t", raw.find('=') + 1)) + 1;
    if (!read_arrival_key(r, key, value, p) && !read_job_shape_key(r, key, value, p) &&
        !read_target_key(r, key, value, p)) {
      report_unknown_key(r, key, raw);
    }
  }
  return p;
}

Result<Profile> read_profile_file(const std::string& path, SourceManager& sources, DiagnosticSink& sink,
                                  const InputLimits& limits) {
  Result<FileId> file = sources.load(path);
  if (!file) return Error{file.error()};
  return read_profile(*file, sources, sink, limits);
}

Weighted<std::pair<std::string, std::string>> users_by_target_share(const AssocTree& tree,
                                                                    const std::function<bool(std::uint32_t)>& admit) {
  Weighted<std::pair<std::string, std::string>> users;
  FairShare fs(tree, FairShareSettings{});
  for (std::uint32_t id : tree.hierarchical_order()) {
    const Association& a = tree.assocs[id];
    if (!a.is_user() || !a.partition.empty() || (admit && !admit(id))) continue;
    users.push_back({{a.user, a.account}, fs.target_share(id)});
  }
  return users;
}

Workload generate(const Profile& p, const Config& config, const AssocTree* tree) {
  Workload w;
  w.format = WorkloadFormat::kSynthetic;
  w.names_accounts = true;
  w.source = p.name;
  w.reservations = p.reservations;
  Rng rng(p.seed);
  // Users: from the share tree, weighted by each user's target share (uniform if all are 0).
  Weighted<std::pair<std::string, std::string>> users = p.users;
  if (p.users_from_tree && tree) {
    for (auto& u : users_by_target_share(*tree)) users.push_back(std::move(u));
    double total = 0;
    for (const auto& u : users) total += u.second;
    if (total <= 0) {
      for (auto& u : users) u.second = 1;
    }
  }
  if (users.empty()) {
    for (int i = 1; i <= 8; ++i)
      users.push_back({{fmt::format("user{}", i), fmt::format("account{}", (i + 1) / 2)}, 1.0});
  }
  // Poisson arrivals with a daily cycle, by thinning: candidate gaps at the peak rate,
  // each kept with probability rate(t) / peak.
  const double base = p.jobs_per_hour / 3600.0;
  const double peak = base * (1.0 + p.daily_cycle);
  double t = static_cast<double>(p.start);
  const double end = static_cast<double>(p.start + p.duration);
  std::uint32_t id = 1;
  while (true) {
    t += -std::log(1.0 - rng.uniform()) / peak;
    if (t >= end || (p.max_jobs > 0 && id > static_cast<std::uint64_t>(p.max_jobs))) break;
    // A profile asking for a year at a million jobs an hour stops at the sim-jobs default.
    if (id > static_cast<std::uint64_t>(InputLimits{}.sim_jobs)) break;
    const double hour = std::fmod(t / 3600.0, 24.0);
    const double rate = base * (1.0 + p.daily_cycle * std::cos(2.0 * std::numbers::pi * (hour - 14.0) / 24.0));
    if (rng.uniform() * peak > rate) continue;
    JobRequest j;
    j.id = id++;
    j.submit = static_cast<std::int64_t>(t);
    j.cpus = std::max<std::uint32_t>(1, pick(p.cpus, rng));
    j.gpus = pick(p.gpus, rng);
    j.exclusive = p.exclusive_fraction > 0 && rng.uniform() < p.exclusive_fraction;
    const auto& user = pick(users, rng);
    j.user = user.first;
    j.account = user.second;
    if (!p.partitions.empty()) j.partitions.push_back(pick(p.partitions, rng));
    if (!p.qos.empty()) j.qos = pick(p.qos, rng);
    if (p.mem_per_cpu) {
      j.mem_mb = p.mem_per_cpu;
      j.mem_per_cpu = true;
      j.mem_set = true;
    }
    std::int64_t cap = p.runtime_max;
    const Partition* part = j.partitions.empty() ? config.default_partition() : config.find_partition(j.partitions[0]);
    if (part && part->max_time > 0) cap = std::min(cap, part->max_time);
    const double run = std::clamp(rng.sample(p.runtime), 1.0, static_cast<double>(cap));
    const double factor = p.limit_factor_min + (p.limit_factor_max - p.limit_factor_min) * rng.uniform();
    std::int64_t limit =
        static_cast<std::int64_t>(std::ceil(run * factor / static_cast<double>(p.limit_round))) * p.limit_round;
    limit = std::max<std::int64_t>(60, std::min(limit, cap));
    j.time_limit = limit;
    j.run_time = std::min<std::int64_t>(static_cast<std::int64_t>(run), limit);
    w.jobs.push_back(std::move(j));
  }
  return w;
}

}  // namespace sa::engine
