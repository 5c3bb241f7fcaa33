#pragma once
// An interned string: one pointer into a process-wide pool that never frees or moves a string.
// A job's names (user, account, QOS, partition hold reasons, its -C/-w/-x text) repeat across
// tens of thousands of jobs; held as std::string each costs 32 bytes and the workload, every
// simulated job and every record hold one. An Atom costs 8, compares for equality by pointer,
// and reads as the `const std::string&` it stands for, so code that only reads a name is
// unchanged. Ordering compares the text (never the pointer), so nothing depends on where a
// string happened to be interned. Interning takes a lock; reading does not (a pooled string
// never changes), so simulations on several threads share the pool.
#include <compare>
#include <cstddef>
#include <functional>
#include <ostream>
#include <string>
#include <string_view>

#include <fmt/format.h>

namespace sa::engine {

class Atom {
 public:
  Atom() noexcept : s_(&empty_string()) {}
  Atom(std::string_view s);  // NOLINT(google-explicit-constructor): a name is assigned as text
  Atom(const std::string& s) : Atom(std::string_view(s)) {}  // NOLINT(google-explicit-constructor)
  Atom(const char* s) : Atom(std::string_view(s)) {}         // NOLINT(google-explicit-constructor)

  const std::string& str() const noexcept { return *s_; }
  operator const std::string&() const noexcept { return *s_; }  // NOLINT(google-explicit-constructor)
  std::string_view view() const noexcept { return *s_; }
  bool empty() const noexcept { return s_->empty(); }
  std::size_t size() const noexcept { return s_->size(); }
  const char* c_str() const noexcept { return s_->c_str(); }
  const char* data() const noexcept { return s_->data(); }
  auto begin() const noexcept { return s_->begin(); }
  auto end() const noexcept { return s_->end(); }
  char operator[](std::size_t i) const noexcept { return (*s_)[i]; }
  void clear() noexcept { s_ = &empty_string(); }

  friend bool operator==(Atom a, Atom b) noexcept { return a.s_ == b.s_; }
  friend bool operator==(Atom a, std::string_view b) noexcept { return *a.s_ == b; }
  friend bool operator==(Atom a, const std::string& b) noexcept { return *a.s_ == b; }
  friend bool operator==(Atom a, const char* b) noexcept { return *a.s_ == b; }
  friend std::strong_ordering operator<=>(Atom a, Atom b) noexcept { return *a.s_ <=> *b.s_; }
  friend std::strong_ordering operator<=>(Atom a, std::string_view b) noexcept { return a.view() <=> b; }
  friend std::strong_ordering operator<=>(Atom a, const std::string& b) noexcept { return *a.s_ <=> b; }
  friend std::string operator+(Atom a, std::string_view b) { return *a.s_ + std::string(b); }
  friend std::string operator+(std::string_view a, Atom b) { return std::string(a) + *b.s_; }

  friend std::ostream& operator<<(std::ostream& os, Atom a) { return os << *a.s_; }

  /// Strings interned so far (the pool's size), for tests and memory accounting.
  static std::size_t pooled();

 private:
  static const std::string& empty_string() noexcept;
  const std::string* s_;
};

}  // namespace sa::engine

template <>
struct std::hash<sa::engine::Atom> {
  // The text's hash, not the pointer's, so a hashed container orders the same in every run.
  std::size_t operator()(sa::engine::Atom a) const noexcept { return std::hash<std::string_view>{}(a.view()); }
};

template <>
struct fmt::formatter<sa::engine::Atom> : fmt::formatter<std::string_view> {
  auto format(sa::engine::Atom a, fmt::format_context& ctx) const {
    return fmt::formatter<std::string_view>::format(a.view(), ctx);
  }
};
