// log_escape (base/log_escape.h): what outside data looks like in a log line.
#include "base/log_escape.h"

#include <gtest/gtest.h>

namespace adj {
namespace {

TEST(LogEscape, ControlCharactersQuotesAndBackslashes) {
  EXPECT_EQ(log_escape("plain /games/britain-1?x=1"), "plain /games/britain-1?x=1");
  EXPECT_EQ(log_escape("/x\nevent=forged"), "/x\\nevent=forged");
  EXPECT_EQ(log_escape("a\r\nb\tc"), "a\\r\\nb\\tc");
  EXPECT_EQ(log_escape("say \"hi\" \\ bye"), "say \\\"hi\\\" \\\\ bye");
  EXPECT_EQ(log_escape(std::string("nul\0x", 5)), "nul\\x00x");
  EXPECT_EQ(log_escape("\x1b[31mred\x7f"), "\\x1b[31mred\\x7f");
}

TEST(LogEscape, Utf8KeptInvalidBytesEscaped) {
  EXPECT_EQ(log_escape("Æthelred – ✓"), "Æthelred – ✓");
  EXPECT_EQ(log_escape("bad \xff\xfe end"), "bad \\xff\\xfe end");
  EXPECT_EQ(log_escape("overlong \xc0\xaf"), "overlong \\xc0\\xaf");
  EXPECT_EQ(log_escape("cut \xe2\x9c"), "cut \\xe2\\x9c");
  EXPECT_EQ(log_escape("surrogate \xed\xa0\x80"), "surrogate \\xed\\xa0\\x80");
  // U+2028 (LINE SEPARATOR) is valid UTF-8 and kept: it is not a line end for log readers
  // that split on \n.
  EXPECT_EQ(log_escape("\xe2\x80\xa8"), "\xe2\x80\xa8");
}

TEST(LogEscape, BoundedWithoutCuttingASequence) {
  const std::string long_text(1000, 'a');
  EXPECT_EQ(log_escape(long_text), std::string(kLogValueMax, 'a') + "...");
  EXPECT_EQ(log_escape("abc\xc3\xa9", 4), "abc...");  // é does not fit whole
  EXPECT_EQ(log_escape("abc", 3), "abc");
  const std::string nl(300, '\n');
  const std::string out = log_escape(nl);
  EXPECT_EQ(out.find('\n'), std::string::npos);
  EXPECT_EQ(out.size(), 2 * kLogValueMax + 3);
}

}  // namespace
}  // namespace adj
