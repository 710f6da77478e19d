#pragma once
// Text that tapecheck did not write itself, made safe to show and to keep: user text echoed into
// one-line error messages (quoted, escaped, cut to a readable length), and text from outside (an
// engine's messages and profile, a file's fields: docs/threat-model.md) made one line of valid
// UTF-8 before it reaches the terminal, a report or a saved case. Every escape is the one loop in
// text.cpp.
#include <cstddef>
#include <string>
#include <string_view>

namespace tc {

//! `text` with control characters and non-ASCII bytes written as \xHH, cut after `maxLength`.
std::string escape(std::string_view text, std::size_t maxLength = 60);

//! `'text'` with control characters and non-ASCII bytes written as \xHH (so a message stays one
//! line of valid UTF-8), cut after `maxLength` characters with a note of the full length.
std::string quote(std::string_view text, std::size_t maxLength = 60);

//! The most bytes `outsideText` keeps by default.
inline constexpr std::size_t kOutsideTextLimit = 1000;

//! Text from outside tapecheck (an engine's error message or profile, a field of a file) as one
//! line of valid UTF-8 that a terminal shows as it is: each byte that is not part of well-formed
//! UTF-8, and each byte of a control character (C0 such as NUL, LF, CR and ESC; DEL; C1; the line
//! and paragraph separators and the bidirectional overrides and isolates), written as \xHH. Valid
//! UTF-8 otherwise stays as it is, backslashes too (so that applying it again changes nothing).
//! Longer than `maxBytes` once escaped, it keeps the characters that fit and says
//! "... (N more bytes)", N counting the text's bytes left out.
std::string outsideText(std::string_view text, std::size_t maxBytes = kOutsideTextLimit);

}  // namespace tc
