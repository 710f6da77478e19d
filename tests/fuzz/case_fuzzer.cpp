// The libFuzzer target: every input is a candidate case file (tests/fuzz/README.md). A finding
// aborts with its description, and libFuzzer saves the input; scripts/fuzz.sh runs it.
#include <cstdint>
#include <string_view>

#include "tests/fuzz/finding.h"
#include "tests/fuzz/case_fuzz.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  return tc::fuzz::abortOnFinding("case_fuzzer",
                                  tc::fuzz::findingIn(std::string_view(reinterpret_cast<const char*>(data), size)));
}
