#pragma once
#include "core/graph/node_program.h"
#include "core/graph/seed_pack.h"
#include "core/spec/exactness.h"
#include "core/spec/reference.h"
#include "generators/case_writer.hpp"
#include "generators/expected_shapes.hpp"
#include "generators/generate.h"

namespace tc::gen {

namespace detail {

template <class T>
bool demandsMore(const CaseOptions& options) {
  return exactDomainOn<T>(options) || options.avoidKinks;
}

// A generated document and, where the options' demands beyond what the writer guarantees made
// it load the case to check them, that case. A rejected draw is drawn again from a derived seed,
// at a smaller size every few attempts: a case without nodes is always acceptable, so this ends.
// A document that does not load is kept, never drawn again: the writer builds every node through
// the loader's own reader, so it is a disagreement of the generator and an op, which the run fails.
template <class T>
std::pair<nlohmann::json, std::optional<Result<Case<T>>>> draw(std::uint64_t seed, int size, const CaseOptions& options) {
  for (std::uint64_t attempt = 0;; ++attempt) {
    int shrunk = size >> (attempt / 8);
    nlohmann::json doc = CaseWriter<T>(attempt == 0 ? seed : Choices(seed ^ attempt).next(), shrunk, options).build();
    if (!demandsMore<T>(options)) return {std::move(doc), std::nullopt};
    Result<Case<T>> loaded = caseFromJson<T>(doc);
    if (shrunk == 0 || !loaded || meetsOptions(*loaded, options)) return {std::move(doc), std::move(loaded)};
  }
}

}  // namespace detail

template <class T>
bool meetsOptions(const Case<T>& c, const CaseOptions& options) {
  if (!detail::demandsMore<T>(options)) return true;
  if (!c.inputs) return false;
  if (shapeDisagreement(c.graph)) return true;  // nothing of it can be evaluated: its shapes are its failure
  if constexpr (!Carrier<T>::caps.exact)
    if (exactDomainOn<T>(options) && !spec::checkExactDomain(c.graph, *c.inputs, c.data, c.seeds)) return false;
  if (!options.avoidKinks) return true;
  auto context = spec::eval(c.graph, *c.inputs, c.data);
  if (!context) return true;
  for (std::size_t p = c.graph.inputs.size(); p < c.graph.positionCount(); ++p)
    if (atKink(c.graph, *context, c.data, p)) return false;
  return true;
}

template <class T>
nlohmann::json randomCase(std::uint64_t seed, int size, const CaseOptions& options) {
  return detail::draw<T>(seed, size, options).first;
}

template <class T>
GeneratedCase<T> generateCase(std::uint64_t seed, int size, const CaseOptions& options) {
  auto [doc, loaded] = detail::draw<T>(seed, size, options);
  if (!loaded) loaded = caseFromJson<T>(doc);
  return {std::move(doc), std::move(*loaded)};
}

template <class T>
Case<T> withRandomValues(const Case<T>& c, std::uint64_t seed, Domain domain, Values values) {
  detail::Choices pick(seed);
  bool finite = false;  // on an IEEE carrier, kFiniteDrawPercent of the draws
  if constexpr (!Carrier<T>::caps.exact) finite = pick.percent(kFiniteDrawPercent);
  const std::vector<std::string>* narrow = values == Values::powersOfTwo ? &detail::kPowersOfTwoValues
                                           : values == Values::units     ? &detail::kUnitValues
                                                                         : nullptr;
  auto draw = [&](const Shape& shape, bool input) {
    if (narrow) return detail::pooledTensor<T>(pick, shape, *narrow);
    if (input && values == Values::spread) return detail::pooledTensor<T>(pick, shape, detail::kSpreadValues);
    return detail::randomTensor<T>(pick, shape, domain, finite);
  };
  Case<T> out{c.graph, Pack<T>{}, c.data, c.output, zeroSeedPack(c.graph), c.failureJson};
  for (const Shape& shape : c.graph.inputs) out.inputs->push_back(draw(shape, true));
  detail::chooseSeedPositions(pick, c.graph.positionCount(), c.output,
                              [&](std::size_t p, bool) { out.seeds[p] = draw(c.graph.shapeAt(p), false); });
  return out;
}

}  // namespace tc::gen

// The library's copies of the generator's and the core's templates, declared extern.
#include "generators/generator_instances.h"
