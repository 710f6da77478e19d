#include "core/support/text.h"

#include <fmt/format.h>

namespace tc {
namespace {

// How many bytes at the start of `text` are one well-formed UTF-8 character (RFC 3629: no
// overlong forms, no surrogates, nothing above U+10FFFF), or 0 when they are not one.
std::size_t utf8Length(std::string_view text) {
  auto at = [&](std::size_t k) { return k < text.size() ? static_cast<unsigned char>(text[k]) : 0u; };
  auto continues = [&](std::size_t k, unsigned low = 0x80, unsigned high = 0xbf) { return at(k) >= low && at(k) <= high; };
  const unsigned lead = at(0);
  if (text.empty()) return 0;
  if (lead < 0x80) return 1;
  if (lead >= 0xc2 && lead <= 0xdf) return continues(1) ? 2 : 0;
  if (lead >= 0xe0 && lead <= 0xef) {
    const bool second = lead == 0xe0 ? continues(1, 0xa0) : lead == 0xed ? continues(1, 0x80, 0x9f) : continues(1);
    return second && continues(2) ? 3 : 0;
  }
  if (lead >= 0xf0 && lead <= 0xf4) {
    const bool second = lead == 0xf0 ? continues(1, 0x90) : lead == 0xf4 ? continues(1, 0x80, 0x8f) : continues(1);
    return second && continues(2) && continues(3) ? 4 : 0;
  }
  return 0;
}

// Whether a well-formed character (its UTF-8 bytes) acts on a terminal or on the lines around it
// rather than showing: C0 controls, DEL, C1 controls, U+2028 and U+2029, and the bidirectional
// marks, embeddings, overrides and isolates (U+200E-U+200F, U+202A-U+202E, U+2066-U+2069).
bool isControl(std::string_view character) {
  const auto byte = [&](std::size_t k) { return static_cast<unsigned char>(character[k]); };
  if (character.size() == 1) return byte(0) < 0x20 || byte(0) == 0x7f;
  if (character.size() == 2) return byte(0) == 0xc2 && byte(1) < 0xa0;
  if (character.size() != 3 || byte(0) != 0xe2) return false;
  const unsigned code = ((byte(1) & 0x3fu) << 6) | (byte(2) & 0x3fu);  // below U+2000's block: 0x2000 + code
  return code == 0x0e || code == 0x0f || (code >= 0x28 && code <= 0x2e) || (code >= 0x66 && code <= 0x69);
}

enum class Shown { printableAscii, utf8 };

// The one escaping loop: appends `text` to `out` (which starts empty), a character at a time,
// writing each byte of a character that `shown` does not show as itself as \xHH, until the next
// character would pass `maxInput` bytes of `text` or `maxOutput` bytes of `out`. Returns how many
// bytes of `text` it took.
std::size_t appendEscaped(std::string& out, std::string_view text, Shown shown, std::size_t maxInput,
                          std::size_t maxOutput) {
  std::size_t at = 0;
  while (at < text.size()) {
    std::size_t length = shown == Shown::utf8 ? utf8Length(text.substr(at)) : 1;
    const auto lead = static_cast<unsigned char>(text[at]);
    const bool itself = shown == Shown::utf8 ? length > 0 && !isControl(text.substr(at, length))
                                             : lead >= 0x20 && lead < 0x7f && lead != '\\';
    if (length == 0) length = 1;  // a byte that starts no character: escaped alone
    if (at + length > maxInput || out.size() + (itself ? length : 4 * length) > maxOutput) break;
    if (itself) out.append(text.substr(at, length));
    else
      for (std::size_t k = 0; k < length; ++k) out += fmt::format("\\x{:02x}", static_cast<unsigned char>(text[at + k]));
    at += length;
  }
  return at;
}

}  // namespace

std::string escape(std::string_view text, std::size_t maxLength) {
  std::string out;
  appendEscaped(out, text, Shown::printableAscii, maxLength, std::string::npos);
  if (text.size() > maxLength) out += fmt::format("... (cut; {} bytes in all)", text.size());
  return out;
}

std::string quote(std::string_view text, std::size_t maxLength) {
  std::string out = "'" + escape(text, maxLength) + "'";
  if (text.size() > maxLength) {  // keep the closing quote next to the text
    std::size_t cut = out.find("... (cut;");
    out = "'" + escape(text.substr(0, maxLength), maxLength) + "...'" + out.substr(cut + 3, out.size() - cut - 4);
  }
  return out;
}

std::string outsideText(std::string_view text, std::size_t maxBytes) {
  std::string out;
  const std::size_t kept = appendEscaped(out, text, Shown::utf8, std::string::npos, maxBytes);
  if (kept < text.size()) out += fmt::format("... ({} more bytes)", text.size() - kept);
  return out;
}

}  // namespace tc
