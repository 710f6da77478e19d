// The accuracy budgets are theorems (docs/semantics.md §2.6): every formula a correct engine may
// use for an op's forward value or term stays within the budget the accuracy oracle holds it to
// (soundness), and some listed formula reaches at least a quarter of it (tightness: a budget that
// drifts wide is noticed). Each formula is evaluated in double and in float on 10^6 adversarial
// inputs; the oracle's own entry points (validateAndForward and termsAndErrorAt on intervals,
// widenedByBudget, judgeElement) judge them.
//
// Judging 10^6 values on MPFI per formula would take minutes, so every value is first measured
// cheaply, in long double against a long double exact value, and only the values the cheap measure
// puts at kScreen of their budget or beyond go to the oracle. That keeps the test sound: the cheap
// measure's own error is below 2^-8 of any budget here (long double carries 64 bits, 11 more than
// double; every budget is at least half an ulp of the format, or γ_k of a magnitude the cheap value
// is computed relative to), and the cheap allowance is never wider than the oracle's (its exact
// term lies inside the oracle's enclosure, its bound is the oracle's bound at a point of the
// oracle's interval), so a value the screen passes the oracle passes too. A subsample sent to the
// oracle whatever the screen says checks that claim (ScreenIsConservative).
//
// A libm call inside a formula is made two ways: the machine's (glibc), and a libm at the edge of
// the assumption the budgets rest on, kLibmUlps: the exact value moved by just under 2 ulp, up or
// down at random. Budgets derived from that assumption must hold for both.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <functional>
#include <limits>
#include <map>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "core/graph/builder.h"
#include "core/graph/node_program.h"
#include "core/ops/library.hpp"
#include "properties/oracles/accuracy.h"

