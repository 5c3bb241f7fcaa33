#pragma once
// A vector of plain values in one heap block: one pointer in its owner (std::vector takes
// three), the size and capacity at the head of the block, nothing at all while empty. Every
// job holds several (its Reason spans, its allocation's pieces and, once it has ended, runs,
// its partition list, its records' TRES factors), so at 100,000 jobs the 16 bytes saved per
// vector are megabytes. Only for trivially copyable items: the block is moved with realloc.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <initializer_list>
#include <iterator>
#include <new>
#include <stdexcept>
#include <type_traits>
#include <utility>
#include <vector>

namespace sa::engine {

template <class T>
class PackedVec {
  static_assert(std::is_trivially_copyable_v<T>, "PackedVec moves its items with realloc");
  static_assert(alignof(T) <= 8, "items follow an 8-byte head");

 public:
  using value_type = T;
  using iterator = T*;
  using const_iterator = const T*;

  PackedVec() noexcept = default;
  PackedVec(std::initializer_list<T> items) { assign(items.begin(), items.end()); }
  explicit PackedVec(const std::vector<T>& items) { assign(items.data(), items.data() + items.size()); }
  template <std::forward_iterator It>
  PackedVec(It first, It last) {
    assign(first, last);
  }
  PackedVec(const PackedVec& o) { assign(o.begin(), o.end()); }
  PackedVec(PackedVec&& o) noexcept : b_(std::exchange(o.b_, nullptr)) {}
  PackedVec& operator=(const PackedVec& o) {
    if (this == &o) return *this;
    if (o.empty()) {
      clear();
    } else if (o.size() <= capacity()) {
      std::memcpy(static_cast<void*>(data()), o.data(), o.size() * sizeof(T));
      b_->size = static_cast<std::uint32_t>(o.size());
    } else {
      PackedVec(o).swap(*this);
    }
    return *this;
  }
  PackedVec& operator=(PackedVec&& o) noexcept {
    if (this != &o) {
      std::free(b_);
      b_ = std::exchange(o.b_, nullptr);
    }
    return *this;
  }
  PackedVec& operator=(const std::vector<T>& items) {
    assign(items.data(), items.data() + items.size());
    return *this;
  }
  PackedVec& operator=(std::initializer_list<T> items) {
    assign(items.begin(), items.end());
    return *this;
  }
  ~PackedVec() { std::free(b_); }

  bool empty() const noexcept { return size() == 0; }
  std::size_t size() const noexcept { return b_ ? b_->size : 0; }
  std::size_t capacity() const noexcept { return b_ ? b_->cap : 0; }
  T* data() noexcept { return b_ ? items() : nullptr; }
  const T* data() const noexcept { return b_ ? items() : nullptr; }
  T* begin() noexcept { return data(); }
  T* end() noexcept { return data() + size(); }
  const T* begin() const noexcept { return data(); }
  const T* end() const noexcept { return data() + size(); }
  std::reverse_iterator<T*> rbegin() noexcept { return std::reverse_iterator<T*>(end()); }
  std::reverse_iterator<T*> rend() noexcept { return std::reverse_iterator<T*>(begin()); }
  std::reverse_iterator<const T*> rbegin() const noexcept { return std::reverse_iterator<const T*>(end()); }
  std::reverse_iterator<const T*> rend() const noexcept { return std::reverse_iterator<const T*>(begin()); }
  T& operator[](std::size_t i) noexcept { return items()[i]; }
  const T& operator[](std::size_t i) const noexcept { return items()[i]; }
  const T& at(std::size_t i) const {
    if (i >= size()) throw std::out_of_range("PackedVec::at");
    return items()[i];
  }
  T& front() noexcept { return items()[0]; }
  const T& front() const noexcept { return items()[0]; }
  T& back() noexcept { return items()[b_->size - 1]; }
  const T& back() const noexcept { return items()[b_->size - 1]; }

  void push_back(const T& item) { emplace_back(item); }
  template <class... Args>
  T& emplace_back(Args&&... args) {
    const T item(std::forward<Args>(args)...);  // (args may point into this vector)
    if (size() == capacity()) grow(size() + 1);
    T* slot = items() + b_->size;
    ::new (static_cast<void*>(slot)) T(item);
    ++b_->size;
    return *slot;
  }
  void pop_back() noexcept { --b_->size; }
  void reserve(std::size_t n) {
    if (n > capacity()) set_capacity(n);
  }
  void resize(std::size_t n, const T& value = T()) {
    if (n <= size()) {
      if (b_) b_->size = static_cast<std::uint32_t>(n);
      return;
    }
    if (n > capacity()) set_capacity(n);
    Head* b = b_;
    T* out = reinterpret_cast<T*>(reinterpret_cast<char*>(b) + sizeof(Head));
    for (std::size_t i = b->size; i < n; ++i) ::new (static_cast<void*>(out + i)) T(value);
    b->size = static_cast<std::uint32_t>(n);
  }
  /// Keeps the storage, as std::vector does (vectors refilled often reuse it).
  void clear() noexcept {
    if (b_) b_->size = 0;
  }
  void shrink_to_fit() {
    if (size() == 0) {
      std::free(std::exchange(b_, nullptr));
    } else if (size() < capacity()) {
      set_capacity(size());
    }
  }
  template <std::forward_iterator It>
  void assign(It first, It last) {
    const auto n = static_cast<std::size_t>(std::distance(first, last));
    if (n == 0) {
      clear();
      return;
    }
    if (n > capacity()) {
      PackedVec fresh;  // (the old block stays readable while it is copied: [first, last) may be in it)
      fresh.set_capacity(n);
      T* out = fresh.items();
      for (; first != last; ++first, ++out) ::new (static_cast<void*>(out)) T(*first);
      fresh.b_->size = static_cast<std::uint32_t>(n);
      swap(fresh);
      return;
    }
    T* out = items();
    for (; first != last; ++first, ++out) ::new (static_cast<void*>(out)) T(*first);
    b_->size = static_cast<std::uint32_t>(n);
  }
  void assign(std::size_t n, const T& value) {
    clear();
    resize(n, value);
  }
  void swap(PackedVec& o) noexcept { std::swap(b_, o.b_); }
  /// A copy as a std::vector, for code that takes one.
  std::vector<T> vec() const { return std::vector<T>(begin(), end()); }

  friend bool operator==(const PackedVec& a, const PackedVec& b) {
    return std::equal(a.begin(), a.end(), b.begin(), b.end());
  }
  friend bool operator==(const PackedVec& a, const std::vector<T>& b) {
    return std::equal(a.begin(), a.end(), b.begin(), b.end());
  }

 private:
  struct Head {
    std::uint32_t size, cap;
  };
  static_assert(sizeof(Head) == 8);
  T* items() const noexcept { return reinterpret_cast<T*>(reinterpret_cast<char*>(b_) + sizeof(Head)); }
  void grow(std::size_t need) { set_capacity(std::max<std::size_t>(need, capacity() * 2)); }
  void set_capacity(std::size_t cap) {
    if (cap > UINT32_MAX) throw std::length_error("PackedVec");
    void* p = std::realloc(b_, sizeof(Head) + cap * sizeof(T));  // NOLINT(cppcoreguidelines-no-malloc)
    if (!p) throw std::bad_alloc();
    const bool fresh = b_ == nullptr;
    b_ = static_cast<Head*>(p);
    if (fresh) b_->size = 0;
    b_->cap = static_cast<std::uint32_t>(cap);
  }
  Head* b_ = nullptr;
};

}  // namespace sa::engine
