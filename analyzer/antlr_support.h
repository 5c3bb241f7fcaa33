#pragma once
// Pieces shared by the ANTLR-driven readers (slurm.conf, sacctmgr dump).
#include <antlr4-runtime.h>

#include <algorithm>
#include <initializer_list>
#include <string_view>

#include "analyzer/source_manager.h"

namespace sa {

// Feeds bytes to ANTLR one code unit per byte. ANTLR's own UTF-8 decoding throws on invalid
// input; mapping bytes 1:1 makes every file readable and every column a byte column.
//
// Bytes from 0x80 up are all fed as 0x01: no rule of either lexer names a control or non-ASCII
// character (every set lists ASCII only, so both fall in the same negated sets and in `.`), so
// the tokens are the same, but ANTLR's lexer caches DFA edges only for characters below 128;
// above, every character took the full ATN simulation, which was a quarter of reading a dump
// full of non-ASCII bytes. Token text is always taken from the file's own bytes (token_text).
class ByteStream : public antlr4::ANTLRInputStream {
 public:
  explicit ByteStream(std::string_view bytes) {
    _data.resize(bytes.size());
    char32_t* out = _data.data();
    for (std::size_t i = 0; i < bytes.size(); ++i) {
      const auto c = static_cast<unsigned char>(bytes[i]);
      out[i] = c < 0x80 ? static_cast<char32_t>(c) : U'\x01';
    }
    p = 0;
  }
};

// One logical line is one unit of recovery: after the error is reported the line is
// abandoned at once (nothing consumed, nothing conjured) and the reader skips to the next
// line end. ANTLR's default recovery would instead consume up to the rule's follow set,
// which for a rule invoked on its own is the end of the file.
class LineErrorStrategy : public antlr4::DefaultErrorStrategy {
 public:
  void recover(antlr4::Parser* /*recognizer*/, std::exception_ptr /*e*/) override {
    throw antlr4::ParseCancellationException("line abandoned");
  }
  void sync(antlr4::Parser* /*recognizer*/) override {}
  antlr4::Token* recoverInline(antlr4::Parser* recognizer) override {
    throw antlr4::InputMismatchException(recognizer);
  }
};

/// After an abandoned line, skips to just past the next line end (a token of one of
/// `line_ends`), unless the tokens consumed since `line_start_index` already ended with one.
inline void skip_rest_of_line(antlr4::CommonTokenStream& tokens, std::size_t line_start_index,
                              std::initializer_list<std::size_t> line_ends) {
  auto is_line_end = [&](std::size_t type) {
    return std::find(line_ends.begin(), line_ends.end(), type) != line_ends.end();
  };
  bool done = tokens.index() > line_start_index && is_line_end(tokens.LT(-1)->getType());
  while (!done && tokens.LA(1) != antlr4::Token::EOF) {
    done = is_line_end(tokens.LA(1));
    tokens.consume();
  }
}

inline SourceLoc loc_of(FileId file, const antlr4::Token* token) {
  return {file, static_cast<int>(token->getLine()), static_cast<int>(token->getCharPositionInLine()) + 1};
}

/// The exact source text of a token (indices are byte offsets, see ByteStream).
inline std::string token_text(const std::string& content, const antlr4::Token* token) {
  std::size_t start = token->getStartIndex();
  std::size_t stop = token->getStopIndex();
  if (stop < start || stop >= content.size()) return {};
  return content.substr(start, stop - start + 1);
}

}  // namespace sa
