// Terminal- and CI-safe text (issue 19): control bytes, C1 controls and invalid UTF-8 are
// shown escaped, and no line of a report can start a CI command.
#include <gtest/gtest.h>

#include "analyzer/printable.h"
#include "analyzer/text_util.h"

namespace sa {
namespace {

TEST(Printable, ControlsAndInvalidUtf8AreEscaped) {
  EXPECT_EQ(printable("a\033]0;pwn\007b"), "a\\x1b]0;pwn\\x07b");
  EXPECT_EQ(printable("x\ry\bz\x7f"), "x\\x0dy\\x08z\\x7f");
  EXPECT_EQ(printable("\xc2\x9b"
                      "31m"),
            "\\xc2\\x9b31m");                               // U+009B, the 8-bit CSI
  EXPECT_EQ(printable("\xff\xc3"), "\\xff\\xc3");           // not UTF-8
  EXPECT_EQ(printable("\xed\xa0\x80"), "\\xed\\xa0\\x80");  // a surrogate
  EXPECT_EQ(printable("\xc0\xaf"), "\\xc0\\xaf");           // an overlong '/'
  EXPECT_EQ(printable("Grüße ✓"), "Grüße ✓");               // valid UTF-8 kept
  EXPECT_EQ(printable("abcdef", 3), "abc...");
}

TEST(TerminalText, CiCommandsCannotStartALine) {
  EXPECT_EQ(terminal_text("::error::x\n  ::warning file=a::b\n##vso[task.setvariable]x\n##[group]g\nok ::x\n"),
            "| ::error::x\n|   ::warning file=a::b\n| ##vso[task.setvariable]x\n| ##[group]g\nok ::x\n");
}

TEST(TerminalText, OwnColoursKeptOnlyWhenAsked) {
  const std::string s = "\033[1;31merror\033[0m \033]8;;http://x\033\\";
  EXPECT_EQ(terminal_text(s, {true}), "\033[1;31merror\033[0m \\x1b]8;;http://x\\x1b\\");
  EXPECT_EQ(terminal_text(s), "\\x1b[1;31merror\\x1b[0m \\x1b]8;;http://x\\x1b\\");
  EXPECT_EQ(terminal_text("a\tb\r\n"), "a\tb\\x0d\n");
}

}  // namespace
}  // namespace sa
