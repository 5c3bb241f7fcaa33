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

DumpField make_field(const std::string& content, FileId file, SacctmgrDumpParser::FieldContext* ctx) {
  DumpField field;
  field.loc = loc_of(file, ctx->getStart());
  std::string* target = &field.value;
  std::string key;
  for (auto* piece : ctx->piece()) {
    const antlr4::Token* t = piece->getStart();
    if (t->getType() == SacctmgrDumpLexer::EQ && !field.has_equals) {
      field.has_equals = true;
      key = field.value;  // text so far is the option name
      field.value.clear();
      continue;
    }
    *target += unescape_conf_text(strip_quotes(token_text(content, t)));
  }
  field.key = field.has_equals ? std::string(trim(key)) : std::string{};
  return field;
}

DumpLine make_line(const std::string& content, FileId file, SacctmgrDumpParser::LineContext* ctx) {
  DumpLine line;
  line.loc = loc_of(file, ctx->getStart());
  auto* record = ctx->record();
  if (!record) return line;
  for (auto* word : record->title()->TITLE_WORD()) {
    if (!line.title.empty()) line.title += " ";
    line.title += word->getText();
  }
  for (auto* field : record->field()) line.fields.push_back(make_field(content, file, field));
  return line;
}

}  // namespace

std::vector<DumpLine> read_dump_lines(const SourceManager& sources, FileId file, DiagnosticSink& sink) {
  const std::string& content = sources.file(file).content;
  ByteStream input(content);
  SacctmgrDumpLexer lexer(&input);
  antlr4::CommonTokenStream tokens(&lexer);
  SacctmgrDumpParser parser(&tokens);
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
    DumpLine line = make_line(content, file, ctx);
    if (!line.fields.empty()) lines.push_back(std::move(line));
  }
  return lines;
}

}  // namespace sa
