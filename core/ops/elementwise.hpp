#pragma once
// Elementwise ops: one struct per op holding its shape rule, forward, terms and validation.
#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <limits>
#include <span>

#include "core/support/mutants.h"
#include "core/ops/accuracy.h"
#include "core/ops/op_call.h"
#include "core/ops/kernels.h"

namespace tc::ops {

using kernels::map;
using kernels::zip;
using kernels::zip3;

//! Defaults of op definitions (core/ops/README.md lists what an op struct holds).
struct OpBase {
  //! The op's family, for coverage of special values flowing through each kind of op:
  //! "elementwise" (transcendental ones count as "transcendental"), "reduction", "structural",
  //! "opaque". An elementwise op is pointwise (ops::isPointwise): its arguments have its output's
  //! shape, and output element i reads their elements i only.
  static constexpr std::string_view family = "elementwise";
  //! No attributes.
  template <class T>
  static constexpr std::array<AttrSpec<T>, 0> attributes{};
  //! Compact: a list of terms on its arguments (only the opaque op has a dense program instead).
  static constexpr bool dense = false;
  //! Its terms reach its arguments (false for detach and const, whose support is empty).
  static constexpr bool hasTerms = true;
  //! Its forward or terms divide by argument values (div, inv), which rounds on most dyadic
  //! values: such ops stay out of the exact IEEE domain (docs/semantics.md §1.12).
  static constexpr bool dividesByValues = false;
  //! Every input is in the domain.
  template <class T>
  static DomainError validate(const OpCall<T>&) { return std::nullopt; }
  //! The accuracy budget of an IEEE forward, in units in the last place of the exact result of
  //! the op on the same arguments (docs/semantics.md §2.6). Default: correctly rounded.
  static constexpr double accuracyUlps = 0.5;
  //! Where a naive formula for the op, or a documented implementation, loses its accuracy, for
  //! callers that put argument values there on purpose (the case generator does, so that the
  //! accuracy oracle sees them, and its coverage floors make sure it does): values for an element
  //! of the first argument, and whether it cancels where a binary op's second argument is nearly
  //! equal to its first, or where a row of a unary op's argument is nearly constant at one of its
  //! stress values. Default: nowhere.
  static constexpr std::array<std::string_view, 0> stressValues{};
  static constexpr bool stressCancellation = false;
  //! How many times an operation of `work` costs the accuracy oracle's enclosure of the op on
  //! intervals what a plain one does (core/graph/cost.h). Default: once.
  static constexpr double enclosureCost = 1;
  //! In how many addends an engine may add each of the op's terms into a gradient: more than one
  //! where a correct engine computes the op as another op that reads an argument twice (square as
  //! x·x: two edges, ct·x added twice). Each addend is one more addition of the gradient's sum in
  //! the accuracy budget. Default: one.
  static constexpr std::size_t termAddends = 1;
  //! The share of the accuracy oracle's enclosure operations for the op (its forward, terms and
  //! their error bounds) that are folds of products in the dense kernels: those take the engine's
  //! values, points holding doubles, in double or as exact sums (kernels::foldProductsOfDoubles),
  //! a few ns a product instead of MPFI's 400 (core/graph/cost.h). Default: none.
  template <class T>
  static double foldedShare(const ShapeCall<T>&) {
    return 0;
  }
  //! About the nanoseconds one of `work`'s operations takes on IEEE values of `valueBytes` bytes
  //! (4 or 8) in the forward and in the terms (core/graph/cost.h; a libm call is counted there,
  //! whatever this says). Default: an operation element by element in vector lanes or along one
  //! row (kernels::kIeeeOperationNs).
  template <class T>
  static kernels::IeeeOperationNs ieeeOperationNs(const ShapeCall<T>&, std::size_t /*valueBytes*/) {
    return {};
  }
  //! What an IEEE forward may err by beyond accuracyUlps, per output element, as a tensor of
  //! bounds computed on an enclosing carrier from the arguments and the exact output `y`. Default:
  //! nothing (an empty tensor); the ops that accumulate sums state theirs.
  template <class T>
  static Tensor<T> accumulatedError(const OpCall<T>&, const Tensor<T>& /*y*/, const RoundingModel<T>&) { return {}; }
  //! The accuracy budget of the op's IEEE terms (docs/semantics.md §2.6): how many roundings an
  //! evaluation of an element of a term makes in a row, a libm call within 2 ulp counting as 4 and
  //! a sum of n addends as n − 1; each errs by at most u relative to the term's magnitude (its
  //! absolute value, or what `termMagnitude` says for terms that sum or cancel). The term may read
  //! any forward value within the forward's budget. Ops whose count depends on the shapes or the
  //! argument state `termRoundingsAt(call, arg)` instead. Default: one (a single product).
  static constexpr std::size_t termRoundings = 1;
  //! Whether one of its terms can be added straight into its gradient slot (`termsInto`), which
  //! spares the dense pass a temporary as large as that argument. Default: no.
  static constexpr bool addsTermsInPlace = false;
  //! Whether its terms sum products or copies, so that their rounding scales with the terms on
  //! absolute values (`termsOnAbsolute`) rather than with their own magnitude. Such terms read
  //! the arguments and the cotangent only, never the output (the accuracy oracle's output is an
  //! interval of the reals within budget, not a point its IEEE path could take). Default: no.
  static constexpr bool termsSum = false;
  //! The multiplicative degree of the output as a polynomial in the graph's leaves, given the
  //! arguments' degrees: how fast exact values can grow. Default: the largest argument's.
  static int degree(std::span<const int> args) {
    int d = 0;
    for (int a : args) d = std::max(d, a);
    return d;
  }
  //! The elementary operations of one forward pass, from the argument and output shapes: what
  //! the work budget counts (docs/budget.md). Default: every argument element read and
  //! every output element written once.
  template <class T>
  static double work(const ShapeCall<T>& c, const Shape& out) {
    double n = static_cast<double>(elementCount(out));
    for (const Shape* arg : c.args) n += static_cast<double>(elementCount(*arg));
    return n;
  }
};

//! Ops whose degree is the sum of their arguments' (products).
struct ProductDegree {
  static int degree(std::span<const int> args) {
    int d = 0;
    for (int a : args) d += a;
    return d;
  }
};

//! Ops that multiply their argument by a constant factor (scale, mask, mean).
struct ScaledDegree {
  static int degree(std::span<const int> args) { return args[0] + 1; }
};

struct UnaryBase : OpBase {
  static constexpr std::size_t arity = 1;
  static constexpr Signature signature = Signature::any;
  template <class T>
  static Result<Shape> shape(const ShapeCall<T>& c) { return c.arg(0); }
};

struct BinaryBase : OpBase {
  static constexpr std::size_t arity = 2;
  static constexpr Signature signature = Signature::sameShape;
  template <class T>
  static Result<Shape> shape(const ShapeCall<T>& c) {
    if (c.arg(0) != c.arg(1))
      return fail(fmt::format("arguments have shapes {} and {}; they must be equal", formatShape(c.arg(0)),
                              formatShape(c.arg(1))));
    return c.arg(0);
  }
};

// A unary op whose forward applies `D::apply` to every element.
template <class D>
struct PointwiseUnary : UnaryBase {
  template <class T>
  static Tensor<T> forward(const OpCall<T>& c) { return map(c.arg(0), [](const T& x) { return D::apply(x); }); }
};

//! Whether x is a NaN (never, on carriers without one).
template <class T>
bool isNan(const T& x) {
  if constexpr (requires { Carrier<T>::isNan(x); }) return Carrier<T>::isNan(x);
  else return false;
}

//! Whether some element of x may be 0 (on intervals: contains it).
template <class T>
bool anyZero(const Tensor<T>& x) {
  for (const T& v : x.values)
    if (!certainlyNonzero(v)) return true;
  return false;
}

struct Add : BinaryBase {
  static constexpr std::string_view label = "add";
  static constexpr std::size_t termRoundings = 0;  // ±ct
  static constexpr Requirement needs = Requirement::ring;
  template <class T>
  static Tensor<T> forward(const OpCall<T>& c) { return zip(c.arg(0), c.arg(1), [](const T& a, const T& b) { return a + b; }); }
  template <class T>
  static void terms(const OpCall<T>&, const Tensor<T>&, const Tensor<T>& ct, Terms<T>& out) {
    out.push_back({0, ct});
    out.push_back({1, ct});
  }
};

struct Sub : BinaryBase {
  static constexpr std::string_view label = "sub";
  static constexpr std::size_t termRoundings = 0;  // ±ct
  static constexpr Requirement needs = Requirement::ring;
  template <class T>
  static Tensor<T> forward(const OpCall<T>& c) { return zip(c.arg(0), c.arg(1), [](const T& a, const T& b) { return a - b; }); }
  template <class T>
  static void terms(const OpCall<T>&, const Tensor<T>&, const Tensor<T>& ct, Terms<T>& out) {
    out.push_back({0, ct});
    out.push_back({1, TC_MUTANT(sub_term_wrong_sign) ? ct : map(ct, [](const T& g) { return -g; })});
  }
};

struct Mul : BinaryBase, ProductDegree {
  using ProductDegree::degree;
  static constexpr std::string_view label = "mul";
  static constexpr Requirement needs = Requirement::ring;
  template <class T>
  static Tensor<T> forward(const OpCall<T>& c) { return zip(c.arg(0), c.arg(1), [](const T& a, const T& b) { return a * b; }); }
  template <class T>
  static void terms(const OpCall<T>& c, const Tensor<T>&, const Tensor<T>& ct, Terms<T>& out) {
    auto times = [](const T& g, const T& v) { return g * v; };
    out.push_back({0, zip(ct, c.arg(TC_MUTANT(mul_term_wrong_operand) ? 0 : 1), times)});
    out.push_back({1, zip(ct, c.arg(0), times)});
  }
};

struct Div : BinaryBase, ProductDegree {
  using ProductDegree::degree;
  static constexpr std::string_view label = "div";
  static constexpr Requirement needs = Requirement::field;
  static constexpr bool dividesByValues = true;
  static constexpr std::size_t domainArgument = 1;
  //! ct/b: one rounding; −ct·a/b²: three, in any order (PyTorch's −ct·((a/b)/b) too).
  template <class T>
  static std::size_t termRoundingsAt(const OpCall<T>&, std::size_t arg) { return arg == 0 ? 1 : 3; }
  template <class T>
  static DomainError validate(const OpCall<T>& c) {
    if ((Carrier<T>::caps.exact || TC_MUTANT(div_guard_forgets_carrier)) && anyZero(c.arg(1))) return "divisor contains 0";
    return std::nullopt;
  }
  template <class T>
  static Tensor<T> forward(const OpCall<T>& c) { return zip(c.arg(0), c.arg(1), [](const T& a, const T& b) { return a / b; }); }
  template <class T>
  static void terms(const OpCall<T>& c, const Tensor<T>&, const Tensor<T>& ct, Terms<T>& out) {
    out.push_back({0, zip(ct, c.arg(1), [](const T& g, const T& b) { return g / b; })});
    out.push_back({1, zip3(ct, c.arg(0), c.arg(1), [](const T& g, const T& a, const T& b) {
                     return TC_MUTANT(div_term_missing_minus) ? (g * a) / (b * b) : -((g * a) / (b * b));
                   })});
  }
};

// max and min: the winner gets ct, the loser the carrier's zero; a tie (or an unordered pair)
// gives each ct/2, or what the conventions choose. `Wins(a, b)` says that a strictly beats b.
template <class Wins>
struct Select : BinaryBase {
  static constexpr std::string_view label = Wins::label;
  static constexpr Requirement needs = Requirement::orderedField;
  static constexpr double accuracyUlps = 0;  // one of the arguments: exact
  static constexpr std::size_t termRoundings = 0;  // ct, 0 or ct/2 (exact: ct is not subnormal where terms are judged)
  //! The terms at a tie a = b: ct/2 to each (the specification's), ct to the first argument
  //! only, or ct to both.
  static constexpr std::array<std::string_view, 3> kinkChoices{"split", "first", "both"};
  static constexpr KinkPlace kinkPlace = KinkPlace::tie;
  template <class T>
  static Tensor<T> forward(const OpCall<T>& c) {
    return zip(c.arg(0), c.arg(1), [](const T& a, const T& b) {
      if (Wins{}(a, b)) return a;
      if (Wins{}(b, a)) return b;
      if (a == b) return a;
      if constexpr (std::numeric_limits<T>::has_quiet_NaN) return std::numeric_limits<T>::quiet_NaN();
      return a;  // exact ordered carriers are totally ordered
    });
  }
  template <class T>
  static void terms(const OpCall<T>& c, const Tensor<T>&, const Tensor<T>& ct, Terms<T>& out) {
    const T two = Carrier<T>::fromInt(2);
    const std::uint8_t tie = c.conventions.kinkOf(Wins::kind);
    const bool nanPropagates = c.conventions.nanPropagates;
    auto share = [&](bool first) {
      return zip3(ct, c.arg(0), c.arg(1), [&](const T& g, const T& a, const T& b) {
        const T& mine = first ? a : b;
        const T& other = first ? b : a;
        if (Wins{}(mine, other)) return g;
        if (Wins{}(other, mine)) return zero<T>();
        if (nanPropagates && !(a == b)) return g;  // unordered: neither side loses
        if (tie == 1) return first ? g : zero<T>();
        if (tie == 2) return g;
        return TC_MUTANT(max_min_tie_split) ? g : g / two;
      });
    };
    out.push_back({0, share(true)});
    out.push_back({1, share(false)});
  }
  //! A tie a = b is a kink; moving both sides alike keeps it one.
  template <class T>
  static bool kinkAt(const OpCall<T>& c, std::size_t i) { return c.arg(0)[i] == c.arg(1)[i]; }
  template <class T>
  static void smoothAt(std::size_t i, const KinkDirections<T>& d) { d.arg(1)[i] = d.arg(0)[i]; }
};
struct Greater {
  static constexpr std::string_view label = "max";
  static constexpr OpKind kind = OpKind::max;
  template <class T>
  bool operator()(const T& a, const T& b) const { return a > b; }
};
struct Less {
  static constexpr std::string_view label = "min";
  static constexpr OpKind kind = OpKind::min;
  template <class T>
  bool operator()(const T& a, const T& b) const { return a < b; }
};
using Max = Select<Greater>;
using Min = Select<Less>;

struct Neg : PointwiseUnary<Neg> {
  static constexpr std::string_view label = "neg";
  static constexpr std::size_t termRoundings = 0;  // −ct
  static constexpr double accuracyUlps = 0;  // a sign change: exact
  static constexpr Requirement needs = Requirement::ring;
  template <class T>
  static T apply(const T& x) { return TC_MUTANT(neg_forward_identity) ? x : -x; }
  template <class T>
  static void terms(const OpCall<T>&, const Tensor<T>&, const Tensor<T>& ct, Terms<T>& out) {
    out.push_back({0, map(ct, [](const T& g) { return -g; })});
  }
};

struct Square : PointwiseUnary<Square> {
  static constexpr std::string_view label = "square";
  static constexpr Requirement needs = Requirement::ring;
  //! 2x·ct in one product (2x is exact), or ct·x twice from the two edges of x·x (each a product
  //! rounded once, their sum u of half the term each: the same u of the term), which an engine that
  //! records square as a product (ADOL-C, a tape of x*x) adds into x's gradient one after the other.
  static constexpr std::size_t termAddends = 2;
  static int degree(std::span<const int> args) { return 2 * args[0]; }
  template <class T>
  static T apply(const T& x) { return x * x; }
  template <class T>
  static void terms(const OpCall<T>& c, const Tensor<T>&, const Tensor<T>& ct, Terms<T>& out) {
    const T two = Carrier<T>::fromInt(2);
    out.push_back({0, zip(c.arg(0), ct, [&](const T& x, const T& g) { return (two * x) * g; })});
  }
};

struct Scale : UnaryBase, ScaledDegree {
  static constexpr std::string_view label = "scale";
  template <class T>
  static constexpr std::array<AttrSpec<T>, 1> attributes{{{"c", &Attrs<T>::c, true, "1"}}};
  using ScaledDegree::degree;
  static constexpr Requirement needs = Requirement::ring;
  template <class T>
  static Result<Shape> shape(const ShapeCall<T>& c) {
    if (!c.attrs.c) return fail("missing attribute 'c'");
    return c.arg(0);
  }
  template <class T>
  static Tensor<T> forward(const OpCall<T>& c) {
    const T& k = *c.attrs.c;
    return map(c.arg(0), [&](const T& x) { return k * x; });
  }
  template <class T>
  static void terms(const OpCall<T>& c, const Tensor<T>&, const Tensor<T>& ct, Terms<T>& out) {
    const T& k = *c.attrs.c;
    out.push_back({0, map(ct, [&](const T& g) { return k * g; })});
  }
};

struct Inv : PointwiseUnary<Inv> {
  static constexpr std::string_view label = "inv";
  //! −ct/x² as −ct/(x·x) or (−ct/x)/x: two roundings. As −ct·y·y or −(ct·(y·y)) with y = fl(1/x)
  //! (PyTorch's): y = (1/x)(1 + δ) enters squared, (1 + δ)² and two roundings more, four in all
  //! (Higham, Lemma 3.1). Everything a term reads lies within 2^±⌊emax/4⌋, so none underflows.
  static constexpr std::size_t termRoundings = 4;
  static constexpr Requirement needs = Requirement::field;
  static constexpr bool dividesByValues = true;
  static constexpr std::size_t domainArgument = 0;
  template <class T>
  static DomainError validate(const OpCall<T>& c) {
    if (Carrier<T>::caps.exact && anyZero(c.arg(0))) return "input contains 0";
    return std::nullopt;
  }
  static int degree(std::span<const int> args) { return 2 * args[0]; }
  template <class T>
  static T apply(const T& x) { return one<T>() / x; }
  template <class T>
  static void terms(const OpCall<T>& c, const Tensor<T>&, const Tensor<T>& ct, Terms<T>& out) {
    out.push_back({0, zip(ct, c.arg(0), [](const T& g, const T& x) { return -(g / (x * x)); })});
  }
};

struct Relu : UnaryBase {
  static constexpr std::string_view label = "relu";
  static constexpr std::size_t termRoundings = 0;  // ct or 0
  static constexpr double accuracyUlps = 0;  // a copy or 0: exact
  static constexpr Requirement needs = Requirement::ordered;
  //! The term at x = 0: the carrier's zero (the specification's), or ct.
  static constexpr std::array<std::string_view, 2> kinkChoices{"zero", "one"};
  static constexpr KinkPlace kinkPlace = KinkPlace::zero;
  template <class T>
  static Tensor<T> forward(const OpCall<T>& c) {
    const bool nanPropagates = c.conventions.nanPropagates;
    // `x > 0 ? x : 0` alone is a maximum instruction on IEEE values, not a branch that random
    // signs mispredict; the NaN test after it is rarely taken.
    return map(c.arg(0), [&](const T& x) {
      const T positivePart = (TC_MUTANT(relu_keeps_negative_zero) ? x >= zero<T>() : x > zero<T>()) ? x : zero<T>();
      return nanPropagates && isNan(x) ? x : positivePart;
    });
  }
  template <class T>
  static void terms(const OpCall<T>& c, const Tensor<T>&, const Tensor<T>& ct, Terms<T>& out) {
    const bool passAtZero = (c.conventions.kinkOf(OpKind::relu) == 1) != TC_MUTANT(relu_kink_passes);
    const bool nanPropagates = c.conventions.nanPropagates;
    out.push_back({0, zip(c.arg(0), ct, [&](const T& x, const T& g) {
                     bool passes = x > zero<T>() || (passAtZero && x == zero<T>()) || (nanPropagates && isNan(x));
                     return passes ? g : zero<T>();
                   })});
  }
  //! Not differentiable at x = 0 (the terms choose 0 there); differentiable along a zero direction.
  template <class T>
  static bool kinkAt(const OpCall<T>& c, std::size_t i) { return c.arg(0)[i] == zero<T>(); }
  template <class T>
  static void smoothAt(std::size_t i, const KinkDirections<T>& d) { d.arg(0)[i] = zero<T>(); }
};

struct Abs : PointwiseUnary<Abs> {
  static constexpr std::string_view label = "abs";
  static constexpr std::size_t termRoundings = 0;  // ±ct or 0
  static constexpr double accuracyUlps = 0;  // a sign change: exact
  static constexpr Requirement needs = Requirement::ordered;
  template <class T>
  static T apply(const T& x) {
    if constexpr (Carrier<T>::caps.transcendental) return Carrier<T>::abs(x);  // clears the sign, NaN too
    else return x < zero<T>() ? -x : x;
  }
  //! The term at x = 0: the carrier's zero (the specification's); the product ct·0 (which keeps a
  //! NaN or infinite cotangent's NaN and a negative cotangent's sign); or `sign`, ct·sgn(x) with
  //! sgn(0) = sgn(NaN) = 0 (PyTorch's): the product at 0 and at NaN alike, whatever nanPropagates says.
  static constexpr std::array<std::string_view, 3> kinkChoices{"zero", "product", "sign"};
  static constexpr KinkPlace kinkPlace = KinkPlace::zero;
  template <class T>
  static void terms(const OpCall<T>& c, const Tensor<T>&, const Tensor<T>& ct, Terms<T>& out) {
    const std::uint8_t choice = c.conventions.kinkOf(OpKind::abs);
    const bool nanPropagates = c.conventions.nanPropagates;
    out.push_back({0, zip(c.arg(0), ct, [&](const T& x, const T& g) {
                     if (x > zero<T>()) return g;
                     if (x < zero<T>()) return -g;
                     if (choice == 2) return g * zero<T>();  // sgn is 0 at 0 and at NaN
                     if (choice == 1 && x == zero<T>()) return g * zero<T>();
                     if (nanPropagates && isNan(x)) return g * x;
                     return zero<T>();
                   })});
  }
  //! Not differentiable at x = 0 (the terms choose 0 there); differentiable along a zero direction.
  template <class T>
  static bool kinkAt(const OpCall<T>& c, std::size_t i) { return Relu::kinkAt(c, i); }
  template <class T>
  static void smoothAt(std::size_t i, const KinkDirections<T>& d) { Relu::smoothAt(i, d); }
};

struct Clamp : UnaryBase {
  static constexpr std::string_view label = "clamp";
  static constexpr std::size_t termRoundings = 0;  // ct or 0
  static constexpr double accuracyUlps = 0;  // a copy of x or a bound: exact
  template <class T>
  static constexpr std::array<AttrSpec<T>, 2> attributes{{{"lo", &Attrs<T>::lo}, {"hi", &Attrs<T>::hi}}};
  static constexpr Requirement needs = Requirement::ordered;
  template <class T>
  static Result<Shape> shape(const ShapeCall<T>& c) {
    if (!c.attrs.lo || !c.attrs.hi) return fail("missing attribute 'lo' or 'hi'");
    if (!(*c.attrs.lo <= *c.attrs.hi))
      return fail(fmt::format("needs lo <= hi, got lo = {} and hi = {}", Carrier<T>::format(*c.attrs.lo),
                              Carrier<T>::format(*c.attrs.hi)));
    return c.arg(0);
  }
  template <class T>
  static Tensor<T> forward(const OpCall<T>& c) {
    const T& lo = *c.attrs.lo;
    const T& hi = *c.attrs.hi;
    return map(c.arg(0), [&](const T& x) { return x < lo ? lo : (x > hi ? hi : x); });
  }
  //! The term at x = lo or x = hi: ct (the specification's: the pass region is inclusive), or
  //! the carrier's zero.
  static constexpr std::array<std::string_view, 2> kinkChoices{"pass", "block"};
  static constexpr KinkPlace kinkPlace = KinkPlace::bound;
  template <class T>
  static void terms(const OpCall<T>& c, const Tensor<T>&, const Tensor<T>& ct, Terms<T>& out) {
    const T& lo = *c.attrs.lo;
    const T& hi = *c.attrs.hi;
    const bool blockAtBounds = (c.conventions.kinkOf(OpKind::clamp) == 1) != TC_MUTANT(clamp_bound_blocks);
    out.push_back({0, zip(c.arg(0), ct, [&](const T& x, const T& g) {
                     bool inside = blockAtBounds ? lo < x && x < hi : lo <= x && x <= hi;
                     return inside ? g : zero<T>();
                   })});
  }
  //! Not differentiable at x = lo or x = hi (the terms pass ct there); differentiable along a
  //! zero direction.
  template <class T>
  static bool kinkAt(const OpCall<T>& c, std::size_t i) {
    return c.arg(0)[i] == *c.attrs.lo || c.arg(0)[i] == *c.attrs.hi;
  }
  template <class T>
  static void smoothAt(std::size_t i, const KinkDirections<T>& d) { d.arg(0)[i] = zero<T>(); }
};

// Transcendental ops exist on the IEEE and interval carriers.
struct Exp : PointwiseUnary<Exp> {
  static constexpr std::string_view label = "exp";
  static constexpr double accuracyUlps = kLibmUlps;
  static constexpr Requirement needs = Requirement::transcendental;
  template <class T>
  static T apply(const T& x) { return Carrier<T>::exp(x); }
  template <class T>
  static void terms(const OpCall<T>& c, const Tensor<T>& y, const Tensor<T>& ct, Terms<T>& out) {
    out.push_back({0, zip(ct, TC_MUTANT(exp_term_uses_input) ? c.arg(0) : y, [](const T& g, const T& e) { return g * e; })});
  }
};

struct Log : PointwiseUnary<Log> {
  static constexpr std::string_view label = "log";
  static constexpr double accuracyUlps = kLibmUlps;
  static constexpr Requirement needs = Requirement::transcendental;
  static constexpr std::size_t domainArgument = 0;
  template <class T>
  static DomainError validate(const OpCall<T>& c) {
    for (const T& x : c.arg(0).values)
      if (TC_MUTANT(log_domain_lets_nan_through) ? x <= zero<T>() : !certainlyPositive(x)) return "input contains values <= 0 or NaN";
    return std::nullopt;
  }
  template <class T>
  static T apply(const T& x) { return Carrier<T>::log(x); }
  template <class T>
  static void terms(const OpCall<T>& c, const Tensor<T>&, const Tensor<T>& ct, Terms<T>& out) {
    out.push_back({0, zip(ct, c.arg(0), [](const T& g, const T& x) { return TC_MUTANT(log_term_multiplies) ? g * x : g / x; })});
  }
};

struct Sqrt : PointwiseUnary<Sqrt> {
  static constexpr std::string_view label = "sqrt";
  static constexpr Requirement needs = Requirement::transcendental;
  static constexpr std::size_t domainArgument = 0;
  //! Exact carriers (intervals) refuse x <= 0: the term 1/(2·sqrt x) is undefined at 0. IEEE
  //! carriers give NaN below 0 and inf at 0.
  template <class T>
  static DomainError validate(const OpCall<T>& c) {
    if constexpr (Carrier<T>::caps.exact)
      for (const T& x : c.arg(0).values)
        if (!certainlyPositive(x)) return "input contains values <= 0";
    return std::nullopt;
  }
  template <class T>
  static T apply(const T& x) { return Carrier<T>::sqrt(x); }
  //! ct/(2y) or ct·0.5/y: one rounding (2y and 0.5·ct are exact); ct·(1/(2y)) (ADOL-C's) or
  //! ct·(0.5/y): two, the reciprocal's and the product's. Nothing a term reads underflows or
  //! overflows where terms are judged (within 2^±⌊emax/4⌋).
  static constexpr std::size_t termRoundings = 2;
  template <class T>
  static void terms(const OpCall<T>&, const Tensor<T>& y, const Tensor<T>& ct, Terms<T>& out) {
    const T two = Carrier<T>::fromInt(2);
    out.push_back({0, zip(ct, y, [&](const T& g, const T& r) { return TC_MUTANT(sqrt_term_missing_half) ? g / r : g / (two * r); })});
  }
};

struct Tanh : PointwiseUnary<Tanh> {
  static constexpr std::string_view label = "tanh";
  //! As glibc computes it (fdlibm's s_tanh.c): −t/(t + 2) with t = expm1(−2|x|) for |x| < 1, where
  //! t errs by ≤ 4u relative (expm1 within kLibmUlps), which t + 2 carries with weight ≤ 0.762
  //! (|t| ≤ 1 − e^-2), plus u for t + 2 and u for the quotient: 4u + 3.05u + 2u ≤ 9.05u relative,
  //! so within 10 ulp (1 − 2/(t + 2) above 1 errs by less). glibc's manual lists 2 ulp for tanh, a
  //! figure its tests reached, not a bound: glibc 2.36 gives 2.02 ulp at x = −0.23443391749786419.
  static constexpr double accuracyUlps = 10;
  //! glibc's worst arguments known here (2.11 and 2.02 ulp in glibc 2.36), where a tanh that errs
  //! more than glibc's does shows first.
  static constexpr std::array<std::string_view, 2> stressValues{"-0.23097368254667838", "-0.23443391749786419"};
  static constexpr Requirement needs = Requirement::transcendental;
  template <class T>
  static T apply(const T& x) { return Carrier<T>::tanh(x); }
  //! ct·(1 − y·y), ct − (ct·y)·y or ct·fma(−y, y, 1): at most three roundings, and 1 − y² cancels
  //! near |y| = 1, so they are relative to |ct|·(1 + y²) (y·y errs by u·y², the rest by u of what
  //! they round). ct·((1 − y)·(1 + y)): four roundings relative to |term| ≤ |ct|·(1 + y²) (1 ∓ y
  //! round to nearest relative to themselves): four in all. (Where tanh rounds to ±1 the term may
  //! be 0: y within its budget holds 1.)
  static constexpr std::size_t termRoundings = 4;
  template <class T>
  static void termMagnitude(const OpCall<T>&, const Tensor<T>& y, const Tensor<T>& ct, Terms<T>& out) {
    out.push_back({0, zip(ct, y, [](const T& g, const T& t) { return Carrier<T>::abs(g) * (one<T>() + t * t); })});
  }
  template <class T>
  static void terms(const OpCall<T>&, const Tensor<T>& y, const Tensor<T>& ct, Terms<T>& out) {
    out.push_back({0, zip(ct, y, [](const T& g, const T& t) { return g * (one<T>() - (TC_MUTANT(tanh_term_unsquared) ? t : t * t)); })});
  }
};

struct Sigmoid : PointwiseUnary<Sigmoid> {
  static constexpr std::string_view label = "sigmoid";
  //! 1/(1 + e) with e = exp(−x) for x ≥ 0, e/(1 + e) with e = exp(x) below: e errs by ≤ 2 ulp
  //! (≤ 4u relative), 1 + e by ≤ 2u from e (e ≤ 1) and u from its rounding, the division by u:
  //! 4u + 3u + u relative, ≤ 8 ulp. The naive 1/(1 + exp(−x)) is as accurate except where exp(−x)
  //! overflows (x < −709.78 in double, −88.72 in float), where it gives 0 for a value up to 2^-1022.
  static constexpr double accuracyUlps = 8;
  //! Where exp(−x) overflows in double, and in float.
  static constexpr std::array<std::string_view, 2> stressValues{"-720", "-95"};
  static constexpr Requirement needs = Requirement::transcendental;
  template <class T>
  static T apply(const T& x) {
    if (x < zero<T>() && !TC_MUTANT(sigmoid_naive)) {  // exp(−x) would overflow for large negative x
      const T e = Carrier<T>::exp(x);
      return e / (one<T>() + e);
    }
    return one<T>() / (one<T>() + Carrier<T>::exp(-x));
  }
  template <class T>
  static void terms(const OpCall<T>&, const Tensor<T>& y, const Tensor<T>& ct, Terms<T>& out) {
    out.push_back({0, zip(ct, y, [](const T& g, const T& s) { return g * (TC_MUTANT(sigmoid_term_missing_complement) ? s : s * (one<T>() - s)); })});
  }
  //! ct·y·(1 − y): three roundings, relative to |ct|·|y|·(1 + |y|) (1 − y cancels near y = 1).
  //! Through exp, ct·e/(1 + e)² with e = exp(−|x|), nine relative to the term: the enclosure of
  //! y·(1 − y) over the forward values within 8 ulp already reaches 8u·|term| beyond it on each
  //! side, and γ_3·M ≥ 3u·|term| more (docs/semantics.md §2.6).
  static constexpr std::size_t termRoundings = 3;
  template <class T>
  static void termMagnitude(const OpCall<T>&, const Tensor<T>& y, const Tensor<T>& ct, Terms<T>& out) {
    out.push_back({0, zip(ct, y, [](const T& g, const T& s) {
                     const T a = Carrier<T>::abs(s);
                     return Carrier<T>::abs(g) * a * (one<T>() + a);
                   })});
  }
};

struct Softplus : PointwiseUnary<Softplus> {
  static constexpr std::string_view label = "softplus";
  //! ct·sigmoid(x): sigmoid within its 8 ulp (16 roundings), then a product.
  static constexpr std::size_t termRoundings = 17;
  //! As written below: exp errs by ≤ 2 ulp (≤ 4u relative), log1p by 2 ulp more, and log1p's
  //! condition number is ≤ 1 on (0, 1]: ≤ 8u, then x + ... adds u: ≤ 9 ulp. The other stable form,
  //! log1p(exp(x)) below a threshold and x above it, has log1p's condition number ≤ 1/ln 2 for
  //! arguments ≥ 1: ≤ 4u·1.443 + 4u < 10u, and x alone errs by e^-x, which the threshold must make
  //! small: PyTorch's 20 does in float, not in double (57,900 ulp at x = 22.3). The naive log(1 + exp(x)) is
  //! infinite from x = 709.79 and 0 below x = −36.7 (double).
  static constexpr double accuracyUlps = 10;
  //! Where exp(x) overflows, where 1 + exp(x) rounds to 1, and 25: past a threshold above which
  //! a form returns x alone (PyTorch's 20), where e^-x is still more than half an ulp of x in double
  //! (it is until x ≈ 36.7) and sigmoid(x), the term's factor, still below 1 - 2^-53.
  static constexpr std::array<std::string_view, 3> stressValues{"1000", "-40", "25"};
  static constexpr Requirement needs = Requirement::transcendental;
  // log(1 + exp(x)), written so that large x does not overflow.
  template <class T>
  static T apply(const T& x) {
    if (TC_MUTANT(softplus_naive)) return Carrier<T>::log(one<T>() + Carrier<T>::exp(x));
    return x > zero<T>() ? x + Carrier<T>::log1p(Carrier<T>::exp(-x)) : Carrier<T>::log1p(Carrier<T>::exp(x));
  }
  template <class T>
  static void terms(const OpCall<T>& c, const Tensor<T>&, const Tensor<T>& ct, Terms<T>& out) {
    out.push_back({0, zip(ct, c.arg(0), [](const T& g, const T& x) {
                     if (TC_MUTANT(softplus_term_naive)) return g * (Carrier<T>::exp(x) / (one<T>() + Carrier<T>::exp(x)));
                     return g * Sigmoid::apply(TC_MUTANT(softplus_term_reflected) ? -x : x);
                   })});
  }
};

struct Sin : PointwiseUnary<Sin> {
  static constexpr std::string_view label = "sin";
  static constexpr std::size_t termRoundings = kLibmRoundings + 1;  // a libm call and a product
  static constexpr double accuracyUlps = kLibmUlps;
  static constexpr Requirement needs = Requirement::transcendental;
  template <class T>
  static T apply(const T& x) { return Carrier<T>::sin(x); }
  template <class T>
  static void terms(const OpCall<T>& c, const Tensor<T>&, const Tensor<T>& ct, Terms<T>& out) {
    out.push_back({0, zip(ct, c.arg(0), [](const T& g, const T& x) {
                     return g * (TC_MUTANT(sin_term_uses_sin) ? Carrier<T>::sin(x) : Carrier<T>::cos(x));
                   })});
  }
};

struct Cos : PointwiseUnary<Cos> {
  static constexpr std::string_view label = "cos";
  static constexpr std::size_t termRoundings = kLibmRoundings + 1;  // a libm call and a product
  static constexpr double accuracyUlps = kLibmUlps;
  static constexpr Requirement needs = Requirement::transcendental;
  template <class T>
  static T apply(const T& x) { return Carrier<T>::cos(x); }
  template <class T>
  static void terms(const OpCall<T>& c, const Tensor<T>&, const Tensor<T>& ct, Terms<T>& out) {
    out.push_back({0, zip(ct, c.arg(0), [](const T& g, const T& x) {
                     return TC_MUTANT(cos_term_wrong_sign) ? g * Carrier<T>::sin(x) : -(g * Carrier<T>::sin(x));
                   })});
  }
};

}  // namespace tc::ops
