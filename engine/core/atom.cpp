#include "engine/core/atom.h"

#include <mutex>
#include <unordered_set>

namespace sa::engine {

namespace {

struct TextHash {
  using is_transparent = void;
  std::size_t operator()(std::string_view s) const noexcept { return std::hash<std::string_view>{}(s); }
};

// A node-based set: an element's address never changes while the set grows, which is what
// lets an Atom keep a bare pointer and read it without the lock.
struct Pool {
  std::mutex lock;
  std::unordered_set<std::string, TextHash, std::equal_to<>> strings;
};

Pool& pool() {
  static Pool* p = new Pool;  // never destroyed: Atoms in static objects may outlive main
  return *p;
}

}  // namespace

const std::string& Atom::empty_string() noexcept {
  static const std::string e;  // holds no heap memory, so its destruction at exit frees nothing
  return e;
}

Atom::Atom(std::string_view s) : s_(&empty_string()) {
  if (s.empty()) return;
  Pool& p = pool();
  const std::lock_guard<std::mutex> hold(p.lock);
  auto it = p.strings.find(s);
  if (it == p.strings.end()) it = p.strings.emplace(s).first;
  s_ = &*it;
}

std::size_t Atom::pooled() {
  Pool& p = pool();
  const std::lock_guard<std::mutex> hold(p.lock);
  return p.strings.size();
}

}  // namespace sa::engine
