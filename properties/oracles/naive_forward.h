#pragma once
// Every built-in op's forward written a second time, apart from core/ops, as docs/semantics.md §2.1
// and §2.2 state it: one small function per op, index by index, micrograd-like. It shares no kernel,
// shape rule, op struct or helper with core/ops (tests/layering/check_includes.sh holds it to that):
// only the containers (Tensor, Graph's Node and Attrs, Data) and the carriers' own arithmetic,
// comparisons and functions. Each function computes its output shape itself, from the op's definition.
// forward_oracle holds every engine to these definitions, so a forward that every layer shares and
// gets wrong — an index permutation in transpose or gather0, a tie that returns the other argument,
// a misplaced parenthesis in mean or log_softmax — fails there although its backward is the exact
// adjoint of the wrong forward.
//
// What these definitions mean on each carrier:
// - exact carriers (rational, rational-noeq, modp): the exact value of the op's definition;
// - interval: an enclosure of the real value of the definition at every real in the arguments
//   (the carrier's operations enclose; the comparisons order intervals by lower endpoint, then upper
//   one, docs/semantics.md §1.13);
// - double and float: the definition evaluated as written, left to right with §2.1's parentheses,
//   folds from +0 in index order, with §2.2's sign-of-zero and NaN conventions.
// Opaque programs are user code with no definition here: `forward` refuses them.
#include <fmt/format.h>

#include <cmath>
#include <cstddef>
#include <limits>
#include <span>
#include <string>
#include <type_traits>
#include <vector>

#include "core/carriers/carrier.h"
#include "core/graph/graph.h"
#include "core/ops/op_kind.h"
#include "core/support/result.h"
#include "core/tensor/tensor.h"

