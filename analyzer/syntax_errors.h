#pragma once
// Rewrites ANTLR's syntax errors into messages an admin understands ("missing value for
// 'Nodes'") with the location of the offending token. At most one error per logical line.
#include <antlr4-runtime.h>

#include "analyzer/diagnostics.h"

namespace sa {

class SyntaxErrorListener : public antlr4::BaseErrorListener {
 public:
  SyntaxErrorListener(FileId file, antlr4::CommonTokenStream& tokens, const std::string& content, DiagnosticSink& sink)
      : file_(file), tokens_(tokens), content_(content), sink_(sink) {}

  void start_line() { line_has_error_ = false; }
  bool line_has_error() const { return line_has_error_; }

  void syntaxError(antlr4::Recognizer* recognizer, antlr4::Token* offending, size_t line, size_t column,
                   const std::string& message, std::exception_ptr error) override;

 private:
  std::string describe(antlr4::Token* offending, const std::string& antlr_message, std::string& hint,
                       SourceLoc& loc) const;
  std::string text_of(const antlr4::Token* token) const;

  FileId file_;
  antlr4::CommonTokenStream& tokens_;
  const std::string& content_;
  DiagnosticSink& sink_;
  bool line_has_error_ = false;
};

}  // namespace sa
