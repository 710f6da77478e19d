#include "core/support/text.h"

#include <fmt/format.h>

namespace tc {

std::string escape(std::string_view text, std::size_t maxLength) {
  std::string out;
  for (std::size_t i = 0; i < text.size() && i < maxLength; ++i) {
    auto byte = static_cast<unsigned char>(text[i]);
    if (byte < 0x20 || byte >= 0x7f || byte == '\\') out += fmt::format("\\x{:02x}", byte);
    else out += static_cast<char>(byte);
  }
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

}  // namespace tc
