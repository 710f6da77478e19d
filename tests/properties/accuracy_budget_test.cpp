// The accuracy budgets are theorems (docs/semantics.md §2.6): every formula a correct engine may
// use for an op's forward value or term stays within the budget the accuracy oracle holds it to
// (soundness), and some listed formula reaches at least a quarter of it (tightness: a budget that
// drifts wide is noticed). Each formula is evaluated in double and in float on 10^6 adversarial
// inputs; the oracle's own entry points (validateAndForward, accumulatedErrorAt and termsAndErrorAt
// on intervals, widenedByBudget, judgeElement) judge them. The elementwise ops with a budget
// (inv, div, exp, log, sqrt, tanh, sigmoid, softplus, sin, cos) and the ops over a row (sum, dot,
// mean, mse_loss, softmax_last, log_softmax_last); not yet matmul and linear.
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

#include <chrono>
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
LD gammaOf(LD k) {
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
  {  // sqrt: term ct/(2y), or ct·(1/(2y))
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
        // ADOL-C's: the reciprocal first, then the product (two roundings)
        {"ct*(1/(2y))", false, [](const Draw<F>& d, const Libm<F>&) { F r = std::sqrt(d.a); return Computed<F>{r, {d.ct * (F(1) / (2 * r))}}; }},
        {"ct*(0.5/y)", false, [](const Draw<F>& d, const Libm<F>&) { F r = std::sqrt(d.a); return Computed<F>{r, {d.ct * (F(0.5) / r)}}; }},
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

//! A graph of one node of `kind` on `arity` inputs of `n` values each; the node is position `arity`.
Graph<Interval> oneNodeGraph(OpKind kind, std::size_t arity, std::size_t n) {
  auto builder = GraphBuilder<Interval>::create(std::vector<Shape>(arity, Shape{n}));
  std::vector<std::size_t> args;
  for (std::size_t i = 0; i < arity; ++i) args.push_back(i);
  auto node = builder->add(kind, args);
  EXPECT_TRUE(node.has_value());
  return std::move(*builder).build();
}

//! The oracle's verdict on each draw of `draws` (with its computed values), as AccuracyJudge
//! reaches it: the forward enclosed on intervals and judged within accuracyUlps, the terms
//! enclosed over the forward values within budget (widenedByBudget) and judged within their error
//! bound (termsAndErrorAt), where the oracle judges them.
template <class F>
Judged<F> judgeBatch(const OpUnderTest<F>& op, const std::vector<Draw<F>>& draws, const std::vector<Computed<F>>& computed) {
  Judged<F> out;
  const std::size_t n = draws.size();
  const Graph<Interval> graph = oneNodeGraph(op.kind, op.arity, n);
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


// ---------------------------------------------------------------------------------------------
// Ops over a row: sum, dot, mean, mse_loss, softmax_last, log_softmax_last. One draw is one row
// of 1 to 8 values, one graph per draw sent to the oracle.

template <class F>
struct RowDraw {
  std::vector<F> a, b, ct;  // b for dot and mse_loss; ct shaped like the output
};

template <class F>
struct RowComputed {
  std::vector<F> y, term[2];
};

template <class F>
struct RowFormula {
  std::string name;
  bool usesLibm = false;
  std::function<RowComputed<F>(const RowDraw<F>&, const Libm<F>&)> compute;
};

//! The cheap measure's exact values of a row draw: each output element with its budget, each
//! term element's hull (inside the oracle's enclosure) with its bound.
struct RowCheap {
  std::vector<LD> y, allowed;
  std::vector<LD> lo[2], hi[2], bound[2];
};

template <class F>
struct RowOp {
  OpKind kind;
  std::size_t arity = 1;
  std::function<RowDraw<F>(Rng&)> draw;
  std::function<RowCheap(const RowDraw<F>&)> cheap;
  std::vector<RowFormula<F>> formulas;
};

//! A closed interval of long doubles, for the cheap hull of a term over forward values within
//! budget, evaluated as the oracle's interval carrier does (without outward rounding: its error,
//! about 2^-64 relative, is far inside the screen's margin).
struct Iv {
  LD lo, hi;
  Iv(LD v) : lo(v), hi(v) {}  // NOLINT: a point
  Iv(LD l, LD h) : lo(l), hi(h) {}
};
inline Iv operator+(Iv a, Iv b) { return {a.lo + b.lo, a.hi + b.hi}; }
inline Iv operator-(Iv a, Iv b) { return {a.lo - b.hi, a.hi - b.lo}; }
inline Iv operator*(Iv a, Iv b) {
  const LD p[4] = {a.lo * b.lo, a.lo * b.hi, a.hi * b.lo, a.hi * b.hi};
  return {*std::min_element(p, p + 4), *std::max_element(p, p + 4)};
}

template <class F>
F leftFold(const std::vector<F>& v) {
  F acc = 0;
  for (F x : v) acc = acc + x;
  return acc;
}
template <class F>
F reversedFold(const std::vector<F>& v) {
  F acc = 0;
  for (std::size_t i = v.size(); i-- > 0;) acc = acc + v[i];
  return acc;
}
template <class F>
F pairwise(const F* v, std::size_t n) {
  if (n == 1) return v[0];
  return pairwise(v, n / 2) + pairwise(v + n / 2, n - n / 2);
}
template <class F>
F pairwise(const std::vector<F>& v) { return v.empty() ? F(0) : pairwise(v.data(), v.size()); }

template <class F>
F foldProducts(const std::vector<F>& a, const std::vector<F>& b, bool fused, bool reversed) {
  F acc = 0;
  for (std::size_t k = 0; k < a.size(); ++k) {
    const std::size_t i = reversed ? a.size() - 1 - k : k;
    acc = fused ? std::fma(a[i], b[i], acc) : acc + a[i] * b[i];
  }
  return acc;
}

//! A row of 1 to 8 values within the judged range: random bits, a cancelling pair, or values of
//! one magnitude (ties of the sum).
template <class F>
std::vector<F> drawRow(Rng& rng, std::size_t n, int range = kFormat<F>.maxExponent / 4 - 4) {  // sums of 8 stay within 2^±⌊emax/4⌋
  std::vector<F> v(n);
  const std::size_t kind = pick(rng, 3);
  for (F& x : v) x = kind == 2 ? F(static_cast<int>(pick(rng, 9)) - 4) * static_cast<F>(std::ldexp(1.0, -static_cast<int>(pick(rng, 3)))) : randomBits<F>(rng, -range, range);
  if (kind == 1 && n >= 2) v[1] = -v[0] * (1 + F(static_cast<int>(pick(rng, 9)) - 4) * std::numeric_limits<F>::epsilon());
  for (F& x : v)
    if (x == 0) x = 1;
  return v;
}

template <class F>
std::size_t rowLength(Rng& rng) { return 1 + pick(rng, 8); }

template <class F>
LD sumAbs(const std::vector<F>& v) {
  LD s = 0;
  for (F x : v) s += std::fabs(LD(x));
  return s;
}

template <class F>
std::vector<RowOp<F>> rowOpsUnderTest() {
  std::vector<RowOp<F>> ops;
  const LD eta = etaOf<F>();
  {  // sum: γ_n·Σ|x|; its terms copy ct
    RowOp<F> op;
    op.kind = OpKind::sum;
    op.draw = [](Rng& rng) { return RowDraw<F>{drawRow<F>(rng, rowLength<F>(rng)), {}, {inTermRange<F>(rng)}}; };
    op.cheap = [](const RowDraw<F>& d) {
      RowCheap c;
      LD total = 0;
      for (F x : d.a) total += x;
      c.y = {total}, c.allowed = {gammaOf<F>(d.a.size()) * sumAbs(d.a)};
      for (std::size_t i = 0; i < d.a.size(); ++i) c.lo[0].push_back(d.ct[0]), c.hi[0].push_back(d.ct[0]), c.bound[0].push_back(0);
      return c;
    };
    auto with = [](F y, const RowDraw<F>& d) { return RowComputed<F>{{y}, {std::vector<F>(d.a.size(), d.ct[0]), {}}}; };
    op.formulas = {
        {"left to right", false, [=](const RowDraw<F>& d, const Libm<F>&) { return with(leftFold(d.a), d); }},
        {"right to left", false, [=](const RowDraw<F>& d, const Libm<F>&) { return with(reversedFold(d.a), d); }},
        {"pairwise", false, [=](const RowDraw<F>& d, const Libm<F>&) { return with(pairwise(d.a), d); }},
    };
    ops.push_back(std::move(op));
  }
  {  // dot: γ_n·Σ|a·b| + n·η; terms ct·b and ct·a, one rounding
    RowOp<F> op;
    op.kind = OpKind::dot;
    op.arity = 2;
    op.draw = [](Rng& rng) {
      const std::size_t n = rowLength<F>(rng);
      return RowDraw<F>{drawRow<F>(rng, n), drawRow<F>(rng, n), {inTermRange<F>(rng)}};
    };
    op.cheap = [=](const RowDraw<F>& d) {
      RowCheap c;
      LD total = 0, magnitude = 0;
      for (std::size_t i = 0; i < d.a.size(); ++i) total += LD(d.a[i]) * d.b[i], magnitude += std::fabs(LD(d.a[i]) * d.b[i]);
      const std::size_t n = d.a.size();
      c.y = {total}, c.allowed = {gammaOf<F>(n) * magnitude + n * eta};
      for (std::size_t i = 0; i < n; ++i)
        for (std::size_t arg = 0; arg < 2; ++arg) {
          const LD t = LD(d.ct[0]) * (arg == 0 ? d.b[i] : d.a[i]);
          c.lo[arg].push_back(t), c.hi[arg].push_back(t), c.bound[arg].push_back(gammaOf<F>(1) * std::fabs(t) + eta);
        }
      return c;
    };
    auto with = [](F y, const RowDraw<F>& d) {
      RowComputed<F> r{{y}, {}};
      for (std::size_t i = 0; i < d.a.size(); ++i) r.term[0].push_back(d.ct[0] * d.b[i]), r.term[1].push_back(d.ct[0] * d.a[i]);
      return r;
    };
    op.formulas = {
        {"left to right", false, [=](const RowDraw<F>& d, const Libm<F>&) { return with(foldProducts(d.a, d.b, false, false), d); }},
        {"right to left", false, [=](const RowDraw<F>& d, const Libm<F>&) { return with(foldProducts(d.a, d.b, false, true), d); }},
        {"fma left to right", false, [=](const RowDraw<F>& d, const Libm<F>&) { return with(foldProducts(d.a, d.b, true, false), d); }},
        {"pairwise products", false, [=](const RowDraw<F>& d, const Libm<F>&) {
           std::vector<F> p(d.a.size());
           for (std::size_t i = 0; i < p.size(); ++i) p[i] = d.a[i] * d.b[i];
           return with(pairwise(p), d);
         }},
    };
    ops.push_back(std::move(op));
  }
  {  // mean: 0.5 ulp + γ_(n+1)·mean|x|; term ct/n, two roundings
    RowOp<F> op;
    op.kind = OpKind::mean;
    op.draw = [](Rng& rng) { return RowDraw<F>{drawRow<F>(rng, rowLength<F>(rng)), {}, {inTermRange<F>(rng)}}; };
    op.cheap = [](const RowDraw<F>& d) {
      RowCheap c;
      const std::size_t n = d.a.size();
      LD total = 0;
      for (F x : d.a) total += x;
      const LD y = total / n;
      c.y = {y}, c.allowed = {LD(ops::Mean::accuracyUlps) * ulpBelow<F>(y) + gammaOf<F>(n + 1) * sumAbs(d.a) / n};
      const LD t = LD(d.ct[0]) / n;
      for (std::size_t i = 0; i < n; ++i)
        c.lo[0].push_back(t), c.hi[0].push_back(t), c.bound[0].push_back(gammaOf<F>(ops::Mean::termRoundings) * std::fabs(t) + ops::Mean::termRoundings * etaOf<F>());
      return c;
    };
    auto make = [](F y, F t, std::size_t n) { return RowComputed<F>{{y}, {std::vector<F>(n, t), {}}}; };
    op.formulas = {
        {"sum/n, ct/n", false, [=](const RowDraw<F>& d, const Libm<F>&) { const F n = F(d.a.size()); return make(leftFold(d.a) / n, d.ct[0] / n, d.a.size()); }},
        {"sum*fl(1/n), ct*fl(1/n)", false, [=](const RowDraw<F>& d, const Libm<F>&) { const F r = 1 / F(d.a.size()); return make(pairwise(d.a) * r, d.ct[0] * r, d.a.size()); }},
        {"reversed sum/n, ct*fl(1/n)", false, [=](const RowDraw<F>& d, const Libm<F>&) { const F n = F(d.a.size()); return make(reversedFold(d.a) / n, d.ct[0] * (1 / n), d.a.size()); }},
    };
    ops.push_back(std::move(op));
  }
  {  // mse_loss: 0.5 ulp + γ_(n+4)·y + n·η; terms ±2·ct·(a − b)/n, four roundings
    RowOp<F> op;
    op.kind = OpKind::mse_loss;
    op.arity = 2;
    op.draw = [](Rng& rng) {
      const std::size_t n = rowLength<F>(rng);
      const int range = kFormat<F>.maxExponent / 8 - 3;  // sums of 8 squares stay within 2^±⌊emax/4⌋
      RowDraw<F> d{drawRow<F>(rng, n, range), drawRow<F>(rng, n, range), {inTermRange<F>(rng)}};
      if (pick(rng, 2) == 0)  // a ≈ b: cancellation in a − b
        for (std::size_t i = 0; i < n; ++i) d.b[i] = d.a[i] * (1 + F(static_cast<int>(pick(rng, 17)) - 8) * std::numeric_limits<F>::epsilon());
      return d;
    };
    op.cheap = [=](const RowDraw<F>& d) {
      RowCheap c;
      const std::size_t n = d.a.size();
      LD total = 0;
      for (std::size_t i = 0; i < n; ++i) total += (LD(d.a[i]) - d.b[i]) * (LD(d.a[i]) - d.b[i]);
      const LD y = total / n;
      c.y = {y}, c.allowed = {LD(ops::MseLoss::accuracyUlps) * ulpBelow<F>(y) + gammaOf<F>(n + 4) * y + n * eta};
      const std::size_t k = ops::MseLoss::termRoundings;
      for (std::size_t i = 0; i < n; ++i) {
        const LD t = 2 * LD(d.ct[0]) * (LD(d.a[i]) - d.b[i]) / n;
        for (std::size_t arg = 0; arg < 2; ++arg)
          c.lo[arg].push_back(arg ? -t : t), c.hi[arg].push_back(arg ? -t : t), c.bound[arg].push_back(gammaOf<F>(k) * std::fabs(t) + k * eta);
      }
      return c;
    };
    auto make = [](const RowDraw<F>& d, F y, auto term) {
      RowComputed<F> r{{y}, {}};
      for (std::size_t i = 0; i < d.a.size(); ++i) {
        const F t = term(d.a[i] - d.b[i]);
        r.term[0].push_back(t), r.term[1].push_back(-t);
      }
      return r;
    };
    auto squares = [](const RowDraw<F>& d) {
      std::vector<F> s(d.a.size());
      for (std::size_t i = 0; i < s.size(); ++i) s[i] = (d.a[i] - d.b[i]) * (d.a[i] - d.b[i]);
      return s;
    };
    op.formulas = {
        {"sum/n; ((ct*2)*(a-b))/n", false, [=](const RowDraw<F>& d, const Libm<F>&) {
           const F n = F(d.a.size()), g = d.ct[0];
           return make(d, leftFold(squares(d)) / n, [=](F diff) { return ((g * 2) * diff) / n; });
         }},
        {"fma sum*fl(1/n); (ct*fl(2/n))*(a-b)", false, [=](const RowDraw<F>& d, const Libm<F>&) {
           const F n = F(d.a.size()), g = d.ct[0];
           F acc = 0;
           for (std::size_t i = 0; i < d.a.size(); ++i) acc = std::fma(d.a[i] - d.b[i], d.a[i] - d.b[i], acc);
           return make(d, acc * (1 / n), [=](F diff) { return (g * (2 / n)) * diff; });
         }},
        {"pairwise/n; ct*(fl(2/n)*(a-b))", false, [=](const RowDraw<F>& d, const Libm<F>&) {
           const F n = F(d.a.size()), g = d.ct[0];
           return make(d, pairwise(squares(d)) / n, [=](F diff) { return g * ((2 / n) * diff); });
         }},
    };
    ops.push_back(std::move(op));
  }
  // softmax_last and log_softmax_last over one row: draws of rows whose range R keeps exp(x − max)
  // within the judged range (e^-R ≥ 2^-⌊emax/4⌋).
  auto softmaxDraw = [](Rng& rng) {
    const std::size_t n = rowLength<F>(rng);
    const double reach = kFormat<F>.maxExponent / 4 * 0.6931 * 0.9;
    const double spans[4] = {1, 10, reach / 2, reach};
    const double span = spans[pick(rng, 4)];
    RowDraw<F> d{std::vector<F>(n), {}, std::vector<F>(n)};
    const F shift = uniform<F>(rng, -1000, 1000);
    for (std::size_t i = 0; i < n; ++i) d.a[i] = shift + uniform<F>(rng, 0, span), d.ct[i] = inTermRange<F>(rng);
    if (n >= 2 && pick(rng, 4) == 0) d.a[1] = d.a[0];  // a tie for the maximum
    return d;
  };
  auto rowRange = [](const RowDraw<F>& d) {
    const auto [lo, hi] = std::minmax_element(d.a.begin(), d.a.end());
    return std::pair<LD, LD>{LD(*hi), LD(*hi) - LD(*lo)};
  };
  {
    RowOp<F> op;
    op.kind = OpKind::softmax_last;
    op.draw = softmaxDraw;
    op.cheap = [=](const RowDraw<F>& d) {
      RowCheap c;
      const std::size_t n = d.a.size();
      const auto [m, range] = rowRange(d);
      LD total = 0;
      for (F x : d.a) total += std::exp(LD(x) - m);
      std::vector<Iv> within;
      const LD gamma = gammaOf<F>(2 * range + n + 9);
      for (F x : d.a) {
        const LD y = std::exp(LD(x) - m) / total, allowed = gamma * y + (4 * n + 5) * eta;
        c.y.push_back(y), c.allowed.push_back(allowed), within.push_back({y - allowed, y + allowed});
      }
      Iv inner(0);
      for (std::size_t i = 0; i < n; ++i) inner = inner + Iv(d.ct[i]) * within[i];
      LD innerAbs = 0;
      for (std::size_t i = 0; i < n; ++i) innerAbs += std::fabs(LD(d.ct[i]) * c.y[i]);
      for (std::size_t i = 0; i < n; ++i) {
        const Iv t = within[i] * (Iv(d.ct[i]) - inner);
        c.lo[0].push_back(t.lo), c.hi[0].push_back(t.hi);
        c.bound[0].push_back(gammaOf<F>(n + 2) * c.y[i] * (std::fabs(LD(d.ct[i])) + innerAbs) + (n + 2) * eta);
      }
      return c;
    };
    auto forward = [](const RowDraw<F>& d, const Libm<F>& m, bool reciprocal) {
      const F top = *std::max_element(d.a.begin(), d.a.end());
      std::vector<F> e(d.a.size());
      for (std::size_t i = 0; i < e.size(); ++i) e[i] = m.exp(d.a[i] - top);
      const F total = reciprocal ? pairwise(e) : leftFold(e), r = 1 / total;
      for (F& v : e) v = reciprocal ? v * r : v / total;
      return e;
    };
    auto inner = [](const RowDraw<F>& d, const std::vector<F>& y, bool fused) {
      return foldProducts(d.ct, y, fused, false);
    };
    op.formulas = {
        {"exp/sum; y*(ct-sum(ct*y))", true, [=](const RowDraw<F>& d, const Libm<F>& m) {
           RowComputed<F> r{forward(d, m, false), {}};
           const F s = inner(d, r.y, false);
           for (std::size_t i = 0; i < r.y.size(); ++i) r.term[0].push_back(r.y[i] * (d.ct[i] - s));
           return r;
         }},
        {"exp*fl(1/sum); y*ct-y*sum(y*ct) fma", true, [=](const RowDraw<F>& d, const Libm<F>& m) {
           RowComputed<F> r{forward(d, m, true), {}};
           const F s = inner(d, r.y, true);
           for (std::size_t i = 0; i < r.y.size(); ++i) r.term[0].push_back(r.y[i] * d.ct[i] - r.y[i] * s);
           return r;
         }},
    };
    ops.push_back(std::move(op));
  }
  {
    RowOp<F> op;
    op.kind = OpKind::log_softmax_last;
    op.draw = softmaxDraw;
    op.cheap = [=](const RowDraw<F>& d) {
      RowCheap c;
      const std::size_t n = d.a.size();
      const auto [m, range] = rowRange(d);
      LD total = 0, ctTotal = 0, ctAbs = 0;
      for (F x : d.a) total += std::exp(LD(x) - m);
      for (F g : d.ct) ctTotal += g, ctAbs += std::fabs(LD(g));
      const LD common = range + n + 4 + 4 * std::log(LD(n));
      for (std::size_t i = 0; i < n; ++i) {
        const LD y = (LD(d.a[i]) - m) - std::log(total);
        const LD count = common + std::fabs(LD(d.a[i]) - m);
        const LD allowed = LD(ops::LogSoftmaxLast::accuracyUlps) * ulpBelow<F>(y) + gammaOf<F>(count) + 4 * n * eta;
        c.y.push_back(y), c.allowed.push_back(allowed);
        // ct − exp(y)·Σct over y ± allowed: exp is monotone.
        const Iv t = Iv(d.ct[i]) - Iv(std::exp(y - allowed), std::exp(y + allowed)) * Iv(ctTotal);
        const std::size_t k = n + 1 + ops::kLibmRoundings;
        c.lo[0].push_back(t.lo), c.hi[0].push_back(t.hi);
        c.bound[0].push_back(gammaOf<F>(k) * (std::fabs(LD(d.ct[i])) + std::exp(y) * ctAbs) + k * eta);
      }
      return c;
    };
    auto forward = [](const RowDraw<F>& d, const Libm<F>& m, std::vector<F>* softmax) {
      const F top = *std::max_element(d.a.begin(), d.a.end());
      std::vector<F> e(d.a.size()), y(d.a.size());
      for (std::size_t i = 0; i < e.size(); ++i) e[i] = m.exp(d.a[i] - top);
      const F total = leftFold(e), logTotal = m.log(total);
      for (std::size_t i = 0; i < y.size(); ++i) y[i] = (d.a[i] - top) - logTotal;
      if (softmax)
        for (std::size_t i = 0; i < y.size(); ++i) (*softmax)[i] = e[i] / total;
      return y;
    };
    op.formulas = {
        {"(x-max)-log(sum); ct-exp(y)*sum(ct)", true, [=](const RowDraw<F>& d, const Libm<F>& m) {
           RowComputed<F> r{forward(d, m, nullptr), {}};
           const F s = leftFold(d.ct);
           for (std::size_t i = 0; i < r.y.size(); ++i) r.term[0].push_back(d.ct[i] - m.exp(r.y[i]) * s);
           return r;
         }},
        {"(x-max)-log(sum); ct-(e/sum)*sum(ct)", true, [=](const RowDraw<F>& d, const Libm<F>& m) {
           std::vector<F> softmax(d.a.size());
           RowComputed<F> r{forward(d, m, &softmax), {}};
           const F s = pairwise(d.ct);
           for (std::size_t i = 0; i < r.y.size(); ++i) r.term[0].push_back(d.ct[i] - softmax[i] * s);
           return r;
         }},
    };
    ops.push_back(std::move(op));
  }
  return ops;
}

//! The oracle's verdict on one row draw, as judgeBatch gives it for elementwise draws.
template <class F>
Judged<F> judgeRow(const RowOp<F>& op, const RowDraw<F>& d, const RowComputed<F>& computed) {
  Judged<F> out;
  const std::size_t n = d.a.size();
  const Graph<Interval> graph = oneNodeGraph(op.kind, op.arity, n);
  const std::size_t k = op.arity;
  auto pointsOf = [](const std::vector<F>& v) {
    return Tensor<Interval>(Shape{v.size()}, kernels::generate<Interval>(v.size(), [&](std::size_t j) { return Interval(Mpfi(static_cast<double>(v[j]))); }));
  };
  Pack<Interval> points;
  points.push_back(pointsOf(d.a));
  if (op.arity == 2) points.push_back(pointsOf(d.b));
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
  auto describe = [&](const std::string& what, double value, const Interval& exact) {
    std::string row;
    for (std::size_t i = 0; i < n; ++i)
      row += fmt::format("{:a}/{:a}/{:a} ", static_cast<double>(d.a[i]), op.arity == 2 ? static_cast<double>(d.b[i]) : 0.0,
                         static_cast<double>(i < d.ct.size() ? d.ct[i] : d.ct[0]));
    return fmt::format("{} {} at a/b/ct = {}: {:a}, exact {}", opName(op.kind), what, row, value, displayInterval(exact));
  };
  Tensor<Interval> within = *y;
  bool judgeTerms = true;
  auto in = [](F v) { return props::withinTermRange(static_cast<double>(v), kFormat<F>); };
  for (std::size_t j = 0; j < y->size(); ++j) {
    const Interval* extra = accumulated.values.empty() ? nullptr : &accumulated[j];
    if (extra && model.promisesNothing(*extra)) return out;
    const auto judged = props::judgeElement(static_cast<double>(computed.y[j]), (*y)[j], format, ulps, extra);
    out.forward = std::max(out.forward, judged.ofBudget), out.forwardUlps = std::max(out.forwardUlps, judged.ulps);
    if (!judged.within && out.failure.empty()) out.failure = describe("forward", computed.y[j], (*y)[j]);
    within[j] = props::widenedByBudget((*y)[j], format, ulps, extra);
    judgeTerms = judgeTerms && in(computed.y[j]);
  }
  for (F v : d.a) judgeTerms = judgeTerms && in(v);
  for (F v : d.b) judgeTerms = judgeTerms && in(v);
  for (F v : d.ct) judgeTerms = judgeTerms && in(v);
  if (!judgeTerms) return out;
  Tensor<Interval> ct = pointsOf(d.ct);
  ct.shape = y->shape;
  const auto span = std::span<const Tensor<Interval>>(points);
  const TermsAndError<Interval> terms = termsAndErrorAt(graph, span, data, k, within, ct, model);
  const TermsAndError<Interval> atExact = termsAndErrorAt(graph, span, data, k, *y, ct, model);
  for (std::size_t t = 0; t < terms.terms.size(); ++t) {
    const std::size_t arg = terms.terms[t].arg;
    for (std::size_t j = 0; j < n; ++j) {
      if (props::mayHaveUnderflowed(terms.terms[t].value[j], format)) continue;
      const double value = computed.term[arg][j];
      const auto judged = props::judgeElement(value, terms.terms[t].value[j], format, 0, &terms.error[t].value[j]);
      out.term[arg] = std::max(out.term[arg], judged.ofBudget), out.termUlps[arg] = std::max(out.termUlps[arg], judged.ulps);
      if (!judged.within && out.failure.empty()) out.failure = describe(fmt::format("term {}", arg), value, terms.terms[t].value[j]);
      const LD exact = middleOf(atExact.terms[t].value[j]);
      const LD spread = value > exact ? upperOf(terms.terms[t].value[j]) - exact : exact - lowerOf(terms.terms[t].value[j]);
      const LD allowance = spread + lowerOf(terms.error[t].value[j]);
      if (allowance > 0)
        out.termOfAllowance[arg] = std::max(out.termOfAllowance[arg], static_cast<double>(std::fabs(value - exact) / allowance));
    }
  }
  return out;
}

//! Every formula of a row op on the same draws: the cheap measure screens, the oracle judges what
//! it sends, the worst draws by the cheap measure and an audited subsample.
template <class F>
void runRowOp(const RowOp<F>& op, std::uint64_t seed, std::vector<FormulaReport<F>>& reports) {
  struct Run {
    const RowFormula<F>* formula;
    bool edge;
    Rng rng;
    FormulaReport<F> report;
    std::vector<std::pair<RowDraw<F>, RowComputed<F>>> worst;
    std::vector<LD> worstShare;
  };
  std::vector<std::unique_ptr<Run>> runs;
  for (const RowFormula<F>& formula : op.formulas)
    for (bool edge : {false, true}) {
      if (edge && !formula.usesLibm) continue;
      auto run = std::make_unique<Run>(Run{&formula, edge, Rng(seed * 1000 + runs.size()), {}, std::vector<std::pair<RowDraw<F>, RowComputed<F>>>(1 + op.arity), std::vector<LD>(1 + op.arity, -1)});
      run->report.op = std::string(opName(op.kind));
      run->report.formula = formula.name + (edge ? " [edge libm]" : "");
      runs.push_back(std::move(run));
    }
  auto judge = [&](Run& run, const RowDraw<F>& d, const RowComputed<F>& c, LD claimed, bool audit) {
    const Judged<F> j = judgeRow(op, d, c);
    FormulaReport<F>& r = run.report;
    ++r.sentToOracle;
    r.forward = std::max(r.forward, j.forward);
    for (std::size_t a = 0; a < op.arity; ++a)
      r.term[a] = std::max(r.term[a], j.term[a]), r.termOfAllowance[a] = std::max(r.termOfAllowance[a], j.termOfAllowance[a]);
    if (!j.failure.empty() && r.failure.empty()) r.failure = j.failure;
    const double found = std::max({j.forward, j.term[0], j.term[1]});
    if (audit && found > static_cast<double>(claimed) * 1.01 + 0.01 && r.screenBroken.empty())
      r.screenBroken = fmt::format("the oracle found {:.4g} of a budget where the screen claimed at most {:.4g}", found, static_cast<double>(claimed));
  };
  Rng rng(seed);
  for (std::size_t i = 0; i < kDraws; ++i) {
    const RowDraw<F> d = op.draw(rng);
    const RowCheap cheap = op.cheap(d);
    for (auto& run : runs) {
      const Libm<F> libm{run->edge, &run->rng};
      const RowComputed<F> c = run->formula->compute(d, libm);
      LD shares[3] = {0, 0, 0};
      bool judged = true;
      for (std::size_t j = 0; j < c.y.size(); ++j) {
        shares[0] = std::max(shares[0], shareOf(c.y[j], cheap.y[j], cheap.y[j], cheap.allowed[j]));
        judged = judged && props::withinTermRange(static_cast<double>(c.y[j]), kFormat<F>);
      }
      if (judged) {
        ++run->report.termDraws;
        for (std::size_t a = 0; a < op.arity; ++a)
          for (std::size_t j = 0; j < c.term[a].size(); ++j)
            if (std::fabs((cheap.lo[a][j] + cheap.hi[a][j]) / 2) >= std::ldexp(LD(1), -kFormat<F>.maxExponent / 4) || cheap.hi[a][j] == cheap.lo[a][j])
              shares[1 + a] = std::max(shares[1 + a], shareOf(c.term[a][j], cheap.lo[a][j], cheap.hi[a][j], cheap.bound[a][j]));
      }
      LD largest = 0;
      for (std::size_t q = 0; q < 1 + op.arity; ++q) {
        largest = std::max(largest, shares[q]);
        if (shares[q] > run->worstShare[q]) run->worstShare[q] = shares[q], run->worst[q] = {d, c};
      }
      if (!(largest < kScreen)) judge(*run, d, c, largest, false);
      else if (i % kAuditEvery == 0) judge(*run, d, c, largest, true);
    }
  }
  for (auto& run : runs) {
    for (const auto& [d, c] : run->worst)
      if (!d.a.empty()) judge(*run, d, c, 0, false);
    reports.push_back(run->report);
  }
}

template <class F>
std::vector<FormulaReport<F>> runAll() {
  std::vector<FormulaReport<F>> reports;
  std::uint64_t seed = 1;
  for (const OpUnderTest<F>& op : opsUnderTest<F>()) {
    const auto start = std::chrono::steady_clock::now();
    runOp(op, seed++, reports);
    std::printf("%s: %.1f s\n", std::string(opName(op.kind)).c_str(), std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
  }
  for (const RowOp<F>& op : rowOpsUnderTest<F>()) {
    const auto start = std::chrono::steady_clock::now();
    runRowOp(op, seed++, reports);
    std::printf("%s: %.1f s\n", std::string(opName(op.kind)).c_str(), std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
  }
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
  for (const FormulaReport<F>& r : reportsOf<F>()) {
    EXPECT_TRUE(r.failure.empty()) << r.op << " by " << r.formula << ": " << r.failure;
    EXPECT_TRUE(r.screenBroken.empty()) << r.op << " by " << r.formula << ": " << r.screenBroken;
    EXPECT_GT(r.termDraws, kDraws / 2) << r.op << " by " << r.formula << ": too few draws where terms are judged";
  }
}

//! Per op and quantity (forward, term to a, term to b), the largest share of its budget any
//! listed formula used. A term's share is of its whole allowance: the enclosure over the forward
//! values within budget and the bound beyond it (where a term reads the forward value, as
//! sigmoid's and softmax's do, the enclosure is most of it, and judgeElement's share of the bound
//! alone would call the budget unused).
template <class F>
void expectTight() {
  std::map<std::string, double> shares;
  for (const FormulaReport<F>& r : reportsOf<F>()) {
    shares[r.op + " forward"] = std::max(shares[r.op + " forward"], r.forward);
    if (r.op != "sum") shares[r.op + " term a"] = std::max(shares[r.op + " term a"], r.termOfAllowance[0]);  // sum's terms copy ct: budget 0
    if (r.op == "div" || r.op == "dot" || r.op == "mse_loss")
      shares[r.op + " term b"] = std::max(shares[r.op + " term b"], r.termOfAllowance[1]);
  }
  for (const auto& [what, share] : shares) {
    std::printf("%-24s worst share of budget %.4f\n", what.c_str(), share);
    EXPECT_GE(share, 0.25) << what << ": its budget is more than 4x the worst error any listed formula reaches";
  }
}

// One test per carrier (ctest runs each in its own process): soundness, then tightness.
TEST(AccuracyBudgets, InDoubleEveryListedFormulaIsWithinItsBudgetAndSomeReachesAQuarterOfIt) {
  printTable<double>("double");
  expectSound<double>();
  expectTight<double>();
}

TEST(AccuracyBudgets, InFloatEveryListedFormulaIsWithinItsBudgetAndSomeReachesAQuarterOfIt) {
  printTable<float>("float");
  expectSound<float>();
  expectTight<float>();
}

}  // namespace
}  // namespace tc