namespace tc::props::naive {

//! A node's argument values, in argument order.
template <class T>
using Args = std::span<const Tensor<T>* const>;

namespace detail {

// ---- Shapes and indices, by hand ----------------------------------------------------------------

//! The number of elements of `shape` (1 for a scalar).
inline std::size_t count(const Shape& shape) {
  std::size_t n = 1;
  for (std::size_t d : shape) n *= d;
  return n;
}

//! The row-major coordinates of flat index `flat` in `shape`.
inline std::vector<std::size_t> coordinates(const Shape& shape, std::size_t flat) {
  std::vector<std::size_t> at(shape.size());
  for (std::size_t d = shape.size(); d-- > 0;) {
    at[d] = flat % shape[d];
    flat /= shape[d];
  }
  return at;
}

//! The flat row-major index of `at` in `shape`.
inline std::size_t flatIndex(const Shape& shape, const std::vector<std::size_t>& at) {
  std::size_t flat = 0;
  for (std::size_t d = 0; d < shape.size(); ++d) flat = flat * shape[d] + at[d];
  return flat;
}

//! A tensor of `shape` filled with the carrier's zero, to be written element by element.
template <class T>
Tensor<T> blank(const Shape& shape) {
  return Tensor<T>(shape, std::vector<T>(count(shape), tc::zero<T>()));
}

//! The elements of one row (everything after the leading axis) of a tensor of `shape`.
inline std::size_t rowLength(const Shape& shape) {
  std::size_t n = 1;
  for (std::size_t d = 1; d < shape.size(); ++d) n *= shape[d];
  return n;
}

//! The error of a node whose argument values lie outside its op's domain (only a wrong engine gives
//! a value there).
inline Error outside(std::string_view why) { return Error{std::string(why)}; }

template <class T>
bool isNan(const T& x) {
  if constexpr (std::is_floating_point_v<T>) return std::isnan(x);
  else return false;
}

}  // namespace detail

// ---- Elementwise ops ------------------------------------------------------------------------------

//! add: a + b, element by element.
template <class T>
Tensor<T> add(const Tensor<T>& a, const Tensor<T>& b) {
  Tensor<T> out = detail::blank<T>(a.shape);
  for (std::size_t i = 0; i < out.size(); ++i) out[i] = a[i] + b[i];
  return out;
}

//! sub: a − b.
template <class T>
Tensor<T> sub(const Tensor<T>& a, const Tensor<T>& b) {
  Tensor<T> out = detail::blank<T>(a.shape);
  for (std::size_t i = 0; i < out.size(); ++i) out[i] = a[i] - b[i];
  return out;
}

//! mul: a·b.
template <class T>
Tensor<T> mul(const Tensor<T>& a, const Tensor<T>& b) {
  Tensor<T> out = detail::blank<T>(a.shape);
  for (std::size_t i = 0; i < out.size(); ++i) out[i] = a[i] * b[i];
  return out;
}

//! div: a/b; on exact carriers (rational, modp, interval) a divisor that is (or may be) 0 has no value.
template <class T>
Result<Tensor<T>> div(const Tensor<T>& a, const Tensor<T>& b) {
  Tensor<T> out = detail::blank<T>(a.shape);
  for (std::size_t i = 0; i < out.size(); ++i) {
    if constexpr (Carrier<T>::caps.exact)
      if (!certainlyNonzero(b[i])) return std::unexpected(detail::outside("the divisor holds 0"));
    out[i] = a[i] / b[i];
  }
  return out;
}

//! max: a if a > b, b if b > a, a if a == b (so max(−0, +0) = −0), else NaN (an unordered pair).
template <class T>
Tensor<T> max(const Tensor<T>& a, const Tensor<T>& b) {
  Tensor<T> out = detail::blank<T>(a.shape);
  for (std::size_t i = 0; i < out.size(); ++i) {
    if (a[i] > b[i]) out[i] = a[i];
    else if (b[i] > a[i]) out[i] = b[i];
    else if (a[i] == b[i]) out[i] = a[i];
    else if constexpr (std::is_floating_point_v<T>) out[i] = std::numeric_limits<T>::quiet_NaN();
  }
  return out;
}

//! min: a if a < b, b if b < a, a if a == b (so min(+0, −0) = +0), else NaN.
template <class T>
Tensor<T> min(const Tensor<T>& a, const Tensor<T>& b) {
  Tensor<T> out = detail::blank<T>(a.shape);
  for (std::size_t i = 0; i < out.size(); ++i) {
    if (a[i] < b[i]) out[i] = a[i];
    else if (b[i] < a[i]) out[i] = b[i];
    else if (a[i] == b[i]) out[i] = a[i];
    else if constexpr (std::is_floating_point_v<T>) out[i] = std::numeric_limits<T>::quiet_NaN();
  }
  return out;
}

//! neg: −x.
template <class T>
Tensor<T> neg(const Tensor<T>& x) {
  Tensor<T> out = detail::blank<T>(x.shape);
  for (std::size_t i = 0; i < out.size(); ++i) out[i] = -x[i];
  return out;
}

//! square: x·x.
template <class T>
Tensor<T> square(const Tensor<T>& x) {
  Tensor<T> out = detail::blank<T>(x.shape);
  for (std::size_t i = 0; i < out.size(); ++i) out[i] = x[i] * x[i];
  return out;
}

//! scale{c}: c·x.
template <class T>
Tensor<T> scale(const Tensor<T>& x, const T& c) {
  Tensor<T> out = detail::blank<T>(x.shape);
  for (std::size_t i = 0; i < out.size(); ++i) out[i] = c * x[i];
  return out;
}

//! inv: 1/x; on exact carriers an x that is (or may be) 0 has no value.
template <class T>
Result<Tensor<T>> inv(const Tensor<T>& x) {
  Tensor<T> out = detail::blank<T>(x.shape);
  for (std::size_t i = 0; i < out.size(); ++i) {
    if constexpr (Carrier<T>::caps.exact)
      if (!certainlyNonzero(x[i])) return std::unexpected(detail::outside("the input holds 0"));
    out[i] = tc::one<T>() / x[i];
  }
  return out;
}

//! relu: x if x > 0, else +0 (relu(−0) = +0); a NaN gives +0, or itself when NaN propagates.
template <class T>
Tensor<T> relu(const Tensor<T>& x, bool nanPropagates) {
  Tensor<T> out = detail::blank<T>(x.shape);
  for (std::size_t i = 0; i < out.size(); ++i) {
    if (x[i] > tc::zero<T>()) out[i] = x[i];
    else if (nanPropagates && detail::isNan(x[i])) out[i] = x[i];
    else out[i] = tc::zero<T>();
  }
  return out;
}

//! abs: on IEEE carriers x with its sign bit cleared (−0 and −NaN too); on intervals the enclosure
//! of |x| (the carrier's abs); on the other exact carriers −x if x < 0, else x.
template <class T>
Tensor<T> abs(const Tensor<T>& x) {
  Tensor<T> out = detail::blank<T>(x.shape);
  for (std::size_t i = 0; i < out.size(); ++i) {
    if constexpr (std::is_floating_point_v<T>) out[i] = std::signbit(x[i]) ? -x[i] : x[i];
    else if constexpr (Carrier<T>::caps.enclosure) out[i] = Carrier<T>::abs(x[i]);
    else out[i] = x[i] < tc::zero<T>() ? -x[i] : x[i];
  }
  return out;
}

//! clamp{lo, hi}: lo if x < lo, else hi if x > hi, else x (a NaN passes through).
template <class T>
Tensor<T> clamp(const Tensor<T>& x, const T& lo, const T& hi) {
  Tensor<T> out = detail::blank<T>(x.shape);
  for (std::size_t i = 0; i < out.size(); ++i) {
    if (x[i] < lo) out[i] = lo;
    else if (x[i] > hi) out[i] = hi;
    else out[i] = x[i];
  }
  return out;
}

//! exp.
template <class T>
Tensor<T> exp(const Tensor<T>& x) {
  Tensor<T> out = detail::blank<T>(x.shape);
  for (std::size_t i = 0; i < out.size(); ++i) out[i] = Carrier<T>::exp(x[i]);
  return out;
}

//! log: needs x > 0 (not NaN) on every carrier that has it.
template <class T>
Result<Tensor<T>> log(const Tensor<T>& x) {
  Tensor<T> out = detail::blank<T>(x.shape);
  for (std::size_t i = 0; i < out.size(); ++i) {
    if (!certainlyPositive(x[i])) return std::unexpected(detail::outside("the input holds a value <= 0 or NaN"));
    out[i] = Carrier<T>::log(x[i]);
  }
  return out;
}

//! sqrt: on intervals needs x > 0 (its term divides by sqrt x); IEEE carriers give NaN below 0.
template <class T>
Result<Tensor<T>> sqrt(const Tensor<T>& x) {
  Tensor<T> out = detail::blank<T>(x.shape);
  for (std::size_t i = 0; i < out.size(); ++i) {
    if constexpr (Carrier<T>::caps.exact)
      if (!certainlyPositive(x[i])) return std::unexpected(detail::outside("the input holds a value <= 0"));
    out[i] = Carrier<T>::sqrt(x[i]);
  }
  return out;
}

//! tanh.
template <class T>
Tensor<T> tanh(const Tensor<T>& x) {
  Tensor<T> out = detail::blank<T>(x.shape);
  for (std::size_t i = 0; i < out.size(); ++i) out[i] = Carrier<T>::tanh(x[i]);
  return out;
}

//! sigmoid: exp x/(1 + exp x) for x < 0, else 1/(1 + exp(−x)).
template <class T>
Tensor<T> sigmoid(const Tensor<T>& x) {
  Tensor<T> out = detail::blank<T>(x.shape);
  const T one = tc::one<T>();
  for (std::size_t i = 0; i < out.size(); ++i) {
    if (x[i] < tc::zero<T>()) out[i] = Carrier<T>::exp(x[i]) / (one + Carrier<T>::exp(x[i]));
    else out[i] = one / (one + Carrier<T>::exp(-x[i]));
  }
  return out;
}

//! softplus: x + log1p(exp(−x)) for x > 0, else log1p(exp x).
template <class T>
Tensor<T> softplus(const Tensor<T>& x) {
  Tensor<T> out = detail::blank<T>(x.shape);
  for (std::size_t i = 0; i < out.size(); ++i) {
    if (x[i] > tc::zero<T>()) out[i] = x[i] + Carrier<T>::log1p(Carrier<T>::exp(-x[i]));
    else out[i] = Carrier<T>::log1p(Carrier<T>::exp(x[i]));
  }
  return out;
}

//! sin.
template <class T>
Tensor<T> sin(const Tensor<T>& x) {
  Tensor<T> out = detail::blank<T>(x.shape);
  for (std::size_t i = 0; i < out.size(); ++i) out[i] = Carrier<T>::sin(x[i]);
  return out;
}

//! cos.
template <class T>
Tensor<T> cos(const Tensor<T>& x) {
  Tensor<T> out = detail::blank<T>(x.shape);
  for (std::size_t i = 0; i < out.size(); ++i) out[i] = Carrier<T>::cos(x[i]);
  return out;
}

//! mask{key}: x·m, m the data tensor `key` (of x's shape).
template <class T>
Tensor<T> mask(const Tensor<T>& x, const Tensor<T>& m) {
  Tensor<T> out = detail::blank<T>(x.shape);
  for (std::size_t i = 0; i < out.size(); ++i) out[i] = x[i] * m[i];
  return out;
}

//! detach: x itself.
template <class T>
Tensor<T> detach(const Tensor<T>& x) {
  return Tensor<T>(x.shape, x.values);
}

// ---- Reductions and linear algebra: every sum a left fold from +0 in index order ------------------

//! sum: Σ x into a scalar.
template <class T>
Tensor<T> sum(const Tensor<T>& x) {
  T total = tc::zero<T>();
  for (std::size_t i = 0; i < x.size(); ++i) total = total + x[i];
  return Tensor<T>(Shape{}, {total});
}

//! sum_axis{axis}: x's shape without the axis; each output element the sum along the axis.
template <class T>
Tensor<T> sumAxis(const Tensor<T>& x, std::size_t axis) {
  Shape shape;
  for (std::size_t d = 0; d < x.shape.size(); ++d)
    if (d != axis) shape.push_back(x.shape[d]);
  Tensor<T> out = detail::blank<T>(shape);
  for (std::size_t o = 0; o < out.size(); ++o) {
    std::vector<std::size_t> at = detail::coordinates(shape, o);
    at.insert(at.begin() + static_cast<std::ptrdiff_t>(axis), 0);
    T total = tc::zero<T>();
    for (std::size_t j = 0; j < x.shape[axis]; ++j) {
      at[axis] = j;
      total = total + x[detail::flatIndex(x.shape, at)];
    }
    out[o] = total;
  }
  return out;
}

//! mean: (Σ x)/n, n the element count.
template <class T>
Tensor<T> mean(const Tensor<T>& x) {
  T total = tc::zero<T>();
  for (std::size_t i = 0; i < x.size(); ++i) total = total + x[i];
  return Tensor<T>(Shape{}, {total / Carrier<T>::fromInt(static_cast<std::int64_t>(x.size()))});
}

//! dot: Σ aᵢ·bᵢ of two vectors into a scalar.
template <class T>
Tensor<T> dot(const Tensor<T>& a, const Tensor<T>& b) {
  T total = tc::zero<T>();
  for (std::size_t i = 0; i < a.size(); ++i) total = total + a[i] * b[i];
  return Tensor<T>(Shape{}, {total});
}

//! matmul: [m, k]·[k, n] → [m, n], out(i, j) = Σ_l a(i, l)·b(l, j); [m, k]·[k] → [m].
template <class T>
Tensor<T> matmul(const Tensor<T>& a, const Tensor<T>& b) {
  const std::size_t m = a.shape[0], k = a.shape[1];
  const bool vector = b.shape.size() == 1;
  const std::size_t n = vector ? 1 : b.shape[1];
  Tensor<T> out = detail::blank<T>(vector ? Shape{m} : Shape{m, n});
  for (std::size_t i = 0; i < m; ++i)
    for (std::size_t j = 0; j < n; ++j) {
      T total = tc::zero<T>();
      for (std::size_t l = 0; l < k; ++l) total = total + a[i * k + l] * b[l * n + j];
      out[i * n + j] = total;
    }
  return out;
}

//! transpose: [m, n] → [n, m], out(j, i) = x(i, j).
template <class T>
Tensor<T> transpose(const Tensor<T>& x) {
  const std::size_t m = x.shape[0], n = x.shape[1];
  Tensor<T> out = detail::blank<T>(Shape{n, m});
  for (std::size_t i = 0; i < m; ++i)
    for (std::size_t j = 0; j < n; ++j) out[j * m + i] = x[i * n + j];
  return out;
}

//! linear: W [m, k], x [k], b [m] → [m], out(i) = (Σ_l W(i, l)·x(l)) + b(i).
template <class T>
Tensor<T> linear(const Tensor<T>& w, const Tensor<T>& x, const Tensor<T>& b) {
  const std::size_t m = w.shape[0], k = w.shape[1];
  Tensor<T> out = detail::blank<T>(Shape{m});
  for (std::size_t i = 0; i < m; ++i) {
    T total = tc::zero<T>();
    for (std::size_t l = 0; l < k; ++l) total = total + w[i * k + l] * x[l];
    out[i] = total + b[i];
  }
  return out;
}

//! mse_loss: (Σ (a − b)·(a − b))/n into a scalar.
template <class T>
Tensor<T> mseLoss(const Tensor<T>& a, const Tensor<T>& b) {
  T total = tc::zero<T>();
  for (std::size_t i = 0; i < a.size(); ++i) total = total + (a[i] - b[i]) * (a[i] - b[i]);
  return Tensor<T>(Shape{}, {total / Carrier<T>::fromInt(static_cast<std::int64_t>(a.size()))});
}

//! The maximum of one row of n elements from `start`: the first element, replaced where x > max.
template <class T>
T rowMaximum(const Tensor<T>& x, std::size_t start, std::size_t n) {
  T largest = x[start];
  for (std::size_t i = 1; i < n; ++i)
    if (x[start + i] > largest) largest = x[start + i];
  return largest;
}

//! softmax_last: per row along the last axis, exp(x − max)/Σ exp(x − max).
template <class T>
Tensor<T> softmaxLast(const Tensor<T>& x) {
  Tensor<T> out = detail::blank<T>(x.shape);
  const std::size_t n = x.shape[x.shape.size() - 1];
  for (std::size_t start = 0; start < x.size(); start += n) {
    const T largest = rowMaximum(x, start, n);
    T total = tc::zero<T>();
    for (std::size_t i = 0; i < n; ++i) total = total + Carrier<T>::exp(x[start + i] - largest);
    for (std::size_t i = 0; i < n; ++i) out[start + i] = Carrier<T>::exp(x[start + i] - largest) / total;
  }
  return out;
}

//! log_softmax_last: per row along the last axis, (x − max) − log Σ exp(x − max).
template <class T>
Tensor<T> logSoftmaxLast(const Tensor<T>& x) {
  Tensor<T> out = detail::blank<T>(x.shape);
  const std::size_t n = x.shape[x.shape.size() - 1];
  for (std::size_t start = 0; start < x.size(); start += n) {
    const T largest = rowMaximum(x, start, n);
    T total = tc::zero<T>();
    for (std::size_t i = 0; i < n; ++i) total = total + Carrier<T>::exp(x[start + i] - largest);
    for (std::size_t i = 0; i < n; ++i) out[start + i] = (x[start + i] - largest) - Carrier<T>::log(total);
  }
  return out;
}

// ---- Structural ops: copies of elements, by index ---------------------------------------------------

//! reshape{shape}: the same values in row-major order under the new shape.
template <class T>
Tensor<T> reshape(const Tensor<T>& x, const Shape& shape) {
  Tensor<T> out = detail::blank<T>(shape);
  for (std::size_t i = 0; i < out.size(); ++i) out[i] = x[i];
  return out;
}

//! broadcast{shape}: x's shape is a suffix of `shape`; out at coordinates c is x at c's last
//! rank(x) coordinates.
template <class T>
Tensor<T> broadcast(const Tensor<T>& x, const Shape& shape) {
  Tensor<T> out = detail::blank<T>(shape);
  const std::size_t dropped = shape.size() - x.shape.size();
  for (std::size_t o = 0; o < out.size(); ++o) {
    const std::vector<std::size_t> at = detail::coordinates(shape, o);
    const std::vector<std::size_t> inX(at.begin() + static_cast<std::ptrdiff_t>(dropped), at.end());
    out[o] = x[detail::flatIndex(x.shape, inX)];
  }
  return out;
}

//! concat0: [m, …] and [n, …] → [m + n, …], rows of a, then rows of b.
template <class T>
Tensor<T> concat0(const Tensor<T>& a, const Tensor<T>& b) {
  Shape shape = a.shape;
  shape[0] = static_cast<Shape::Dim>(a.shape[0] + b.shape[0]);
  Tensor<T> out = detail::blank<T>(shape);
  const std::size_t row = detail::rowLength(a.shape);
  for (std::size_t r = 0; r < shape[0]; ++r)
    for (std::size_t e = 0; e < row; ++e)
      out[r * row + e] = r < a.shape[0] ? a[r * row + e] : b[(r - a.shape[0]) * row + e];
  return out;
}

//! slice0{start, len}: rows start .. start + len − 1 of x.
template <class T>
Tensor<T> slice0(const Tensor<T>& x, std::size_t start, std::size_t len) {
  Shape shape = x.shape;
  shape[0] = static_cast<Shape::Dim>(len);
  Tensor<T> out = detail::blank<T>(shape);
  const std::size_t row = detail::rowLength(x.shape);
  for (std::size_t r = 0; r < len; ++r)
    for (std::size_t e = 0; e < row; ++e) out[r * row + e] = x[(start + r) * row + e];
  return out;
}

//! const{shape, values}: the values under the shape.
template <class T>
Tensor<T> constant(const Shape& shape, const std::vector<T>& values) {
  Tensor<T> out = detail::blank<T>(shape);
  for (std::size_t i = 0; i < out.size(); ++i) out[i] = values[i];
  return out;
}

//! gather0{key}: x [n, …] → [r, …], row i of the output is row rows[i] of x, in list order.
template <class T>
Result<Tensor<T>> gather0(const Tensor<T>& x, const std::vector<std::size_t>& rows) {
  Shape shape = x.shape;
  shape[0] = static_cast<Shape::Dim>(rows.size());
  Tensor<T> out = detail::blank<T>(shape);
  const std::size_t row = detail::rowLength(x.shape);
  for (std::size_t i = 0; i < rows.size(); ++i) {
    if (rows[i] >= x.shape[0]) return std::unexpected(detail::outside("an index is out of range"));
    for (std::size_t e = 0; e < row; ++e) out[i * row + e] = x[rows[i] * row + e];
  }
  return out;
}

// ---- One node -------------------------------------------------------------------------------------

//! The value of `node` (defined in naive_forward.hpp) on argument values `args` (in argument order), the graph's data schema and
//! data, and its conventions (only NaN propagation reaches a forward: relu(NaN)). Fails for an
//! opaque node (no definition here), an op the carrier lacks, and argument values outside the op's
//! domain on exact carriers (a divisor holding 0, log's or the interval sqrt's argument not above 0);
//! an engine that gives a value there is wrong. Argument shapes are the graph's (the loader checked
//! them), so only the op's own definition computes the output's shape.
template <class T>
Result<Tensor<T>> forward(const Node<T>& node, Args<T> args, const DataSchema& schema, const Data<T>& data,
                          const Conventions& conventions);

}  // namespace tc::props::naive

