// minigrad under GoogleTest (integrations/gtest.h, docs/gtest.md): one test per property × carrier
// of the engine verdict, for each engine, named ENGINE/PROPERTY.CARRIER:
//   minigrad/...       correct: passes
//   minigrad_bug/...   a gradient assigned instead of accumulated: its failing tests print the
//                      shrunk counterexample, the saved file and the command that replays it
//   ctest -R '^minigrad/'                           # the correct engine's tests
//   TAPECHECK_CASES=20 ./minigrad_test --gtest_filter='minigrad_bug/*.rational'
//   TAPECHECK_REPLAY=tapecheck-failures/FILE.json ./minigrad_test   # replays a saved failure
#include "core/carriers/rational.h"
#include "integrations/gtest.h"
#include "minigrad.h"

namespace {

// The engines on each carrier; they outlive the tests.
template <class T>
const minigrad::Engine<T> correct(false);
template <class T>
const minigrad::Engine<T> withBug(true);

}  // namespace

TAPECHECK_GTEST(tc::cli::namedEngine("minigrad", correct<tc::Rational>, correct<tc::ModP>, correct<double>, correct<float>),
                tc::cli::namedEngine("minigrad-bug", withBug<tc::Rational>, withBug<tc::ModP>, withBug<double>,
                                     withBug<float>))
