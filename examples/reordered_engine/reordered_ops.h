#pragma once
// The reordered engine's interpreter: the forward value and the per-edge reverse contributions of
// each op it supports, written from the op table of docs/semantics.md §2.1 without tapecheck's op
// library (core/ops, node programs, the reference or the runtime), as another engine's author
// would write them. It keeps the conventions of §2.2–2.3 (relu(x) = x > 0 ? x : +0, ties of
// max/min split ct/2, clamp passes ct at its bounds, zero by selection, folds start at +0) with
// one deliberate exception: every reduction adds its terms from the LAST index to the first
// (reversedSum, scatterAddReversed). The sums are the same real numbers, so exact carriers agree
// with the reference value for value; IEEE carriers may round differently.
#include <array>
#include <cassert>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <span>
#include <type_traits>
#include <utility>
#include <vector>

#include "core/carriers/carrier.h"
#include "core/graph/graph.h"

namespace reordered {

using tc::OpKind;

//! The ops the reordered engine implements; compiling a graph with any other op fails.
inline constexpr std::array kSupportedOps = {
    // elementwise
    OpKind::add, OpKind::sub, OpKind::mul, OpKind::max, OpKind::min, OpKind::neg, OpKind::square, OpKind::scale,
    OpKind::relu, OpKind::abs, OpKind::clamp,
    // reductions and linear algebra
    OpKind::sum, OpKind::mean, OpKind::sum_axis, OpKind::dot, OpKind::matmul, OpKind::transpose, OpKind::linear,
    OpKind::mse_loss,
    // structure and data
    OpKind::reshape, OpKind::broadcast, OpKind::concat0, OpKind::slice0, OpKind::constant, OpKind::detach,
    OpKind::mask, OpKind::gather0};

//! Whether the reordered engine implements `kind`.
constexpr bool isSupported(OpKind kind) {
  for (OpKind supported : kSupportedOps)
    if (supported == kind) return true;
  return false;
}

//! Σ term(i) for i = n−1 down to 0, folded from +0: the one summation order of this engine, used
//! by every reduction (sum, mean, sum_axis, dot, matmul, linear, mse_loss and their backward sums).
template <class T, class Term>
T reversedSum(std::size_t n, Term term) {
  T total = tc::zero<T>();
  for (std::size_t i = n; i-- > 0;) total = total + term(i);
  return total;
}

//! g[target(i)] += value(i) for i = n−1 down to 0, on a g of zeros: each entry of g is then a
//! reversed fold from +0 of the values aimed at it (the broadcast and gather0 scatters).
template <class T, class Target, class Value>
void scatterAddReversed(tc::Tensor<T>& g, std::size_t n, Target target, Value value) {
  for (std::size_t i = n; i-- > 0;) {
    T& entry = g[target(i)];
    entry = entry + value(i);
  }
}

//! What one node of a graph sees while it runs: its arguments' values, attributes, shape and Δ.
template <class T>
struct NodeView {
  const tc::Graph<T>& graph;
  const tc::Data<T>& data;
  std::span<const tc::Tensor<T>> context;  //!< at least every position before this node
  std::size_t position;

