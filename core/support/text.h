#pragma once
// User text echoed into one-line error messages: quoted, escaped, and cut to a readable length.
#include <cstddef>
#include <string>
#include <string_view>

namespace tc {

//! `text` with control characters and non-ASCII bytes written as \xHH, cut after `maxLength`.
std::string escape(std::string_view text, std::size_t maxLength = 60);

//! `'text'` with control characters and non-ASCII bytes written as \xHH (so a message stays one
//! line of valid UTF-8), cut after `maxLength` characters with a note of the full length.
std::string quote(std::string_view text, std::size_t maxLength = 60);

}  // namespace tc
