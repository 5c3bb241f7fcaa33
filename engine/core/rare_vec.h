#pragma once
// A vector that costs one pointer while it is empty. Most jobs have no dependencies, licences,
// gang or preemption events, limit blocks or matching-OR alternatives, yet every job held an
// empty std::vector (24 bytes) for each; at 100,000 jobs that is megabytes of nothing. The
// interface is the part of std::vector those fields use, so their readers are unchanged.
#include <cstddef>
#include <initializer_list>
#include <iterator>
#include <memory>
#include <utility>
#include <vector>

namespace sa::engine {

template <class T>
class RareVec {
 public:
  RareVec() = default;
  RareVec(std::initializer_list<T> items) {
    if (items.size()) v_ = std::make_unique<std::vector<T>>(items);
  }
  RareVec(const RareVec& o) : v_(o.v_ && !o.v_->empty() ? std::make_unique<std::vector<T>>(*o.v_) : nullptr) {}
  RareVec(RareVec&&) noexcept = default;
  RareVec& operator=(const RareVec& o) {
    if (this != &o) RareVec(o).swap(*this);
    return *this;
  }
  RareVec& operator=(RareVec&&) noexcept = default;
  RareVec& operator=(std::vector<T> items) {
    v_ = items.empty() ? nullptr : std::make_unique<std::vector<T>>(std::move(items));
    return *this;
  }
  RareVec& operator=(std::initializer_list<T> items) { return *this = std::vector<T>(items); }
  ~RareVec() = default;

  bool empty() const noexcept { return !v_ || v_->empty(); }
  std::size_t size() const noexcept { return v_ ? v_->size() : 0; }
  T* begin() noexcept { return v_ ? v_->data() : nullptr; }
  T* end() noexcept { return v_ ? v_->data() + v_->size() : nullptr; }
  const T* begin() const noexcept { return v_ ? v_->data() : nullptr; }
  const T* end() const noexcept { return v_ ? v_->data() + v_->size() : nullptr; }
  std::reverse_iterator<T*> rbegin() noexcept { return std::reverse_iterator<T*>(end()); }
  std::reverse_iterator<T*> rend() noexcept { return std::reverse_iterator<T*>(begin()); }
  std::reverse_iterator<const T*> rbegin() const noexcept { return std::reverse_iterator<const T*>(end()); }
  std::reverse_iterator<const T*> rend() const noexcept { return std::reverse_iterator<const T*>(begin()); }
  T* data() noexcept { return begin(); }
  const T* data() const noexcept { return begin(); }
  T& operator[](std::size_t i) { return (*v_)[i]; }
  const T& operator[](std::size_t i) const { return (*v_)[i]; }
  T& front() { return v_->front(); }
  const T& front() const { return v_->front(); }
  T& back() { return v_->back(); }
  const T& back() const { return v_->back(); }
  void push_back(T item) { items().push_back(std::move(item)); }
  template <class... Args>
  T& emplace_back(Args&&... args) {
    return items().emplace_back(std::forward<Args>(args)...);
  }
  void resize(std::size_t n, const T& value = T()) {
    if (n || v_) items().resize(n, value);
  }
  void clear() noexcept {
    if (v_) v_->clear();  // (keeps the storage, as std::vector does, for a vector refilled often)
  }
  void swap(RareVec& o) noexcept { v_.swap(o.v_); }
  /// The items as a std::vector, for code that takes one.
  const std::vector<T>& vec() const noexcept {
    static const std::vector<T> none;
    return v_ ? *v_ : none;
  }
  friend bool operator==(const RareVec& a, const RareVec& b) {
    return a.size() == b.size() && (a.empty() || *a.v_ == *b.v_);
  }
  friend bool operator==(const RareVec& a, const std::vector<T>& b) { return a.vec() == b; }

 private:
  std::vector<T>& items() {
    if (!v_) v_ = std::make_unique<std::vector<T>>();
    return *v_;
  }
  std::unique_ptr<std::vector<T>> v_;
};

}  // namespace sa::engine
