#include "analyzer/syntax_errors.h"

#include <fmt/format.h>

#include "SlurmConfLexer.h"
#include "analyzer/antlr_support.h"
#include "analyzer/conf_reader.h"
#include "analyzer/text_util.h"

namespace sa {

using grammar::SlurmConfLexer;

namespace {
bool is_value(const antlr4::Token* t) {
  return t && (t->getType() == SlurmConfLexer::WORD || t->getType() == SlurmConfLexer::QUOTED);
}
bool adjacent(const antlr4::Token* a, const antlr4::Token* b) {
  return a && b && a->getStopIndex() + 1 == b->getStartIndex();
}
}  // namespace

std::string SyntaxErrorListener::text_of(const antlr4::Token* token) const {
  if (!token || token->getType() == antlr4::Token::EOF) return "end of file";
  return printable(unescape_conf_text(token_text(content_, token)));
}

std::string SyntaxErrorListener::describe(antlr4::Token* offending, const std::string& antlr_message, std::string& hint,
                                          SourceLoc& loc) const {
  if (!offending) return "unexpected character: " + antlr_message;
  const antlr4::Token* previous = nullptr;
  if (offending->getTokenIndex() > 0 && offending->getTokenIndex() < tokens_.size()) {
    previous = tokens_.get(offending->getTokenIndex() - 1);
  }
  const std::size_t type = offending->getType();
  const bool line_end = type == SlurmConfLexer::NEWLINE || type == antlr4::Token::EOF;

  if (previous && previous->getType() == SlurmConfLexer::EQ && line_end) {
    const antlr4::Token* key = offending->getTokenIndex() >= 2 ? tokens_.get(offending->getTokenIndex() - 2) : nullptr;
    std::string name = key && key->getType() == SlurmConfLexer::KEY ? text_of(key) : "key";
    std::size_t after = previous->getStopIndex() + 1;
    while (after < content_.size() && (content_[after] == ' ' || content_[after] == '\t')) ++after;
    if (after < content_.size() && content_[after] == '#') {
      hint = "write \\# for a literal '#' (quotes do not protect it)";
      return fmt::format("missing value for '{}': the '#' starts a comment, even right after '='", name);
    }
    hint = fmt::format("write {}=\"\" for an empty value", name);
    return fmt::format("missing value for '{}'", name);
  }
  if (previous && previous->getType() == SlurmConfLexer::QUOTED && adjacent(previous, offending)) {
    hint = "put the whole value inside the quotes";
    return fmt::format(
        "text '{}' directly after a closing quote; Slurm reads the value up to "
        "the first blank and rejects the rest of the line",
        text_of(offending));
  }
  if (previous && previous->getType() == SlurmConfLexer::KEY &&
      (type == SlurmConfLexer::KEY || line_end || type == SlurmConfLexer::OTHER)) {
    std::string name = text_of(previous);
    const antlr4::Token* before = previous->getTokenIndex() > 0 ? tokens_.get(previous->getTokenIndex() - 1) : nullptr;
    if (before && before->getType() == SlurmConfLexer::QUOTED && adjacent(before, previous)) {
      loc = {file_, static_cast<int>(previous->getLine()), static_cast<int>(previous->getCharPositionInLine()) + 1};
      hint = "put the whole value inside the quotes";
      return fmt::format(
          "text '{}' directly after a closing quote; Slurm reads the value up to the "
          "first blank and rejects the rest of the line",
          name);
    }
    if (iequals(name, "include") && previous->getCharPositionInLine() > 0) {
      hint = "remove the blanks before 'Include'";
      return "'Include' must start in column 1; indented, Slurm reads it as an unknown key";
    }
    if (type == SlurmConfLexer::OTHER) {
      return fmt::format("unexpected '{}' after '{}'; slurm.conf pairs are written Key=Value", text_of(offending),
                         name);
    }
    if (is_value(tokens_.get(previous->getTokenIndex() > 0 ? previous->getTokenIndex() - 1 : 0))) {
      hint = "quote values that contain blanks, or remove the blank";
      return fmt::format(
          "'{}' is not a key=value pair; a value ends at the first blank unless "
          "it is quoted",
          name);
    }
    return fmt::format("expected '=' after '{}'", name);
  }
  if (type == SlurmConfLexer::EQ) return "'=' without a key before it";
  if (type == SlurmConfLexer::I_PATH || type == SlurmConfLexer::I_OTHER) {
    hint = "an Include line holds one file name; file names cannot contain blanks";
    return fmt::format("unexpected '{}' after the Include file name", text_of(offending));
  }
  if (type == SlurmConfLexer::OTHER) {
    return fmt::format("unexpected character '{}'", text_of(offending));
  }
  if (type == SlurmConfLexer::OP) return fmt::format("unexpected '{}'", text_of(offending));
  return "syntax error: " + antlr_message;
}

void SyntaxErrorListener::syntaxError(antlr4::Recognizer* /*recognizer*/, antlr4::Token* offending, size_t line,
                                      size_t column, const std::string& message, std::exception_ptr /*error*/) {
  if (line_has_error_) return;
  line_has_error_ = true;
  std::string hint;
  SourceLoc loc{file_, static_cast<int>(line), static_cast<int>(column) + 1};
  std::string text = describe(offending, message, hint, loc);
  sink_.error("CONF001", loc, std::move(text), std::move(hint));
}

}  // namespace sa
