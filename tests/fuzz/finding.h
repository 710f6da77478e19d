#pragma once
// What the fuzzers (tests/fuzz/README.md) count as a finding, shared by the case fuzzer and the
// protocol fuzzer: a refusal a user cannot read as one line, and an exception that escapes.
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <new>
#include <optional>
#include <string>

#include "core/carriers/dispatch.h"
#include "core/support/result.h"

namespace tc::fuzz {

inline bool oneLine(const std::string& message) {
  return !message.empty() && message.find_first_of("\n\r") == std::string::npos;
}

//! The finding for a refusal whose message a user could not read as one line, else nothing.
inline std::optional<std::string> unreadable(const std::string& step, const Error& error) {
  if (oneLine(error.message)) return std::nullopt;
  return step + ": the error is not one non-empty line: \"" + error.message + "\"";
}

//! The first finding of `findingOn.template operator()<T>()` on each of the carriers, named after
//! the carrier; an exception that escapes it is a finding too.
template <class FindingOn>
std::optional<std::string> onEveryCarrier(FindingOn&& findingOn) {
  for (const std::string& carrier : kCarrierNames) {
    std::optional<std::string> finding;
    try {
      withCarrier(carrier, [&]<class T>() {
        finding = findingOn.template operator()<T>();
        return 0;
      });
    } catch (const std::bad_alloc&) {
      finding = "std::bad_alloc escaped (a bound let through an input that needs more memory)";
    } catch (const std::exception& e) {
      finding = std::string("an exception escaped: ") + e.what();
    }
    if (finding) return carrier + ": " + *finding;
  }
  return std::nullopt;
}

//! The end of a libFuzzer target's run on one input: a finding is printed, named after the target,
//! and aborts the run (libFuzzer then saves the input); else 0.
inline int abortOnFinding(const char* fuzzer, const std::optional<std::string>& finding) {
  if (!finding) return 0;
  std::fprintf(stderr, "%s: %s\n", fuzzer, finding->c_str());
  std::abort();
}

}  // namespace tc::fuzz
