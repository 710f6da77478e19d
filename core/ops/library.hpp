#pragma once
// The op library: maps an OpKind to its one definition (core/ops/op_list.h), and answers what
// the rest of tapecheck asks of an op — label, arity, requirement, attributes, support, kinks —
// so that nothing outside core/ops switches on the op kind.
#include <algorithm>
#include <cassert>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <type_traits>
#include <variant>
#include <vector>

#include "core/ops/op_kind.h"
#include "core/ops/structural.hpp"

namespace tc::ops {

//! Calls `f(Op{})` with the definition struct of `kind`.
template <class F>
constexpr decltype(auto) visitOp(OpKind kind, F&& f) {
  switch (kind) {
#define TAPECHECK_VISIT_OP(kind, Struct) \
  case OpKind::kind: return f(Struct{});
    TAPECHECK_FOR_EACH_OP(TAPECHECK_VISIT_OP)
#undef TAPECHECK_VISIT_OP
  }
  assert(false && "unknown OpKind");
  return f(Opaque{});
}

//! Calls `f(Op{})` only when carrier T meets the op's requirement. Graphs guarantee it (the
//! builder checks), so reaching the other branch is a broken invariant.
template <class T, class R, class F>
R visitSupportedOp(OpKind kind, F&& f) {
  return visitOp(kind, [&](auto op) -> R {
    if constexpr (satisfies(Carrier<T>::caps, decltype(op)::needs)) {
      return f(op);
    } else {
      assert(false && "an op the carrier does not support reached its definition");
      return R{};
    }
  });
}

//! The arithmetic the op needs from its carrier (an opaque node's comes from its entry).
template <class T>
Requirement requirement(OpKind kind, const Attrs<T>& attrs) {
  return visitOp(kind, [&](auto op) {
    using Op = decltype(op);
    if constexpr (requires { Op::requirement(attrs); }) return Op::requirement(attrs);
    else return Op::needs;
  });
}

//! The number of arguments the op takes.
template <class T>
std::size_t arity(OpKind kind, const Attrs<T>& attrs) {
  return visitOp(kind, [&](auto op) -> std::size_t {
    using Op = decltype(op);
    if constexpr (requires { Op::arityOf(attrs); }) return Op::arityOf(attrs);
    else return Op::arity;
  });
}

//! How listings and errors name a node of this op: "log", "opaque const3".
template <class T>
std::string nodeLabel(OpKind kind, const Attrs<T>& attrs) {
  return visitOp(kind, [&](auto op) -> std::string {
    using Op = decltype(op);
    if constexpr (requires { Op::nodeLabel(attrs); }) return Op::nodeLabel(attrs);
    else return std::string(Op::label);
  });
}

//! What the node's program does, for a line under it in listings, when its label alone does not
//! say (an opaque entry's description); empty otherwise.
template <class T>
std::string nodeDescription(OpKind kind, const Attrs<T>& attrs) {
  return visitOp(kind, [&](auto op) -> std::string {
    using Op = decltype(op);
    if constexpr (requires { Op::description(attrs); }) return Op::description(attrs);
    else return {};
  });
}

//! The op's attribute schema, in file order.
template <class T>
std::span<const AttrSpec<T>> attributes(OpKind kind) {
  return visitOp(kind, [](auto op) { return std::span<const AttrSpec<T>>(decltype(op)::template attributes<T>); });
}

//! Calls `f(x)` for every carrier value among a node's attributes, in schema order: scale's c,
//! clamp's bounds, a const's values.
template <class T, class F>
void forEachAttributeValue(OpKind kind, const Attrs<T>& attrs, F&& f) {
  for (const AttrSpec<T>& spec : attributes<T>(kind))
    std::visit(
        [&](auto field) {
          const auto& slot = attrs.*field;
          using Slot = std::remove_cvref_t<decltype(slot)>;
          if constexpr (std::is_same_v<Slot, std::optional<T>>) {
            if (slot) f(*slot);
          } else if constexpr (std::is_same_v<Slot, std::vector<T>>) {
            for (const T& x : slot) f(x);
          }
        },
        spec.field);
}

//! True for the opaque op, whose reverse program is dense rather than a list of terms.
constexpr bool isDense(OpKind kind) {
  return visitOp(kind, [](auto op) { return decltype(op)::dense; });
}

//! Whether the op's terms sum products or copies of its arguments and cotangent, never reading its
//! output (OpBase::termsSum): their accuracy budget scales with the terms on absolute values.
constexpr bool termsSum(OpKind kind) {
  return visitOp(kind, [](auto op) { return decltype(op)::termsSum; });
}

//! False for ops whose certified support is empty (detach, const): no term reaches an argument.
constexpr bool hasTerms(OpKind kind) {
  return visitOp(kind, [](auto op) { return decltype(op)::hasTerms; });
}

//! Whether the reverse program is linear in the cotangent (an opaque entry may not be).
template <class T>
bool linearInCotangent(OpKind kind, const Attrs<T>& attrs) {
  return visitOp(kind, [&](auto op) {
    using Op = decltype(op);
    if constexpr (requires { Op::linearInCotangent(attrs); }) return Op::linearInCotangent(attrs);
    else return true;
  });
}

//! The shape contract of the op's arguments.
constexpr Signature signature(OpKind kind) {
  return visitOp(kind, [](auto op) { return decltype(op)::signature; });
}

//! The multiplicative degree of the output given the arguments' degrees (OpBase::degree).
inline int degree(OpKind kind, std::span<const int> args) {
  return visitOp(kind, [&](auto op) { return decltype(op)::degree(args); });
}

//! The elementary operations of one forward pass of a node (OpBase::work).
template <class T>
double work(OpKind kind, const ShapeCall<T>& call, const Shape& out) {
  return visitOp(kind, [&](auto op) { return decltype(op)::work(call, out); });
}

//! The share of the accuracy oracle's enclosure of the op that folds products of doubles in the
//! dense kernels (OpBase::foldedShare).
template <class T>
double foldedShare(OpKind kind, const ShapeCall<T>& call) {
  return visitOp(kind, [&](auto op) { return decltype(op)::foldedShare(call); });
}

//! About the nanoseconds of one of the op's operations in the forward and in the terms on IEEE
//! values of `valueBytes` bytes (OpBase::ieeeOperationNs).
template <class T>
kernels::IeeeOperationNs ieeeOperationNs(OpKind kind, const ShapeCall<T>& call, std::size_t valueBytes) {
  return visitOp(kind, [&](auto op) { return decltype(op)::ieeeOperationNs(call, valueBytes); });
}

//! The op's accuracy budget on IEEE carriers in ulps of the exact result (OpBase::accuracyUlps).
constexpr double accuracyUlps(OpKind kind) {
  return visitOp(kind, [](auto op) { return decltype(op)::accuracyUlps; });
}

//! What an IEEE forward of the node may err by beyond accuracyUlps, per output element, given its
//! arguments and exact output `y` on an enclosing carrier T (OpBase::accumulatedError); empty
//! when the op accumulates nothing.
template <class T>
Tensor<T> accumulatedError(OpKind kind, const OpCall<T>& call, const Tensor<T>& y, const RoundingModel<T>& model) {
  return visitSupportedOp<T, Tensor<T>>(kind, [&](auto op) { return decltype(op)::accumulatedError(call, y, model); });
}

//! Whether the op adds one of its terms straight into its gradient slot (OpBase::addsTermsInPlace).
constexpr bool addsTermsInPlace(OpKind kind) {
  return visitOp(kind, [](auto op) { return decltype(op)::addsTermsInPlace; });
}

//! The op's terms, the in-place one added into the slot `slotOf(arg)` gives (a
//! kernels::SlotTarget), the others in `out`. For an op that addsTermsInPlace.
template <class T, class SlotOf>
void termsInPlace(OpKind kind, const OpCall<T>& call, const Tensor<T>& ct, SlotOf slotOf, Terms<T>& out) {
  visitSupportedOp<T, int>(kind, [&](auto op) {
    using Op = decltype(op);
    if constexpr (Op::addsTermsInPlace) Op::termsInto(call, ct, slotOf, out);
    else assert(false && "termsInPlace of an op that adds no term in place");
    return 0;
  });
}

//! What an IEEE evaluation of the node's terms may err by, per argument its terms reach and per
//! element (OpBase::termRoundings): γ_k times the terms' magnitude, plus k·η, computed on an
//! enclosing carrier T from the arguments, a forward value `y` and the cotangent `ct`.
template <class T>
Terms<T> termError(OpKind kind, const OpCall<T>& call, const Tensor<T>& y, const Tensor<T>& ct,
                   const RoundingModel<T>& model) {
  return visitSupportedOp<T, Terms<T>>(kind, [&](auto op) {
    using Op = decltype(op);
    auto roundingsOf = [&](std::size_t arg) {
      std::size_t roundings = 0;
      if constexpr (requires { Op::termRoundingsAt(call, std::size_t{}); }) roundings = Op::termRoundingsAt(call, arg);
      else roundings = Op::termRoundings;
      return roundings;
    };
    Terms<T> bounds;
    if constexpr (requires { Op::termMagnitude(call, y, ct, bounds); }) {
      Op::termMagnitude(call, y, ct, bounds);
    } else if constexpr (Op::termsSum) {
      if (!termsOnAbsoluteFromDoubles<Op>(call, ct, model, roundingsOf, bounds)) termsOnAbsolute<Op>(call, ct, bounds);
    } else {
      Op::terms(call, y, ct, bounds);
      for (Term<T>& term : bounds) term.value = absolute(term.value);
    }
    for (Term<T>& term : bounds) term.value = roundingsBound(std::move(term.value), roundingsOf(term.arg), model);
    return bounds;
  });
}

//! Where a naive formula for the op loses accuracy (OpBase::stressValues, stressCancellation).
constexpr std::span<const std::string_view> stressValues(OpKind kind) {
  return visitOp(kind, [](auto op) { return std::span<const std::string_view>(decltype(op)::stressValues); });
}
constexpr bool stressCancellation(OpKind kind) {
  return visitOp(kind, [](auto op) { return decltype(op)::stressCancellation; });
}

//! How many plain enclosed operations one operation of the op's work costs the accuracy oracle.
constexpr double enclosureCost(OpKind kind) {
  return visitOp(kind, [](auto op) { return decltype(op)::enclosureCost; });
}

//! In how many addends an engine may add each of the op's terms into a gradient (OpBase::termAddends).
constexpr std::size_t termAddends(OpKind kind) {
  return visitOp(kind, [](auto op) { return decltype(op)::termAddends; });
}

//! Whether the op needs transcendental functions, which cost many arithmetic operations each.
constexpr bool isTranscendental(OpKind kind) {
  return visitOp(kind, [](auto op) { return decltype(op)::needs == Requirement::transcendental; });
}

//! The library's ops that carrier T supports, in registry order. The opaque op is not among
//! them: what it needs comes from each registered entry (OpaqueRegistry).
template <class T>
std::vector<OpKind> opsSupportedBy() {
  std::vector<OpKind> kinds;
  for (std::size_t i = 0; i < kOpCount; ++i) {
    auto kind = static_cast<OpKind>(i);
    bool supported = visitOp(kind, [](auto op) {
      using Op = decltype(op);
      return !Op::dense && satisfies(Carrier<T>::caps, Op::needs);
    });
    if (supported) kinds.push_back(kind);
  }
  return kinds;
}

//! Whether the op has kinks: argument values where it is not differentiable.
constexpr bool hasKinks(OpKind kind) {
  return visitOp(kind, [](auto op) {
    using Op = decltype(op);
    return requires { &Op::template kinkAt<int>; };
  });
}

//! Where the op's kinks lie; KinkPlace::none exactly when it has none.
constexpr KinkPlace kinkPlace(OpKind kind) {
  return visitOp(kind, [](auto op) {
    using Op = decltype(op);
    if constexpr (requires { Op::kinkPlace; }) return Op::kinkPlace;
    else return KinkPlace::none;
  });
}

//! The op's family (OpBase::family), elementwise ops that need transcendental functions counting
//! as "transcendental".
constexpr std::string_view family(OpKind kind) {
  return visitOp(kind, [](auto op) -> std::string_view {
    using Op = decltype(op);
    if (Op::family == "elementwise" && Op::needs == Requirement::transcendental) return "transcendental";
    return Op::family;
  });
}

//! Whether the op is pointwise: its arguments have its output's shape and its output's element i
//! is a function of their elements i alone (the elementwise family, transcendental or not).
constexpr bool isPointwise(OpKind kind) {
  return visitOp(kind, [](auto op) { return decltype(op)::family == "elementwise"; });
}

//! The argument an op's domain check constrains (`domainArgument`), or nullopt for an op that
//! accepts every value; the generator puts values at the boundaries of the domain there.
constexpr std::optional<std::size_t> domainArgument(OpKind kind) {
  return visitOp(kind, [](auto op) -> std::optional<std::size_t> {
    using Op = decltype(op);
    if constexpr (requires { Op::domainArgument; }) return Op::domainArgument;
    else return std::nullopt;
  });
}

//! Whether generated cases of the exact IEEE domain (docs/semantics.md §1.12) may use the op: it
//! needs no transcendental function and divides by no argument value. Division by an element
//! count (mean, mse_loss) is exact for a power of two, which the exactness checker decides per
//! case; an opaque entry is decided there too.
constexpr bool inExactDomain(OpKind kind) {
  return visitOp(kind, [](auto op) {
    using Op = decltype(op);
    if constexpr (Op::dense) return true;
    else return Op::needs != Requirement::transcendental && !Op::dividesByValues;
  });
}

//! The op's choices of terms at its kinks (index 0: the specification's), which Conventions
//! index; empty for an op without kinks.
constexpr std::span<const std::string_view> kinkChoices(OpKind kind) {
  return visitOp(kind, [](auto op) -> std::span<const std::string_view> {
    using Op = decltype(op);
    if constexpr (requires { Op::kinkChoices; }) return Op::kinkChoices;
    else return {};
  });
}

//! The index in kinkChoices(kind) of the choice named `name` (what Conventions::kink holds), or
//! nullopt when the op lists no such choice.
inline std::optional<std::uint8_t> kinkChoiceIndex(OpKind kind, std::string_view name) {
  auto choices = kinkChoices(kind);
  auto found = std::find(choices.begin(), choices.end(), name);
  if (found == choices.end()) return std::nullopt;
  return static_cast<std::uint8_t>(found - choices.begin());
}

}  // namespace tc::ops
