// core/support: user text in one-line messages (escape, quote) and errors as values (fail, within).
#include <gtest/gtest.h>

#include <string>

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

}  // namespace
}  // namespace tc
