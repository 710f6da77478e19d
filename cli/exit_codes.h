#pragma once
#include <fmt/format.h>

#include <cstdio>
#include <string>

#include "core/support/text.h"

namespace tc::cli {

//! Exit status everywhere: success, a failed property or domain check, usage or input error.
enum ExitCode : int { kSuccess = 0, kFailed = 1, kUsage = 2 };

//! The longest message `report` prints whole.
inline constexpr std::size_t kReportedLength = 4000;

//! Prints `tapecheck: message` as exactly one line on stderr and returns `code`: line breaks become
//! spaces and any other control character or byte that is not UTF-8 is escaped (outsideText; the
//! text from outside that a message quotes is escaped already). What the command printed on stdout
//! before goes out first: with both streams in one pipe (`2>&1 | less`), stdout's buffer would
//! otherwise put the refusal above the header it follows.
inline int report(ExitCode code, std::string message) {
  for (char& c : message)
    if (c == '\n' || c == '\r') c = ' ';
  std::fflush(stdout);
  fmt::print(stderr, "tapecheck: {}\n", outsideText(message, kReportedLength));
  return code;
}

}  // namespace tc::cli
