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

Pair make_pair(const std::string& content, FileId file, SlurmConfParser::PairContext* ctx) {
  Pair pair;
  pair.key = unescape_conf_text(token_text(content, ctx->KEY()->getSymbol()));
  pair.key_loc = loc_of(file, ctx->KEY()->getSymbol());
  if (ctx->OP()) pair.op = token_text(content, ctx->OP()->getSymbol());
  antlr4::Token* value = ctx->value()->getStart();
  pair.raw_value = token_text(content, value);
  pair.value_loc = loc_of(file, value);
  pair.quoted = value->getType() == SlurmConfLexer::QUOTED;
  std::string_view body = pair.raw_value;
  if (pair.quoted && body.size() >= 2) body = body.substr(1, body.size() - 2);
  pair.value = unescape_conf_text(body);
  return pair;
}

ConfLine make_line(const std::string& content, FileId file, SlurmConfParser::LineContext* ctx) {
  ConfLine line;
  line.loc = loc_of(file, ctx->getStart());
  if (auto* inc = ctx->include(); inc && inc->I_PATH()) {
    line.is_include = true;
    line.include_path = unescape_conf_text(token_text(content, inc->I_PATH()->getSymbol()));
    line.include_path_loc = loc_of(file, inc->I_PATH()->getSymbol());
  }
  for (auto* pair : ctx->pair()) {
    if (pair->KEY() && pair->EQ() && pair->value() && pair->value()->getStart() &&
        pair->value()->getStart()->getType() != antlr4::Token::EOF &&
        pair->value()->getStart()->getType() != SlurmConfLexer::NEWLINE) {
      line.pairs.push_back(make_pair(content, file, pair));
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
      line = make_line(content, file, ctx);
    } else {
      line.loc = loc_of(file, line_start);
    }
    if (include_keyword && !line.is_include && !listener.line_has_error()) {
      sink.error("CONF011", {file, static_cast<int>(include_keyword->getLine()) + 1, 1}, "Include without a file name");
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
    sink.error("CONF011", {file, static_cast<int>(include_keyword->getLine()) + 1, 1}, "Include without a file name");
  }
  return lines;
}

}  // namespace sa
