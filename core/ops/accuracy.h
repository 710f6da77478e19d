#pragma once
// What an op's accuracy budget is made of (docs/semantics.md §2.6): how far an IEEE forward
// may lie from the exact result of the op on the same IEEE arguments. Each op states its budget
// in its definition: `accuracyUlps`, units in the last place of the exact value, and for the ops
// that accumulate (sums, products, softmax) `accumulatedError`, a bound derived by the standard
// error analysis of floating-point sums (Higham, Accuracy and Stability of Numerical Algorithms,
// §2.2 and §3.1). The accuracy property evaluates these bounds on the interval carrier.
#include <cmath>
#include <cstddef>
#include <optional>

#include <vector>

#include "core/carriers/carrier.h"
#include "core/ops/kernels.h"
#include "core/ops/op_call.h"
#include "core/tensor/tensor.h"

namespace tc::ops {

//! The IEEE format a bound is for, as values of the carrier the bound is computed on: `u`, the
//! unit roundoff (2^-53 for double, 2^-24 for float: a rounding to nearest errs by at most u
//! relative, outside the subnormals), and `eta`, half the smallest subnormal (what a rounding
//! to nearest errs by at most, absolutely, among the subnormals).
template <class T>
struct RoundingModel {
  T u;
  T eta;
  T largest;  //!< the largest finite value: a result computed through values beyond it may overflow

  //! γ_k = k·u / (1 − k·u): the relative error of k roundings in a row (Higham, Lemma 3.1), or
  //! an effectively unbounded value (2^2000) once k·u reaches 1/2, where no useful bound exists.
  T gamma(const T& k) const {
    const T ku = k * u;
    const T half = one<T>() / Carrier<T>::fromInt(2);
    if (!(ku < half)) return unbounded();
    return ku / (one<T>() - ku);
  }
  //! A bound no IEEE difference reaches: the op makes no promise there. Made once: the judge
  //! asks for it at every element, and 2000 additions on intervals each time made judging a 512 × 512
  //! product take minutes.
  static const T& unbounded() {
    static const T big = [] {
      T twice = one<T>();
      for (int i = 0; i < 2000; ++i) twice = twice + twice;
      return twice;
    }();
    return big;
  }
  //! Whether a bound is unbounded(): there the value is not judged at all.
  static bool promisesNothing(const T& bound) { return !(bound < unbounded()); }
  //! `bound`, or unbounded() where a partial result of magnitude up to `partial` (exact), rounded
  //! k times on the way (`gammaK` = gamma(k)), may pass the largest finite value: it may then
  //! overflow to an infinity (and an ∞ − ∞ to a NaN) although the exact result is finite, which no
  //! rounding bound covers. γ_k comes from the caller, who asks for many elements with one k.
  T unlessOverflow(const T& bound, const T& partial, const T& gammaK) const {
    const T reached = (one<T>() + gammaK) * partial;
    return Carrier<T>::certainlyPositive(largest - reached) ? bound : unbounded();
  }
};

//! The budget of exp, log, sin and cos, and of each libm call inside another op's budget: 2 ulp.
//! glibc's largest known errors for them (and for expm1 and log1p) are 1 ulp in double and float
//! (the GNU C Library manual, "Known Maximum Errors in Math Functions": the largest errors its test
//! inputs reached, not bounds, hence twice that); the SLEEF u10 functions PyTorch's CPU kernels call
//! promise 1.0 ulp.
inline constexpr double kLibmUlps = 2;

//! A value within kLibmUlps of the exact one, as roundings in a row: an ulp is at most 2u
//! relative, and (1 + 2u)^m ≤ (1 + u)^(2m) (Higham, Lemma 3.1, counts roundings so).
inline constexpr std::size_t kLibmRoundings = static_cast<std::size_t>(2 * kLibmUlps);

//! Elementwise |x| (on the carriers with abs: the bounds are computed on intervals).
template <class T>
Tensor<T> absolute(const Tensor<T>& x) {
  Tensor<T> out = x;
  for (T& v : out.values) v = Carrier<T>::abs(v);
  return out;
}

// The call `c` with every argument replaced by its absolute value.
template <class T>
class AbsoluteCall {
 public:
  AbsoluteCall(const AbsoluteCall&) = delete;  // the call points into absolutes_
  explicit AbsoluteCall(const OpCall<T>& c) : c_(c) {
    absolutes_.reserve(c.args.size());
    for (const Tensor<T>* arg : c.args) absolutes_.push_back(absolute(*arg));
    for (const Tensor<T>& a : absolutes_) pointers_.push_back(&a);
  }
  OpCall<T> call() const {
    return OpCall<T>{c_.attrs, c_.shape, {pointers_.data(), pointers_.size()}, c_.schema, c_.data, c_.conventions};
  }

