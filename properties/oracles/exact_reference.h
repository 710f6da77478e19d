#pragma once
// Oracle of the exact domain (docs/semantics.md §1.12, §3.2): on a case proven exact in every
// evaluation order, the engine's context and dense gradients on an IEEE carrier equal the
// reference computed on rationals and converted back exactly. A rational has no sign of zero and
// no NaN, so values are compared as numbers whatever the policy; the other properties judge the
// sign of zero under `bits`.
#include "core/carriers/rational.h"
#include "core/graph/map_graph.h"
#include "core/io/case_file.h"
#include "core/ops/opaque.h"
#include "core/spec/exactness.h"
#include "core/spec/reference.h"
#include "properties/compare.hpp"
#include "properties/engines/engine_under_test.h"

namespace tc::props {

//! The rational values as T, or the first position that is not exactly representable (the
//! exactness checker promised it would be: a broken invariant of the checker, reported).
template <class T>
Result<Pack<T>> exactlyAs(const Pack<Rational>& pack) {
  Pack<T> out;
  for (std::size_t p = 0; p < pack.size(); ++p) {
    std::vector<T> values;
    for (const Rational& v : pack[p].values) {
      T converted = v.template convert_to<T>();
      if (Rational(converted) != v)
        return fail(fmt::format("position {}: the rational reference {} is not a {}", p, v.str(), Carrier<T>::name));
      values.push_back(converted);
    }
    out.push_back(Tensor<T>(pack[p].shape, std::move(values)));
  }
  return out;
}

template <class T>
Verdict exact_reference(const EngineUnderTest<T>& subject, const Case<T>& c) {
  // A subject judged on exact cases only has had this case proven exact by the runner already.
  if (!subject.exactCasesOnly)
    if (std::string reason = notExactReason(c); !reason.empty()) return Verdict::skip(reason);
  auto toRational = [](const T& v) { return Rational(v); };
  for (const Node<T>& node : c.graph.nodes)
    if (node.attrs.opaque && !OpaqueRegistry<Rational>::instance().find(node.attrs.opaque->name))
      return Verdict::skip("an opaque program without a rational definition");
  const Graph<Rational> graph = mapGraph<Rational>(c.graph, toRational);
  const Data<Rational> data = mapData<Rational>(c.data, toRational);
  auto context = spec::eval(graph, mapPack<Rational>(*c.inputs, toRational), data);
  if (!context)
    return Verdict::fail("eval on rationals failed on an exact case: " + context.error().message,
                         positionsNamedBy(context.error()));
  auto contextAsT = exactlyAs<T>(*context);
  auto gradientsAsT =
      exactlyAs<T>(spec::backpropAllCtx(graph, *context, data, mapPack<Rational>(c.seeds, toRational)));
  if (!contextAsT || !gradientsAsT)
    return Verdict::fail("the exactness checker accepted a case that rounds: " +
                         (!contextAsT ? contextAsT.error() : gradientsAsT.error()).message);
  auto execution = subject.engine.compile(c.graph, *c.inputs, c.data);
  if (!execution) return passFailed(subject.engine, "compile on an exact case", execution.error());
  Verdict forward = comparePacks(Quantity::forwardValues, "forward values", subject.engine.name(), (*execution)->context(),
                                 "rational reference", *contextAsT, Policy::values);
  if (!forward.holds) return forward;
  auto dense = (*execution)->backwardDense(c.seeds);
  if (!dense) return passFailed(subject.engine, "backwardDense", dense.error());
  return comparePacks(Quantity::gradients, "dense gradients", subject.engine.name(), *dense, "rational reference",
                      *gradientsAsT, Policy::values);
}

}  // namespace tc::props
