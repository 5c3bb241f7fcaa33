#include "engine/bf_profile.h"

namespace sa::engine {

void ReleaseProfile::build(const PoolState& base, const std::vector<const Allocation*>& ends) {
  base_ = &base;
  const std::size_t n = base.nodes.size();
  first_.assign(n + 1, 0);
  for (const Allocation* a : ends) {
    for (const AllocPiece& p : a->pieces) ++first_[p.node + 1];
  }
  for (std::size_t i = 0; i < n; ++i) first_[i + 1] += first_[i];
  fill_.assign(first_.begin(), first_.end() - 1);
  steps_.resize(first_[n]);
  freed_.clear();
  idled_.clear();
  spans_.clear();
  span_bits_.clear();
  for (const Allocation* a : ends) {
    Span sp;
    if (!a->pieces.empty()) {
      std::uint32_t lo = a->pieces.front().node, hi = lo;
      for (const AllocPiece& p : a->pieces) {
        lo = std::min(lo, p.node);
        hi = std::max(hi, p.node);
      }
      sp = Span{lo / 64, hi / 64 - lo / 64 + 1, static_cast<std::uint32_t>(span_bits_.size())};
      span_bits_.resize(span_bits_.size() + sp.words, 0);
      for (const AllocPiece& p : a->pieces) span_bits_[sp.bits + p.node / 64 - sp.first_word] |= std::uint64_t{1} << (p.node % 64);
    }
    spans_.push_back(sp);
  }
  free_now_ = base.free;
  idle_now_ = base.idle;
  for (std::uint32_t k = 0; k < ends.size(); ++k) {
    freed_.first.push_back(static_cast<std::uint32_t>(freed_.nodes.size()));
    idled_.first.push_back(static_cast<std::uint32_t>(idled_.nodes.size()));
    for (const AllocPiece& p : ends[k]->pieces) {
      const std::uint32_t i = p.node;
      const std::uint32_t s = fill_[i]++;
      NodeResources after = s == first_[i] ? base.nodes[i] : steps_[s - 1].after;
      release_piece(after, p);
      steps_[s] = Step{k, after};
      // The bits PoolState::give_back sets; they are never cleared by a release.
      if (after.cpus_free > 0 && !free_now_.test(i)) {
        free_now_.set(i);
        freed_.nodes.push_back(i);
      }
      if (after.jobs == 0 && !idle_now_.test(i)) {
        idle_now_.set(i);
        idled_.nodes.push_back(i);
      }
    }
  }
  freed_.first.push_back(static_cast<std::uint32_t>(freed_.nodes.size()));
  idled_.first.push_back(static_cast<std::uint32_t>(idled_.nodes.size()));
}

}  // namespace sa::engine