 private:
  const OpCall<T>& c_;
  std::vector<Tensor<T>> absolutes_;
  ArgValues<T> pointers_;
};

//! Op's forward on the absolute values of its arguments: Σ|x| for a sum, |A|·|B| for a product,
//! the magnitude the error bound of a sum of n terms scales with.
template <class Op, class T>
Tensor<T> forwardOnAbsolute(const OpCall<T>& c) {
  return Op::forward(AbsoluteCall<T>(c).call());
}

//! M ↦ γ_k·M + k·η on every element: the error of k roundings in a row on the way to a value of
//! magnitude M, each erring by u relative, or (when they may `underflow`) by η absolutely among
//! the subnormals (Higham, §2.1 and Lemma 3.1).
template <class T>
Tensor<T> roundingsBound(Tensor<T> magnitude, std::size_t k, const RoundingModel<T>& model, bool underflow = true) {
  const T count = Carrier<T>::fromInt(static_cast<std::int64_t>(k));
  const T gamma = model.gamma(count), absolute = underflow ? count * model.eta : zero<T>();
  for (T& v : magnitude.values) v = gamma * v + absolute;
  return magnitude;
}

//! |x| as doubles, where every element of x is a finite double (a point holding one, on the
//! interval carrier); else nothing.
template <kernels::HoldsDoubles T>
std::optional<Tensor<double>> absoluteDoubles(const Tensor<T>& x) {
  Tensor<double> out{x.shape, std::vector<double>(x.size())};
  for (std::size_t i = 0; i < x.size(); ++i) {
    const std::optional<double> d = Carrier<T>::exactDouble(x[i]);
    if (!d || !std::isfinite(*d)) return std::nullopt;
    out[i] = std::fabs(*d);
  }
  return out;
}

//! Upper bounds of sums M of nonnegative terms from their IEEE evaluations M̂, each reached
//! through k roundings to nearest (products erring by u relative or η absolutely, additions by u
//! relative: a subnormal sum is exact), in any order: M̂ ≥ (1 − γ_k)·M − k·η (Higham, §3.1), so
//! M ≤ (M̂ + k·η)/(1 − γ_k), about 1 + 2γ_k above M. Nothing where some M̂ overflowed or γ_k is
//! no bound.
template <class T>
std::optional<Tensor<T>> boundsFromDoubles(const Tensor<double>& sums, std::size_t k, const RoundingModel<T>& model) {
  const T count = Carrier<T>::fromInt(static_cast<std::int64_t>(k));
  const T gamma = model.gamma(count);
  if (model.promisesNothing(gamma)) return std::nullopt;
  const T slack = count * model.eta, shrink = one<T>() - gamma;
  Tensor<T> bound = kernels::zeros<T>(sums.shape);
  for (std::size_t i = 0; i < sums.size(); ++i) {
    if (!std::isfinite(sums[i])) return std::nullopt;
    bound[i] = (Carrier<T>::fromDouble(sums[i]) + slack) / shrink;
  }
  return bound;
}

//! A call's arguments as absolute doubles (absoluteDoubles), for Op's call on doubles.
class AbsoluteDoubleArgs {
 public:
  AbsoluteDoubleArgs(const AbsoluteDoubleArgs&) = delete;  // pointers_ point into values_
  AbsoluteDoubleArgs() = default;
  //! Nothing where some argument is not a finite double.
  template <kernels::HoldsDoubles T>
  bool assign(const OpCall<T>& c) {
    values_.reserve(c.args.size());
    for (const Tensor<T>* arg : c.args) {
      std::optional<Tensor<double>> a = absoluteDoubles(*arg);
      if (!a) return false;
      values_.push_back(std::move(*a));
    }
    for (const Tensor<double>& a : values_) pointers_.push_back(&a);
    return true;
  }
  //! Op's call on these values: c's output shape, schema and conventions, for an op without
  //! attributes (no carrier's values to convert).
  template <class Op, class T>
  OpCall<double> callOf(const OpCall<T>& c) const {
    static_assert(Op::template attributes<T>.size() == 0, "an op with attributes has carrier values to convert");
    static const Attrs<double> noAttributes;
    static const Data<double> noData;
    return OpCall<double>{noAttributes, c.shape, {pointers_.data(), pointers_.size()}, c.schema, noData, c.conventions};
  }