namespace tc {
namespace {

using LD = long double;
using Rng = std::mt19937_64;

//! The share of its budget at which the cheap measure sends a value to the oracle: the cheap
//! measure errs by less than 2^-8 of a budget (see above), so a value it puts below kScreen is
//! within budget for the oracle too.
constexpr double kScreen = 0.98;
//! Draws per formula and carrier.
constexpr std::size_t kDraws = 1'000'000;
//! Values per oracle call (one graph of vectors this long).
constexpr std::size_t kBatch = 256;
//! Every kAuditEvery-th draw goes to the oracle whatever the screen says.
constexpr std::size_t kAuditEvery = 4999;

template <class F>
constexpr props::IeeeFormat kFormat = props::ieeeFormatOf<F>();

// ---------------------------------------------------------------------------------------------
// Cheap exact values and budgets, in long double.

//! The unit in the last place of F at the real v, as the oracle takes it: at v's binade, never
//! below the subnormals'.
template <class F>
LD ulpAt(LD v) {
  const props::IeeeFormat f = kFormat<F>;
  int binade = f.minExponent;
  if (v != 0) binade = std::max(binade, std::ilogb(v));
  return std::ldexp(LD(1), binade - f.precision + 1);
}

//! ulpAt of a real known to about 2^-62 relative: at a power of two (where the real may lie
//! just below), the binade's below. Never larger than the oracle's ulp at the real.
template <class F>
LD ulpBelow(LD v) {
  return ulpAt<F>(std::fabs(v) * (1 - std::ldexp(LD(1), -60)));
}

//! γ_k of F, in long double.
template <class F>
LD gammaOf(std::size_t k) {
  const LD u = std::ldexp(LD(1), -kFormat<F>.precision);
  return k * u / (1 - k * u);
}

template <class F>
LD etaOf() {
  return std::ldexp(LD(1), kFormat<F>.minExponent - kFormat<F>.precision);
}

//! The long double nearest the exact sigmoid: 1/(1 + e^-x) or e^x/(1 + e^x), whichever does not overflow.
LD sigmoidL(LD x) {
  if (x >= 0) return 1 / (1 + std::exp(-x));
  const LD e = std::exp(x);
  return e / (1 + e);
}
LD softplusL(LD x) { return x > 0 ? x + std::log1p(std::exp(-x)) : std::log1p(std::exp(x)); }

//! A call that op structs' termRoundingsAt may be asked with where they read nothing of it (div).
const OpCall<double>& callWithoutValues() {
  static const Attrs<double> attrs;
  static const Shape shape;
  static const DataSchema schema;
  static const Data<double> data;
  static const Conventions conventions;
  static const OpCall<double> call{attrs, shape, {}, schema, data, conventions};
  return call;
}

// ---------------------------------------------------------------------------------------------
// Libms: the machine's, and one at the edge of the kLibmUlps assumption.

//! A value of F within kLibmUlps ulp of `exact` (known to about 2^-63 relative), as far from it
//! as that allows (1/16 ulp short: more than the long double's error, and below the screen) on the side `up` says.
template <class F>
F atEdge(LD exact, bool up, double ulps) {
  if (!std::isfinite(exact) || std::fabs(exact) >= LD(std::numeric_limits<F>::max())) return static_cast<F>(exact);
  const LD reach = (LD(ulps) - LD(1) / 16) * ulpBelow<F>(exact);
  F r = static_cast<F>(exact + (up ? reach : -reach));
  while (std::fabs(LD(r) - exact) > reach) r = std::nextafter(r, static_cast<F>(exact));
  return r;
}

//! The libm calls a formula makes: `edge` moves each result to the edge of kLibmUlps.
template <class F>
struct Libm {
  bool edge = false;
  Rng* rng = nullptr;
  F call(F machine, LD exact) const { return edge ? atEdge<F>(exact, (*rng)() & 1, ops::kLibmUlps) : machine; }
  F exp(F x) const { return call(std::exp(x), std::exp(LD(x))); }
  F expm1(F x) const { return call(std::expm1(x), std::expm1(LD(x))); }
  F log(F x) const { return call(std::log(x), std::log(LD(x))); }
  F log1p(F x) const { return call(std::log1p(x), std::log1p(LD(x))); }
  F sin(F x) const { return call(std::sin(x), std::sin(LD(x))); }
  F cos(F x) const { return call(std::cos(x), std::cos(LD(x))); }
  F tanh(F x) const { return call(std::tanh(x), std::tanh(LD(x))); }
};

// ---------------------------------------------------------------------------------------------
// Ops, their formulas and their adversarial inputs.

//! One draw: arguments a (and b) and the cotangent.
template <class F>
struct Draw {
  F a = 0, b = 0, ct = 0;
};

//! What a formula computes: the forward value and the terms to a (and b).
template <class F>
struct Computed {
  F y = 0;
  F term[2] = {0, 0};
};

template <class F>
struct Formula {
  std::string name;
  bool usesLibm = false;  //!< run with the machine's libm and with the edge one
  std::function<Computed<F>(const Draw<F>&, const Libm<F>&)> compute;
};

//! An elementwise op as the test knows it: its exact forward and terms in long double (the
//! cheap mirror of Op::forward and Op::terms), the magnitude its term budget scales with (Op's
//! termMagnitude, or |term|), where its terms read the forward value, and its draws.
template <class F>
struct OpUnderTest {
  OpKind kind;
  std::size_t arity = 1;
  std::function<LD(LD a, LD b)> exact;
  //! The exact term to argument `arg` at forward value y.
  std::function<LD(std::size_t arg, LD a, LD b, LD y, LD ct)> term;
  //! The magnitude M of the term's budget γ_k·M + k·η; |term| when empty.
  std::function<LD(std::size_t arg, LD a, LD b, LD y, LD ct)> magnitude;
  std::function<std::size_t(std::size_t arg)> roundings;
  std::function<Draw<F>(Rng&)> draw;
  std::vector<Formula<F>> formulas;
};

//! A random value of F with random mantissa bits, its binary exponent uniform in [lo, hi], either sign.
template <class F>
F randomBits(Rng& rng, int lo, int hi, bool positive = false) {
  std::uniform_int_distribution<int> exponent(lo, hi);
  const int p = kFormat<F>.precision;
  const std::uint64_t mantissa = rng() >> (64 - (p - 1));
  const LD m = 1 + std::ldexp(LD(mantissa), -(p - 1));
  F v = static_cast<F>(std::ldexp(m, exponent(rng)));
  if (!positive && (rng() & 1)) v = -v;
  return v;
}

//! A value within 2^±range, where terms are judged (props::withinTermRange).
template <class F>
F inTermRange(Rng& rng, bool positive = false) {
  const int range = kFormat<F>.maxExponent / 4;
  return randomBits<F>(rng, -range, range - 1, positive);
}

//! A uniform value in [lo, hi], rounded to F.
template <class F>
F uniform(Rng& rng, double lo, double hi) {
  return static_cast<F>(std::uniform_real_distribution<double>(lo, hi)(rng));
}

//! One of `choices` uniformly (draw kinds).
inline std::size_t pick(Rng& rng, std::size_t choices) { return rng() % choices; }

//! A value near a multiple of π/2, where sin or cos crosses 0 (their terms vanish).
template <class F>
F nearHalfPiMultiple(Rng& rng) {
  const LD k = static_cast<LD>(static_cast<std::int64_t>(rng() % 2000001) - 1000000);
  F v = static_cast<F>(k * 1.5707963267948966192313216916397514L);
  const int steps = static_cast<int>(rng() % 5) - 2;
  for (int i = 0; i < std::abs(steps); ++i) v = std::nextafter(v, steps > 0 ? F(1e30) : F(-1e30));
  return v;
}

template <class F>
F machineSigmoid(F x, const Libm<F>& libm) {  // the stable form: no exp that overflows
  if (x < 0) {
    const F e = libm.exp(x);
    return e / (1 + e);
  }
  return 1 / (1 + libm.exp(-x));
}

template <class F>
std::vector<OpUnderTest<F>> opsUnderTest() {
  using Ops = std::vector<OpUnderTest<F>>;
  const F largest = std::numeric_limits<F>::max();
  const LD expOverflow = std::log(LD(largest));  // 709.78 in double, 88.72 in float
  Ops ops;

  {  // inv: 1/x; term −ct/x² from x, or through y = fl(1/x)
    OpUnderTest<F> op;
    op.kind = OpKind::inv;
    op.exact = [](LD a, LD) { return 1 / a; };
    op.term = [](std::size_t, LD a, LD, LD, LD ct) { return -ct / (a * a); };
    op.roundings = [](std::size_t) { return ops::Inv::termRoundings; };
    op.draw = [](Rng& rng) {
      Draw<F> d{inTermRange<F>(rng), 0, inTermRange<F>(rng)};
      if (pick(rng, 4) == 0) d.a = static_cast<F>(std::ldexp(1.0, static_cast<int>(pick(rng, 40)) - 20)) * (1 + F(pick(rng, 8)) * std::numeric_limits<F>::epsilon());
      return d;
    };
    auto y = [](F x) { return 1 / x; };
    op.formulas = {
        {"-ct/(x*x)", false, [=](const Draw<F>& d, const Libm<F>&) { return Computed<F>{y(d.a), {-(d.ct / (d.a * d.a))}}; }},
        {"(-ct/x)/x", false, [=](const Draw<F>& d, const Libm<F>&) { return Computed<F>{y(d.a), {(-d.ct / d.a) / d.a}}; }},
        {"-ct*y*y", false, [=](const Draw<F>& d, const Libm<F>&) { F r = y(d.a); return Computed<F>{r, {(-d.ct * r) * r}}; }},
        {"-(ct*(y*y))", false, [=](const Draw<F>& d, const Libm<F>&) { F r = y(d.a); return Computed<F>{r, {-(d.ct * (r * r))}}; }},
    };
    ops.push_back(std::move(op));
  }
  {  // div: a/b; terms ct/b and −ct·a/b²
    OpUnderTest<F> op;
    op.kind = OpKind::div;
    op.arity = 2;
    op.exact = [](LD a, LD b) { return a / b; };
    op.term = [](std::size_t arg, LD a, LD b, LD, LD ct) { return arg == 0 ? ct / b : -ct * a / (b * b); };
    op.roundings = [](std::size_t arg) { return ops::Div::termRoundingsAt(callWithoutValues(), arg); };
    op.draw = [](Rng& rng) {
      Draw<F> d{inTermRange<F>(rng), inTermRange<F>(rng), inTermRange<F>(rng)};
      if (pick(rng, 4) == 0) d.b = d.a * (1 + F(static_cast<int>(pick(rng, 9)) - 4) * std::numeric_limits<F>::epsilon());
      return d;
    };
    auto common = [](const Draw<F>& d, F tb) { return Computed<F>{d.a / d.b, {d.ct / d.b, tb}}; };
    op.formulas = {
        {"-ct*a/(b*b)", false, [=](const Draw<F>& d, const Libm<F>&) { return common(d, -((d.ct * d.a) / (d.b * d.b))); }},
        {"-ct*((a/b)/b)", false, [=](const Draw<F>& d, const Libm<F>&) { return common(d, -d.ct * ((d.a / d.b) / d.b)); }},
        {"-(ct/b)*q", false, [=](const Draw<F>& d, const Libm<F>&) { return common(d, -(d.ct / d.b) * (d.a / d.b)); }},
        {"-((ct*a)/b)/b", false, [=](const Draw<F>& d, const Libm<F>&) { return common(d, -(((d.ct * d.a) / d.b) / d.b)); }},
    };
    ops.push_back(std::move(op));
  }
  {  // exp: term ct·y
    OpUnderTest<F> op;
    op.kind = OpKind::exp;
    op.exact = [](LD a, LD) { return std::exp(a); };
    op.term = [](std::size_t, LD, LD, LD y, LD ct) { return ct * y; };
    op.roundings = [](std::size_t) { return ops::Exp::termRoundings; };
    op.draw = [=](Rng& rng) {
      const LD termEdge = kFormat<F>.maxExponent / 4 * 0.6931L;
      switch (pick(rng, 4)) {
        case 0: return Draw<F>{uniform<F>(rng, -double(termEdge), double(termEdge)), 0, inTermRange<F>(rng)};
        case 1: return Draw<F>{uniform<F>(rng, -double(expOverflow) - 40, double(expOverflow) + 1), 0, F(1)};
        case 2: return Draw<F>{randomBits<F>(rng, kFormat<F>.minExponent - kFormat<F>.precision, 0), 0, inTermRange<F>(rng)};
        default: return Draw<F>{uniform<F>(rng, -1, 1), 0, inTermRange<F>(rng)};
      }
    };
    op.formulas = {{"ct*y", true, [](const Draw<F>& d, const Libm<F>& m) { F e = m.exp(d.a); return Computed<F>{e, {d.ct * e}}; }}};
    ops.push_back(std::move(op));
  }
  {  // log: term ct/x
    OpUnderTest<F> op;
    op.kind = OpKind::log;
    op.exact = [](LD a, LD) { return std::log(a); };
    op.term = [](std::size_t, LD a, LD, LD, LD ct) { return ct / a; };
    op.roundings = [](std::size_t) { return ops::Log::termRoundings; };
    op.draw = [](Rng& rng) {
      switch (pick(rng, 3)) {
        case 0: return Draw<F>{inTermRange<F>(rng, true), 0, inTermRange<F>(rng)};
        case 1: return Draw<F>{uniform<F>(rng, 0.5, 2), 0, inTermRange<F>(rng)};  // log cancels near 1
        default: return Draw<F>{randomBits<F>(rng, kFormat<F>.minExponent - kFormat<F>.precision + 1, kFormat<F>.maxExponent, true), 0, F(1)};
      }
    };
    op.formulas = {{"ct/x", true, [](const Draw<F>& d, const Libm<F>& m) { return Computed<F>{m.log(d.a), {d.ct / d.a}}; }}};
    ops.push_back(std::move(op));
  }
  {  // sqrt: term ct/(2y)
    OpUnderTest<F> op;
    op.kind = OpKind::sqrt;
    op.exact = [](LD a, LD) { return std::sqrt(a); };
    op.term = [](std::size_t, LD, LD, LD y, LD ct) { return ct / (2 * y); };
    op.roundings = [](std::size_t) { return ops::Sqrt::termRoundings; };
    op.draw = [](Rng& rng) {
      if (pick(rng, 4) == 0) return Draw<F>{randomBits<F>(rng, kFormat<F>.minExponent - kFormat<F>.precision + 1, kFormat<F>.maxExponent, true), 0, F(1)};
      return Draw<F>{inTermRange<F>(rng, true), 0, inTermRange<F>(rng)};
    };
    op.formulas = {
        {"ct/(2y)", false, [](const Draw<F>& d, const Libm<F>&) { F r = std::sqrt(d.a); return Computed<F>{r, {d.ct / (2 * r)}}; }},
        {"ct*0.5/y", false, [](const Draw<F>& d, const Libm<F>&) { F r = std::sqrt(d.a); return Computed<F>{r, {d.ct * F(0.5) / r}}; }},
    };
    ops.push_back(std::move(op));
  }
  {  // tanh: term ct·(1 − y²)
    OpUnderTest<F> op;
    op.kind = OpKind::tanh;
    op.exact = [](LD a, LD) { return std::tanh(a); };
    op.term = [](std::size_t, LD, LD, LD y, LD ct) { return ct * (1 - y * y); };
    op.magnitude = [](std::size_t, LD, LD, LD y, LD ct) { return std::fabs(ct) * (1 + y * y); };
    op.roundings = [](std::size_t) { return ops::Tanh::termRoundings; };
    op.draw = [](Rng& rng) {
      switch (pick(rng, 4)) {
        case 0: return Draw<F>{uniform<F>(rng, -1, 1), 0, inTermRange<F>(rng)};
        case 1: return Draw<F>{uniform<F>(rng, -20, 20), 0, inTermRange<F>(rng)};  // y → ±1: the term vanishes
        case 2: return Draw<F>{randomBits<F>(rng, -kFormat<F>.maxExponent / 4, -1), 0, inTermRange<F>(rng)};
        default: return Draw<F>{randomBits<F>(rng, kFormat<F>.minExponent - kFormat<F>.precision, kFormat<F>.maxExponent), 0, F(1)};
      }
    };
    // glibc's (fdlibm's) tanh, written out with its expm1 so that the edge libm reaches it.
    auto fdlibm = [](F x, const Libm<F>& m) {
      const F ax = std::fabs(x);
      F r;
      if (ax < F(1)) {
        const F t = m.expm1(-2 * ax);
        r = -t / (t + 2);
      } else {
        r = 1 - 2 / (m.expm1(2 * ax) + 2);
      }
      return std::copysign(r, x);
    };
    auto forwards = [=](const std::string& name, std::function<F(F, F)> term) {
      return std::vector<Formula<F>>{
          {name + " (tanh)", true, [=](const Draw<F>& d, const Libm<F>& m) { F t = m.tanh(d.a); return Computed<F>{t, {term(d.ct, t)}}; }},
          {name + " (fdlibm)", true, [=](const Draw<F>& d, const Libm<F>& m) { F t = fdlibm(d.a, m); return Computed<F>{t, {term(d.ct, t)}}; }},
      };
    };
    for (auto& f : forwards("ct*(1-y*y)", [](F g, F y) { return g * (1 - y * y); })) op.formulas.push_back(f);
    for (auto& f : forwards("ct*((1-y)*(1+y))", [](F g, F y) { return g * ((1 - y) * (1 + y)); })) op.formulas.push_back(f);
    for (auto& f : forwards("ct-(ct*y)*y", [](F g, F y) { return g - (g * y) * y; })) op.formulas.push_back(f);
    for (auto& f : forwards("ct*fma(-y,y,1)", [](F g, F y) { return g * std::fma(-y, y, F(1)); })) op.formulas.push_back(f);
    ops.push_back(std::move(op));
  }
  {  // sigmoid: term ct·y(1 − y)
    OpUnderTest<F> op;
    op.kind = OpKind::sigmoid;
    op.exact = [](LD a, LD) { return sigmoidL(a); };
    op.term = [](std::size_t, LD, LD, LD y, LD ct) { return ct * y * (1 - y); };
    op.roundings = [](std::size_t) { return ops::Sigmoid::termRoundings; };
    op.draw = [=](Rng& rng) {
      const double termEdge = kFormat<F>.maxExponent / 4 * 0.6931;  // below −termEdge the term underflows the judged range
      switch (pick(rng, 4)) {
        case 0: return Draw<F>{uniform<F>(rng, -termEdge, termEdge / 4), 0, inTermRange<F>(rng)};
        case 1: return Draw<F>{uniform<F>(rng, -4, 4), 0, inTermRange<F>(rng)};
        case 2: return Draw<F>{uniform<F>(rng, -double(expOverflow) - 50, 50), 0, F(1)};
        default: return Draw<F>{randomBits<F>(rng, -kFormat<F>.maxExponent / 4, 2), 0, inTermRange<F>(rng)};
      }
    };
    // sigmoid′ from e = exp(−|x|): e/(1 + e)², even in x.
    auto viaExp = [](const Draw<F>& d, const Libm<F>& m, F y) {
      const F e = m.exp(-std::fabs(d.a));
      return Computed<F>{y, {d.ct * (e / ((1 + e) * (1 + e)))}};
    };
    op.formulas = {
        {"ct*(y*(1-y))", true, [](const Draw<F>& d, const Libm<F>& m) { F y = machineSigmoid(d.a, m); return Computed<F>{y, {d.ct * (y * (1 - y))}}; }},
        {"(ct*y)*(1-y)", true, [](const Draw<F>& d, const Libm<F>& m) { F y = machineSigmoid(d.a, m); return Computed<F>{y, {(d.ct * y) * (1 - y)}}; }},
        {"ct*e/(1+e)^2", true, [=](const Draw<F>& d, const Libm<F>& m) { return viaExp(d, m, machineSigmoid(d.a, m)); }},
    };
    ops.push_back(std::move(op));
  }
  {  // softplus: term ct·sigmoid(x)
    OpUnderTest<F> op;
    op.kind = OpKind::softplus;
    op.exact = [](LD a, LD) { return softplusL(a); };
    op.term = [](std::size_t, LD a, LD, LD, LD ct) { return ct * sigmoidL(a); };
    op.roundings = [](std::size_t) { return ops::Softplus::termRoundings; };
    op.draw = [=](Rng& rng) {
      const double termEdge = kFormat<F>.maxExponent / 4 * 0.6931;
      switch (pick(rng, 4)) {
        case 0: return Draw<F>{uniform<F>(rng, -termEdge, termEdge), 0, inTermRange<F>(rng)};
        case 1: return Draw<F>{uniform<F>(rng, -4, 4), 0, inTermRange<F>(rng)};
        case 2: return Draw<F>{uniform<F>(rng, -double(expOverflow) - 50, double(expOverflow) + 50), 0, F(1)};
        default: return Draw<F>{randomBits<F>(rng, kFormat<F>.minExponent - kFormat<F>.precision, 13), 0, inTermRange<F>(rng)};  // exp(2^14) stays within the intervals' 2^±30000
      }
    };
    auto stable = [](F x, const Libm<F>& m) { return x > 0 ? x + m.log1p(m.exp(-x)) : m.log1p(m.exp(x)); };
    // x itself above a threshold where log1p(exp(−x)) < e^-x is below half an ulp of x: 20 in float
    // (PyTorch's threshold, e^-20 = 2^-28.9), 40 in double (e^-40 = 2^-57.7). PyTorch's 20 in double
    // is no correct formula: at x = 22.3 it errs by 57,900 ulp.
    constexpr F threshold = kFormat<F>.precision == 53 ? 40 : 20;
    auto torch = [=](F x, const Libm<F>& m) { return x > threshold ? x : m.log1p(m.exp(x)); };
    auto split = [](F x, const Libm<F>& m) { return std::max(x, F(0)) + m.log1p(m.exp(-std::fabs(x))); };
    op.formulas = {
        {"x+log1p(exp(-x)) | log1p(exp(x))", true, [=](const Draw<F>& d, const Libm<F>& m) { return Computed<F>{stable(d.a, m), {d.ct * machineSigmoid(d.a, m)}}; }},
        {"x above a threshold, else log1p(exp(x))", true, [=](const Draw<F>& d, const Libm<F>& m) { return Computed<F>{torch(d.a, m), {d.ct * machineSigmoid(d.a, m)}}; }},
        {"max(x,0)+log1p(exp(-|x|))", true, [=](const Draw<F>& d, const Libm<F>& m) { return Computed<F>{split(d.a, m), {d.ct * machineSigmoid(d.a, m)}}; }},
        // The term from any sigmoid within sigmoid's budget (an engine's own kernel), at its edge.
        {"ct*s, s at sigmoid's budget", false, [=](const Draw<F>& d, const Libm<F>& m) {
           return Computed<F>{stable(d.a, m), {d.ct * atEdge<F>(sigmoidL(d.a), (*m.rng)() & 1, ops::Sigmoid::accuracyUlps)}};
         }},
    };
    ops.push_back(std::move(op));
  }
  for (OpKind kind : {OpKind::sin, OpKind::cos}) {  // terms ct·cos x and −ct·sin x
    const bool isSin = kind == OpKind::sin;
    OpUnderTest<F> op;
    op.kind = kind;
    op.exact = [=](LD a, LD) { return isSin ? std::sin(a) : std::cos(a); };
    op.term = [=](std::size_t, LD a, LD, LD, LD ct) { return isSin ? ct * std::cos(a) : -ct * std::sin(a); };
    op.roundings = [=](std::size_t) { return isSin ? ops::Sin::termRoundings : ops::Cos::termRoundings; };
    op.draw = [](Rng& rng) {
      switch (pick(rng, 3)) {
        case 0: return Draw<F>{nearHalfPiMultiple<F>(rng), 0, inTermRange<F>(rng)};
        case 1: return Draw<F>{inTermRange<F>(rng), 0, inTermRange<F>(rng)};
        default: return Draw<F>{randomBits<F>(rng, kFormat<F>.minExponent - kFormat<F>.precision, 10), 0, inTermRange<F>(rng)};
      }
    };
    op.formulas = {{isSin ? "ct*cos(x)" : "-(ct*sin(x))", true, [=](const Draw<F>& d, const Libm<F>& m) {
                      return isSin ? Computed<F>{m.sin(d.a), {d.ct * m.cos(d.a)}} : Computed<F>{m.cos(d.a), {-(d.ct * m.sin(d.a))}};
                    }}};
    ops.push_back(std::move(op));
  }
  return ops;
}

// ---------------------------------------------------------------------------------------------
// The cheap measure.

//! A value's distance from the reals [lo, hi], over the budget `allowed`.
inline LD shareOf(LD value, LD lo, LD hi, LD allowed) {
  const LD distance = value < lo ? lo - value : (value > hi ? value - hi : 0);
  if (distance == 0) return 0;
  return allowed > 0 ? distance / allowed : std::numeric_limits<LD>::infinity();
}

//! Whether the oracle judges terms at this draw: everything a term reads within 2^±⌊emax/4⌋.
template <class F>
bool termsJudged(const OpUnderTest<F>& op, const Draw<F>& d, F y) {
  auto in = [](F v) { return props::withinTermRange(static_cast<double>(v), kFormat<F>); };
  return in(d.a) && (op.arity < 2 || in(d.b)) && in(d.ct) && in(y);
}

template <class F>
struct CheapShares {
  LD forward = 0;
  LD term[2] = {0, 0};
  bool termsJudged = false;
};

//! What the cheap measure needs of a draw, whatever the formula: the exact forward value and its
//! budget, and for each term the hull of the exact terms at the exact forward value and at its
//! budget's ends (all inside the oracle's enclosure, which reads any forward value within budget)
//! with the bound γ_k·M + k·η, M at the largest of those three.
template <class F>
struct CheapExact {
  LD y = 0, width = 0;
  bool forwardJudged = false;
  LD lo[2] = {0, 0}, hi[2] = {0, 0}, bound[2] = {0, 0};

