#pragma once
// Oracle: every compact node's reverse program is linear in its cotangent,
// vjp(a·u + b·w) == a·vjp(u) + b·vjp(w), exactly, at each position of its support.
#include "core/io/case_file.h"
#include "core/ops/library.hpp"
#include "core/runtime/compiled.h"
#include "properties/compare.hpp"

namespace tc::props {

template <class T>
Verdict linearity(const Case<T>& c) {
  auto compiled = compileChecked(c.graph, *c.inputs, c.data);
  if (!compiled) return Verdict::skip("domain failure");
  const T a = Carrier<T>::fromInt(3), b = Carrier<T>::fromInt(-2);
  std::size_t checked = 0;
  for (std::size_t k = c.graph.inputs.size(); k < c.graph.positionCount(); ++k) {
    if (ops::isDense(c.graph.nodeAt(k).op)) continue;  // no certified support to check
    ++checked;
    Pack<T> probes = probeCotangents<T>(c.graph.shapeAt(k), k);
    const Tensor<T>& u = probes[1];
    const Tensor<T>& w = c.seeds[k];
    Tensor<T> mixed = u;
    for (std::size_t i = 0; i < mixed.size(); ++i) mixed[i] = a * u[i] + b * w[i];
    auto whole = compiled->saved().run(k, mixed);
    auto left = compiled->saved().run(k, u);
    auto right = compiled->saved().run(k, w);
    if (whole.support.size() != left.support.size() || whole.support.size() != right.support.size())
      return Verdict::fail(describeNode(c.graph, k) + ": the support changes with the cotangent", {k});
    for (std::size_t s = 0; s < whole.support.size(); ++s) {
      Tensor<T> expected = left.support[s].second;
      for (std::size_t i = 0; i < expected.size(); ++i)
        expected[i] = a * left.support[s].second[i] + b * right.support[s].second[i];
      std::string d = packDifference(Pack<T>{whole.support[s].second}, Pack<T>{expected});
      if (!d.empty())
        return Verdict::fail(fmt::format("{}, contribution to position {}: vjp(a·u + b·w) vs a·vjp(u) + b·vjp(w): {}",
                                         describeNode(c.graph, k), whole.support[s].first, d.substr(d.find(':') + 2)),
                             {k, whole.support[s].first});
    }
  }
  return checked ? Verdict::pass() : Verdict::skip("no compact node to check");
}

}  // namespace tc::props
