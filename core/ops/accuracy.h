#pragma once
// What an op's accuracy budget is made of (docs/semantics.md §2.6): how far an IEEE forward
// may lie from the exact result of the op on the same IEEE arguments. Each op states its budget
// in its definition: `accuracyUlps`, units in the last place of the exact value, and for the ops
// that accumulate (sums, products, softmax) `accumulatedError`, a bound derived by the standard
// error analysis of floating-point sums (Higham, Accuracy and Stability of Numerical Algorithms,
// §2.2 and §3.1). The accuracy property evaluates these bounds on the interval carrier.
#include <cstddef>

#include <vector>

#include "core/carriers/carrier.h"
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

  //! γ_k = k·u / (1 − k·u): the relative error of k roundings in a row (Higham, Lemma 3.1), or
  //! an effectively unbounded value (2^2000) once k·u reaches 1/2, where no useful bound exists.
  T gamma(const T& k) const {
    const T ku = k * u;
    const T half = one<T>() / Carrier<T>::fromInt(2);
    if (!(ku < half)) return unbounded();
    return ku / (one<T>() - ku);
  }
  //! A bound no IEEE difference reaches: the op makes no promise there.
  static T unbounded() {
    T big = one<T>();
    for (int i = 0; i < 2000; ++i) big = big + big;
    return big;
  }
};

//! The budget of exp, log, tanh, sin and cos: 2 ulp. glibc's largest known errors for them are
//! 1 ulp (exp, log, sin, cos) and 2 ulp (tanh) in double and float (the GNU C Library manual,
//! "Known Maximum Errors in Math Functions"); the SLEEF u10 functions PyTorch's CPU kernels call
//! promise 1.0 ulp.
inline constexpr double kLibmUlps = 2;

//! Elementwise |x| (on the carriers with abs: the bounds are computed on intervals).
template <class T>
Tensor<T> absolute(const Tensor<T>& x) {
  Tensor<T> out = x;
  for (T& v : out.values) v = Carrier<T>::abs(v);
  return out;
}

//! Op's forward on the absolute values of its arguments: Σ|x| for a sum, |A|·|B| for a product,
//! the magnitude the error bound of a sum of n terms scales with.
template <class Op, class T>
Tensor<T> forwardOnAbsolute(const OpCall<T>& c) {
  std::vector<Tensor<T>> absolutes;
  absolutes.reserve(c.args.size());
  for (const Tensor<T>* arg : c.args) absolutes.push_back(absolute(*arg));
  ArgValues<T> pointers;
  for (const Tensor<T>& a : absolutes) pointers.push_back(&a);
  return Op::forward(OpCall<T>{c.attrs, c.shape, {pointers.data(), pointers.size()}, c.schema, c.data, c.conventions});
}

//! γ_k·M + k·η per element of M = forwardOnAbsolute: a sum of k terms (rounded products when
//! `products`, whose underflow each adds η) computed in any order (Higham, §3.1).
template <class Op, class T>
Tensor<T> sumError(const OpCall<T>& c, std::size_t k, const RoundingModel<T>& model, bool products) {
  const T terms = Carrier<T>::fromInt(static_cast<std::int64_t>(k));
  const T gamma = model.gamma(terms), underflow = products ? terms * model.eta : zero<T>();
  Tensor<T> bound = forwardOnAbsolute<Op>(c);
  for (T& v : bound.values) v = gamma * v + underflow;
  return bound;
}

}  // namespace tc::ops
