#pragma once
#include "generators/case_writer.hpp"
#include "generators/generate.h"

namespace tc::gen {

template <class T>
nlohmann::json randomCase(std::uint64_t seed, int size, const CaseOptions& options) {
  return detail::CaseWriter<T>(seed, size, options).build();
}

template <class T>
nlohmann::json withRandomValues(const nlohmann::json& doc, std::uint64_t seed) {
  auto loaded = parseCase<T>(doc.dump());
  if (!loaded) return doc;
  detail::Choices pick(seed);
  nlohmann::json out = doc;
  out["values"] = nlohmann::json::array();
  for (const Shape& shape : loaded->graph.inputs) out["values"].push_back(detail::randomValues<T>(pick, elementCount(shape)));
  std::vector<Shape> shapes;
  for (std::size_t p = 0; p < loaded->graph.positionCount(); ++p) shapes.push_back(loaded->graph.shapeAt(p));
  detail::chooseSeeds<T>(pick, shapes, loaded->output, out);
  return out;
}

}  // namespace tc::gen
