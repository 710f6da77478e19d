#pragma once
// Forward mode on dual numbers: a case's graph lifted to Dual<T> and run with the op library's
// forward code, so the tangents are Jacobian-vector products that share no code with the reverse
// terms. The adjoint-identity oracles compare the two.
#include "core/carriers/dual.h"
#include "core/graph/node_program.h"
#include "core/io/case_file.h"
#include "core/ops/opaque.h"

namespace tc::props {

//! Attributes with every carrier value lifted to a dual number of tangent zero.
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

//! `x` as dual numbers whose tangents are `tangent` (zero when not given).
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
  explicit DualGraph(const Case<T>& c) : graph{c.graph.inputs, {}, c.graph.schema, c.graph.conventions} {
    for (const Node<T>& node : c.graph.nodes)
      graph.nodes.push_back(Node<D>{node.op, node.args, liftAttrs(node.attrs), node.shape});
    for (const auto& [key, tensor] : c.data) data[key] = liftTensor(tensor);
  }
  //! The forward value of node `p` on dual arguments taken from `context`.
  Tensor<D> forward(std::size_t p, const Context<D>& context) const { return forwardAt<D>(graph, context, data, p); }
  Graph<D> graph;
  Data<D> data;
};

//! The tangents of a dual tensor.
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

//! Σ a[i]·b[i], a left fold from zero.
template <class T>
T innerProduct(const Tensor<T>& a, const Tensor<T>& b) {
  T total = zero<T>();
  for (std::size_t i = 0; i < a.size(); ++i) total = total + a[i] * b[i];
  return total;
}

//! Σ over the first `positions` positions of <a[p], b[p]>.
template <class T>
T innerProduct(const Pack<T>& a, const Pack<T>& b, std::size_t positions) {
  T total = zero<T>();
  for (std::size_t p = 0; p < positions; ++p) total = total + innerProduct(a[p], b[p]);
  return total;
}

}  // namespace tc::props
