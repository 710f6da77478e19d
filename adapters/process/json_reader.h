#pragma once
// A pull reader for one JSON document in a string: the engine protocol's answers are read with
// it straight into tensors, without building a JSON tree (which costs more than the rest of the
// exchange together). Strict JSON (RFC 8259); nesting is bounded; every error says where.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "core/support/result.h"

namespace tc::process {

//! A cursor over JSON text. Read a value with the typed calls, or step through an object with
//! `nextKey` and an array with `nextElement`; `skip` passes over any value.
class JsonReader {
 public:
  //! Reads `text`, which must outlive the reader (values are read as views into it).
  explicit JsonReader(std::string_view text) : text_(text) {}
  explicit JsonReader(const char* text) : text_(text) {}
  // A temporary string would die before the reader reads it.
  explicit JsonReader(std::string&&) = delete;

  //! Begins an object: true when the next value is one ('{' consumed).
  bool beginObject() { return consume('{'); }
  //! The next key of the object being read, or false at its end ('}' consumed). Errors on bad syntax.
  Result<bool> nextKey(std::string& key);
  bool beginArray() { return consume('['); }
  //! True when another element follows in the array being read; false at its end (']' consumed).
  Result<bool> nextElement();

  Result<std::string> string();
  //! The next string without copying it when it has no escapes (a view into the text, or into
  //! `scratch` when it had to be decoded); valid until the next call.
  Result<std::string_view> string(std::string& scratch);
  Result<std::uint64_t> count();
  Result<void> skip();
  //! Only whitespace is left.
  Result<void> end();
  //! What the next value is, for messages: "an object", "a string", ...
  std::string_view nextKind();

  //! An error at the current byte.
  std::unexpected<Error> error(std::string_view what) const;

 private:
  void skipSpace();
  bool consume(char c);
  // Past the comma before the next member of the container being read (true), or past its end
  // `close` (false).
  Result<bool> nextMember(char close);
  Result<void> skipDepth(int depth);
  Result<void> literal(std::string_view word);
  Result<void> number();

  std::string_view text_;
  std::size_t at_ = 0;
  // Whether the container being read has had an element, per nesting level (for the commas).
  std::uint64_t started_ = 0;
  int depth_ = 0;
};

}  // namespace tc::process
