#pragma once
// Making input-derived text safe for a terminal and for CI logs. Configs, traces and dumps
// may hold any bytes: an ESC or OSC sequence would drive the reader's terminal, a CR or
// backspace would hide text, and a line starting with `::error::` is a GitHub Actions command.
#include <string>
#include <string_view>

namespace sa {

/// Appends `text` with C0 controls (tab kept when `keep_tab`), DEL, C1 controls and invalid
/// UTF-8 shown as \xNN; valid UTF-8 is kept.
void append_printable(std::string& out, std::string_view text, bool keep_tab = false);

struct TerminalTextOptions {
  bool keep_sgr = false;  // keep ESC[...m colour sequences (our own --color output)
};

/// A whole report for a terminal or CI log: every line made printable (newlines and tabs kept)
/// and no line starting, after blanks, with a CI command prefix (`::`, `##[`, `##vso[`).
std::string terminal_text(std::string_view text, const TerminalTextOptions& options = {});

}  // namespace sa