  CheapExact(const OpUnderTest<F>& op, const Draw<F>& d) {
    const LD a = d.a, b = d.b, ct = d.ct;
    y = op.exact(a, b);
    width = LD(ops::accuracyUlps(op.kind)) * ulpBelow<F>(y);
    // Beyond the largest finite value the oracle's infinity rule judges; the oracle sees those
    // through the draws sent to it whatever their cheap share (the worst and the audited).
    forwardJudged = std::isfinite(y) && std::fabs(y) < LD(std::numeric_limits<F>::max());
    const LD ys[3] = {y - width, y, y + width};
    for (std::size_t arg = 0; arg < op.arity; ++arg) {
      LD l = std::numeric_limits<LD>::infinity(), h = -l, m = 0;
      for (LD yy : ys) {
        const LD t = op.term(arg, a, b, yy, ct);
        l = std::min(l, t), h = std::max(h, t);
        m = std::max(m, op.magnitude ? op.magnitude(arg, a, b, yy, ct) : std::fabs(t));
      }
      const std::size_t k = op.roundings(arg);
      lo[arg] = l, hi[arg] = h, bound[arg] = gammaOf<F>(k) * m + k * etaOf<F>();
    }
  }

  CheapShares<F> shares(const OpUnderTest<F>& op, const Draw<F>& d, const Computed<F>& c) const {
    CheapShares<F> s;
    if (forwardJudged) s.forward = shareOf(c.y, y, y, width);
    s.termsJudged = termsJudged(op, d, c.y);
    if (s.termsJudged)
      for (std::size_t arg = 0; arg < op.arity; ++arg) s.term[arg] = shareOf(c.term[arg], lo[arg], hi[arg], bound[arg]);
    return s;
  }
};

// ---------------------------------------------------------------------------------------------
// The oracle's judgement of a batch.

template <class F>
struct Judged {
  double forward = 0;        //!< the largest share of its budget a forward value used
  double term[2] = {0, 0};   //!< the same for each term
  double forwardUlps = 0, termUlps[2] = {0, 0};
  //! For each term, the largest share of the whole allowance around the exact term (at the exact
  //! forward value) a value used: its distance from that term over the distance from it to the
  //! enclosure's edge on the value's side (the forward values within budget) plus the bound.
  double termOfAllowance[2] = {0, 0};
  std::string failure;       //!< the first value outside its budget, described
};

LD lowerOf(const Interval& x) { return boost::multiprecision::lower(x.v).convert_to<LD>(); }
LD upperOf(const Interval& x) { return boost::multiprecision::upper(x.v).convert_to<LD>(); }
LD middleOf(const Interval& x) { return boost::multiprecision::median(x.v).convert_to<LD>(); }

//! The oracle's verdict on each draw of `draws` (with its computed values), as AccuracyJudge
//! reaches it: the forward enclosed on intervals and judged within accuracyUlps, the terms
//! enclosed over the forward values within budget (widenedByBudget) and judged within their error
//! bound (termsAndErrorAt), where the oracle judges them.
template <class F>
Judged<F> judgeBatch(const OpUnderTest<F>& op, const std::vector<Draw<F>>& draws, const std::vector<Computed<F>>& computed) {
  Judged<F> out;
  const std::size_t n = draws.size();
  std::vector<Shape> shapes(op.arity, Shape{n});
  auto builder = GraphBuilder<Interval>::create(shapes);
  std::vector<std::size_t> args;
  for (std::size_t i = 0; i < op.arity; ++i) args.push_back(i);
  auto node = builder->add(op.kind, args);
  EXPECT_TRUE(node.has_value());
  const Graph<Interval> graph = std::move(*builder).build();
  const std::size_t k = op.arity;
  Pack<Interval> points(op.arity + 1);
  for (std::size_t i = 0; i < op.arity; ++i)
    points[i] = Tensor<Interval>(Shape{n}, kernels::generate<Interval>(n, [&](std::size_t j) {
                                   return Interval(Mpfi(static_cast<double>(i == 0 ? draws[j].a : draws[j].b)));
                                 }));
  const Data<Interval> data;
  auto y = validateAndForward(graph, std::span<const Tensor<Interval>>(points), data, k);
  if (!y) {
    out.failure = "no exact value on intervals: " + y.error().message;
    return out;
  }
  const props::IeeeFormat format = kFormat<F>;
  const ops::RoundingModel<Interval> model = props::roundingModelOf(format);
  const double ulps = ops::accuracyUlps(op.kind);
  const Tensor<Interval> accumulated = accumulatedErrorAt(graph, std::span<const Tensor<Interval>>(points), data, k, *y, model);
  Tensor<Interval> within = *y;
  auto describe = [&](std::size_t j, const std::string& what, double value, const Interval& exact) {
    return fmt::format("{} {} at a = {:a}, b = {:a}, ct = {:a}: {:a}, exact {}", opName(op.kind), what,
                       static_cast<double>(draws[j].a), static_cast<double>(draws[j].b),
                       static_cast<double>(draws[j].ct), value, displayInterval(exact));
  };
  for (std::size_t j = 0; j < n; ++j) {
    const Interval* extra = accumulated.values.empty() ? nullptr : &accumulated[j];
    const auto judged = props::judgeElement(static_cast<double>(computed[j].y), (*y)[j], format, ulps, extra);
    out.forward = std::max(out.forward, judged.ofBudget), out.forwardUlps = std::max(out.forwardUlps, judged.ulps);
    if (!judged.within && out.failure.empty()) out.failure = describe(j, "forward", computed[j].y, (*y)[j]);
    within[j] = props::widenedByBudget((*y)[j], format, ulps, extra);
  }
  Tensor<Interval> ct(Shape{n}, kernels::generate<Interval>(n, [&](std::size_t j) { return Interval(Mpfi(static_cast<double>(draws[j].ct))); }));
  const TermsAndError<Interval> terms = termsAndErrorAt(graph, std::span<const Tensor<Interval>>(points), data, k, within, ct, model);
  const TermsAndError<Interval> atExact = termsAndErrorAt(graph, std::span<const Tensor<Interval>>(points), data, k, *y, ct, model);
  for (std::size_t t = 0; t < terms.terms.size(); ++t) {
    const std::size_t arg = terms.terms[t].arg;
    for (std::size_t j = 0; j < n; ++j) {
      if (!termsJudged(op, draws[j], computed[j].y) || props::mayHaveUnderflowed(terms.terms[t].value[j], format)) continue;
      const auto judged = props::judgeElement(static_cast<double>(computed[j].term[arg]), terms.terms[t].value[j], format, 0,
                                              &terms.error[t].value[j]);
      out.term[arg] = std::max(out.term[arg], judged.ofBudget), out.termUlps[arg] = std::max(out.termUlps[arg], judged.ulps);
      const LD value = computed[j].term[arg], exact = middleOf(atExact.terms[t].value[j]);
      const LD spread = value > exact ? upperOf(terms.terms[t].value[j]) - exact : exact - lowerOf(terms.terms[t].value[j]);
      const LD allowance = spread + lowerOf(terms.error[t].value[j]);
      if (allowance > 0)
        out.termOfAllowance[arg] = std::max(out.termOfAllowance[arg], static_cast<double>(std::fabs(value - exact) / allowance));
      if (!judged.within && out.failure.empty())
        out.failure = describe(j, fmt::format("term {}", arg), computed[j].term[arg], terms.terms[t].value[j]);
    }
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// A run of every formula of an op on the same draws.

template <class F>
struct FormulaReport {
  std::string op, formula;
  double forward = 0, term[2] = {0, 0};  //!< the oracle's largest share of each budget
  double termOfAllowance[2] = {0, 0};     //!< Judged::termOfAllowance
  std::size_t sentToOracle = 0, termDraws = 0;
  std::string failure;
  std::string screenBroken;  //!< where the oracle found more than the screen claimed
};

//! One formula with one libm, its draws bound for the oracle and what the oracle said.
template <class F>
class FormulaRun {
 public:
  FormulaRun(const OpUnderTest<F>& op, const Formula<F>& formula, bool edge, std::uint64_t seed)
      : op_(op), formula_(formula), rng_(seed), libm_{edge, &rng_}, worst_(1 + op.arity), worstShare_(1 + op.arity, -1) {
    report_.op = std::string(opName(op.kind));
    report_.formula = formula.name + (edge ? " [edge libm]" : "");
  }
  FormulaRun(const FormulaRun&) = delete;

  void take(std::size_t i, const Draw<F>& d, const CheapExact<F>& exact) {
    const Computed<F> c = formula_.compute(d, libm_);
    const CheapShares<F> s = exact.shares(op_, d, c);
    if (s.termsJudged) ++report_.termDraws;
    const LD shares[3] = {s.forward, s.term[0], s.term[1]};
    LD largest = 0;
    for (std::size_t q = 0; q < 1 + op_.arity; ++q) {
      largest = std::max(largest, shares[q]);
      if (shares[q] > worstShare_[q]) worstShare_[q] = shares[q], worst_[q] = {d, c};
    }
    if (!(largest < kScreen)) {  // a NaN share goes to the oracle too
      pending_.push_back(d), values_.push_back(c), pendingCheap_ = std::max(pendingCheap_, largest);
      if (pending_.size() == kBatch) flush(false);
    } else if (i % kAuditEvery == 0) {
      audits_.push_back(d), auditValues_.push_back(c), auditCheap_ = std::max(auditCheap_, largest);
    }
  }

  //! Sends what is left, the worst draws by the cheap measure (so that tightness is the oracle's
  //! measure even where no draw passes the screen) and the audited ones.
  FormulaReport<F> finish() {
    flush(false);
    for (const auto& [d, c] : worst_) pending_.push_back(d), values_.push_back(c);
    flush(false);
    pending_ = std::move(audits_), values_ = std::move(auditValues_), pendingCheap_ = auditCheap_;
    flush(true);
    return report_;
  }

 private:
  void flush(bool audit) {
    if (pending_.empty()) return;
    const Judged<F> j = judgeBatch(op_, pending_, values_);
    report_.sentToOracle += pending_.size();
    report_.forward = std::max(report_.forward, j.forward);
    for (std::size_t a = 0; a < op_.arity; ++a) {
      report_.term[a] = std::max(report_.term[a], j.term[a]);
      report_.termOfAllowance[a] = std::max(report_.termOfAllowance[a], j.termOfAllowance[a]);
    }
    if (!j.failure.empty() && report_.failure.empty()) report_.failure = j.failure;
    // The screen claims the oracle's share is no larger than its own (up to the cheap measure's
    // error and the oracle taking its bound at the low end of an interval).
    const double claimed = static_cast<double>(pendingCheap_) * 1.01 + 0.01;
    const double found = std::max({j.forward, j.term[0], j.term[1]});
    if (audit && found > claimed && report_.screenBroken.empty())
      report_.screenBroken = fmt::format("the oracle found {:.4g} of a budget where the screen claimed at most {:.4g}",
                                         found, static_cast<double>(pendingCheap_));
    pending_.clear(), values_.clear(), pendingCheap_ = 0;
  }

  const OpUnderTest<F>& op_;
  const Formula<F>& formula_;
  Rng rng_;  // the edge libm's sides
  Libm<F> libm_;
  FormulaReport<F> report_;
  std::vector<Draw<F>> pending_, audits_;
  std::vector<Computed<F>> values_, auditValues_;
  LD pendingCheap_ = 0, auditCheap_ = 0;
  std::vector<std::pair<Draw<F>, Computed<F>>> worst_;
  std::vector<LD> worstShare_;
};

template <class F>
void runOp(const OpUnderTest<F>& op, std::uint64_t seed, std::vector<FormulaReport<F>>& reports) {
  std::vector<std::unique_ptr<FormulaRun<F>>> runs;
  for (const Formula<F>& formula : op.formulas) {
    runs.push_back(std::make_unique<FormulaRun<F>>(op, formula, false, seed * 1000 + runs.size()));
    if (formula.usesLibm) runs.push_back(std::make_unique<FormulaRun<F>>(op, formula, true, seed * 1000 + runs.size()));
  }
  Rng rng(seed);
  for (std::size_t i = 0; i < kDraws; ++i) {
    const Draw<F> d = op.draw(rng);
    const CheapExact<F> exact(op, d);
    for (auto& run : runs) run->take(i, d, exact);
  }
  for (auto& run : runs) reports.push_back(run->finish());
}

template <class F>
std::vector<FormulaReport<F>> runAll() {
  std::vector<FormulaReport<F>> reports;
  std::uint64_t seed = 1;
  for (const OpUnderTest<F>& op : opsUnderTest<F>()) runOp(op, seed++, reports);
  return reports;
}

template <class F>
const std::vector<FormulaReport<F>>& reportsOf() {
  static const std::vector<FormulaReport<F>> reports = runAll<F>();
  return reports;
}

template <class F>
void printTable(const char* carrier) {
  // Shares of budgets: the forward's; each term's beyond the enclosure (what judgeElement says) and
  // of the whole allowance around the exact term.
  std::printf("%-7s %-9s %-48s %8s %8s %8s %8s %8s %8s\n", carrier, "op", "formula", "forward", "a beyond", "a whole",
              "b beyond", "b whole", "oracle");
  for (const FormulaReport<F>& r : reportsOf<F>())
    std::printf("%-7s %-9s %-48s %8.4f %8.4f %8.4f %8.4f %8.4f %8zu\n", carrier, r.op.c_str(), r.formula.c_str(), r.forward,
                r.term[0], r.termOfAllowance[0], r.term[1], r.termOfAllowance[1], r.sentToOracle);
}

template <class F>
void expectSound() {
  printTable<F>(kFormat<F>.precision == 53 ? "double" : "float");
  for (const FormulaReport<F>& r : reportsOf<F>()) {
    EXPECT_TRUE(r.failure.empty()) << r.op << " by " << r.formula << ": " << r.failure;
    EXPECT_TRUE(r.screenBroken.empty()) << r.op << " by " << r.formula << ": " << r.screenBroken;
    EXPECT_GT(r.termDraws, kDraws / 2) << r.op << " by " << r.formula << ": too few draws where terms are judged";
  }
}

//! Per op and quantity (forward, term to a, term to b), the largest share of its budget any
//! listed formula used, on either carrier.
//! A term's share is of its whole allowance: the enclosure over the forward values within budget
//! and the bound beyond it (where a term reads the forward value, as sigmoid's and tanh's do, the
//! enclosure is most of it, and judgeElement's share of the bound alone would call it unused).
template <class F>
void widestShares(std::map<std::string, double>& shares) {
  for (const FormulaReport<F>& r : reportsOf<F>()) {
    shares[r.op + " forward"] = std::max(shares[r.op + " forward"], r.forward);
    shares[r.op + " term a"] = std::max(shares[r.op + " term a"], r.termOfAllowance[0]);
    if (r.op == "div") shares[r.op + " term b"] = std::max(shares[r.op + " term b"], r.termOfAllowance[1]);
  }
}

TEST(AccuracyBudgets, EveryListedFormulaStaysWithinItsBudgetInDouble) { expectSound<double>(); }
TEST(AccuracyBudgets, EveryListedFormulaStaysWithinItsBudgetInFloat) { expectSound<float>(); }

TEST(AccuracyBudgets, SomeListedFormulaReachesAQuarterOfEachBudget) {
  std::map<std::string, double> shares;
  widestShares<double>(shares);
  widestShares<float>(shares);
  for (const auto& [what, share] : shares) {
    std::printf("%-20s worst share of budget %.4f\n", what.c_str(), share);
    EXPECT_GE(share, 0.25) << what << ": its budget is more than 4x the worst error any listed formula reaches";
  }
}

}  // namespace
}  // namespace tc
