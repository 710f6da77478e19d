#pragma once
// Reductions and linear algebra. Every inner sum is a left fold from the carrier's zero in
// increasing index order; an outer product is a plain product.
#include "core/support/mutants.h"
#include "core/ops/elementwise.hpp"

namespace tc::ops {

using kernels::innerSize;
using kernels::zeros;

template <class T>
Tensor<T> scalar(T value) {
  return Tensor<T>(Shape{}, std::vector<T>{std::move(value)});
}

struct Sum : UnaryBase {
  static constexpr std::string_view family = "reduction";
  static constexpr std::string_view label = "sum";
  static constexpr std::size_t termRoundings = 0;  // copies of ct
  static constexpr Requirement needs = Requirement::ring;
  static constexpr double accuracyUlps = 0;
  template <class T>
  static Tensor<T> accumulatedError(const OpCall<T>& c, const Tensor<T>&, const RoundingModel<T>& model) {
    return sumError<Sum>(c, c.arg(0).size(), model, false);
  }
  template <class T>
  static Result<Shape> shape(const ShapeCall<T>&) { return Shape{}; }
  template <class T>
  static Tensor<T> forward(const OpCall<T>& c) {
    T acc = zero<T>();
    for (const T& x : c.arg(0).values) acc = acc + x;
    return scalar(acc);
  }
  template <class T>
  static void terms(const OpCall<T>& c, const Tensor<T>&, const Tensor<T>& ct, Terms<T>& out) {
    out.push_back({0, Tensor<T>::filled(c.arg(0).shape, ct[0])});
  }
};

struct SumAxis : UnaryBase {
  static constexpr std::string_view family = "reduction";
  static constexpr std::string_view label = "sum_axis";
  static constexpr std::size_t termRoundings = 0;  // copies of ct
  static constexpr double accuracyUlps = 0;
  template <class T>
  static Tensor<T> accumulatedError(const OpCall<T>& c, const Tensor<T>&, const RoundingModel<T>& model) {
    return sumError<SumAxis>(c, c.arg(0).shape[c.attrs.axis], model, false);
  }
  static constexpr Signature signature = Signature::leadingAxis;
  template <class T>
  static constexpr std::array<AttrSpec<T>, 1> attributes{{{"axis", &Attrs<T>::axis}}};
  static constexpr Requirement needs = Requirement::ring;
  template <class T>
  static Result<Shape> shape(const ShapeCall<T>& c) {
    const Shape& x = c.arg(0);
    if (c.attrs.axis >= x.size())
      return fail(fmt::format("axis {} is out of range for shape {}", c.attrs.axis, formatShape(x)));
    Shape out = x;
    out.erase(out.begin() + static_cast<std::ptrdiff_t>(c.attrs.axis));
    return out;
  }
  // Visits (outer, j, inner) so that x's flat index is (outer * n + j) * inner + i.
  struct Layout {
    std::size_t outer, n, inner;
    Layout(const Shape& x, std::size_t axis)
        : outer(elementCount(Shape(x.begin(), x.begin() + static_cast<std::ptrdiff_t>(axis)))),
          n(x[axis]),
          inner(innerSize(x, axis + 1)) {}
  };
  template <class T>
  static Tensor<T> forward(const OpCall<T>& c) {
    const Tensor<T>& x = c.arg(0);
    Layout l(x.shape, c.attrs.axis);
    Tensor<T> out = zeros<T>(c.shape);  // each output folds over j from +0; rows of x are read in order
    for (std::size_t o = 0; o < l.outer; ++o) {
      T* total = &out[o * l.inner];
      for (std::size_t j = 0; j < l.n; ++j) {
        const T* row = &x[(o * l.n + j) * l.inner];
        for (std::size_t i = 0; i < l.inner; ++i) total[i] = total[i] + row[i];
      }
    }
    return out;
  }
  template <class T>
  static void terms(const OpCall<T>& c, const Tensor<T>&, const Tensor<T>& ct, Terms<T>& out) {
    const Tensor<T>& x = c.arg(0);
    Layout l(x.shape, c.attrs.axis);
    Tensor<T> g = zeros<T>(x.shape);
    for (std::size_t o = 0; o < l.outer; ++o)
      for (std::size_t j = 0; j < l.n; ++j)
        for (std::size_t i = 0; i < l.inner; ++i) g[(o * l.n + j) * l.inner + i] = ct[o * l.inner + i];
    out.push_back({0, std::move(g)});
  }
};

struct Mean : UnaryBase, ScaledDegree {
  static constexpr std::string_view family = "reduction";
  using ScaledDegree::degree;
  static constexpr std::string_view label = "mean";
  static constexpr std::size_t termRoundings = 2;  // ct/n, or ct times a rounded 1/n
  static constexpr Requirement needs = Requirement::field;
  //! The sum's γ_n and one rounding more for the division (or two: a product with a rounded 1/n),
  //! and half an ulp for a quotient among the subnormals.
  template <class T>
  static Tensor<T> accumulatedError(const OpCall<T>& c, const Tensor<T>&, const RoundingModel<T>& model) {
    return sumError<Mean>(c, c.arg(0).size() + 1, model, false, count(c.arg(0)));
  }
  template <class T>
  static Result<Shape> shape(const ShapeCall<T>&) { return Shape{}; }
  template <class T>
  static T count(const Tensor<T>& x) { return Carrier<T>::fromInt(static_cast<std::int64_t>(x.size())); }
  template <class T>
  static Tensor<T> forward(const OpCall<T>& c) {
    Tensor<T> total = Sum::forward(c);
    return scalar(total[0] / count(c.arg(0)));
  }
  template <class T>
  static void terms(const OpCall<T>& c, const Tensor<T>&, const Tensor<T>& ct, Terms<T>& out) {
    out.push_back({0, Tensor<T>::filled(c.arg(0).shape, TC_MUTANT(mean_term_not_divided) ? ct[0] : ct[0] / count(c.arg(0)))});
  }
};

struct Dot : OpBase, ProductDegree {
  static constexpr std::string_view family = "reduction";
  using ProductDegree::degree;
  static constexpr Signature signature = Signature::vectors;
  static constexpr std::string_view label = "dot";
  static constexpr double accuracyUlps = 0;
  template <class T>
  static Tensor<T> accumulatedError(const OpCall<T>& c, const Tensor<T>&, const RoundingModel<T>& model) {
    return sumError<Dot>(c, c.arg(0).size(), model, true);
  }
  static constexpr std::size_t arity = 2;
  static constexpr Requirement needs = Requirement::ring;
  template <class T>
  static Result<Shape> shape(const ShapeCall<T>& c) {
    if (c.arg(0).size() != 1 || c.arg(0) != c.arg(1))
      return fail(fmt::format("needs two vectors of one length, got {} and {}", formatShape(c.arg(0)),
                              formatShape(c.arg(1))));
    return Shape{};
  }
  //! The forward's fold runs in the kernels; the terms are products, one per element.
  template <class T>
  static double foldedShare(const ShapeCall<T>&) {
    return 1.0 / 3;
  }
  template <class T>
  static Tensor<T> forward(const OpCall<T>& c) {
    Tensor<T> out = scalar(zero<T>());  // Σ_i a[i]·b[i]: one row of a times b
    kernels::foldRowDots<kernels::RowSide::left>(c.arg(0).values.data(), 1, c.arg(0).size(), c.arg(1).values.data(),
                                                 out.values.data());
    return out;
  }
  template <class T>
  static void terms(const OpCall<T>& c, const Tensor<T>&, const Tensor<T>& ct, Terms<T>& out) {
    out.push_back({0, map(c.arg(1), [&](const T& b) { return ct[0] * b; })});
    out.push_back({1, map(c.arg(0), [&](const T& a) { return ct[0] * a; })});
  }
};

struct Matmul : OpBase, ProductDegree {
  static constexpr std::string_view family = "reduction";
  using ProductDegree::degree;
  static constexpr Signature signature = Signature::matmul;
  static constexpr std::string_view label = "matmul";
  static constexpr double accuracyUlps = 0;
  template <class T>
  static Tensor<T> accumulatedError(const OpCall<T>& c, const Tensor<T>&, const RoundingModel<T>& model) {
    return sumError<Matmul>(c, c.arg(0).shape[1], model, true);
  }
  static constexpr std::size_t arity = 2;
  static constexpr Requirement needs = Requirement::ring;
  //! A multiply-add per output element and step: m·k·n.
  template <class T>
  static double work(const ShapeCall<T>& c, const Shape& out) {
    return static_cast<double>(elementCount(out)) * static_cast<double>(c.arg(0)[1]);
  }
  //! Every fold runs in the kernels; a vector b's term of a is an outer product, a third of the work.
  template <class T>
  static double foldedShare(const ShapeCall<T>& c) {
    return c.arg(1).size() == 2 ? 1.0 : 2.0 / 3;
  }
  //! The kernels' time for each product (kernels::ieeeProductNs) per multiply-add: the forward's
  //! [m, k]·[k, n]; the terms' ct·bᵀ ([m, n]·[n, k], after copying bᵀ) and aᵀ·ct ([k, m]·[m, n]).
  //! For a vector b, whose forward folds row by row, the terms' outer product and aᵀ·ct ([k, m]·[m, 1],
  //! one output at a time).
  template <class T>
  static kernels::IeeeOperationNs ieeeOperationNs(const ShapeCall<T>& c, std::size_t valueBytes) {
    const bool matrix = c.arg(1).size() == 2;
    const std::size_t m = c.arg(0)[0], k = c.arg(0)[1], n = matrix ? c.arg(1)[1] : 1;
    const double multiplyAdds = static_cast<double>(m) * static_cast<double>(k) * static_cast<double>(n);
    if (multiplyAdds == 0) return {};
    const double aTransposedTimesCt = kernels::ieeeProductNs(k, m, n, valueBytes);
    if (!matrix)
      return {kernels::kIeeeOperationNs,
              (multiplyAdds * kernels::kIeeeOperationNs + aTransposedTimesCt) / (2 * multiplyAdds)};
    const double ctTimesBTransposed = kernels::ieeeProductNs(m, n, k, valueBytes) +
                                      static_cast<double>(k) * static_cast<double>(n) * kernels::kIeeeOperationNs;
    return {kernels::ieeeProductNs(m, k, n, valueBytes) / multiplyAdds,
            (ctTimesBTransposed + aTransposedTimesCt) / (2 * multiplyAdds)};
  }
  template <class T>
  static Result<Shape> shape(const ShapeCall<T>& c) {
    const Shape& a = c.arg(0);
    const Shape& b = c.arg(1);
    if (a.size() == 2 && (b.size() == 1 || b.size() == 2) && a[1] == b[0] &&
        !(TC_MUTANT(matmul_refuses_three_rows) && a[0] == 3))  // the fault: valid operands refused
      return b.size() == 2 ? Shape{a[0], b[1]} : Shape{a[0]};
    return fail(fmt::format("needs [m, k] x [k, n] or [m, k] x [k], got {} x {}", formatShape(a), formatShape(b)));
  }
  // A vector right operand is a [k, 1] matrix whose product with ct has no inner sum.
  static std::size_t columns(const Shape& b) { return b.size() == 2 ? b[1] : 1; }
  //! ct·bᵀ sums n products per element, aᵀ·ct m: n and m roundings, relative to the terms on
  //! absolute values.
  static constexpr bool termsSum = true;
  template <class T>
  static std::size_t termRoundingsAt(const OpCall<T>& c, std::size_t arg) {
    return arg == 0 ? columns(c.arg(1).shape) : c.arg(0).shape[0];
  }
  template <class T>
  static Tensor<T> forward(const OpCall<T>& c) {
    const Tensor<T>& a = c.arg(0);
    const Tensor<T>& b = c.arg(1);
    std::size_t m = a.shape[0], k = a.shape[1], n = columns(b.shape);
    Tensor<T> out = zeros<T>(c.shape);
    if (b.shape.size() == 1)  // out[i] = Σ_l a[i, l]·b[l]
      kernels::foldRowDots<kernels::RowSide::left>(a.values.data(), m, k, b.values.data(), out.values.data());
    else  // out[i, j] = Σ_l a[i, l]·b[l, j]
      kernels::foldProducts<kernels::RowSide::right>(a.values.data(), k, 1, b.values.data(), m, k, n, out.values.data());
    return out;
  }
  template <class T>
  static void terms(const OpCall<T>& c, const Tensor<T>&, const Tensor<T>& ct, Terms<T>& out) {
    const Tensor<T>& a = c.arg(0);
    const Tensor<T>& b = c.arg(1);
    std::size_t m = a.shape[0], k = a.shape[1], n = columns(b.shape);
    Tensor<T> ga = zeros<T>(a.shape);  // ct · bᵀ: ga[i, l] = Σ_j ct[i, j]·b[l, j]; an outer product for a vector b
    if (b.shape.size() == 1) {
      kernels::outerProduct(ct.values.data(), m, b.values.data(), k, ga.values.data());
    } else {
      std::vector<T> bt = kernels::transposedValues(b.values.data(), k, n);
      kernels::foldProducts<kernels::RowSide::right>(ct.values.data(), n, 1, bt.data(), m, n, k, ga.values.data());
    }
    Tensor<T> gb = zeros<T>(b.shape);  // aᵀ · ct: gb[l, j] = Σ_i a[i, l]·ct[i, j], aᵀ read in place
    const bool transposed = TC_MUTANT(matmul_missing_transpose) && m == k;  // the fault reads a[l, i] for a[i, l]
    kernels::foldProducts<kernels::RowSide::right>(a.values.data(), transposed ? k : 1, transposed ? 1 : k,
                                                   ct.values.data(), k, m, n, gb.values.data());
    out.push_back({0, std::move(ga)});
    out.push_back({1, std::move(gb)});
  }
};

struct Transpose : UnaryBase {
  static constexpr std::string_view family = "structural";
  static constexpr std::string_view label = "transpose";
  static constexpr std::size_t termRoundings = 0;  // a copy of ct
  static constexpr double accuracyUlps = 0;  // a copy: exact
  static constexpr Signature signature = Signature::matrix;
  static constexpr Requirement needs = Requirement::ring;
  template <class T>
  static Result<Shape> shape(const ShapeCall<T>& c) {
    if (c.arg(0).size() != 2) return fail(fmt::format("needs a matrix, got {}", formatShape(c.arg(0))));
    return Shape{c.arg(0)[1], c.arg(0)[0]};
  }
  template <class T>
  static Tensor<T> transposed(const Tensor<T>& x) {
    std::size_t rows = x.shape[0], cols = x.shape[1];
    Tensor<T> out = zeros<T>(Shape{cols, rows});
    for (std::size_t i = 0; i < rows; ++i)
      for (std::size_t j = 0; j < cols; ++j) out[j * rows + i] = x[i * cols + j];
    return out;
  }
  template <class T>
  static Tensor<T> forward(const OpCall<T>& c) { return transposed(c.arg(0)); }
  template <class T>
  static void terms(const OpCall<T>&, const Tensor<T>&, const Tensor<T>& ct, Terms<T>& out) {
    out.push_back({0, TC_MUTANT(transpose_term_not_transposed) && ct.shape[0] == ct.shape[1] ? ct : transposed(ct)});
  }
};

struct Linear : OpBase {
  static constexpr std::string_view family = "reduction";
  static constexpr std::string_view label = "linear";
  //! ct ⊗ x: one rounding; Wᵀ·ct sums m products per element: m; the bias's ct: none.
  static constexpr bool termsSum = true;
  template <class T>
  static std::size_t termRoundingsAt(const OpCall<T>& c, std::size_t arg) {
    return arg == 0 ? 1 : arg == 1 ? c.arg(0).shape[0] : 0;
  }
  static constexpr double accuracyUlps = 0;
  //! k products and the bias: a sum of k + 1 terms.
  template <class T>
  static Tensor<T> accumulatedError(const OpCall<T>& c, const Tensor<T>&, const RoundingModel<T>& model) {
    return sumError<Linear>(c, c.arg(0).shape[1] + 1, model, true);
  }
  static constexpr Signature signature = Signature::linear;
  //! W·x + b.
  static int degree(std::span<const int> args) { return std::max(args[0] + args[1], args[2]); }
  static constexpr std::size_t arity = 3;
  static constexpr Requirement needs = Requirement::ring;
  //! A multiply-add per element of W, and the bias.
  template <class T>
  static double work(const ShapeCall<T>& c, const Shape&) {
    return static_cast<double>(elementCount(c.arg(0))) + static_cast<double>(c.arg(0)[0]);
  }
  //! The forward's and x's term's folds run in the kernels; W's term is an outer product.
  template <class T>
  static double foldedShare(const ShapeCall<T>&) {
    return 2.0 / 3;
  }
  template <class T>
  static Result<Shape> shape(const ShapeCall<T>& c) {
    const Shape& w = c.arg(0);
    const Shape& x = c.arg(1);
    const Shape& b = c.arg(2);
    if (w.size() == 2 && x == Shape{w[1]} && b == Shape{w[0]}) return Shape{w[0]};
    return fail(fmt::format("needs W [m, k], x [k], b [m], got {}, {}, {}", formatShape(w), formatShape(x),
                            formatShape(b)));
  }
  template <class T>
  static Tensor<T> forward(const OpCall<T>& c) {
    const Tensor<T>& w = c.arg(0);
    const Tensor<T>& x = c.arg(1);
    const Tensor<T>& b = c.arg(2);
    std::size_t m = w.shape[0], k = w.shape[1];
    Tensor<T> out = zeros<T>(c.shape);  // [m]
    kernels::foldRowDots<kernels::RowSide::left>(w.values.data(), m, k, x.values.data(), out.values.data());
    for (std::size_t i = 0; i < m; ++i) out[i] = out[i] + b[i];
    return out;
  }
  template <class T>
  static void terms(const OpCall<T>& c, const Tensor<T>&, const Tensor<T>& ct, Terms<T>& out) {
    const Tensor<T>& w = c.arg(0);
    const Tensor<T>& x = c.arg(1);
    Tensor<T> gw = zeros<T>(w.shape);  // ct ⊗ x
    kernels::outerProduct(ct.values.data(), w.shape[0], x.values.data(), w.shape[1], gw.values.data());
    out.push_back({0, std::move(gw)});
    vectorTerms(c, ct, out);
  }
  static constexpr bool addsTermsInPlace = true;
  //! The same terms, W's (ct ⊗ x, as large as W) added straight into its gradient slot, the
  //! others handed over as terms: the dense pass's sum at real sizes without a W-sized temporary.
  //! `slotOf(0)` gives W's slot; `out` receives the other terms. For distinct argument positions.
  template <class T, class SlotOf>
  static void termsInto(const OpCall<T>& c, const Tensor<T>& ct, SlotOf slotOf, Terms<T>& out) {
    const Tensor<T>& w = c.arg(0);
    kernels::addOuterProduct(slotOf(0), ct.values.data(), w.shape[0], c.arg(1).values.data(), w.shape[1]);
    vectorTerms(c, ct, out);
  }
  // x's term Wᵀ ct (gx[l] = Σ_i W[i, l]·ct[i]) and the bias's, ct.
  template <class T>
  static void vectorTerms(const OpCall<T>& c, const Tensor<T>& ct, Terms<T>& out) {
    const Tensor<T>& w = c.arg(0);
    std::size_t m = w.shape[0], k = w.shape[1];
    Tensor<T> gx = zeros<T>(c.arg(1).shape);
    kernels::foldProducts<kernels::RowSide::left>(ct.values.data(), m, 1, w.values.data(), 1, m, k, gx.values.data());
    out.push_back({1, std::move(gx)});
    if (!TC_MUTANT(linear_bias_term_dropped)) out.push_back({2, ct});
  }
};

struct MseLoss : BinaryBase, ProductDegree {
  static constexpr std::string_view family = "reduction";
  using ProductDegree::degree;
  static constexpr std::string_view label = "mse_loss";
  //! ct·2·(a − b)/n: a − b, the product and the division (two with a rounded 2/n) round; none
  //! of them cancels.
  static constexpr std::size_t termRoundings = 4;
  static constexpr Requirement needs = Requirement::field;
  static constexpr bool stressCancellation = true;
  //! Each term (a − b)² errs by ≤ 3u relative (γ_3), the sum of n nonnegative terms adds γ_(n−1)
  //! of their total, the division by n one rounding (two with a rounded 1/n): γ_(n+4)·y, with y
  //! the exact result; each square that underflows adds η, and a quotient among the subnormals
  //! half an ulp. The expanded mean(a²) − 2·mean(a·b) + mean(b²) cancels where a ≈ b.
  template <class T>
  static Tensor<T> accumulatedError(const OpCall<T>& c, const Tensor<T>& y, const RoundingModel<T>& model) {
    const T n = Mean::count(c.arg(0));
    const T roundings = n + Carrier<T>::fromInt(4);
    const T gamma = model.gamma(roundings);
    // The sum of squares before the division is n·y.
    return map(y, [&](const T& v) { return model.unlessOverflow(gamma * v + n * model.eta, n * v, gamma); });
  }
  template <class T>
  static Result<Shape> shape(const ShapeCall<T>& c) {
    auto same = BinaryBase::shape(c);
    if (!same) return same;
    return Shape{};
  }
  template <class T>
  static Tensor<T> forward(const OpCall<T>& c) {
    if (TC_MUTANT(mse_expanded)) return expandedForm(c);
    T acc = zero<T>();
    for (std::size_t i = 0; i < c.arg(0).size(); ++i) {
      T d = c.arg(0)[i] - c.arg(1)[i];
      acc = acc + d * d;
    }
    return scalar(acc / Mean::count(c.arg(0)));
  }
  // (Σa² − 2·Σab + Σb²)/n: a fault (mutant 59) that cancels where a ≈ b.
  template <class T>
  static Tensor<T> expandedForm(const OpCall<T>& c) {
    T aa = zero<T>(), ab = zero<T>(), bb = zero<T>();
    for (std::size_t i = 0; i < c.arg(0).size(); ++i) {
      aa = aa + c.arg(0)[i] * c.arg(0)[i];
      ab = ab + c.arg(0)[i] * c.arg(1)[i];
      bb = bb + c.arg(1)[i] * c.arg(1)[i];
    }
    return scalar((aa - Carrier<T>::fromInt(2) * ab + bb) / Mean::count(c.arg(0)));
  }
  template <class T>
  static void terms(const OpCall<T>& c, const Tensor<T>&, const Tensor<T>& ct, Terms<T>& out) {
    const T two = Carrier<T>::fromInt(2);
    const T n = Mean::count(c.arg(0));
    const T factor = TC_MUTANT(mse_loss_missing_two) ? one<T>() : two;
    Tensor<T> ga = zip(c.arg(0), c.arg(1), [&](const T& a, const T& b) { return ((ct[0] * factor) * (a - b)) / n; });
    Tensor<T> gb = map(ga, [](const T& g) { return -g; });
    out.push_back({0, std::move(ga)});
    out.push_back({1, std::move(gb)});
  }
};

// Softmax along the last axis, computed per row after subtracting the row's maximum.
struct SoftmaxRows {
  //! The oracle encloses a row's exps, their total and its range per element, and its terms and
  //! their bounds from the widened forward: about 150 µs an element at 257 bits (measured on
  //! [64, 1024]), 60 times a pointwise exp's enclosed operations.
  static constexpr double enclosureCost = 60;
  template <class T>
  static Result<Shape> shape(const ShapeCall<T>& c) {
    if (c.arg(0).empty()) return fail("needs at least one axis");
    return c.arg(0);
  }
  template <class T, class F>
  static void forEachRow(const Tensor<T>& x, F f) {
    std::size_t n = x.shape.back();
    for (std::size_t start = 0; start < x.size(); start += n) f(start, n);
  }
  // Returns the row's maximum and the left fold of exp(x - max).
  template <class T>
  static T rowMax(const Tensor<T>& x, std::size_t start, std::size_t n) {
    T m = x[start];
    for (std::size_t i = 1; i < n; ++i)
      if (x[start + i] > m) m = x[start + i];
    return m;
  }
  template <class T>
  static T rowMin(const Tensor<T>& x, std::size_t start, std::size_t n) {
    T m = x[start];
    for (std::size_t i = 1; i < n; ++i)
      if (x[start + i] < m) m = x[start + i];
    return m;
  }
  template <class T>
  static std::pair<T, T> maxAndTotal(const Tensor<T>& x, std::size_t start, std::size_t n) {
    const T m = TC_MUTANT(softmax_without_shift) ? zero<T>() : rowMax(x, start, n);  // the fault: no shift, exp overflows
    T total = zero<T>();
    for (std::size_t i = 0; i < n; ++i) total = total + Carrier<T>::exp(x[start + i] - m);
    return {m, total};
  }
};

struct SoftmaxLast : UnaryBase {
  static constexpr double enclosureCost = SoftmaxRows::enclosureCost;
  static constexpr std::string_view family = "reduction";
  static constexpr std::string_view label = "softmax_last";
  //! y·(ct − Σ ct·y) over a row of n: the sum of n products rounds n times, the difference
  //! and the product once each, relative to |y|·(|ct| + Σ|ct|·|y|) (the difference cancels).
  template <class T>
  static std::size_t termRoundingsAt(const OpCall<T>& c, std::size_t) { return c.arg(0).shape.back() + 2; }
  template <class T>
  static void termMagnitude(const OpCall<T>&, const Tensor<T>& y, const Tensor<T>& ct, Terms<T>& out) {
    Tensor<T> m = zeros<T>(y.shape);
    SoftmaxRows::forEachRow(y, [&](std::size_t start, std::size_t n) {
      T inner = zero<T>();
      for (std::size_t i = 0; i < n; ++i) inner = inner + Carrier<T>::abs(ct[start + i] * y[start + i]);
      for (std::size_t i = 0; i < n; ++i)
        m[start + i] = Carrier<T>::abs(y[start + i]) * (Carrier<T>::abs(ct[start + i]) + inner);
    });
    out.push_back({0, std::move(m)});
  }
  static constexpr double accuracyUlps = 0;
  //! Without the shift by the row's maximum exp overflows at 1000, and exp(−1000) underflows.
  static constexpr std::array<std::string_view, 2> stressValues{"1000", "-1000"};
  //! Per row of n with range R = max − min: x − max errs by ≤ u·R absolutely, which exp turns into
  //! ≤ u·R relative, plus its own 4u; the sum adds γ_(n−1), the quotient (or a product with a
  //! rounded 1/total) 2u: γ_(2R + n + 9)·y in all. An exp that underflows errs by ≤ 4η, which the
  //! total (≥ 1) only shrinks, and a quotient among the subnormals by η more: (4n + 5)·η.
  template <class T>
  static Tensor<T> accumulatedError(const OpCall<T>& c, const Tensor<T>& y, const RoundingModel<T>& model) {
    Tensor<T> bound = zeros<T>(y.shape);
    SoftmaxRows::forEachRow(c.arg(0), [&](std::size_t start, std::size_t n) {
      const T count = Carrier<T>::fromInt(static_cast<std::int64_t>(n));
      const T range = SoftmaxRows::rowMax(c.arg(0), start, n) - SoftmaxRows::rowMin(c.arg(0), start, n);
      const T gamma = model.gamma(Carrier<T>::fromInt(2) * range + count + Carrier<T>::fromInt(9));
      const T underflow = (Carrier<T>::fromInt(4) * count + Carrier<T>::fromInt(5)) * model.eta;
      for (std::size_t i = 0; i < n; ++i) bound[start + i] = gamma * Carrier<T>::abs(y[start + i]) + underflow;
    });
    return bound;
  }
  static constexpr Signature signature = Signature::leadingAxis;
  static constexpr Requirement needs = Requirement::transcendental;
  template <class T>
  static Result<Shape> shape(const ShapeCall<T>& c) { return SoftmaxRows::shape(c); }
  template <class T>
  static Tensor<T> forward(const OpCall<T>& c) {
    const Tensor<T>& x = c.arg(0);
    Tensor<T> y = zeros<T>(x.shape);
    SoftmaxRows::forEachRow(x, [&](std::size_t start, std::size_t n) {
      auto [m, total] = SoftmaxRows::maxAndTotal(x, start, n);
      for (std::size_t i = 0; i < n; ++i) y[start + i] = Carrier<T>::exp(x[start + i] - m) / total;
    });
    return y;
  }
  // dx = y ⊙ (ct − Σ ct ⊙ y) per row.
  template <class T>
  static void terms(const OpCall<T>&, const Tensor<T>& y, const Tensor<T>& ct, Terms<T>& out) {
    Tensor<T> g = zeros<T>(y.shape);
    SoftmaxRows::forEachRow(y, [&](std::size_t start, std::size_t n) {
      T inner = zero<T>();
      for (std::size_t i = 0; i < n; ++i) inner = inner + ct[start + i] * y[start + i];
      for (std::size_t i = 0; i < n; ++i) g[start + i] = y[start + i] * (TC_MUTANT(softmax_term_without_inner) ? ct[start + i] : ct[start + i] - inner);
    });
    out.push_back({0, std::move(g)});
  }
};

struct LogSoftmaxLast : UnaryBase {
  static constexpr double enclosureCost = SoftmaxRows::enclosureCost;
  static constexpr std::string_view family = "reduction";
  static constexpr std::string_view label = "log_softmax_last";
  //! ct − exp(y)·Σct over a row of n: the sum rounds n − 1 times, exp counts as a libm call,
  //! the product and the difference once each, relative to |ct| + exp(y)·Σ|ct| (it cancels).
  template <class T>
  static std::size_t termRoundingsAt(const OpCall<T>& c, std::size_t) {
    return c.arg(0).shape.back() + 1 + kLibmRoundings;
  }
  template <class T>
  static void termMagnitude(const OpCall<T>&, const Tensor<T>& y, const Tensor<T>& ct, Terms<T>& out) {
    Tensor<T> m = zeros<T>(y.shape);
    SoftmaxRows::forEachRow(y, [&](std::size_t start, std::size_t n) {
      T total = zero<T>();
      for (std::size_t i = 0; i < n; ++i) total = total + Carrier<T>::abs(ct[start + i]);
      for (std::size_t i = 0; i < n; ++i)
        m[start + i] = Carrier<T>::abs(ct[start + i]) + Carrier<T>::exp(y[start + i]) * total;
    });
    out.push_back({0, std::move(m)});
  }
  //! Absolutely, per row of n with range R, at element i with d = x_i − max: d errs by ≤ u·|d|;
  //! the total of the exps by ≤ (R + 4 + n − 1)·u relative (as in softmax_last), which the log
  //! turns into as much absolutely; the log's own 2 ulp add ≤ 4u·ln n (the total lies in [1, n]);
  //! the final subtraction rounds by ≤ 1 ulp of the result (accuracyUlps). Underflowing exps: 4nη.
  static constexpr double accuracyUlps = 1;
  //! As for softmax_last; log(softmax) is −inf where exp(x − max) underflows. And it cancels
  //! where a row is nearly constant at ±1000: the result is near −log n, and x − (max + log Σ),
  //! formed in that order, loses up to half an ulp of 1000 (5.7e-14 in double), some fifty times
  //! the budget there.
  static constexpr std::array<std::string_view, 2> stressValues{"1000", "-1000"};
  static constexpr bool stressCancellation = true;
  template <class T>
  static Tensor<T> accumulatedError(const OpCall<T>& c, const Tensor<T>& y, const RoundingModel<T>& model) {
    Tensor<T> bound = zeros<T>(y.shape);
    const Tensor<T>& x = c.arg(0);
    SoftmaxRows::forEachRow(x, [&](std::size_t start, std::size_t n) {
      const T count = Carrier<T>::fromInt(static_cast<std::int64_t>(n));
      const T m = SoftmaxRows::rowMax(x, start, n);
      const T common = (m - SoftmaxRows::rowMin(x, start, n)) + count + Carrier<T>::fromInt(4) +
                       Carrier<T>::fromInt(4) * Carrier<T>::log(count);
      const T underflow = Carrier<T>::fromInt(4) * count * model.eta;
      for (std::size_t i = 0; i < n; ++i)
        bound[start + i] = model.gamma(common + Carrier<T>::abs(x[start + i] - m)) + underflow;
    });
    return bound;
  }
  static constexpr Signature signature = Signature::leadingAxis;
  static constexpr Requirement needs = Requirement::transcendental;
  template <class T>
  static Result<Shape> shape(const ShapeCall<T>& c) { return SoftmaxRows::shape(c); }
  template <class T>
  static Tensor<T> forward(const OpCall<T>& c) {
    const Tensor<T>& x = c.arg(0);
    Tensor<T> y = zeros<T>(x.shape);
    SoftmaxRows::forEachRow(x, [&](std::size_t start, std::size_t n) {
      auto [m, total] = SoftmaxRows::maxAndTotal(x, start, n);
      T logTotal = Carrier<T>::log(total);
      for (std::size_t i = 0; i < n; ++i)
        y[start + i] = TC_MUTANT(log_softmax_of_softmax) ? Carrier<T>::log(Carrier<T>::exp(x[start + i] - m) / total)  // log(softmax)
                                     : (x[start + i] - m) - logTotal;
    });
    return y;
  }
  // dx = ct − exp(y) · Σ ct per row.
  template <class T>
  static void terms(const OpCall<T>& c, const Tensor<T>& y, const Tensor<T>& ct, Terms<T>& out) {
    Tensor<T> g = zeros<T>(y.shape);
    SoftmaxRows::forEachRow(y, [&](std::size_t start, std::size_t n) {
      T total = zero<T>();
      for (std::size_t i = 0; i < n; ++i) total = total + ct[start + i];
      T naiveTotal = zero<T>();  // the fault's softmax denominator
      if (TC_MUTANT(log_softmax_term_naive))
        for (std::size_t i = 0; i < n; ++i) naiveTotal = naiveTotal + Carrier<T>::exp(c.arg(0)[start + i]);
      for (std::size_t i = 0; i < n; ++i) {
        const T softmax = TC_MUTANT(log_softmax_term_naive) ? Carrier<T>::exp(c.arg(0)[start + i]) / naiveTotal : Carrier<T>::exp(y[start + i]);
        g[start + i] = ct[start + i] - (TC_MUTANT(log_softmax_term_uses_log) ? y[start + i] : softmax) * total;
      }
    });
    out.push_back({0, std::move(g)});
  }
};

}  // namespace tc::ops
