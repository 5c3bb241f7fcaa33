#pragma once
// A small stand-in for std::expected: clang 14 (used for the fuzzers) cannot compile
// libstdc++'s <expected>, so I/O and CLI failures travel in this type instead.
#include <string>
#include <utility>
#include <variant>

namespace sa {

/// Why an input was not read: it failed (missing, unreadable), was refused on purpose (not a
/// regular file, outside the include roots) or is beyond a limit.
enum class ErrorKind { kFailed, kRefused, kTooLarge };

struct Error {
  std::string message;
  ErrorKind kind = ErrorKind::kFailed;
};

template <typename T>
class Result {
 public:
  Result(T value) : data_(std::move(value)) {}      // NOLINT: implicit by design, like expected
  Result(Error error) : data_(std::move(error)) {}  // NOLINT

  bool ok() const { return std::holds_alternative<T>(data_); }
  explicit operator bool() const { return ok(); }
  T& value() { return std::get<T>(data_); }
  const T& value() const { return std::get<T>(data_); }
  T& operator*() { return value(); }
  const T& operator*() const { return value(); }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }
  T value_or(T fallback) const { return ok() ? value() : std::move(fallback); }
  const std::string& error() const { return std::get<Error>(data_).message; }
  const Error& failure() const { return std::get<Error>(data_); }

 private:
  std::variant<T, Error> data_;
};

}  // namespace sa
