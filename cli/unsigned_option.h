#pragma once
// CLI11 reads "-1" into an unsigned option as 2^64 - 1: a count or seed must be written unsigned.
#include <CLI/CLI.hpp>

#include <string>

namespace tc::cli {

//! Accepts only digits: a whole number, 0 or more.
inline const CLI::Validator kUnsigned(
    [](std::string& text) {
      return text.find_first_not_of("0123456789") == std::string::npos && !text.empty()
                 ? std::string()
                 : "must be a whole number, 0 or more, got " + text;
    },
    "UNSIGNED");

}  // namespace tc::cli
