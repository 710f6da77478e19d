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
//! backward passes (the limits answerLimits gives). A refusal is an answer, not a finding, when its
//! message is one non-empty line starting "answer 1: ". An answer accepted must hold no more than its
//! limits (tensors and values per pack, one result per pass asked, each tensor's values filling its
//! shape), and the limits must be exact: it is accepted again within the limits it holds, and refused
//! when any of them is one less (so an off-by-one shows on any answer, although an input of the
//! fuzzer's 16 KiB cannot hold the 4,104 values the case allows). An exception that escapes is a
//! finding; crashes, leaks and undefined behaviour are the sanitizers' findings.
std::optional<std::string> protocolFindingIn(std::string_view text);

}  // namespace tc::fuzz
