#pragma once
// What the protocol fuzzer checks of one input (tests/fuzz/README.md): an engine's output read as
// tapecheck reads it. The libFuzzer target (protocol_fuzzer.cpp) and the replay of its seeds and
// findings under ctest (findings_test.cpp) call the same check.
#include <optional>
#include <string>
#include <string_view>

namespace tc::fuzz {

//! What is wrong with how tapecheck read `text` as an engine's output, or nothing. Its first line is
//! read as the engine's hello (helloFromLine); every line after it as the answer to request 1 of a
//! fixed small case (inputs [2] and [2], their sum and its total: four positions), on each of the six
//! carriers, twice: as the answer to a request of the forward pass alone, and to one with two
//! backward passes. A refusal is an answer, not a finding, when its message is one non-empty line
//! (an answer's starting "answer 1: "); an answer accepted must hold no more than its limits (at most
//! one tensor per position, the values answerLimits allows per pack, one result per pass asked, each
//! tensor's values filling its shape); an exception that escapes is a finding. Crashes, leaks and
//! undefined behaviour are the sanitizers' findings.
std::optional<std::string> protocolFindingIn(std::string_view text);

}  // namespace tc::fuzz
