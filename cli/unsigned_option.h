#pragma once
// CLI11 reads "-1" into an unsigned option as 2^64 - 1, and a number past 2^64 - 1 as 2^64 - 1:
// a count or seed must be written as a whole number in range; a path must not be empty.
#include <CLI/CLI.hpp>

#include <charconv>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace tc::cli {

//! The whole number `text` spells in digits (0 to 2^64 - 1, nothing else around it), or nullopt.
inline std::optional<std::uint64_t> wholeNumber(std::string_view text) {
  std::uint64_t value = 0;
  auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  bool digits = !text.empty() && text.find_first_not_of("0123456789") == std::string_view::npos;
  if (!digits || error != std::errc() || end != text.data() + text.size()) return std::nullopt;
  return value;
}

//! Accepts a whole number from 0 to 2^64 - 1, written in digits.
inline const CLI::Validator kUnsigned(
    [](std::string& text) {
      return wholeNumber(text)
                 ? std::string()
                 : "must be a whole number from 0 to 18446744073709551615, got " + text;
    },
    "UNSIGNED");

//! Refuses an empty path (a file or directory option given "").
inline const CLI::Validator kNonEmptyPath([](std::string& text) { return text.empty() ? std::string("the path is empty") : std::string(); },
                                          "PATH");
//! An engine command: an empty one (a CI line with its variable unset) would check nothing it names.
inline const CLI::Validator kNonEmptyCommand(
    [](std::string& text) {
      return text.find_first_not_of(" \t") == std::string::npos ? std::string("the engine command is empty") : std::string();
    },
    "CMD");

}  // namespace tc::cli
