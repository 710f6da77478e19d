#pragma once
// Oracle: the adjoint identity <seed, J·v> == <Jᵀ·seed, v>, exactly, with J·v from running the
// forward code on dual numbers (sharing no code with the reverse terms) and Jᵀ·seed from the
// engine's dense pass. Graphs that touch a kink of an op (its definition says where) or hold a
// non-linear opaque program are skipped and classified.
#include <fmt/ranges.h>

#include "core/io/listing.h"
#include "core/ops/library.hpp"
#include "core/spec/reference.h"
#include "properties/compare.hpp"
#include "properties/oracles/dual_forward.h"
#include "properties/engines/engine_under_test.h"

namespace tc::props {

//! Why node `p` is outside the oracle's domain at these values (a kink or a non-linear opaque
//! program), or empty.
template <class T>
std::string nodeSkipReason(const Graph<T>& graph, const Context<T>& context, const Data<T>& data, std::size_t p) {
  const Node<T>& node = graph.nodeAt(p);
  if (!ops::linearInCotangent(node.op, node.attrs)) return "non-linear opaque program";
  if (atKink(graph, context, data, p)) return "kink";
  return {};
}

//! Why the graph is outside the oracle's domain at these values, or empty.
template <class T>
std::string adjointSkipReason(const Graph<T>& graph, const Context<T>& context, const Data<T>& data) {
  for (std::size_t p = graph.inputs.size(); p < graph.positionCount(); ++p)
    if (std::string reason = nodeSkipReason(graph, context, data, p); !reason.empty()) return reason;
  return {};
}

//! Whether every value of `t` is the carrier's zero (a position the seed pack leaves unseeded).
template <class T>
bool isZeroTensor(const Tensor<T>& t) {
  return std::all_of(t.values.begin(), t.values.end(), [](const T& v) { return Carrier<T>::same(v, zero<T>()); });
}

//! The two sides of the identity with only input `i` moving along its direction. The identity is
//! linear in the direction, so it holds input by input: where these differ, the engine's gradient
//! at input i is wrong (or J·v is, through input i).
template <class T>
std::pair<T, T> sidesAtInput(const Case<T>& c, const Pack<T>& direction, const Pack<T>& gradients, std::size_t i) {
  Pack<T> alone;
  for (std::size_t j = 0; j < direction.size(); ++j)
    alone.push_back(j == i ? direction[j] : Tensor<T>::filled(direction[j].shape, zero<T>()));
  return {innerProduct(c.seeds, jacobianVectorProducts(c, alone), c.graph.positionCount()),
          innerProduct(gradients[i], direction[i])};
}

//! Notes and details at input i: its direction and the engine's gradient, blamed when the
//! identity fails with i alone moving.
template <class T>
void explainInput(const Case<T>& c, const Pack<T>& direction, const Pack<T>& gradients, std::size_t i,
                  std::string_view engine, Verdict& verdict, std::vector<std::string>& details) {
  auto [forward, reverse] = sidesAtInput(c, direction, gradients, i);
  const bool holds = agree(forward, reverse);
  const std::string gradientLabel = fmt::format("Jᵀ·seed ({})", engine);
  verdict.notes[i].push_back(noteLine("v", textColumns(gradientLabel), abbreviatedValues(direction[i])));
  verdict.notes[i].push_back(noteLine(gradientLabel, textColumns(gradientLabel),
                                      abbreviatedValues(gradients[i]) + (holds ? "" : "   <- blamed")));
  if (holds) return;
  verdict.blamed.insert(i);
  details.push_back(fmt::format("input {}: v = {}, Jᵀ·seed = {}; with it alone moving <seed, J·v> = {} but <Jᵀ·seed, v> = {}",
                                i, bracketed(direction[i]), bracketed(gradients[i]), displayValue(forward),
                                displayValue(reverse)));
}

//! The failure with every quantity it compares: per input v and Jᵀ·seed (the inputs where the
//! identity fails alone are blamed), per seeded position the seed and J·v; J·v in every listing.
template <class T>
Verdict adjointFailure(const EngineUnderTest<T>& subject, const Case<T>& c, const Pack<T>& direction,
                       const Pack<T>& tangents, const Pack<T>& gradients, const T& forward, const T& reverse) {
  const std::string_view engine = subject.engine.name();
  Verdict verdict = Verdict::fail(fmt::format("<seed, J·v> = {} but <Jᵀ·seed, v> = {} (Jᵀ·seed from {})",
                                              displayValue(forward), displayValue(reverse), engine));
  std::vector<std::string> details;
  for (std::size_t i = 0; i < c.graph.inputs.size(); ++i) explainInput(c, direction, gradients, i, engine, verdict, details);
  for (std::size_t p = 0; p < c.graph.positionCount(); ++p) {
    verdict.notes[p].push_back(
        noteLine("J·v", textColumns(fmt::format("Jᵀ·seed ({})", engine)), abbreviatedValues(tangents[p])));
    if (!isZeroTensor(c.seeds[p]))
      details.push_back(fmt::format("position {}: seed = {}, J·v = {}", p, bracketed(c.seeds[p]), bracketed(tangents[p])));
  }
  verdict.why += fmt::format("; {}", fmt::join(details, "; "));
  return verdict;
}

template <class T>
Verdict adjoint_identity(const EngineUnderTest<T>& subject, const Case<T>& c) {
  auto execution = subject.engine.compile(c.graph, *c.inputs, c.data);
  auto context = spec::eval(c.graph, *c.inputs, c.data);
  if (!execution || !context) return Verdict::skip("domain failure");  // compileChecked_context judges these
  if (std::string reason = adjointSkipReason(c.graph, *context, c.data); !reason.empty())
    return Verdict::skip(reason);
  Pack<T> direction;
  for (std::size_t i = 0; i < c.graph.inputs.size(); ++i)
    direction.push_back(probeCotangents<T>(c.graph.inputs[i], 1)[1]);  // the same for every input, so dropping one keeps a failure
  Pack<T> tangents = jacobianVectorProducts(c, direction);
  auto gradients = (*execution)->backwardDense(c.seeds);
  if (!gradients) return passFailed(subject.engine, "backwardDense", gradients.error());
  for (std::size_t i = 0; i < c.graph.inputs.size(); ++i)
    if (i >= gradients->size() || (*gradients)[i].shape != c.graph.inputs[i])
      return Verdict::fail(fmt::format("{}: backwardDense gave no gradient of shape {} at input {}", subject.engine.name(),
                                       formatShape(c.graph.inputs[i]), i),
                           {i});
  T forward = innerProduct(c.seeds, tangents, c.graph.positionCount());
  T reverse = innerProduct(*gradients, direction, c.graph.inputs.size());
  if (agree(forward, reverse)) return Verdict::pass();
  return adjointFailure(subject, c, direction, tangents, *gradients, forward, reverse);
}

}  // namespace tc::props
