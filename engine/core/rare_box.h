#pragma once
// A value most owners leave at its defaults, held behind one pointer: reads of an empty box
// see the defaults (one shared instance), the first write allocates. Copies are deep. Every
// job holds its rare bookkeeping (gang, preemption, refusal, requeue, --switches and singleton
// state) this way: 8 bytes instead of about a hundred that almost every job leaves unset.
#include <memory>

namespace sa::engine {

template <class T>
class RareBox {
 public:
  RareBox() = default;
  RareBox(const RareBox& o) : p_(o.p_ ? std::make_unique<T>(*o.p_) : nullptr) {}
  RareBox(RareBox&&) noexcept = default;
  RareBox& operator=(const RareBox& o) {
    if (this != &o) p_ = o.p_ ? std::make_unique<T>(*o.p_) : nullptr;
    return *this;
  }
  RareBox& operator=(RareBox&&) noexcept = default;
  ~RareBox() = default;

  /// The value, or the defaults when none was ever written.
  const T& get() const noexcept { return p_ ? *p_ : defaults(); }
  /// The value to write, allocated on first use.
  T& edit() {
    if (!p_) p_ = std::make_unique<T>();
    return *p_;
  }
  bool allocated() const noexcept { return p_ != nullptr; }
  /// Back to the defaults (frees the value).
  void reset() noexcept { p_.reset(); }

 private:
  static const T& defaults() {
    static const T d{};
    return d;
  }
  std::unique_ptr<T> p_;
};

}  // namespace sa::engine
