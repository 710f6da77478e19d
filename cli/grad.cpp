#include "cli/grad.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>

#include "cli/carrier_dispatch.h"
#include "cli/exit_codes.h"
#include "core/io/listing.h"
#include "core/io/case_file.h"
#include "core/spec/reference.h"

namespace tc::cli {
namespace {

template <class T>
int gradWith(const GradOptions& options) {
  auto loaded = readCaseFile<T>(options.file);
  if (!loaded) return report(kUsage, loaded.error().message);
  const Case<T>& c = *loaded;
  if (!c.inputs) return report(kUsage, options.file + ": values: the file gives no input values; grad needs them");
  auto context = spec::eval(c.graph, *c.inputs, c.data);
  if (!context) return report(kFailed, context.error().message);
  Pack<T> gradients = spec::backpropAllCtx(c.graph, *context, c.data, c.seeds);
  if (options.format == "json") {
    nlohmann::json out{{"carrier", std::string(Carrier<T>::name)},
                       {"engine", "reference"},
                       {"output", c.output},
                       {"context", packToJson(*context)},
                       {"gradients", packToJson(gradients)}};
    fmt::print("{}\n", out.dump());
  } else {
    fmt::print("carrier {}, engine reference, output position {}\n", Carrier<T>::name, c.output);
    fmt::print("{}", formatListing(c.graph, {{"value", *context}, {"seed", c.seeds}, {"gradient", gradients}}));
  }
  return kSuccess;
}

}  // namespace

int runGrad(const GradOptions& options) {
  return withCarrier(options.carrier, [&]<class T>() { return gradWith<T>(options); });
}

}  // namespace tc::cli
