// The libFuzzer target of the engine protocol's reader: every input is an engine's output, a hello
// and answer lines (tests/fuzz/README.md). A finding aborts with its description, and libFuzzer
// saves the input; scripts/fuzz.sh runs it.
#include <cstdint>
#include <string_view>

#include "tests/fuzz/finding.h"
#include "tests/fuzz/protocol_fuzz.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  return tc::fuzz::abortOnFinding("protocol_fuzzer",
                                  tc::fuzz::protocolFindingIn(std::string_view(reinterpret_cast<const char*>(data), size)));
}
