#pragma once
// Oracle: the adjoint identity <seed, J·v> == <Jᵀ·seed, v>, exactly, with J·v from running the
// forward code on dual numbers (sharing no code with the reverse terms) and Jᵀ·seed from the
// engine's dense pass. Graphs that touch a kink (relu/abs at 0, a clamp bound, a max/min tie)
// or hold a non-linear opaque program are skipped and classified.
#include "core/carriers/dual.h"
#include "core/graph/node_program.h"
#include "core/io/case_file.h"
#include "core/spec/reference.h"
#include "properties/compare.hpp"
#include "properties/engine.h"

namespace tc::props {

//! Why node `p` is outside the oracle's domain at these values (a kink or a non-linear opaque
//! program), or empty.
template <class T>
std::string nodeSkipReason(const Graph<T>& graph, const Context<T>& context, std::size_t p) {
  const Node<T>& node = graph.nodeAt(p);
  if (node.op == OpKind::opaque && !node.attrs.opaque->linearInCotangent) return "non-linear opaque program";
  if constexpr (Carrier<T>::caps.ordered) {
    if (node.args.empty()) return {};
    const Tensor<T>& x = context[node.args[0]];
    for (std::size_t i = 0; i < x.size(); ++i) {
      bool kink = false;
      switch (node.op) {
        case OpKind::relu: case OpKind::abs: kink = x[i] == zero<T>(); break;
        case OpKind::clamp: kink = x[i] == *node.attrs.lo || x[i] == *node.attrs.hi; break;
        case OpKind::max: case OpKind::min: kink = x[i] == context[node.args[1]][i]; break;
        default: break;
      }
      if (kink) return "kink";
    }
  }
  return {};
}

//! Why the graph is outside the oracle's domain at these values, or empty.
template <class T>
std::string adjointSkipReason(const Graph<T>& graph, const Context<T>& context) {
  for (std::size_t p = graph.inputs.size(); p < graph.positionCount(); ++p)
    if (std::string reason = nodeSkipReason(graph, context, p); !reason.empty()) return reason;
  return {};
}

template <class T>
Attrs<Dual<T>> liftAttrs(const Attrs<T>& a) {
  using D = Dual<T>;
  auto lift = [](const std::optional<T>& v) { return v ? std::optional<D>(Carrier<D>::lift(*v)) : std::nullopt; };
  Attrs<D> out;
  out.c = lift(a.c);
  out.lo = lift(a.lo);
  out.hi = lift(a.hi);
  out.axis = a.axis, out.start = a.start, out.len = a.len, out.shape = a.shape, out.key = a.key;
  for (const T& v : a.values) out.values.push_back(Carrier<D>::lift(v));
  if (a.opaque) out.opaque = OpaqueRegistry<D>::instance().find(a.opaque->name);
  return out;
}

template <class T>
Tensor<Dual<T>> liftTensor(const Tensor<T>& x, const std::vector<T>* tangent = nullptr) {
  std::vector<Dual<T>> values;
  for (std::size_t i = 0; i < x.size(); ++i) values.push_back({x[i], tangent ? (*tangent)[i] : zero<T>()});
  return Tensor<Dual<T>>(x.shape, std::move(values));
}

//! A graph and its data lifted to dual numbers (tangent zero), for forward-mode runs.
template <class T>
struct DualGraph {
  using D = Dual<T>;
  explicit DualGraph(const Case<T>& c) : graph{c.graph.inputs, {}, c.graph.schema} {
    for (const Node<T>& node : c.graph.nodes)
      graph.nodes.push_back(Node<D>{node.op, node.args, liftAttrs(node.attrs), node.shape});
    for (const auto& [key, tensor] : c.data) data[key] = liftTensor(tensor);
  }
  //! The forward value of node `p` on dual arguments taken from `context`.
  Tensor<D> forward(std::size_t p, const Context<D>& context) const {
    const Node<D>& node = graph.nodeAt(p);
    ArgValues<D> args;
    for (std::size_t a : node.args) args.push_back(&context[a]);
    return forwardNode<D>(OpCall<D>{node, {args.data(), args.size()}, graph.schema, data});
  }
  Graph<D> graph;
  Data<D> data;
};

template <class T>
Tensor<T> tangentOf(const Tensor<Dual<T>>& t) {
  std::vector<T> values;
  for (const Dual<T>& v : t.values) values.push_back(v.tangent);
  return Tensor<T>(t.shape, std::move(values));
}

//! The tangent of every position when the inputs move along `direction`.
template <class T>
Pack<T> jacobianVectorProducts(const Case<T>& c, const Pack<T>& direction) {
  DualGraph<T> dual(c);
  Context<Dual<T>> context;
  for (std::size_t i = 0; i < c.inputs->size(); ++i) context.push_back(liftTensor((*c.inputs)[i], &direction[i].values));
  for (std::size_t p = c.graph.inputs.size(); p < c.graph.positionCount(); ++p) context.push_back(dual.forward(p, context));
  Pack<T> tangents;
  for (const Tensor<Dual<T>>& t : context) tangents.push_back(tangentOf(t));
  return tangents;
}

template <class T>
T innerProduct(const Pack<T>& a, const Pack<T>& b, std::size_t positions) {
  T total = zero<T>();
  for (std::size_t p = 0; p < positions; ++p)
    for (std::size_t i = 0; i < a[p].size(); ++i) total = total + a[p][i] * b[p][i];
  return total;
}

template <class T>
Verdict adjoint_identity(const Engine<T>& engine, const Case<T>& c) {
  auto execution = engine.compile(c.graph, *c.inputs, c.data);
  auto context = spec::eval(c.graph, *c.inputs, c.data);
  if (!execution || !context) return Verdict::skip("domain failure");  // compileChecked_context judges these
  if (std::string reason = adjointSkipReason(c.graph, *context); !reason.empty())
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