  const tc::Node<T>& node() const { return graph.nodeAt(position); }
  const tc::Attrs<T>& attrs() const { return node().attrs; }
  const tc::Tensor<T>& arg(std::size_t i) const { return context[node().args[i]]; }
};

namespace detail {

template <class T>
tc::Tensor<T> zeros(const tc::Shape& shape) {
  return tc::Tensor<T>::filled(shape, tc::zero<T>());
}

template <class T>
T count(std::size_t n) {
  return tc::Carrier<T>::fromInt(static_cast<std::int64_t>(n));
}

template <class T>
tc::Tensor<T> scalar(T value) {
  return tc::Tensor<T>(tc::Shape{}, {std::move(value)});
}

template <class T>
T total(const tc::Tensor<T>& x) {
  return reversedSum<T>(x.size(), [&](std::size_t i) { return x[i]; });
}

template <class T>
T dot(const tc::Tensor<T>& a, const tc::Tensor<T>& b) {
  return reversedSum<T>(a.size(), [&](std::size_t i) { return a[i] * b[i]; });
}

// The elements of one leading-axis row of a tensor of `shape`.
inline std::size_t rowSize(const tc::Shape& shape) { return tc::elementCount(shape) / shape[0]; }

template <class T, class F>
tc::Tensor<T> pointwise(const tc::Tensor<T>& x, F f) {
  tc::Tensor<T> out = x;
  for (std::size_t i = 0; i < x.size(); ++i) out[i] = f(x[i]);
  return out;
}

template <class T, class F>
tc::Tensor<T> pointwise(const tc::Tensor<T>& a, const tc::Tensor<T>& b, F f) {
  assert(a.size() == b.size());
  tc::Tensor<T> out = a;
  for (std::size_t i = 0; i < a.size(); ++i) out[i] = f(a[i], b[i]);
  return out;
}

// §2.2: IEEE abs clears the sign bit (NaN too); exact carriers negate what is below zero.
template <class T>
T absolute(const T& x) {
  if constexpr (std::is_floating_point_v<T>) return std::fabs(x);
  else return x < tc::zero<T>() ? -x : x;
}

// max(a, b) with `beats` = >, min with <: the strict winner, else a when equal (max(−0, +0) is
// −0), else (an unordered pair, only on IEEE carriers) NaN.
template <class T, class Beats>
T select(const T& a, const T& b, Beats beats) {
  if (beats(a, b)) return a;
  if (beats(b, a)) return b;
  if (a == b) return a;
  if constexpr (std::numeric_limits<T>::has_quiet_NaN) return std::numeric_limits<T>::quiet_NaN();
  return a;
}

// The cotangent share of `mine` in max/min: all of it to the strict winner, zero (by selection)
// to the loser, half each on a tie or an unordered pair (§2.3).
template <class T, class Beats>
T selectShare(const T& ct, const T& mine, const T& other, Beats beats) {
  if (beats(mine, other)) return ct;
  if (beats(other, mine)) return tc::zero<T>();
  return ct / count<T>(2);
}

inline constexpr auto greater = [](const auto& a, const auto& b) { return a > b; };
inline constexpr auto less = [](const auto& a, const auto& b) { return a < b; };

// sum_axis visits x as (outer, j, inner): x's flat index is (outer * n + j) * inner + i.
struct AxisLayout {
  std::size_t outer = 1, n = 1, inner = 1;
  AxisLayout(const tc::Shape& x, std::size_t axis) : n(x[axis]) {
    for (std::size_t d = 0; d < axis; ++d) outer *= x[d];
    for (std::size_t d = axis + 1; d < x.size(); ++d) inner *= x[d];
  }
};

template <class T>
tc::Tensor<T> sumAxis(const tc::Tensor<T>& x, std::size_t axis, const tc::Shape& outShape) {
  AxisLayout l(x.shape, axis);
  tc::Tensor<T> out = zeros<T>(outShape);
  for (std::size_t o = 0; o < l.outer; ++o)
    for (std::size_t i = 0; i < l.inner; ++i)
      out[o * l.inner + i] = reversedSum<T>(l.n, [&](std::size_t j) { return x[(o * l.n + j) * l.inner + i]; });
  return out;
}

template <class T>
tc::Tensor<T> sumAxisBackward(const tc::Tensor<T>& ct, const tc::Shape& xShape, std::size_t axis) {
  AxisLayout l(xShape, axis);
  tc::Tensor<T> g = zeros<T>(xShape);
  for (std::size_t o = 0; o < l.outer; ++o)
    for (std::size_t j = 0; j < l.n; ++j)
      for (std::size_t i = 0; i < l.inner; ++i) g[(o * l.n + j) * l.inner + i] = ct[o * l.inner + i];
  return g;
}

// matmul's dimensions; a vector right operand is a [k, 1] matrix.
struct MatmulDims {
  std::size_t m, k, n;
  bool vector;
  MatmulDims(const tc::Shape& a, const tc::Shape& b)
      : m(a[0]), k(a[1]), n(b.size() == 2 ? b[1] : 1), vector(b.size() == 1) {}
};

template <class T>
tc::Tensor<T> matmul(const tc::Tensor<T>& a, const tc::Tensor<T>& b, const tc::Shape& outShape) {
  MatmulDims d(a.shape, b.shape);
  tc::Tensor<T> out = zeros<T>(outShape);
  for (std::size_t i = 0; i < d.m; ++i)
    for (std::size_t j = 0; j < d.n; ++j)
      out[i * d.n + j] = reversedSum<T>(d.k, [&](std::size_t l) { return a[i * d.k + l] * b[l * d.n + j]; });
  return out;
}

// ct · bᵀ; with a vector b it is an outer product, a plain product per entry (no fold).
template <class T>
tc::Tensor<T> matmulBackwardA(const tc::Tensor<T>& a, const tc::Tensor<T>& b, const tc::Tensor<T>& ct) {
  MatmulDims d(a.shape, b.shape);
  tc::Tensor<T> g = zeros<T>(a.shape);
  for (std::size_t i = 0; i < d.m; ++i)
    for (std::size_t l = 0; l < d.k; ++l)
      g[i * d.k + l] = d.vector ? ct[i] * b[l]
                                : reversedSum<T>(d.n, [&](std::size_t j) { return ct[i * d.n + j] * b[l * d.n + j]; });
  return g;
}

// aᵀ · ct.
template <class T>
tc::Tensor<T> matmulBackwardB(const tc::Tensor<T>& a, const tc::Tensor<T>& b, const tc::Tensor<T>& ct) {
  MatmulDims d(a.shape, b.shape);
  tc::Tensor<T> g = zeros<T>(b.shape);
  for (std::size_t l = 0; l < d.k; ++l)
    for (std::size_t j = 0; j < d.n; ++j)
      g[l * d.n + j] = reversedSum<T>(d.m, [&](std::size_t i) { return a[i * d.k + l] * ct[i * d.n + j]; });
  return g;
}

template <class T>
tc::Tensor<T> transpose(const tc::Tensor<T>& x) {
  std::size_t rows = x.shape[0], cols = x.shape[1];
  tc::Tensor<T> out = zeros<T>(tc::Shape{cols, rows});
  for (std::size_t i = 0; i < rows; ++i)
    for (std::size_t j = 0; j < cols; ++j) out[j * rows + i] = x[i * cols + j];
  return out;
}

// W·x + b: the bias is added after the fold.
template <class T>
tc::Tensor<T> linear(const tc::Tensor<T>& w, const tc::Tensor<T>& x, const tc::Tensor<T>& b) {
  std::size_t m = w.shape[0], k = w.shape[1];
  tc::Tensor<T> out = b;
  for (std::size_t i = 0; i < m; ++i)
    out[i] = reversedSum<T>(k, [&](std::size_t l) { return w[i * k + l] * x[l]; }) + b[i];
  return out;
}

// ct ⊗ x, an outer product: plain products.
template <class T>
tc::Tensor<T> linearBackwardW(const tc::Tensor<T>& w, const tc::Tensor<T>& x, const tc::Tensor<T>& ct) {
  std::size_t m = w.shape[0], k = w.shape[1];
  tc::Tensor<T> g = w;
  for (std::size_t i = 0; i < m; ++i)
    for (std::size_t l = 0; l < k; ++l) g[i * k + l] = ct[i] * x[l];
  return g;
}

// Wᵀ · ct.
template <class T>
tc::Tensor<T> linearBackwardX(const tc::Tensor<T>& w, const tc::Tensor<T>& x, const tc::Tensor<T>& ct) {
  std::size_t m = w.shape[0], k = w.shape[1];
  tc::Tensor<T> g = x;
  for (std::size_t l = 0; l < k; ++l) g[l] = reversedSum<T>(m, [&](std::size_t i) { return w[i * k + l] * ct[i]; });
  return g;
}

template <class T>
T meanSquaredError(const tc::Tensor<T>& a, const tc::Tensor<T>& b) {
  T total = reversedSum<T>(a.size(), [&](std::size_t i) {
    T d = a[i] - b[i];
    return d * d;
  });
  return total / count<T>(a.size());
}

// ((ct·2)·(a−b))/n, the a term of mse_loss; the b term is its negation.
template <class T>
tc::Tensor<T> mseBackwardA(const tc::Tensor<T>& a, const tc::Tensor<T>& b, const T& ct) {
  const T two = count<T>(2), n = count<T>(a.size());
  return pointwise(a, b, [&](const T& x, const T& y) { return ((ct * two) * (x - y)) / n; });
}

// out[i] = x[i mod size(x)]: x's shape is a suffix of the output's.
template <class T>
tc::Tensor<T> broadcast(const tc::Tensor<T>& x, const tc::Shape& outShape) {
  tc::Tensor<T> out = zeros<T>(outShape);
  for (std::size_t i = 0; i < out.size(); ++i) out[i] = x[i % x.size()];
  return out;
}

// ct summed over the copies, last copy first.
template <class T>
tc::Tensor<T> broadcastBackward(const tc::Tensor<T>& ct, const tc::Shape& xShape) {
  tc::Tensor<T> g = zeros<T>(xShape);
  scatterAddReversed(g, ct.size(), [&](std::size_t i) { return i % g.size(); }, [&](std::size_t i) { return ct[i]; });
  return g;
}

template <class T>
tc::Tensor<T> concat0(const tc::Tensor<T>& a, const tc::Tensor<T>& b, const tc::Shape& outShape) {
  std::vector<T> values = a.values;
  values.insert(values.end(), b.values.begin(), b.values.end());
  return tc::Tensor<T>(outShape, std::move(values));
}

// The `count` elements of ct from `offset` on, shaped `shape` (concat0's split).
template <class T>
tc::Tensor<T> part(const tc::Tensor<T>& ct, std::size_t offset, const tc::Shape& shape) {
  auto first = ct.values.begin() + static_cast<std::ptrdiff_t>(offset);
  return tc::Tensor<T>(shape, std::vector<T>(first, first + static_cast<std::ptrdiff_t>(tc::elementCount(shape))));
}

template <class T>
tc::Tensor<T> slice0(const tc::Tensor<T>& x, std::size_t start, const tc::Shape& outShape) {
  return part(x, start * rowSize(x.shape), outShape);
}

// ct in the sliced rows, zero (by selection) in every other row.
template <class T>
tc::Tensor<T> slice0Backward(const tc::Tensor<T>& ct, const tc::Shape& xShape, std::size_t start) {
  tc::Tensor<T> g = zeros<T>(xShape);
  std::size_t offset = start * rowSize(xShape);
  for (std::size_t i = 0; i < ct.size(); ++i) g[offset + i] = ct[i];
  return g;
}

template <class T>
tc::Tensor<T> gather0(const tc::Tensor<T>& x, const std::vector<std::size_t>& rows, const tc::Shape& outShape) {
  std::size_t row = rowSize(x.shape);
  tc::Tensor<T> out = zeros<T>(outShape);
  for (std::size_t j = 0; j < rows.size(); ++j)
    for (std::size_t i = 0; i < row; ++i) out[j * row + i] = x[rows[j] * row + i];
  return out;
}

// Rows of ct scatter-added into x's rows, last list entry first.
template <class T>
tc::Tensor<T> gather0Backward(const tc::Tensor<T>& ct, const std::vector<std::size_t>& rows, const tc::Shape& xShape) {
  tc::Tensor<T> g = zeros<T>(xShape);
  std::size_t row = rowSize(xShape);
  scatterAddReversed(g, ct.size(), [&](std::size_t t) { return rows[t / row] * row + t % row; },
                     [&](std::size_t t) { return ct[t]; });
  return g;
}

}  // namespace detail

//! The node's forward value. The node's op is supported (the engine checks at compile) and its
//! arguments are in `v.context`.
template <class T>
tc::Tensor<T> forward(const NodeView<T>& v) {
  using namespace detail;
  const tc::Attrs<T>& at = v.attrs();
  const tc::Shape& shape = v.node().shape;
  const T zero = tc::zero<T>();
  switch (v.node().op) {
    case OpKind::add: return pointwise(v.arg(0), v.arg(1), [](const T& a, const T& b) { return a + b; });
    case OpKind::sub: return pointwise(v.arg(0), v.arg(1), [](const T& a, const T& b) { return a - b; });
    case OpKind::mul: return pointwise(v.arg(0), v.arg(1), [](const T& a, const T& b) { return a * b; });
    case OpKind::max: return pointwise(v.arg(0), v.arg(1), [](const T& a, const T& b) { return select(a, b, greater); });
    case OpKind::min: return pointwise(v.arg(0), v.arg(1), [](const T& a, const T& b) { return select(a, b, less); });
    case OpKind::neg: return pointwise(v.arg(0), [](const T& x) { return -x; });
    case OpKind::square: return pointwise(v.arg(0), [](const T& x) { return x * x; });
    case OpKind::scale: return pointwise(v.arg(0), [&](const T& x) { return *at.c * x; });
    case OpKind::relu: return pointwise(v.arg(0), [&](const T& x) { return x > zero ? x : zero; });
    case OpKind::abs: return pointwise(v.arg(0), [](const T& x) { return absolute(x); });
    case OpKind::clamp:
      return pointwise(v.arg(0), [&](const T& x) { return x < *at.lo ? *at.lo : (x > *at.hi ? *at.hi : x); });
    case OpKind::sum: return scalar(total(v.arg(0)));
    case OpKind::mean: return scalar(total(v.arg(0)) / count<T>(v.arg(0).size()));
    case OpKind::sum_axis: return sumAxis(v.arg(0), at.axis, shape);
    case OpKind::dot: return scalar(dot(v.arg(0), v.arg(1)));
    case OpKind::matmul: return matmul(v.arg(0), v.arg(1), shape);
    case OpKind::transpose: return transpose(v.arg(0));
    case OpKind::linear: return linear(v.arg(0), v.arg(1), v.arg(2));
    case OpKind::reshape: return tc::Tensor<T>(shape, v.arg(0).values);
    case OpKind::broadcast: return broadcast(v.arg(0), shape);
    case OpKind::concat0: return concat0(v.arg(0), v.arg(1), shape);
    case OpKind::slice0: return slice0(v.arg(0), at.start, shape);
    case OpKind::constant: return tc::Tensor<T>(shape, at.values);
    case OpKind::detach: return v.arg(0);
    case OpKind::mask: return pointwise(v.arg(0), v.data.at(at.key), [](const T& x, const T& m) { return x * m; });
    case OpKind::gather0: return gather0(v.arg(0), v.graph.schema.indices.at(at.key), shape);
    case OpKind::mse_loss: return scalar(meanSquaredError(v.arg(0), v.arg(1)));
    default: assert(false && "reordered::forward: the engine checks every op at compile"); return {};
  }
}

//! Runs the node's reverse program on cotangent `ct`: calls `edge(i, contribution)` once per
//! argument edge i that has a term, in argument order. A repeated argument (add(x, x)) gets one
//! call per occurrence, to be accumulated separately; const and detach make no call.
template <class T, class Edge>
void backward(const NodeView<T>& v, const tc::Tensor<T>& ct, Edge edge) {
  using namespace detail;
  const tc::Attrs<T>& at = v.attrs();
  const T zero = tc::zero<T>();
  auto times = [](const T& g, const T& x) { return g * x; };
  switch (v.node().op) {
    case OpKind::add:
      edge(0, ct);
      edge(1, ct);
      return;
    case OpKind::sub:
      edge(0, ct);
      edge(1, pointwise(ct, [](const T& g) { return -g; }));
      return;
    case OpKind::mul:
      edge(0, pointwise(ct, v.arg(1), times));
      edge(1, pointwise(ct, v.arg(0), times));
      return;
    case OpKind::max:
    case OpKind::min: {
      bool isMax = v.node().op == OpKind::max;
      auto share = [&](std::size_t mine) {
        tc::Tensor<T> g = ct;
        for (std::size_t i = 0; i < g.size(); ++i) {
          const T& a = v.arg(mine)[i];
          const T& b = v.arg(1 - mine)[i];
          g[i] = isMax ? selectShare(ct[i], a, b, greater) : selectShare(ct[i], a, b, less);
        }
        return g;
      };
      edge(0, share(0));
      edge(1, share(1));
      return;
    }
    case OpKind::neg: edge(0, pointwise(ct, [](const T& g) { return -g; })); return;
    case OpKind::square: {
      const T two = count<T>(2);
      edge(0, pointwise(v.arg(0), ct, [&](const T& x, const T& g) { return (two * x) * g; }));
      return;
    }
    case OpKind::scale: edge(0, pointwise(ct, [&](const T& g) { return *at.c * g; })); return;
    case OpKind::relu:
      edge(0, pointwise(v.arg(0), ct, [&](const T& x, const T& g) { return x > zero ? g : zero; }));
      return;
    case OpKind::abs:
      edge(0, pointwise(v.arg(0), ct, [&](const T& x, const T& g) { return x > zero ? g : (x < zero ? -g : zero); }));
      return;
    case OpKind::clamp:
      edge(0, pointwise(v.arg(0), ct, [&](const T& x, const T& g) { return *at.lo <= x && x <= *at.hi ? g : zero; }));
      return;
    case OpKind::sum: edge(0, tc::Tensor<T>::filled(v.arg(0).shape, ct[0])); return;
    case OpKind::mean: edge(0, tc::Tensor<T>::filled(v.arg(0).shape, ct[0] / count<T>(v.arg(0).size()))); return;
    case OpKind::sum_axis: edge(0, sumAxisBackward(ct, v.arg(0).shape, at.axis)); return;
    case OpKind::dot:
      edge(0, pointwise(v.arg(1), [&](const T& b) { return ct[0] * b; }));
      edge(1, pointwise(v.arg(0), [&](const T& a) { return ct[0] * a; }));
      return;
    case OpKind::matmul:
      edge(0, matmulBackwardA(v.arg(0), v.arg(1), ct));
      edge(1, matmulBackwardB(v.arg(0), v.arg(1), ct));
      return;
    case OpKind::transpose: edge(0, transpose(ct)); return;
    case OpKind::linear:
      edge(0, linearBackwardW(v.arg(0), v.arg(1), ct));
      edge(1, linearBackwardX(v.arg(0), v.arg(1), ct));
      edge(2, ct);
      return;
    case OpKind::reshape: edge(0, tc::Tensor<T>(v.arg(0).shape, ct.values)); return;
    case OpKind::broadcast: edge(0, broadcastBackward(ct, v.arg(0).shape)); return;
    case OpKind::concat0:
      edge(0, part(ct, 0, v.arg(0).shape));
      edge(1, part(ct, v.arg(0).size(), v.arg(1).shape));
      return;
    case OpKind::slice0: edge(0, slice0Backward(ct, v.arg(0).shape, at.start)); return;
    case OpKind::constant:
    case OpKind::detach: return;
    case OpKind::mask: edge(0, pointwise(ct, v.data.at(at.key), times)); return;
    case OpKind::gather0: edge(0, gather0Backward(ct, v.graph.schema.indices.at(at.key), v.arg(0).shape)); return;
    case OpKind::mse_loss: {
      tc::Tensor<T> ga = mseBackwardA(v.arg(0), v.arg(1), ct[0]);
      tc::Tensor<T> gb = pointwise(ga, [](const T& g) { return -g; });
      edge(0, std::move(ga));
      edge(1, std::move(gb));
      return;
    }
    default: assert(false && "reordered::backward: the engine checks every op at compile");
  }
}

}  // namespace reordered
