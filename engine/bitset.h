#pragma once
// A fixed-size node bitmap, the engine's node_bitmap_t: word-wise AND/AND-NOT make the
// backfill availability map cheap on thousands of nodes.
#include <algorithm>
#include <bit>
#include <cstdint>
#include <vector>

namespace sa::engine {

class NodeBitset {
 public:
  NodeBitset() = default;
  explicit NodeBitset(std::size_t size, bool value = false)
      : size_(size), words_((size + 63) / 64, value ? ~std::uint64_t{0} : 0) {
    trim();
  }
  std::size_t size() const { return size_; }
  std::uint64_t word(std::size_t w) const { return words_[w]; }
  const std::uint64_t* data() const { return words_.data(); }
  void or_word(std::size_t w, std::uint64_t bits) { words_[w] |= bits; }
  void clear_word_bits(std::size_t w, std::uint64_t bits) { words_[w] &= ~bits; }
  bool test(std::size_t i) const { return (words_[i >> 6] >> (i & 63)) & 1U; }
  void set(std::size_t i) { words_[i >> 6] |= std::uint64_t{1} << (i & 63); }
  void reset(std::size_t i) { words_[i >> 6] &= ~(std::uint64_t{1} << (i & 63)); }
  void assign(std::size_t i, bool on) { on ? set(i) : reset(i); }
  NodeBitset& operator&=(const NodeBitset& o) {
    for (std::size_t w = 0; w < words_.size(); ++w) words_[w] &= o.words_[w];
    return *this;
  }
  NodeBitset& operator|=(const NodeBitset& o) {
    for (std::size_t w = 0; w < words_.size(); ++w) words_[w] |= o.words_[w];
    return *this;
  }
  /// this &= ~o
  void subtract(const NodeBitset& o) {
    for (std::size_t w = 0; w < words_.size(); ++w) words_[w] &= ~o.words_[w];
  }
  /// Every set bit of this is set in o (bit_super_set(this, o)).
  bool is_subset_of(const NodeBitset& o) const {
    for (std::size_t w = 0; w < words_.size(); ++w) {
      if (words_[w] & ~o.words_[w]) return false;
    }
    return true;
  }
  bool intersects(const NodeBitset& o) const {
    for (std::size_t w = 0; w < words_.size(); ++w) {
      if (words_[w] & o.words_[w]) return true;
    }
    return false;
  }
  /// this = a & b, reusing this bitset's storage.
  void assign_and(const NodeBitset& a, const NodeBitset& b) {
    size_ = a.size_;
    words_.resize(a.words_.size());
    for (std::size_t w = 0; w < words_.size(); ++w) words_[w] = a.words_[w] & b.words_[w];
  }
  /// this = a & b, with b as words (as many as a has).
  void assign_and(const NodeBitset& a, const std::uint64_t* b) {
    size_ = a.size_;
    words_.resize(a.words_.size());
    for (std::size_t w = 0; w < words_.size(); ++w) words_[w] = a.words_[w] & b[w];
  }
  /// this = a & b & c, in one pass.
  void assign_and(const NodeBitset& a, const NodeBitset& b, const NodeBitset& c) {
    size_ = a.size_;
    words_.resize(a.words_.size());
    for (std::size_t w = 0; w < words_.size(); ++w) words_[w] = a.words_[w] & b.words_[w] & c.words_[w];
  }
  /// No bits, `size` of them, reusing this bitset's storage.
  void assign_empty(std::size_t size) {
    size_ = size;
    words_.assign((size + 63) / 64, 0);
  }
  /// this = a & ~b, reusing this bitset's storage.
  void assign_and_not(const NodeBitset& a, const NodeBitset& b) {
    size_ = a.size_;
    words_.resize(a.words_.size());
    for (std::size_t w = 0; w < words_.size(); ++w) words_[w] = a.words_[w] & ~b.words_[w];
  }
  /// this = a & b, returning how many bits it has (one pass instead of an AND and a count).
  std::size_t assign_and_count(const NodeBitset& a, const NodeBitset& b) {
    size_ = a.size_;
    words_.resize(a.words_.size());
    std::size_t n = 0;
    for (std::size_t w = 0; w < words_.size(); ++w) {
      words_[w] = a.words_[w] & b.words_[w];
      n += static_cast<std::size_t>(std::popcount(words_[w]));
    }
    return n;
  }
  /// this = a & b & c, returning how many bits it has.
  std::size_t assign_and_count(const NodeBitset& a, const NodeBitset& b, const NodeBitset& c) {
    size_ = a.size_;
    words_.resize(a.words_.size());
    std::size_t n = 0;
    for (std::size_t w = 0; w < words_.size(); ++w) {
      words_[w] = a.words_[w] & b.words_[w] & c.words_[w];
      n += static_cast<std::size_t>(std::popcount(words_[w]));
    }
    return n;
  }
  /// Whether (a & b) has a bit that (c & d) lacks.
  static bool any_gain(const NodeBitset& a, const NodeBitset& b, const NodeBitset& c, const NodeBitset& d) {
    for (std::size_t w = 0; w < a.words_.size(); ++w) {
      if ((a.words_[w] & b.words_[w]) & ~(c.words_[w] & d.words_[w])) return true;
    }
    return false;
  }
  /// count() >= n, stopping as soon as it is known.
  bool count_at_least(std::size_t n) const {
    if (n == 0) return true;
    std::size_t c = 0;
    for (std::uint64_t w : words_) {
      c += static_cast<std::size_t>(std::popcount(w));
      if (c >= n) return true;
    }
    return false;
  }
  std::size_t count() const {
    std::size_t n = 0;
    for (std::uint64_t w : words_) n += static_cast<std::size_t>(std::popcount(w));
    return n;
  }
  bool none() const {
    for (std::uint64_t w : words_) {
      if (w) return false;
    }
    return true;
  }
  bool operator==(const NodeBitset& o) const { return size_ == o.size_ && words_ == o.words_; }
  /// The first set bit at or after `from`; size() if none.
  std::size_t find_next(std::size_t from) const { return next_where(from, 0); }
  /// The first clear bit at or after `from`; size() if none.
  std::size_t find_next_zero(std::size_t from) const { return next_where(from, ~std::uint64_t{0}); }
  /// Calls f(index) for set bits in ascending order until f returns true.
  template <typename F>
  void for_each_until(F&& f) const {
    for (std::size_t w = 0; w < words_.size(); ++w) {
      std::uint64_t bits = words_[w];
      while (bits) {
        if (f(w * 64 + static_cast<std::size_t>(std::countr_zero(bits)))) return;
        bits &= bits - 1;
      }
    }
  }
  /// Calls f(index) for every set bit in ascending order.
  template <typename F>
  void for_each(F&& f) const {
    for (std::size_t w = 0; w < words_.size(); ++w) {
      std::uint64_t bits = words_[w];
      while (bits) {
        f(w * 64 + static_cast<std::size_t>(std::countr_zero(bits)));
        bits &= bits - 1;
      }
    }
  }

 private:
  // The first bit at or after `from` that is set in (word ^ flip).
  std::size_t next_where(std::size_t from, std::uint64_t flip) const {
    for (std::size_t w = from / 64; w < words_.size(); ++w) {
      std::uint64_t bits = words_[w] ^ flip;
      if (w == from / 64) bits &= ~std::uint64_t{0} << (from % 64);
      if (bits) return std::min(size_, w * 64 + static_cast<std::size_t>(std::countr_zero(bits)));
    }
    return size_;
  }
  void trim() {
    if (size_ % 64 && !words_.empty()) words_.back() &= (std::uint64_t{1} << (size_ % 64)) - 1;
  }
  std::size_t size_ = 0;
  std::vector<std::uint64_t> words_;
};

}  // namespace sa::engine
