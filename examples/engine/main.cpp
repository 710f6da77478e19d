// minigrad on tapecheck's command line (cli/main.h): this program has every tapecheck command —
// run, check, replay, show — with every option, on two engines of its own:
//   minigrad       correct
//   minigrad-bug   the classic mistake: a gradient assigned instead of accumulated
//   minigrad_check run                          # passes
//   minigrad_check run --engine minigrad-bug    # a shrunk counterexample, saved; replay it with
//   minigrad_check replay FILE                  # on the engine that failed
#include "cli/main.h"
#include "minigrad_engines.h"

TAPECHECK_MAIN(minigrad::named(false), minigrad::named(true))
