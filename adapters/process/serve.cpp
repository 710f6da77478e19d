#include "adapters/process/serve.h"

#include <fmt/format.h>
#include <unistd.h>

#include <cerrno>

#include "adapters/process/engine_process.h"
#include "adapters/process/protocol.hpp"
#include "core/carriers/dispatch.h"
#include "core/io/document_format.h"
#include "properties/engines/profile_json.h"

namespace tc::process {
namespace {

// The passes of a request run on one execution, in order.
template <class T>
Result<std::vector<Result<SingleOutputResult<T>>>> runPasses(const Execution<T>& execution,
                                                             const nlohmann::json& passes, const Graph<T>& graph) {
  std::vector<Result<SingleOutputResult<T>>> results;
  for (std::size_t k = 0; k < passes.size(); ++k) {
    auto pass = decodePass<T>(passes[k], graph, fmt::format("passes[{}]", k));
    if (!pass) return std::unexpected(pass.error());
    if (pass->single) {
      results.push_back(execution.backwardSingle(pass->output, pass->seed));
      continue;
    }
    auto dense = execution.backwardDense(pass->seeds);
    if (dense) results.push_back(SingleOutputResult<T>{std::move(*dense), std::nullopt});
    else results.push_back(std::unexpected(dense.error()));
  }
  return results;
}

// The answer line to one request on carrier T, or why the request is malformed or passes the limits.
template <class T>
Result<std::string> answer(const Engine<T>& engine, std::size_t id, const nlohmann::json& request,
                           const ServeLimits& limits) {
  const nlohmann::json empty = nlohmann::json::array();
  const nlohmann::json& passes = request.contains("passes") ? request["passes"] : empty;
  if (!passes.is_array()) return fail("\"passes\" must be a list");
  // A forward pass and the passes asked; every value read and written as text: the inputs and
  // seeds, the context and the gradients.
  const double reverse = static_cast<double>(passes.size());
  const PassCounts counts{.forward = 1, .backward = reverse, .dense = limits.denseOrder ? reverse : 0.0,
                          .exchangedValues = 2 * (1 + reverse)};
  auto c = caseFromJson<T>(request["case"], [&](const Case<T>& loaded) {
    return withinBudget(loaded.graph, loaded.inputs ? &*loaded.inputs : nullptr, loaded.data, counts, limits.budget,
                        limits.raiseWork, limits.raiseMemory);
  });
  if (!c) return fail("case: " + c.error().message);
  if (!c->inputs) return fail("case: no input values");
  // An engine that refuses the case (UnsupportedCase, from any of its calls) answers `unsupported`,
  // as it counts in this process: isolation must not change a verdict.
  try {
    auto execution = engine.compile(c->graph, *c->inputs, c->data);
    if (!execution) return nlohmann::json{{"id", id}, {"error", {{"message", execution.error().message}}}}.dump();
    auto results = runPasses(**execution, passes, c->graph);
    if (!results) return std::unexpected(results.error());
    return encodeAnswer(id, (*execution)->context(), *results);
  } catch (const UnsupportedCase& unsupported) {
    return nlohmann::json{{"id", id}, {"unsupported", unsupported.what()}}.dump();
  }
}

Result<std::string> answerLine(const ServedEngines& engines, const std::string& line, const ServeLimits& limits) {
  auto request = parseJsonDocument(line, MemoryBound{limits.budget.memory, limits.raiseMemory});
  if (!request) return std::unexpected(request.error());
  if (!request->is_object() || !(*request)["id"].is_number_unsigned() || !(*request)["carrier"].is_string() ||
      !request->contains("case"))
    return fail("a request needs \"id\", \"carrier\" and \"case\"");
  const std::string carrier = (*request)["carrier"].get<std::string>();
  if (std::find(kCarrierNames.begin(), kCarrierNames.end(), carrier) == kCarrierNames.end())
    return fail("no carrier named " + carrier);
  const std::size_t id = (*request)["id"].get<std::size_t>();
  Result<std::string> out;
  withCarrier(carrier, [&]<class T>() {
    if (const Engine<T>* engine = engines.get<T>()) out = answer<T>(*engine, id, *request, limits);
    else out = fail("this engine does not run carrier " + carrier);
    return 0;
  });
  return out;
}

// The next line of `fd` (without '\n'; a last line without one counts) into `line`, reading in
// large blocks: true, or false at the end of the input; a line longer than `maxLine` is an error,
// found once that many bytes without a '\n' are read.
Result<bool> readLine(int fd, LineBuffer& buffer, std::string& line, std::size_t maxLine) {
  for (;;) {
    switch (buffer.take(line, maxLine)) {
      case LineBuffer::Next::line: return true;
      case LineBuffer::Next::tooLong: return fail(fmt::format("the line is longer than {} bytes", maxLine));
      case LineBuffer::Next::none: break;
    }
    char block[65536];
    ssize_t n = ::read(fd, block, std::min(sizeof block, buffer.room(maxLine)));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      if (buffer.held() == 0) return false;
      line = buffer.rest();
      return true;
    }
    buffer.append(block, static_cast<std::size_t>(n), maxLine);
  }
}

}  // namespace

int serve(const std::string& engineName, int in, std::FILE* out, const ServeLimits& limits) {
  EngineProfile profile;
  profile.name = engineName;
  ServedEngines engines{&builtinEngine<Rational>(engineName), &builtinEngine<RationalNoEq>(engineName),
                        &builtinEngine<ModP>(engineName), &builtinEngine<double>(engineName),
                        &builtinEngine<float>(engineName), &builtinEngine<Interval>(engineName)};
  return serve(profile, "bits", engines, in, out, limits);
}

int serve(const EngineProfile& profile, std::string_view policy, const ServedEngines& engines, int in, std::FILE* out,
          const ServeLimits& limits) {
  std::string hello = nlohmann::json{{"tapecheck_engine", kProtocolVersion}, {"profile", profileToJson(profile)},
                                     {"policy", policy}}.dump() + "\n";
  std::fputs(hello.c_str(), out);
  std::fflush(out);
  LineBuffer buffer;
  std::string line;
  for (std::size_t number = 1;; ++number) {
    auto more = readLine(in, buffer, line, limits.maxLine);
    if (more && !*more) return 0;
    auto answer = more ? answerLine(engines, line, limits) : Result<std::string>(std::unexpected(more.error()));
    if (!answer) {
      fmt::print(stderr, "tapecheck serve: request line {}: {}\n", number, answer.error().message);
      return 2;
    }
    *answer += '\n';
    std::fwrite(answer->data(), 1, answer->size(), out);
    std::fflush(out);
  }
}

}  // namespace tc::process
