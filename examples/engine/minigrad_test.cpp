// minigrad under GoogleTest (integrations/gtest.h, docs/gtest.md): one test per property × carrier
// of the engine verdict, for each engine, named ENGINE/PROPERTY.CARRIER:
//   minigrad/...       correct: passes
//   minigrad_bug/...   a gradient assigned instead of accumulated: its failing tests print the
//                      shrunk counterexample, the saved file and the command that replays it
//   ctest -R '^minigrad/'                           # the correct engine's tests
//   TAPECHECK_CASES=20 ./minigrad_test --gtest_filter='minigrad_bug/*.rational'
//   TAPECHECK_REPLAY=tapecheck-failures/FILE.json ./minigrad_test   # replays a saved failure
#include "integrations/gtest.h"
#include "minigrad_engines.h"

TAPECHECK_GTEST(minigrad::named(false), minigrad::named(true))
