#include "tune/progress.h"

#include <sys/ioctl.h>
#include <unistd.h>

#include <ostream>

#include <fmt/format.h>

namespace sa::tune {

Progress::Progress(std::ostream* out, bool in_place, const SearchPlan& plan, const std::vector<Goal>& goals,
                   std::size_t total)
    : out_(out), in_place_(in_place), plan_(plan), goals_(goals), total_(total) {}

void Progress::finished(std::size_t slot, const SeedValues& values) {
  ++done_;
  if (slot > 0 && cut_seeds(values).empty()) {  // a cut run is never the best
    CandidateResult c;
    c.index = plan_.candidates[slot].index;
    summarise(c, values, goals_);
    if (!best_ || ranks_before(c, *best_)) best_ = std::move(c);
  }
  if (!out_) return;
  if (!in_place_) {
    *out_ << line() << "\n" << std::flush;  // a log: one line each
    return;
  }
  // "\r" and erase-to-end-of-line rewrite the line, which must not wrap to do so.
  std::string text = line();
  winsize size{};
  if (::ioctl(STDERR_FILENO, TIOCGWINSZ, &size) == 0 && size.ws_col > 1 && text.size() >= size.ws_col) {
    text.resize(size.ws_col - 1u);
  }
  *out_ << "\r" << text << "\033[K" << std::flush;
}

void Progress::close() {
  if (out_ && in_place_ && done_ > 0) *out_ << "\n" << std::flush;
}

std::string Progress::line() const {
  std::string best = "none yet";
  if (best_) {
    best.clear();
    for (std::size_t g = 0; g < goals_.size(); ++g) {
      best += (g ? ", " : "") + format_value(goals_[g], best_->goals[g].value.mean);
    }
    best += fmt::format(" ({}/{} goals)", best_->passes, goals_.size());
  }
  return fmt::format("tune: {}/{} candidates done, best so far: {}", done_, total_, best);
}

bool stderr_is_terminal() { return ::isatty(STDERR_FILENO) == 1; }

}  // namespace sa::tune
