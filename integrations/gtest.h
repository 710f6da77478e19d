#pragma once
// tapecheck under GoogleTest (the CMake target tapecheck::gtest, docs/gtest.md): one macro in a test
// file registers, for your engines, one GoogleTest test per property × carrier of the engine verdict,
// the rows `PROGRAM run --engine NAME` runs:
//
//   #include "integrations/gtest.h"
//   TAPECHECK_GTEST(tc::cli::namedEngine("minigrad", onRational, onModP, onDouble, onFloat))
//
// linked with GTest::gtest_main (or a main of your own that calls RUN_ALL_TESTS). Test names are
// ENGINE/PROPERTY.CARRIER ("minigrad/accuracy.double"; in ENGINE and CARRIER a character other than
// a letter, a digit or '_' is '_', as --gtest_filter reads '-' as "leave out": "minigrad_bug/...",
// "rational_noeq"), so --gtest_filter='minigrad/*', '*.double' and GoogleTest's sharding select
// them, and gtest_discover_tests lists them. Options
// come from the environment, read when each test runs:
//   TAPECHECK_CASES      generated cases per test (default 100)
//   TAPECHECK_SEED       the seed (default: from the clock; each test prints and records it)
//   TAPECHECK_MAX_SIZE   largest generated case size, 0 to 100 (default 100)
//   TAPECHECK_DOMAIN     default or exact for every test (default: the engine verdict; read when
//                        the tests are registered too, as it changes which rows there are)
//   TAPECHECK_SAVE_DIR   where shrunk counterexamples are saved (default tapecheck-failures)
//   TAPECHECK_ISOLATE    1 (default): the engine runs in a forked copy of the test program, so a crash
//                        or a hang fails the test; 0: in the test's own process
//   TAPECHECK_REPLAY_SAVED  1 (default): each test first judges the counterexamples saved for its row
//                        in TAPECHECK_SAVE_DIR, and fails on one that fails again; 0: it does not
// A failing test's message is the verdict, the shrunk listing, the saved file and the command that
// replays it: `TAPECHECK_REPLAY=FILE TEST_PROGRAM`, which registers one test, tapecheck.replay,
// that replays the file on the engine that failed (as `PROGRAM replay FILE` does) and fails while
// it still fails.
#include <cstddef>
#include <source_location>
#include <vector>

#include "cli/named_engine.h"
// The macro registers while the program starts, planning the rows from kCarrierNames: included
// here, that inline variable is initialized before it in the file that uses the macro.
#include "core/carriers/dispatch.h"

namespace tc::gtest {

//! Registers the tests of these engines with GoogleTest (::testing::RegisterTest): one per row of
//! each engine's verdict, or, when TAPECHECK_REPLAY names a file, the one test that replays it.
//! The engines must outlive the tests; call it once per program, before RUN_ALL_TESTS. Returns how
//! many tests it registered. `where` is the file and line the tests report (the macro's).
std::size_t registerEngineTests(std::vector<cli::NamedEngine> engines,
                                std::source_location where = std::source_location::current());

}  // namespace tc::gtest

//! Registers, when the program starts, the GoogleTest tests of these engines (registerEngineTests):
//! `TAPECHECK_GTEST(tc::cli::namedEngine("mine", mineOnRational, mineOnDouble))`. Once per program.
#define TAPECHECK_GTEST(...)                                          \
  [[maybe_unused]] static const std::size_t tapecheckGtestTests = \
      ::tc::gtest::registerEngineTests({__VA_ARGS__});
