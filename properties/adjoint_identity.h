#pragma once
// Oracle: the adjoint identity <seed, J·v> == <Jᵀ·seed, v>, exactly, with J·v from running the
// forward code on dual numbers (sharing no code with the reverse terms) and Jᵀ·seed from the
// engine's dense pass. Graphs that touch a kink of an op (its definition says where) or hold a
// non-linear opaque program are skipped and classified.
#include "core/ops/library.hpp"
#include "core/spec/reference.h"
#include "properties/compare.hpp"
#include "properties/dual_forward.h"
#include "properties/engine_under_test.h"

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
  if (!gradients) return Verdict::fail("backwardDenseFrom failed: " + gradients.error().message);
  for (std::size_t i = 0; i < c.graph.inputs.size(); ++i)
    if (i >= gradients->size() || (*gradients)[i].shape != c.graph.inputs[i])
      return Verdict::fail(fmt::format("backwardDenseFrom: no gradient of shape {} at input {}", formatShape(c.graph.inputs[i]), i));
  T forward = innerProduct(c.seeds, tangents, c.graph.positionCount());
  T reverse = innerProduct(*gradients, direction, c.graph.inputs.size());
  if (Carrier<T>::same(forward, reverse)) return Verdict::pass();
  return Verdict::fail(fmt::format("<seed, J·v> = {} but <Jᵀ·seed, v> = {}", Carrier<T>::format(forward),
                                   Carrier<T>::format(reverse)));
}

}  // namespace tc::props
