#include "analyzer/constraint.h"

#include <fmt/format.h>
#include <algorithm>
#include <cctype>
#include <limits>
#include <optional>

#include "analyzer/values.h"

namespace sa {

namespace {

constexpr std::size_t kNone = std::numeric_limits<std::size_t>::max();

bool is_special(char c) {
  return c == '*' || c == '&' || c == '|' || c == '[' || c == ']' || c == '(' || c == ')' || c == ',';
}

bool is_bracket_op(FeatureOp op) { return op == FeatureOp::kMatchingOr || op == FeatureOp::kCountedAnd; }

struct SyntaxError {
  std::size_t offset;
  std::string message;
};

// One pass over the text with build_feature_list()'s state: the pending feature name, its
// count, and the bracket and parenthesis depths. A special character ends a name; other
// characters after a name (and after its count) are skipped, as Slurm skips them.
class ConstraintParser {
 public:
  explicit ConstraintParser(std::string_view text) : text_(text) { out_.text = std::string(text); }

  Result<Constraint> run(std::size_t* error_offset) {
    std::optional<SyntaxError> error = scan();
    if (!error) error = check_brackets();
    if (!error) return std::move(out_);
    if (error_offset) *error_offset = error->offset;
    return Error{fmt::format("character {}: {}", error->offset + 1, error->message)};
  }

 private:
  std::optional<SyntaxError> scan() {
    for (std::size_t i = 0; i < text_.size(); ++i) {
      const char c = text_[i];
      if (!is_special(c)) {
        if (name_ == kNone) start_name(i);
        continue;
      }
      std::optional<SyntaxError> error;
      if (c == '*')
        error = read_count(i);
      else if (c == '&' || c == ',' || c == '|')
        error = close_term(i, c == '|');
      else if (c == '[')
        error = open_bracket(i);
      else if (c == ']')
        error = close_group(i, bracket_, "']' needs a feature before it and a '[' to close");
      else if (c == '(')
        error = open_paren(i);
      else
        error = close_group(i, paren_, "')' needs a feature before it and a '(' to close");
      if (error) return error;
    }
    if (name_ != kNone) push_term(FeatureOp::kEnd);
    if (bracket_ != 0) return SyntaxError{bracket_at_, "unbalanced brackets: '[' is never closed"};
    if (paren_ != 0) return SyntaxError{paren_at_, "unbalanced parenthesis: '(' is never closed"};
    return std::nullopt;
  }

  void start_name(std::size_t i) {
    name_ = i;
    name_in_paren_ = paren_ > 0;
    name_in_bracket_ = bracket_ > 0;
    std::size_t end = i;
    while (end < text_.size() && !is_special(text_[end])) ++end;
    name_len_ = end - i;
  }

  // '*N': C strtol() base 10 (leading blanks and a sign accepted); N must be at least 1.
  std::optional<SyntaxError> read_count(std::size_t& i) {
    if (name_ == kNone) return SyntaxError{i, "a count '*N' must follow a feature name"};
    if (paren_ != 0) return SyntaxError{i, "a count '*N' is not allowed inside parentheses"};
    const DecimalPrefix n = read_decimal_prefix(text_.substr(i + 1));
    if (n.digits == 0 || n.negative || n.value == 0)
      return SyntaxError{i, "a count '*N' needs a whole number N of at least 1"};
    if (n.value > 0x7FFFFFFF) return SyntaxError{i, "the count is too large"};
    count_ = static_cast<std::uint32_t>(n.value);
    i += n.end;  // the loop's ++i moves past the last digit
    return std::nullopt;
  }

  std::optional<SyntaxError> close_term(std::size_t i, bool is_or) {
    if (name_ == kNone) return SyntaxError{i, fmt::format("'{}' must follow a feature name", text_[i])};
    FeatureOp op = is_or ? FeatureOp::kOr : FeatureOp::kAnd;
    if (paren_ == 0 && bracket_ > 0) op = is_or ? FeatureOp::kMatchingOr : FeatureOp::kCountedAnd;
    push_term(op);
    return std::nullopt;
  }

