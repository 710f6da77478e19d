#include "adapters/process/protocol.h"

namespace tc::process {

std::string requestBody(std::string_view carrier, const std::string& caseText, const std::vector<std::string>& passes) {
  std::string out = "{\"carrier\":\"";
  out += carrier;
  out += "\",\"case\":";
  out += caseText;
  out += ",\"passes\":[";
  for (std::size_t k = 0; k < passes.size(); ++k) {
    if (k) out += ',';
    out += passes[k];
  }
  return out + "]}";
}

}  // namespace tc::process
