#pragma once
// What the case fuzzer checks of one input (tests/fuzz/README.md): the loader, the first compile and
// a dense backward on every carrier. The libFuzzer target (case_fuzzer.cpp) and the replay of its
// findings under ctest (findings_test.cpp) call the same check.
#include <optional>
#include <string>
#include <string_view>

#include "cli/budget.h"

namespace tc::fuzz {

//! The budget every input is loaded under (--max-work, --max-memory in MiB): a hundredth of the
//! commands' default work (about 0.1 s estimated) and 256 MiB, so that the fuzzer spends its time
//! on many small inputs. An input that passes this budget and still runs for seconds shows an
//! estimate that is wrong by orders of magnitude: libFuzzer's watchdog (-timeout in scripts/fuzz.sh)
//! reports it.
inline constexpr cli::BudgetOptions kFuzzBudget{1e8, 256};

//! What is wrong with how tapecheck handled `text`, or nothing. For each of the five carriers:
//! reading the file under kFuzzBudget, writing the case and reading it back (the same case, written
//! the same way), compiling it with its values and running the dense backward from its seeds. A
//! refusal is an answer, not a finding, when its message is one non-empty line; an exception that
//! escapes is a finding. Crashes, leaks and undefined behaviour are the sanitizers' findings.
std::optional<std::string> findingIn(std::string_view text);

}  // namespace tc::fuzz
