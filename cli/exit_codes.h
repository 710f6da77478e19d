#pragma once
#include <fmt/format.h>

#include <cstdio>
#include <string>

namespace tc::cli {

//! Exit status everywhere: success, a failed property or domain check, usage or input error.
enum ExitCode : int { kSuccess = 0, kFailed = 1, kUsage = 2 };

//! Prints `tapecheck: message` as exactly one line on stderr and returns `code`. What the command
//! printed on stdout before goes out first: with both streams in one pipe (`2>&1 | less`), stdout's
//! buffer would otherwise put the refusal above the header it follows.
inline int report(ExitCode code, std::string message) {
  for (char& c : message)
    if (c == '\n' || c == '\r') c = ' ';
  std::fflush(stdout);
  fmt::print(stderr, "tapecheck: {}\n", message);
  return code;
}

}  // namespace tc::cli
