// core/support: user text in one-line messages (escape, quote), errors as values (fail, within) and
// values remembered by a text key (Remembered).
#include <gtest/gtest.h>

#include <string>

#include "core/support/remembered.h"
#include "core/support/result.h"
#include "core/support/text.h"

namespace tc {
namespace {

TEST(Escape, PrintableAsciiIsUnchanged) {
  EXPECT_EQ(escape("add x1 [2, 3] ~!@#$%^&*()'\""), "add x1 [2, 3] ~!@#$%^&*()'\"");
  EXPECT_EQ(escape(""), "");
}

TEST(Escape, ControlBytesBackslashDelAndNonAsciiBecomeHex) {
  EXPECT_EQ(escape("a\nb\tc\r"), "a\\x0ab\\x09c\\x0d");
  EXPECT_EQ(escape(std::string("nul\0end", 7)), "nul\\x00end");
  EXPECT_EQ(escape("back\\slash"), "back\\x5cslash");  // so that "\x0a" in a message is never ambiguous
  EXPECT_EQ(escape("\x1f\x20\x7e\x7f"), "\\x1f ~\\x7f");
  EXPECT_EQ(escape("caf\xc3\xa9"), "caf\\xc3\\xa9");  // UTF-8 bytes one by one
}

TEST(Escape, CutsAfterMaxLengthInputBytesAndNotesTheFullLength) {
  EXPECT_EQ(escape("abcdef", 3), "abc... (cut; 6 bytes in all)");
  EXPECT_EQ(escape("abc", 3), "abc");  // exactly maxLength: no cut
  EXPECT_EQ(escape(std::string(60, 'x')), std::string(60, 'x'));
  EXPECT_EQ(escape(std::string(61, 'x')), std::string(60, 'x').append("... (cut; 61 bytes in all)"));
  // maxLength counts input bytes, not the escaped output.
  EXPECT_EQ(escape("\n\n\n\n", 2), "\\x0a\\x0a... (cut; 4 bytes in all)");
}

TEST(Quote, QuotesAndEscapes) {
  EXPECT_EQ(quote("x"), "'x'");
  EXPECT_EQ(quote(""), "''");
  EXPECT_EQ(quote("a\x01z"), "'a\\x01z'");
  EXPECT_EQ(quote("two\nlines"), "'two\\x0alines'");
}

TEST(Quote, CutTextKeepsTheClosingQuoteNextToIt) {
  EXPECT_EQ(quote("abcdef", 3), "'abc...' (cut; 6 bytes in all)");
  EXPECT_EQ(quote("abc", 3), "'abc'");
  EXPECT_EQ(quote(std::string(100, 'y')), std::string("'").append(60, 'y').append("...' (cut; 100 bytes in all)"));
  EXPECT_EQ(quote("\x01\x02\x03", 2), "'\\x01\\x02...' (cut; 3 bytes in all)");
}

// Text from outside tapecheck (an engine's message, a file's field): one line of valid UTF-8 that a
// terminal shows as it is (docs/threat-model.md).
TEST(OutsideText, KeepsValidUtf8AndPrintableTextAsItIs) {
  EXPECT_EQ(outsideText("the engine failed: log of -1"), "the engine failed: log of -1");
  EXPECT_EQ(outsideText("caf\xc3\xa9 \xe2\x88\x9e \xf0\x9f\x98\x80"), "caf\xc3\xa9 \xe2\x88\x9e \xf0\x9f\x98\x80");
  EXPECT_EQ(outsideText("C:\\path"), "C:\\path");  // backslashes stay: applied again, nothing changes
  EXPECT_EQ(outsideText(""), "");
}

TEST(OutsideText, ControlCharactersBecomeHex) {
  EXPECT_EQ(outsideText("\x1b[2J\x1b]0;title\x07"), "\\x1b[2J\\x1b]0;title\\x07");
  EXPECT_EQ(outsideText("ok\r\nFAKE: all passed"), "ok\\x0d\\x0aFAKE: all passed");
  EXPECT_EQ(outsideText(std::string("nul\0end", 7)), "nul\\x00end");
  EXPECT_EQ(outsideText("tab\tdel\x7f"), "tab\\x09del\\x7f");
  EXPECT_EQ(outsideText("c1 \xc2\x9b" "2J"), "c1 \\xc2\\x9b2J");  // U+009B, a one-character CSI
  EXPECT_EQ(outsideText("\xc2\xa0"), "\xc2\xa0");                  // U+00A0 shows: kept
  EXPECT_EQ(outsideText("line\xe2\x80\xa8sep"), "line\\xe2\\x80\\xa8sep");                  // U+2028
  EXPECT_EQ(outsideText("abc\xe2\x80\xae" "fed"), "abc\\xe2\\x80\\xae" "fed");            // U+202E override
  EXPECT_EQ(outsideText("\xe2\x81\xa6x\xe2\x81\xa9"), "\\xe2\\x81\\xa6x\\xe2\\x81\\xa9");  // isolates
  EXPECT_EQ(outsideText("\xe2\x80\x94"), "\xe2\x80\x94");                                  // an em dash shows
}

TEST(OutsideText, BytesThatAreNotUtf8BecomeHex) {
  EXPECT_EQ(outsideText("bad \xff byte"), "bad \\xff byte");
  EXPECT_EQ(outsideText("cut \xc3"), "cut \\xc3");                          // a character cut short
  EXPECT_EQ(outsideText("\xc0\xaf"), "\\xc0\\xaf");                         // overlong '/'
  EXPECT_EQ(outsideText("\xe0\x80\xaf"), "\\xe0\\x80\\xaf");                // overlong, three bytes
  EXPECT_EQ(outsideText("\xed\xa0\x80"), "\\xed\\xa0\\x80");                // a surrogate
  EXPECT_EQ(outsideText("\xf4\x90\x80\x80"), "\\xf4\\x90\\x80\\x80");       // above U+10FFFF
  EXPECT_EQ(outsideText("\x80\xe2\x88\x9e"), "\\x80\xe2\x88\x9e");          // a stray continuation, then a character
}

TEST(OutsideText, CutsLongTextAtACharacterAndCountsWhatIsLeftOut) {
  EXPECT_EQ(outsideText(std::string(1000, 'x')), std::string(1000, 'x'));
  EXPECT_EQ(outsideText(std::string(1001, 'x')), std::string(1000, 'x').append("... (1 more bytes)"));
  EXPECT_EQ(outsideText(std::string(10 << 20, 'y')), std::string(1000, 'y').append("... (10484760 more bytes)"));
  EXPECT_EQ(outsideText("ab\xe2\x88\x9e", 4), "ab... (3 more bytes)");  // not a character cut in two
  EXPECT_EQ(outsideText("a\nb", 4), "a... (2 more bytes)");  // maxBytes counts the escaped text
  EXPECT_EQ(outsideText("a\nb", 5), "a\\x0a... (1 more bytes)");
  EXPECT_EQ(outsideText(outsideText("a\x1b[1mb\xff")), outsideText("a\x1b[1mb\xff"));
}

TEST(Result, FailMakesAnErrorWithTheMessage) {
  Result<int> failed = fail("shape [0] has dimension 0 equal to 0");
  ASSERT_FALSE(failed.has_value());
  EXPECT_EQ(failed.error().message, "shape [0] has dimension 0 equal to 0");
  EXPECT_EQ(failed.error(), Error{"shape [0] has dimension 0 equal to 0"});
  EXPECT_NE(failed.error(), Error{"something else"});
  Result<void> failedVoid = fail("");
  ASSERT_FALSE(failedVoid.has_value());
  EXPECT_EQ(failedVoid.error().message, "");
}

TEST(Result, WithinPrefixesErrorsAndPassesValuesThrough) {
  Result<int> value = within("node 5 (log)", Result<int>(42));
  ASSERT_TRUE(value.has_value());
  EXPECT_EQ(*value, 42);

  Result<int> error = within("node 5 (log)", Result<int>(fail("argument is 0")));
  ASSERT_FALSE(error.has_value());
  EXPECT_EQ(error.error().message, "node 5 (log): argument is 0");

  EXPECT_EQ(within("case.json", within("node 2 (add)", Result<int>(fail("shapes differ")))).error().message,
            "case.json: node 2 (add): shapes differ");

  EXPECT_TRUE(within("anywhere", Result<void>{}).has_value());
  EXPECT_EQ(within("values", Result<void>(fail("missing"))).error().message, "values: missing");
}

TEST(Remembered, FindsByTheKeyAndStartsAgainWhenFull) {
  detail::Remembered<int> kept;
  EXPECT_EQ(kept.find("1/2"), nullptr);
  kept.remember("1/2", 12);
  ASSERT_NE(kept.find("1/2"), nullptr);
  EXPECT_EQ(*kept.find("1/2"), 12);
  EXPECT_EQ(kept.find("2/4"), nullptr) << "by the key, not by what it means";
  for (std::size_t i = 0; i < detail::Remembered<int>::kKept; ++i) kept.remember(std::to_string(i), static_cast<int>(i));
  EXPECT_EQ(kept.find("1/2"), nullptr) << "the first values are forgotten once kKept are kept";
  ASSERT_NE(kept.find(std::to_string(detail::Remembered<int>::kKept - 1)), nullptr);
  EXPECT_EQ(*kept.find(std::to_string(detail::Remembered<int>::kKept - 1)), static_cast<int>(detail::Remembered<int>::kKept - 1));
  EXPECT_LE(kept.size(), detail::Remembered<int>::kKept);
}

}  // namespace
}  // namespace tc
