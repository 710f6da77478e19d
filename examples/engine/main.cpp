// minigrad on tapecheck's command line (cli/main.h): this program has every tapecheck command —
// run, check, replay, show — with every option, on two engines of its own:
//   minigrad       correct
//   minigrad-bug   the classic mistake: a gradient assigned instead of accumulated
//   minigrad_check run                          # passes
//   minigrad_check run --engine minigrad-bug    # a shrunk counterexample, saved; replay it with
//   minigrad_check replay FILE                  # on the engine that failed
#include "cli/main.h"
#include "core/carriers/rational.h"
#include "minigrad.h"

namespace {

// The engines on each carrier; they outlive the command line.
template <class T>
const minigrad::Engine<T> correct(false);
template <class T>
const minigrad::Engine<T> withBug(true);

}  // namespace

TAPECHECK_MAIN(tc::cli::namedEngine("minigrad", correct<tc::Rational>, correct<tc::ModP>, correct<double>, correct<float>),
               tc::cli::namedEngine("minigrad-bug", withBug<tc::Rational>, withBug<tc::ModP>, withBug<double>,
                                    withBug<float>))
