#pragma once
#include "core/graph/node_program.h"
#include "core/spec/exactness.h"
#include "core/spec/reference.h"
#include "generators/case_writer.hpp"
#include "generators/generate.h"

namespace tc::gen {

namespace detail {

template <class T>
bool demandsMore(const CaseOptions& options) {
  return exactDomainOn<T>(options) || options.avoidKinks;
}

// Whether a generated document meets the options' demands beyond what the writer guarantees.
template <class T>
bool acceptable(const nlohmann::json& doc, const CaseOptions& options) {
  if (!demandsMore<T>(options)) return true;
  auto loaded = parseCase<T>(doc.dump());
  return loaded && meetsOptions(*loaded, options);
}

}  // namespace detail

template <class T>
bool meetsOptions(const Case<T>& c, const CaseOptions& options) {
  if (!detail::demandsMore<T>(options)) return true;
  if (!c.inputs) return false;
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
  // A rejected draw is drawn again from a derived seed, at a smaller size every few attempts:
  // a case without nodes is always acceptable, so this ends.
  for (std::uint64_t attempt = 0;; ++attempt) {
    int shrunk = size >> (attempt / 8);
    nlohmann::json doc = detail::CaseWriter<T>(attempt == 0 ? seed : detail::Choices(seed ^ attempt).next(), shrunk, options).build();
    if (shrunk == 0 || detail::acceptable<T>(doc, options)) return doc;
  }
}

template <class T>
nlohmann::json withRandomValues(const nlohmann::json& doc, std::uint64_t seed, Domain domain) {
  auto loaded = parseCase<T>(doc.dump());
  if (!loaded) return doc;
  detail::Choices pick(seed);
  nlohmann::json out = doc;
  out["values"] = nlohmann::json::array();
  for (const Shape& shape : loaded->graph.inputs) out["values"].push_back(detail::randomValues<T>(pick, elementCount(shape), domain));
  std::vector<Shape> shapes;
  for (std::size_t p = 0; p < loaded->graph.positionCount(); ++p) shapes.push_back(loaded->graph.shapeAt(p));
  detail::chooseSeeds<T>(pick, shapes, loaded->output, out, domain);
  return out;
}

}  // namespace tc::gen
