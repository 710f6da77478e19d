#pragma once
// What an engine declares about itself (docs/semantics.md §3.6): the carriers and ops it
// supports, so that a case it cannot run is counted as unsupported rather than passed or failed
// and the generator does not spend cases on it; what its single-output pass runs; and its
// conventions where correct engines differ, which the reference then implements.
#include <algorithm>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/graph/graph.h"
#include "core/ops/conventions.h"
#include "core/ops/op_kind.h"

namespace tc {

//! What an engine's single-output pass runs: `support`, the visit set V of the specification
//! (docs/semantics.md §1.9), so it equals the dense pass on a single seed; or `ancestors`, only the
//! output's ancestors through ops with terms (as PyTorch's autograd does), so it equals the
//! reference restricted to them.
enum class SingleOutput { support, ancestors };

//! Whether an engine promises the specification's sign of zero (+0 wherever a value or gradient
//! is zero by selection, docs/semantics.md §2.2) or leaves it unspecified, so that ±0 compare
//! equal even under the `bits` policy.
enum class ZeroSign { spec, unspecified };

//! A known deviation an engine declares (docs/semantics.md §3.6): on the IEEE carrier `carrier`,
//! the pointwise op `op` may give `gives` wherever its argument x lies in the region (x < `below`
//! and x > `above`, each where given) instead of a result within the op's accuracy budget; `why`
//! says why, for people. The accuracy oracle holds it to that: in the region a value is `gives` or
//! within budget, nothing else; outside, the budget.
struct Deviation {
  std::string carrier;
  OpKind op;
  std::optional<double> below, above;
  double gives = 0;
  std::string why;
  //! `"gives": "x"`: the op gives its argument itself in the region (a threshold past which the
  //! engine returns x, as softplus's); `gives` is then unused.
  bool givesArgument = false;

  //! Whether argument value `x` lies in the region.
  bool covers(double x) const { return (!below || x < *below) && (!above || x > *above); }
  //! The value the op gives at argument x in the region.
  double valueAt(double x) const { return givesArgument ? x : gives; }
  //! The derivative of the declared value in x: what the op's term gives a cotangent `ct` in the
  //! region (ct itself where the op gives x, 0 where it gives a constant).
  double slope() const { return givesArgument ? 1 : 0; }
};

//! An engine's declared capabilities. `carriers` empty: every carrier. A carrier missing from
//! `ops`: every op that carrier supports; listed: only those ops (OpKind::opaque stands for every
//! registered opaque program). tapecheck's own engines have the default profile, `spec`.
struct EngineProfile {
  std::string name = "spec";
  std::vector<std::string> carriers;
  std::map<std::string, std::vector<OpKind>, std::less<>> ops;
  SingleOutput singleOutput = SingleOutput::support;
  ZeroSign zeroSign = ZeroSign::spec;
  Conventions conventions;
  //! False when the engine's choices at kinks are unknown: generated cases then avoid kinks.
  bool kinkConventionsDeclared = true;
  std::vector<Deviation> deviations;

  //! The deviation declared for `op` on `carrier` whose region holds `x`, or nullptr.
  const Deviation* deviationAt(std::string_view carrier, OpKind op, double x) const {
    for (const Deviation& d : deviations)
      if (d.carrier == carrier && d.op == op && d.covers(x)) return &d;
    return nullptr;
  }

  bool supportsCarrier(std::string_view carrier) const {
    return carriers.empty() || std::find(carriers.begin(), carriers.end(), carrier) != carriers.end();
  }
  bool supportsOp(std::string_view carrier, OpKind kind) const {
    auto listed = ops.find(carrier);
    return listed == ops.end() || listsOp(listed->second, kind);
  }
  //! The ops of `carrier` this profile restricts generation to, or nullopt for no restriction.
  std::optional<std::vector<OpKind>> opsOn(std::string_view carrier) const {
    auto listed = ops.find(carrier);
    if (listed == ops.end()) return std::nullopt;
    return listed->second;
  }
  //! The first node of `graph` whose op the profile does not support on `carrier`, or nullopt.
  template <class T>
  std::optional<std::size_t> firstUnsupportedNode(std::string_view carrier, const Graph<T>& graph) const {
    auto listed = ops.find(carrier);
    if (listed == ops.end()) return std::nullopt;
    for (std::size_t k = 0; k < graph.nodes.size(); ++k)
      if (!listsOp(listed->second, graph.nodes[k].op)) return graph.inputs.size() + k;
    return std::nullopt;
  }

 private:
  static bool listsOp(const std::vector<OpKind>& list, OpKind kind) {
    return std::find(list.begin(), list.end(), kind) != list.end();
  }
};

//! The profile of tapecheck's own engines: every carrier, every op.
inline const EngineProfile& specProfile() {
  static const EngineProfile spec;
  return spec;
}

}  // namespace tc
