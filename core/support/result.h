#pragma once
// Errors that users cause (files, shapes, domains) travel as values; broken internal
// invariants are assertions.
#include <expected>
#include <string>
#include <utility>

namespace tc {

//! A user-facing error: one line naming where it happened and why.
struct Error {
  std::string message;
  bool operator==(const Error&) const = default;
};

//! Either a value or the first error met while producing it.
template <class T>
using Result = std::expected<T, Error>;

inline std::unexpected<Error> fail(std::string message) {
  return std::unexpected(Error{std::move(message)});
}

//! Prefixes an error's message with where it happened ("node 5 (log): ...").
template <class T>
Result<T> within(const std::string& where, Result<T> result) {
  if (!result) return fail(where + ": " + result.error().message);
  return result;
}

}  // namespace tc
