#pragma once
// Elementwise and indexing helpers shared by op definitions.
#include <algorithm>
#include <cassert>
#include <concepts>
#include <cstddef>
#include <functional>
#include <limits>
#include <optional>
#include <type_traits>
#include <vector>

#include "core/carriers/carrier.h"
#include "core/ops/kernel_geometry.h"
#include "core/tensor/tensor.h"

namespace tc::kernels {

// The values f(i) for i < n. Plain values are written through a raw pointer into storage sized
// once (no capacity check per element); other carriers are constructed in place.
template <class T, class F>
std::vector<T> generate(std::size_t n, F f) {
  std::vector<T> out;
  if constexpr (std::is_trivially_copyable_v<T>) {
    out.resize(n);
    T* o = out.data();
    for (std::size_t i = 0; i < n; ++i) o[i] = f(i);
  } else {
    out.reserve(n);
    for (std::size_t i = 0; i < n; ++i) out.push_back(f(i));
  }
  return out;
}

template <class T, class F>
Tensor<T> map(const Tensor<T>& x, F f) {
  const T* a = x.values.data();
  return Tensor<T>(x.shape, generate<T>(x.size(), [&](std::size_t i) { return f(a[i]); }));
}

template <class T, class F>
Tensor<T> zip(const Tensor<T>& a, const Tensor<T>& b, F f) {
  assert(a.size() == b.size());
  const T *x = a.values.data(), *y = b.values.data();
  return Tensor<T>(a.shape, generate<T>(a.size(), [&](std::size_t i) { return f(x[i], y[i]); }));
}

template <class T, class F>
Tensor<T> zip3(const Tensor<T>& a, const Tensor<T>& b, const Tensor<T>& c, F f) {
  assert(a.size() == b.size() && a.size() == c.size());
  const T *x = a.values.data(), *y = b.values.data(), *z = c.values.data();
  return Tensor<T>(a.shape, generate<T>(a.size(), [&](std::size_t i) { return f(x[i], y[i], z[i]); }));
}

//! A tensor of `shape` filled with the carrier's zero.
template <class T>
Tensor<T> zeros(const Shape& shape) {
  return Tensor<T>::filled(shape, zero<T>());
}

//! Elementwise `acc = acc + x`, existing value on the left.
template <class T>
void addInto(Tensor<T>& acc, const Tensor<T>& x) {
  assert(acc.size() == x.size());
  T* a = acc.values.data();  // raw pointers: IEEE carriers add in vector lanes
  const T* b = x.values.data();
  for (std::size_t i = 0, n = acc.size(); i < n; ++i) a[i] = a[i] + b[i];
}

//! out[i·k + l] = left[i] · right[l] for i < m, l < k: the outer product, row-major.
template <class T>
void outerProduct(const T* left, std::size_t m, const T* right, std::size_t k, T* out) {
  for (std::size_t i = 0; i < m; ++i) {
    const T& a = left[i];
    T* row = out + i * k;
    for (std::size_t l = 0; l < k; ++l) row[l] = a * right[l];
  }
}

//! A gradient slot a term is added into in place (the dense pass's `slot = slot + term`), and how:
//! `add`; `settleThenAdd`, the dense order's pending +0 added to each element first (it turns a −0
//! into +0); and `fromZero`, a slot that holds only +0, written as 0 + term without reading it.
template <class T>
struct SlotTarget {
  enum class Mode { add, settleThenAdd, fromZero };
  T* values;
  Mode mode;
};

//! s = s + term in a slot's mode, on one value (or, in kernels.cpp, one vector of values), in
//! place; `z` is the carrier's zero. fromZero does not read s.
template <auto mode, class V, class T>
[[gnu::always_inline]] inline void slotStep(V& s, const V& term, const T& z) {
  using Mode = decltype(mode);
  if constexpr (mode == Mode::add) s = s + term;
  else if constexpr (mode == Mode::settleThenAdd) s = (s + z) + term;
  else s = z + term;  // fromZero
}

template <auto mode, class T, class Term>
void addIntoSlotAs(T* slot, std::size_t n, Term term) {
  const T z = zero<T>();
  for (std::size_t i = 0; i < n; ++i) slotStep<mode>(slot[i], term(i), z);
}

//! slot[i] = slot[i] + term(i) for i < n, in the slot's mode, one value at a time.
template <class T, class Term>
void addIntoSlot(const SlotTarget<T>& slot, std::size_t n, Term term) {
  using Mode = typename SlotTarget<T>::Mode;
  switch (slot.mode) {
    case Mode::add: return addIntoSlotAs<Mode::add>(slot.values, n, term);
    case Mode::settleThenAdd: return addIntoSlotAs<Mode::settleThenAdd>(slot.values, n, term);
    case Mode::fromZero: return addIntoSlotAs<Mode::fromZero>(slot.values, n, term);
  }
}

void addOuterProductIeee(const SlotTarget<double>& slot, const double* left, std::size_t m, const double* right,
                         std::size_t k);
void addOuterProductIeee(const SlotTarget<float>& slot, const float* left, std::size_t m, const float* right,
                         std::size_t k);

//! slot[i·k + l] = slot[i·k + l] + left[i] · right[l]: the outer product added into a slot, each
//! product formed before it is added, as outerProduct and then an addition would give. IEEE
//! values go to addOuterProductIeee, which runs the same operations in vector lanes.
template <class T>
void addOuterProduct(const SlotTarget<T>& slot, const T* left, std::size_t m, const T* right, std::size_t k) {
  if constexpr (std::is_floating_point_v<T>) return addOuterProductIeee(slot, left, m, right, k);
  for (std::size_t i = 0; i < m; ++i)
    addIntoSlot(SlotTarget<T>{slot.values + i * k, slot.mode}, k, [&](std::size_t l) { return left[i] * right[l]; });
}

// The dense kernels below keep the specification's order exactly: every inner sum is a left fold
// from the carrier's zero over increasing index, every product is formed before it is added, with
// its operands on the sides the op's formula writes (which decides NaN payloads on IEEE carriers
// and which flag GridBound reports first). They only choose which outputs advance together, so
// results are bit-identical to the plain loops while memory is read along rows.

//! Where a kernel's matrix element stands in each product: `left` forms row·x, `right` x·row.
enum class RowSide { left, right };

template <RowSide side, class T>
T product(const T& row, const T& other) {
  if constexpr (side == RowSide::left) return row * other;
  else return other * row;
}

//! c[i·n + j] = fold over p < depth of x(i, p) · y[p·n + j], for i < m, j < n, where
//! x(i, p) = x[i·xRow + p·xStep] (a row-major [m, depth] matrix has xRow = depth, xStep = 1; its
//! transpose read in place xRow = 1, xStep = m) and y is a row-major [depth, n] matrix: each
//! output a left fold from +0 over increasing p. IEEE values go to foldProductsIeee, which keeps
//! blocks of outputs in vector registers (IEEE multiplication commutes, so `side` only matters
//! to the other carriers) and gives +0 without folding where every product is a zero times a
//! finite value (a row of zeros in x, a column in y). From 2^24 multiply-adds on, blocks of rows
//! fold on as many threads as the processor has cores, each output as it would alone.
void foldProductsIeee(const double* x, std::size_t xRow, std::size_t xStep, const double* y, std::size_t m,
                      std::size_t depth, std::size_t n, double* c);
void foldProductsIeee(const float* x, std::size_t xRow, std::size_t xStep, const float* y, std::size_t m,
                      std::size_t depth, std::size_t n, float* c);

//! About the nanoseconds of one IEEE operation element by element, in vector lanes or along one
//! row, on one core. Estimates of work (core/graph/cost.h) read it.
inline constexpr double kIeeeOperationNs = 0.25;

//! About the nanoseconds of one operation of an op's forward and of one of its terms' on IEEE
//! values (OpBase::ieeeOperationNs).
struct IeeeOperationNs {
  double forward = kIeeeOperationNs;
  double terms = kIeeeOperationNs;
};

//! About the nanoseconds foldProductsIeee takes on one core for an [m, depth] × [depth, n] product
//! of values of `valueBytes` bytes (4 for float, else 8: the interval carrier's points fold as
//! doubles), counted from the parts of the kernel each output takes: tiles of vector registers,
//! one-vector panels, rows left over beside the tiles, columns left over beside the vectors (one
//! output at a time), the packing of its operands, the writing of every output, and a call. It
//! is meant to err high rather than low: `tapecheck bench product` timed it on 41 shapes (1 to 4096
//! rows, folds of 1 to 4096 steps, 1 to 4096 columns) at 1.1 to 6.3 times the time taken on doubles
//! and 1.5 to 7.7 on floats in one run on an AVX2 machine, never under it; more where the product
//! runs on several cores (bench/RESULTS.md, "The estimate of a matrix product"). Requires
//! `valueBytes` 4 or 8.
double ieeeProductNs(std::size_t m, std::size_t depth, std::size_t n, std::size_t valueBytes);

//! A carrier some of whose values are doubles exactly, as the interval carrier's points are: on
//! those, an operation whose exact result is a double gives that double's value.
template <class T>
concept HoldsDoubles = requires(const T& v, double d) {
  { Carrier<T>::exactDouble(v) } -> std::same_as<std::optional<double>>;
  { Carrier<T>::fromDouble(d) } -> std::same_as<T>;
};

//! The binary exponents that bound a set of doubles: each is an integer multiple of 2^low and
//! below 2^high in magnitude. Empty (no nonzero value) until one is added. Requires finite values.
struct DyadicRange {
  long low = std::numeric_limits<long>::max();
  long high = std::numeric_limits<long>::min();
  bool empty() const { return high == std::numeric_limits<long>::min(); }
  void add(double d);
};

//! Whether every product and every partial sum of a fold of `depth` products x·y, with x in range
//! `x` and y in range `y`, is a double exactly: each partial sum is a multiple of 2^(lx+ly) below
//! 2^(hx+hy+⌈log2 depth⌉), which needs no more bits than a double has.
bool foldIsExactInDouble(const DyadicRange& x, const DyadicRange& y, std::size_t depth);
//! The same for the values themselves.
bool foldIsExactInDouble(const std::vector<double>& x, const std::vector<double>& y, std::size_t depth);

//! The values x[i·xRow + p·xStep] for i < rows, p < cols as a row-major array of doubles, or
//! nothing when one of them is not a double exactly.
template <HoldsDoubles T>
std::optional<std::vector<double>> exactDoubles(const T* x, std::size_t rows, std::size_t cols, std::size_t xRow,
                                                std::size_t xStep) {
  std::vector<double> out(rows * cols);
  for (std::size_t i = 0; i < rows; ++i)
    for (std::size_t p = 0; p < cols; ++p) {
      const std::optional<double> d = Carrier<T>::exactDouble(x[i * xRow + p * xStep]);
      if (!d) return std::nullopt;
      out[i * cols + p] = *d;
    }
  return out;
}

//! A carrier that encloses an exact sum of products of doubles in one of its values, as the
//! interval carrier does.
template <class T>
concept HoldsExactSums = HoldsDoubles<T> && requires(const ExactProductSum::Value& sum) {
  { Carrier<T>::fromExactSum(sum) } -> std::same_as<T>;
};

//! For i < m, j < n: gives `take` the output index i·n + j and the exact value of the fold over
//! p < depth of x[i·depth + p] · y[p·n + j] (row-major [m, depth] and [depth, n] matrices of
//! finite doubles). From 2^24 products on, blocks of rows run on threads, as foldProductsIeee's:
//! `take` is then called from several threads at once, each index once.
void foldProductsExactly(const double* x, std::size_t m, std::size_t depth, const double* y, std::size_t n,
                         const std::function<void(std::size_t, const ExactProductSum::Value&)>& take);

//! foldProducts on points holding doubles. Where its every operation is exact in double
//! (foldIsExactInDouble), on doubles: the same exact values as the carrier's own fold, so the same
//! results, in the time of the IEEE kernel (on intervals, MPFI's 257-bit operations cost a
//! hundred times more). Elsewhere, on a carrier that HoldsExactSums, each output is its exact sum
//! enclosed once (foldProductsExactly): the same point as the carrier's fold where that is exact,
//! else the narrowest enclosure of the exact value, inside the fold's. False, with c untouched,
//! when some operand is not a double, or a partial sum is not and the carrier has no exact sums.
template <HoldsDoubles T>
bool foldProductsOfDoubles(const T* x, std::size_t xRow, std::size_t xStep, const T* y, std::size_t m,
                           std::size_t depth, std::size_t n, T* c) {
  const std::optional<std::vector<double>> xs = exactDoubles(x, m, depth, xRow, xStep);
  if (!xs) return false;
  const std::optional<std::vector<double>> ys = exactDoubles(y, depth, n, n, 1);
  if (!ys) return false;
  if (foldIsExactInDouble(*xs, *ys, depth)) {
    std::vector<double> out(m * n, 0.0);
    foldProductsIeee(xs->data(), depth, 1, ys->data(), m, depth, n, out.data());
    for (std::size_t i = 0; i < m * n; ++i) c[i] = Carrier<T>::fromDouble(out[i]);
    return true;
  }
  if constexpr (HoldsExactSums<T>) {
    foldProductsExactly(xs->data(), m, depth, ys->data(), n,
                        [&](std::size_t i, const ExactProductSum::Value& sum) { c[i] = Carrier<T>::fromExactSum(sum); });
    return true;
  }
  return false;
}

//! out[i] = fold over l < k of rows[i·k + l] · x[l], for i < m: a row-major [m, k] matrix
//! times a vector. On IEEE carriers four rows advance together: four independent folds hide the
//! latency of each addition, and each fold still adds in l order.
template <RowSide side, class T>
void foldRowDots(const T* rows, std::size_t m, std::size_t k, const T* x, T* out) {
  std::size_t i = 0;
  if constexpr (HoldsDoubles<T>)  // x is a [k, 1] matrix
    if (foldProductsOfDoubles(rows, k, 1, x, m, k, 1, out)) return;
  if constexpr (std::is_floating_point_v<T>) {
    for (; i + 4 <= m; i += 4) {
      const T* r0 = rows + i * k;
      const T *r1 = r0 + k, *r2 = r1 + k, *r3 = r2 + k;
      T a0 = zero<T>(), a1 = zero<T>(), a2 = zero<T>(), a3 = zero<T>();
      for (std::size_t l = 0; l < k; ++l) {
        a0 = a0 + product<side>(r0[l], x[l]);
        a1 = a1 + product<side>(r1[l], x[l]);
        a2 = a2 + product<side>(r2[l], x[l]);
        a3 = a3 + product<side>(r3[l], x[l]);
      }
      out[i] = a0, out[i + 1] = a1, out[i + 2] = a2, out[i + 3] = a3;
    }
  }
  for (; i < m; ++i) {
    const T* r = rows + i * k;
    T acc = zero<T>();
    for (std::size_t l = 0; l < k; ++l) acc = acc + product<side>(r[l], x[l]);
    out[i] = acc;
  }
}

template <RowSide side, class T>
void foldProducts(const T* x, std::size_t xRow, std::size_t xStep, const T* y, std::size_t m, std::size_t depth,
                  std::size_t n, T* c) {
  if constexpr (std::is_floating_point_v<T>) {
    foldProductsIeee(x, xRow, xStep, y, m, depth, n, c);
  } else {
    if constexpr (HoldsDoubles<T>)
      if (foldProductsOfDoubles(x, xRow, xStep, y, m, depth, n, c)) return;
    for (std::size_t i = 0; i < m; ++i) {  // row i of c combines the rows of y
      T* __restrict out = c + i * n;
      std::fill(out, out + n, zero<T>());
      for (std::size_t p = 0; p < depth; ++p) {
        const T& coefficient = x[i * xRow + p * xStep];
        const T* __restrict row = y + p * n;
        for (std::size_t j = 0; j < n; ++j) out[j] = out[j] + product<side>(row[j], coefficient);
      }
    }
  }
}

//! The row-major transpose of a row-major [rows, cols] matrix, copied in tiles that stay in cache.
template <class T>
std::vector<T> transposedValues(const T* x, std::size_t rows, std::size_t cols) {
  constexpr std::size_t kTile = kTransposeTile;
  std::vector<T> out(rows * cols, zero<T>());
  for (std::size_t i0 = 0; i0 < rows; i0 += kTile)
    for (std::size_t j0 = 0; j0 < cols; j0 += kTile)
      for (std::size_t i = i0; i < std::min(rows, i0 + kTile); ++i)
        for (std::size_t j = j0; j < std::min(cols, j0 + kTile); ++j) out[j * rows + i] = x[i * cols + j];
  return out;
}

//! Elementwise `acc = acc + 0`: nothing with storage equality, where it cannot change a value;
//! on IEEE carriers it turns -0 into +0.
template <class T>
void addZeroInto(Tensor<T>& acc) {
  if constexpr (!Carrier<T>::caps.storageEquality) {
    const T z = zero<T>();
    for (T& v : acc.values) v = v + z;
  }
}

//! Product of the dimensions from `from` on (the row size below an axis).
inline std::size_t innerSize(const Shape& shape, std::size_t from) {
  std::size_t n = 1;
  for (std::size_t i = from; i < shape.size(); ++i) n *= shape[i];
  return n;
}

}  // namespace tc::kernels
