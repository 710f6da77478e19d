// The reordered engine on tapecheck's command line (cli/main.h), built with its author's own
// floating-point flags: CMakeLists.txt here compiles this program with -ffp-contract=fast and
// -mfma, so every product summed by the engine's kernels (dot, matmul, linear, mse_loss and their
// backward sums) is a fused multiply-add. tapecheck's own code keeps -ffp-contract=off: the flags it
// needs are private to its targets, so linking tapecheck::main changes nothing in the engine.
//   reordered_fma_check run        # the engine verdict: exact rows, kinks, domains, accuracy
// Built against the installed package by this directory's CMakeLists.txt.
#include "cli/main.h"
#include "core/carriers/rational.h"
#include "reordered_engine/reordered_engine.h"

namespace {

template <class T>
const reordered::Engine<T> engine;

// "reordered" on the carriers it runs on, declaring the ops it implements (reordered::profile()).
tc::cli::NamedEngine reorderedEngine() {
  tc::cli::NamedEngine named = tc::cli::namedEngine("reordered", engine<tc::Rational>, engine<tc::RationalNoEq>,
                                                    engine<double>, engine<float>);
  named.profile.ops = reordered::profile().ops;
  return named;
}

}  // namespace

TAPECHECK_MAIN(reorderedEngine())
