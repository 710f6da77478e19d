#include "cli/grad.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "core/carriers/dispatch.h"
#include "cli/case_input.h"
#include "cli/exit_codes.h"
#include "core/io/case_file.h"
#include "core/io/listing.h"
#include "core/graph/seed_pack.h"
#include "properties/engines/engine.h"

namespace tc::cli {
namespace {

//! What one engine computed for a case.
template <class T>
struct GradRun {
  Context<T> context;
  Pack<T> gradients;
  std::size_t programsRun = 0;
};

// The seed pack actually used: the file's pack, or with --single only its tensor at the output.
template <class T>
Pack<T> seedsFor(const Case<T>& c, bool single) {
  return single ? singleSeedPack(c.graph, c.output, c.seeds[c.output]) : c.seeds;
}

// Through the engine interface: the dense pass, or with --single the single-output pass (the
// compiled engine counts the node programs it ran; the others run all of them).
template <class T>
Result<GradRun<T>> runEngine(const std::string& engineName, const Case<T>& c, bool single) {
  auto execution = builtinEngine<T>(engineName).compile(c.graph, *c.inputs, c.data);
  if (!execution) return std::unexpected(execution.error());
  const Context<T>& context = (*execution)->context();
  if (!single) {
    auto gradients = (*execution)->backwardDense(c.seeds);
    if (!gradients) return std::unexpected(gradients.error());
    return GradRun<T>{context, std::move(*gradients), c.graph.nodes.size()};
  }
  auto result = (*execution)->backwardSingle(c.output, c.seeds[c.output]);
  if (!result) return std::unexpected(result.error());
  return GradRun<T>{context, std::move(result->gradients), result->programsRun.value_or(c.graph.nodes.size())};
}

template <class T>
int gradWith(const GradOptions& options) {
  // The reference and the tape run the literal dense order.
  const PassCounts passes = gradPasses(options.engine != "compiled", options.format == "json");
  auto loaded = [&]() -> Result<Case<T>> {
    auto input = readCaseInput(options.file, documentBound(options.budget));  // its document freed once read
    if (!input) return std::unexpected(input.error());
    return loadCase<T>(*input, budgetGate<T>(passes, options.budget));
  }();
  if (!loaded) return report(kUsage, loaded.error().message);
  const Case<T>& c = *loaded;
  if (!c.inputs) return report(kUsage, options.file + ": values: the file gives no input values; grad needs them");
  auto run = runEngine(options.engine, c, options.single);
  if (!run) return report(kFailed, options.file + ": " + run.error().message);
  Pack<T> seeds = seedsFor(c, options.single);
  if (options.format == "json") {
    nlohmann::json out{{"carrier", std::string(Carrier<T>::name)},
                       {"engine", options.engine},
                       {"output", c.output},
                       {"single", options.single},
                       {"programs_run", run->programsRun},
                       {"context", packToJson(run->context)},
                       {"gradients", packToJson(run->gradients)}};
    fmt::print("{}\n", out.dump());
    return kSuccess;
  }
  fmt::print("carrier {}, engine {}, output position {}{}\n", Carrier<T>::name, options.engine, c.output,
             options.single ? ", single output" : "");
  fmt::print("{}", formatListing(c.graph, {{"value", run->context}, {"seed", seeds}, {"gradient", run->gradients}}));
  fmt::print("node programs run: {} of {}\n", run->programsRun, c.graph.nodes.size());
  return kSuccess;
}

}  // namespace

int runGrad(const GradOptions& options) {
  return withCarrier(options.carrier, [&]<class T>() { return gradWith<T>(options); });
}

}  // namespace tc::cli
