// adolc_check: tapecheck's command line (cli/main.h) for ADOL-C (adapters/adolc), with two engines:
//   adolc       ADOL-C 2.7's tape and reverse mode (adolc_engine.h), under its measured profile
//   adolc-bug   the same engine with sigmoid's derivative taken from its input (PlantedBug), which
//               the engine verdict must catch
//   build/adapters/adolc/adolc_check run --engine adolc                 # the engine verdict
//   build/tapecheck run --engine-cmd "build/adapters/adolc/adolc_check serve --engine adolc"
// Every command of tapecheck is here: run (--survey too), check, replay, show, grad and serve.
#include "adapters/adolc/adolc_engine.h"
#include "cli/main.h"

namespace {

// `name` on double, ADOL-C's carrier, declaring what ADOL-C does (tc::adolc::profile()) under that name.
tc::cli::NamedEngine adolcEngine(std::string name, const tc::adolc::Engine& engine) {
  tc::cli::NamedEngine named{std::move(name), {}, tc::adolc::profile(), tc::props::Policy::bits};
  named.profile.name = named.name;
  named.engines.slot<double>() = &engine;
  return named;
}

const tc::adolc::Engine correct;
const tc::adolc::Engine planted(tc::adolc::PlantedBug::sigmoidSlopeFromInput);

}  // namespace

TAPECHECK_MAIN(adolcEngine("adolc", correct), adolcEngine("adolc-bug", planted))
