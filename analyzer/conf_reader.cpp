#include "analyzer/conf_reader.h"

#include <antlr4-runtime.h>
#include <fmt/format.h>

#include "SlurmConfLexer.h"
#include "SlurmConfParser.h"
#include "analyzer/antlr_support.h"
#include "analyzer/syntax_errors.h"

namespace sa {

using grammar::SlurmConfLexer;
using grammar::SlurmConfParser;

namespace {

// The parser builds no tree: a line that parsed holds, between its first and last token, exactly
// what the grammar allows (an include path, or pairs KEY OP? EQ value), so the reader takes
// them from the token stream. Building and then walking the tree (each accessor a dynamic_cast
// over a node's children) cost a third of reading a file.
Pair make_pair(const std::string& content, FileId file, const antlr4::Token* key, const antlr4::Token* op,
               const antlr4::Token* value) {
  Pair pair;
  pair.key = unescape_conf_text(token_text(content, key));
  pair.key_loc = loc_of(file, key);
  if (op) pair.op = token_text(content, op);
  pair.raw_value = token_text(content, value);
  pair.value_loc = loc_of(file, value);
  pair.quoted = value->getType() == SlurmConfLexer::QUOTED;
  std::string_view body = pair.raw_value;
  if (pair.quoted && body.size() >= 2) body = body.substr(1, body.size() - 2);
  pair.value = unescape_conf_text(body);
  return pair;
}

ConfLine make_line(const std::string& content, FileId file, antlr4::CommonTokenStream& tokens,
                   SlurmConfParser::LineContext* ctx) {
  ConfLine line;
  line.loc = loc_of(file, ctx->getStart());
  // A line that is only its end has a stop token before its start: the loop does not run.
  const std::size_t first = ctx->getStart()->getTokenIndex();
  const std::size_t end = ctx->getStop() ? ctx->getStop()->getTokenIndex() + 1 : first;
  auto type_at = [&](std::size_t i) { return i < end ? tokens.get(i)->getType() : antlr4::Token::INVALID_TYPE; };
  for (std::size_t i = first; i < end;) {
    const antlr4::Token* t = tokens.get(i++);
    if (t->getType() == SlurmConfLexer::I_PATH && !line.is_include) {
      line.is_include = true;
      line.include_path = unescape_conf_text(token_text(content, t));
      line.include_path_loc = loc_of(file, t);
    } else if (t->getType() == SlurmConfLexer::KEY) {
      const antlr4::Token* op = type_at(i) == SlurmConfLexer::OP ? tokens.get(i++) : nullptr;
      if (type_at(i) != SlurmConfLexer::EQ) continue;
      ++i;
      const std::size_t v = type_at(i);
      if (v != SlurmConfLexer::QUOTED && v != SlurmConfLexer::WORD) continue;
      line.pairs.push_back(make_pair(content, file, t, op, tokens.get(i++)));
    }
  }
  return line;
}

}  // namespace

std::string unescape_conf_text(std::string_view raw) {
  std::string out;
  out.reserve(raw.size());
  for (std::size_t i = 0; i < raw.size(); ++i) {
    if (raw[i] != '\\') {
      out.push_back(raw[i]);
      continue;
    }
    // A continuation: backslash, optional blanks (then optionally a comment), line end.
    std::size_t j = i + 1;
    while (j < raw.size() && (raw[j] == ' ' || raw[j] == '\t' || raw[j] == '\f' || raw[j] == '\r')) ++j;
    if (j < raw.size() && raw[j] == '#' && j > i + 1) {
      while (j < raw.size() && raw[j] != '\n') ++j;
    }
    if (j < raw.size() && raw[j] == '\n') {
      i = j;
      continue;
    }
    // An escape: drop the backslash, keep the next character literally.
    if (i + 1 < raw.size()) out.push_back(raw[++i]);
  }
  return out;
}

std::vector<ConfLine> read_conf(const SourceManager& sources, FileId file, DiagnosticSink& sink) {
  // A leading line end lets INCLUDE_LINE match an Include on the first line; the lexer
  // starts at line 0 so that every position stays that of the file.
  const std::string content = "\n" + sources.file(file).content;
  ByteStream input(content);
  SlurmConfLexer lexer(&input);
  lexer.setLine(0);
  antlr4::CommonTokenStream tokens(&lexer);
  SlurmConfParser parser(&tokens);
  parser.setBuildParseTree(false);  // make_line reads the tokens
  parser.setErrorHandler(std::make_shared<LineErrorStrategy>());
  SyntaxErrorListener listener(file, tokens, content, sink);
  lexer.removeErrorListeners();
  lexer.addErrorListener(&listener);
  parser.removeErrorListeners();
  parser.addErrorListener(&listener);

  std::vector<ConfLine> lines;
  const antlr4::Token* include_keyword = nullptr;  // the INCLUDE_LINE that ended the last line
  while (tokens.LA(1) != antlr4::Token::EOF) {
    listener.start_line();
    parser.getErrorHandler()->reset(&parser);  // leave recovery mode: each line reports its error
    const antlr4::Token* line_start = tokens.LT(1);
    const std::size_t start_index = tokens.index();
    SlurmConfParser::LineContext* ctx = nullptr;
    bool abandoned = false;
    try {
      ctx = parser.line();
    } catch (const antlr4::ParseCancellationException&) {
      parser.setContext(nullptr);  // unwind the abandoned rule contexts
      abandoned = true;
    }
    ConfLine line;
    if (ctx) {
      line = make_line(content, file, tokens, ctx);
    } else {
      line.loc = loc_of(file, line_start);
    }
    if (include_keyword && !line.is_include && !listener.line_has_error()) {
      sink.error("CONF011", {file, static_cast<int>(include_keyword->getLine()) + 1, 1}, "Include without a file name",
                 "name the file to include, or remove the line");
    }
    if (listener.line_has_error() || abandoned) {
      line.has_syntax_error = true;
      // One bad line costs one diagnostic: go on with the next line.
      skip_rest_of_line(tokens, start_index, {SlurmConfLexer::NEWLINE, SlurmConfLexer::INCLUDE_LINE});
    }
    const antlr4::Token* last = tokens.index() > 0 ? tokens.LT(-1) : nullptr;
    include_keyword = last && last->getType() == SlurmConfLexer::INCLUDE_LINE ? last : nullptr;
    if (line.is_include || !line.pairs.empty() || line.has_syntax_error) lines.push_back(std::move(line));
  }
  if (include_keyword) {
    sink.error("CONF011", {file, static_cast<int>(include_keyword->getLine()) + 1, 1}, "Include without a file name",
               "name the file to include, or remove the line");
  }
  return lines;
}

}  // namespace sa
