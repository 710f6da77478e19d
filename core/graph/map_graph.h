#pragma once
// A case carried over to another carrier value by value: the same structure with every carrier
// value mapped. Analyses that run the op library on a richer carrier (GridBound for the exact
// domain, core/spec/exactness.h; Dual for forward mode) lift graphs, data and packs this way.
#include <cassert>
#include <optional>
#include <utility>
#include <vector>

#include "core/graph/graph.h"
#include "core/ops/opaque.h"

namespace tc {

//! `x` with every value mapped by `f` (a function from T to U).
template <class U, class T, class F>
Tensor<U> mapTensor(const Tensor<T>& x, F&& f) {
  std::vector<U> values;
  values.reserve(x.size());
  for (const T& v : x.values) values.push_back(f(v));
  return Tensor<U>(x.shape, std::move(values));
}

//! Every tensor of `pack` mapped by `f`, in order.
template <class U, class T, class F>
Pack<U> mapPack(const Pack<T>& pack, F&& f) {
  Pack<U> out;
  out.reserve(pack.size());
  for (const Tensor<T>& x : pack) out.push_back(mapTensor<U>(x, f));
  return out;
}

//! Every data tensor mapped by `f`, under the same keys.
template <class U, class T, class F>
Data<U> mapData(const Data<T>& data, F&& f) {
  Data<U> out;
  for (const auto& [key, tensor] : data) out.emplace(key, mapTensor<U>(tensor, f));
  return out;
}

//! The attributes with every carrier value (scale's c, clamp's lo and hi, const's values) mapped by
//! `f`, and an opaque entry replaced by U's entry of the same name (nullptr if U has none).
template <class U, class T, class F>
Attrs<U> mapAttrs(const Attrs<T>& a, F&& f) {
  auto mapOptional = [&](const std::optional<T>& v) { return v ? std::optional<U>(f(*v)) : std::nullopt; };
  Attrs<U> out;
  out.c = mapOptional(a.c);
  out.lo = mapOptional(a.lo);
  out.hi = mapOptional(a.hi);
  out.axis = a.axis, out.start = a.start, out.len = a.len, out.shape = a.shape, out.key = a.key;
  out.values.reserve(a.values.size());
  for (const T& v : a.values) out.values.push_back(f(v));
  if (a.opaque) out.opaque = OpaqueRegistry<U>::instance().find(a.opaque->name);
  return out;
}

//! The graph on carrier U: the same inputs, schema, ops, arguments and shapes, with attribute
//! values mapped by `f`. Requires U to meet every node's requirement and to have an entry for
//! every opaque node's name (the graph is not rebuilt, so nothing re-checks this).
template <class U, class T, class F>
Graph<U> mapGraph(const Graph<T>& graph, F&& f) {
  Graph<U> out{graph.inputs, {}, graph.schema, graph.conventions};
  out.nodes.reserve(graph.nodes.size());
  for (const Node<T>& node : graph.nodes) {
    Node<U> mapped{node.op, node.args, mapAttrs<U>(node.attrs, f), node.shape};
    assert((!node.attrs.opaque || mapped.attrs.opaque) && "an opaque node needs an entry on the target carrier");
    out.nodes.push_back(std::move(mapped));
  }
  return out;
}

}  // namespace tc