 private:
  std::vector<Tensor<double>> values_;
  ArgValues<double> pointers_;
};

//! The magnitude of a sum of k products (dot, matmul, linear) bounded from Op's IEEE forward on
//! the absolute values, where the op has no attributes and every argument is a finite double
//! (boundsFromDoubles): on the interval carrier an IEEE product instead of an exact one (about 3 ns
//! a product). Else nothing.
template <class Op, class T>
std::optional<Tensor<T>> magnitudeBoundFromDoubles(const OpCall<T>& c, std::size_t k, const RoundingModel<T>& model) {
  if constexpr (kernels::HoldsDoubles<T> && Op::template attributes<T>.size() == 0) {
    AbsoluteDoubleArgs args;
    if (!args.assign(c)) return std::nullopt;
    return boundsFromDoubles(Op::forward(args.callOf<Op>(c)), k, model);
  } else {
    return std::nullopt;
  }
}

//! γ_k·M + k·η per element of M = forwardOnAbsolute: a sum of k terms (rounded products when
//! `products`, whose underflow each adds η) computed in any order (Higham, §3.1). Unbounded where
//! a partial sum may overflow: each is at most (1 + γ_k)·M·`partialScale` (a mean's M is its sum's
//! divided by the count, which `partialScale` multiplies back). For products M may be the upper
//! bound magnitudeBoundFromDoubles gives, which widens the budget by a factor of about 1 + 2γ_k.
template <class Op, class T>
Tensor<T> sumError(const OpCall<T>& c, std::size_t k, const RoundingModel<T>& model, bool products,
                   const T& partialScale = one<T>()) {
  std::optional<Tensor<T>> bounded;
  if (products) bounded = magnitudeBoundFromDoubles<Op>(c, k, model);
  const Tensor<T> magnitude = bounded ? std::move(*bounded) : forwardOnAbsolute<Op>(c);
  Tensor<T> bound = roundingsBound(magnitude, k, model, products);
  const T gamma = model.gamma(Carrier<T>::fromInt(static_cast<std::int64_t>(k)));
  for (std::size_t i = 0; i < bound.size(); ++i)
    bound[i] = model.unlessOverflow(bound[i], magnitude[i] * partialScale, gamma);
  return bound;
}

//! Op's terms on the absolute values of its arguments and cotangent, made absolute: |ct|·|B|ᵀ for
//! a product's, Σ|ct| for a broadcast's — the magnitude the rounding error of a term that sums
//! products scales with (Higham, §3.1). Only for terms without subtraction or branches on the
//! sign of a value, which do not read the op's output (OpBase::termsSum): none is passed.
template <class Op, class T>
void termsOnAbsolute(const OpCall<T>& c, const Tensor<T>& ct, Terms<T>& out) {
  Op::terms(AbsoluteCall<T>(c).call(), Tensor<T>{}, absolute(ct), out);
  for (Term<T>& term : out) term.value = absolute(term.value);
}

//! termsOnAbsolute bounded from Op's IEEE terms on the absolute values, where the op has no
//! attributes and every argument and `ct` is a finite double: each term a sum of nonnegative
//! values reached through `roundingsOf(arg)` roundings (boundsFromDoubles). False, with `out`
//! untouched, elsewhere.
template <class Op, class T, class RoundingsOf>
bool termsOnAbsoluteFromDoubles(const OpCall<T>& c, const Tensor<T>& ct, const RoundingModel<T>& model,
                                RoundingsOf roundingsOf, Terms<T>& out) {
  if constexpr (kernels::HoldsDoubles<T> && Op::template attributes<T>.size() == 0) {
    AbsoluteDoubleArgs args;
    if (!args.assign(c)) return false;
    std::optional<Tensor<double>> ctd = absoluteDoubles(ct);
    if (!ctd) return false;
    Terms<double> sums;
    Op::terms(args.callOf<Op>(c), Tensor<double>{}, *ctd, sums);
    Terms<T> bounds;
    for (const Term<double>& sum : sums) {
      std::optional<Tensor<T>> bound = boundsFromDoubles(sum.value, roundingsOf(sum.arg), model);
      if (!bound) return false;
      bounds.push_back({sum.arg, std::move(*bound)});
    }
    out = std::move(bounds);
    return true;
  } else {
    return false;
  }
}

}  // namespace tc::ops
