#include "analyzer/assoc_dump_lines.h"

#include <fmt/format.h>

#include "SacctmgrDumpLexer.h"
#include "SacctmgrDumpParser.h"
#include "analyzer/antlr_support.h"
#include "analyzer/conf_reader.h"
#include "analyzer/text_util.h"

namespace sa {

using grammar::SacctmgrDumpLexer;
using grammar::SacctmgrDumpParser;

namespace {

class DumpErrorListener : public antlr4::BaseErrorListener {
 public:
  DumpErrorListener(FileId file, const std::string& content, DiagnosticSink& sink)
      : file_(file), content_(content), sink_(sink) {}
  void start_line() { reported_ = false; }
  bool reported() const { return reported_; }

  void syntaxError(antlr4::Recognizer*, antlr4::Token* offending, size_t line, size_t column,
                   const std::string& message, std::exception_ptr) override {
    if (reported_) return;
    reported_ = true;
    std::string what = offending ? printable(token_text(content_, offending)) : "";
    std::string text;
    if (offending && offending->getType() == SacctmgrDumpLexer::NEWLINE) {
      text = "incomplete line: expected 'Title - name[:Option=value]...'";
    } else if (offending && offending->getType() == SacctmgrDumpLexer::EOF) {
      text = "incomplete last line: expected 'Title - name[:Option=value]...'";
    } else if (!what.empty()) {
      text = fmt::format("unexpected '{}'; dump lines look like \"User - 'name':Option=value\"", what);
    } else {
      text = "syntax error: " + message;
    }
    sink_.error("ACCT001", {file_, static_cast<int>(line), static_cast<int>(column) + 1}, text);
  }

 private:
  FileId file_;
  const std::string& content_;
  DiagnosticSink& sink_;
  bool reported_ = false;
};

std::string strip_quotes(const std::string& text) {
  if (text.size() >= 2 && (text.front() == '\'' || text.front() == '"') && text.back() == text.front()) {
    return text.substr(1, text.size() - 2);
  }
  return text;
}

// The parser builds no tree (as for slurm.conf, conf_reader.cpp): a line that parsed is, token
// by token, TITLE_WORD+ DASH then fields of pieces separated by COLON, an optional last COLON,
// and its end, so the reader takes the fields from the token stream.
void add_piece(const std::string& content, const antlr4::Token* t, DumpField& field, std::string& key) {
  if (t->getType() == SacctmgrDumpLexer::EQ && !field.has_equals) {
    field.has_equals = true;
    key = field.value;  // text so far is the option name
    field.value.clear();
    return;
  }
  field.value += unescape_conf_text(strip_quotes(token_text(content, t)));
}

DumpLine make_line(const std::string& content, FileId file, antlr4::CommonTokenStream& tokens,
                   SacctmgrDumpParser::LineContext* ctx) {
  DumpLine line;
  line.loc = loc_of(file, ctx->getStart());
  const std::size_t first = ctx->getStart()->getTokenIndex();
  const std::size_t end = ctx->getStop() ? ctx->getStop()->getTokenIndex() + 1 : first;
  std::size_t i = first;
  for (; i < end && tokens.get(i)->getType() == SacctmgrDumpLexer::TITLE_WORD; ++i) {
    if (!line.title.empty()) line.title += " ";
    line.title += tokens.get(i)->getText();
  }
  if (i >= end || tokens.get(i)->getType() != SacctmgrDumpLexer::DASH) return line;  // no record
  DumpField field;
  std::string key;
  bool open = false;
  auto close = [&] {
    if (!open) return;
    field.key = field.has_equals ? std::string(trim(key)) : std::string{};
    line.fields.push_back(std::move(field));
    field = {};
    key.clear();
    open = false;
  };
  for (++i; i < end; ++i) {
    const antlr4::Token* t = tokens.get(i);
    const std::size_t type = t->getType();
    if (type == SacctmgrDumpLexer::NEWLINE || type == antlr4::Token::EOF) break;
    if (type == SacctmgrDumpLexer::COLON) {
      close();
      continue;
    }
    if (!open) {
      field.loc = loc_of(file, t);
      open = true;
    }
    add_piece(content, t, field, key);
  }
  close();
  return line;
}

}  // namespace

std::vector<DumpLine> read_dump_lines(const SourceManager& sources, FileId file, DiagnosticSink& sink) {
  const std::string& content = sources.file(file).content;
  ByteStream input(content);
  SacctmgrDumpLexer lexer(&input);
  antlr4::CommonTokenStream tokens(&lexer);
  SacctmgrDumpParser parser(&tokens);
  parser.setBuildParseTree(false);  // make_line reads the tokens
  parser.setErrorHandler(std::make_shared<LineErrorStrategy>());
  DumpErrorListener listener(file, content, sink);
  lexer.removeErrorListeners();
  lexer.addErrorListener(&listener);
  parser.removeErrorListeners();
  parser.addErrorListener(&listener);

  std::vector<DumpLine> lines;
  while (tokens.LA(1) != antlr4::Token::EOF) {
    listener.start_line();
    parser.getErrorHandler()->reset(&parser);
    const std::size_t start_index = tokens.index();
    SacctmgrDumpParser::LineContext* ctx = nullptr;
    try {
      ctx = parser.line();
    } catch (const antlr4::ParseCancellationException&) {
      parser.setContext(nullptr);
    }
    if (!ctx || listener.reported()) {
      skip_rest_of_line(tokens, start_index, {SacctmgrDumpLexer::NEWLINE});
      continue;
    }
    DumpLine line = make_line(content, file, tokens, ctx);
    if (!line.fields.empty()) lines.push_back(std::move(line));
  }
  return lines;
}

}  // namespace sa