  std::optional<SyntaxError> open_bracket(std::size_t i) {
    if (name_ != kNone || bracket_ > 0) {
      return SyntaxError{i, "'[' must start a term, and brackets do not nest"};
    }
    if (++bracket_sets_ > 1) return SyntaxError{i, "only one set of brackets is allowed"};
    ++bracket_;
    bracket_at_ = i;
    return std::nullopt;
  }

  std::optional<SyntaxError> open_paren(std::size_t i) {
    if (name_ != kNone || paren_ > 0) return SyntaxError{i, "'(' must start a term, and parentheses do not nest"};
    ++paren_;
    paren_at_ = i;
    return std::nullopt;
  }

  // ']' and ')' leave the pending name in place: the operator after them closes the term.
  std::optional<SyntaxError> close_group(std::size_t i, int& depth, const char* message) {
    if (name_ == kNone || depth == 0) return SyntaxError{i, message};
    --depth;
    return std::nullopt;
  }

  void push_term(FeatureOp op) {
    FeatureTerm t;
    t.name = std::string(text_.substr(name_, name_len_));
    t.count = count_;
    t.op = op;
    t.paren = paren_;
    t.in_paren = name_in_paren_;
    t.in_bracket = name_in_bracket_;
    t.offset = name_;
    out_.terms.push_back(std::move(t));
    name_ = kNone;
    count_ = 0;
  }

  // _valid_feature_list(): '&' inside brackets joins counted terms, '|' inside brackets
  // (matching OR) takes none, and the bracket's last term follows its siblings.
  std::optional<SyntaxError> check_brackets() const {
    bool has_counted_and = false, has_matching_or = false;
    for (const FeatureTerm& t : out_.terms) {
      if (t.op == FeatureOp::kCountedAnd && t.count == 0)
        return SyntaxError{t.offset,
                           fmt::format("'{}': '&' inside brackets joins counted features: write {}*N", t.name, t.name)};
      if (t.op == FeatureOp::kMatchingOr && t.count != 0)
        return SyntaxError{t.offset, fmt::format("'{}': a matching OR ('|' inside brackets) takes no counts", t.name)};
      if (t.in_bracket && !is_bracket_op(t.op)) {
        if ((has_counted_and && t.count == 0) || (has_matching_or && t.count != 0)) {
          return SyntaxError{t.offset,
                             fmt::format("'{}': every feature in the brackets must be counted, or none", t.name)};
        }
      }
      has_counted_and |= t.op == FeatureOp::kCountedAnd;
      has_matching_or |= t.op == FeatureOp::kMatchingOr;
    }
    return std::nullopt;
  }

  std::string_view text_;
  Constraint out_;
  std::size_t name_ = kNone, name_len_ = 0;
  bool name_in_paren_ = false, name_in_bracket_ = false;
  std::uint32_t count_ = 0;
  int bracket_ = 0, paren_ = 0, bracket_sets_ = 0;
  std::size_t bracket_at_ = 0, paren_at_ = 0;
};

}  // namespace

bool Constraint::has_counts() const {
  for (const FeatureTerm& t : terms) {
    if (t.count != 0) return true;
  }
  return false;
}

bool Constraint::has_matching_or() const {
  for (const FeatureTerm& t : terms) {
    if (is_bracket_op(t.op)) return true;
  }
  return false;
}

Result<Constraint> parse_constraint(std::string_view text, std::size_t* error_offset) {
  return ConstraintParser(text).run(error_offset);
}

std::string_view verdict_message(ConstraintVerdict verdict) {
  switch (verdict) {
    case ConstraintVerdict::kOk:
      return "";
    case ConstraintVerdict::kInvalidFeature:
      return "Invalid feature specification";
    case ConstraintVerdict::kNodeConfigUnavailable:
      return "Requested node configuration is not available";
  }
  return "";
}

}  // namespace sa
