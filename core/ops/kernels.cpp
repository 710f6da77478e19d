// The IEEE product of matrices, blocked and vectorized, in the specification's order: each output
// is a left fold from +0 over increasing p of the products x[i, p]·y[p, j]. The fold runs in
// blocks of kDepth steps, every output's block after its earlier ones; within a block a tile of
// outputs stays in vector registers, one output per lane, and between blocks it is stored and
// loaded again, which changes no bit. So only the assignment of outputs to lanes and the moment a
// partial sum is kept in memory differ from the plain loop; each lane performs the same IEEE
// multiplications and additions, in the same order, as the plain loop does for its output.
//
// As in any matrix product that runs near the processor's speed, the operands a block reads are
// first copied ("packed") into the order the tiles read them: the panel of y a tile column reads is
// contiguous (rows of y lie n elements apart, and reading them in place would send every row to the
// same cache set), and so are the coefficients of a tile row. Copying changes no value.
#include <algorithm>
#include <bit>
#include <cassert>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <system_error>
#include <thread>
#include <vector>

#include "core/ops/kernel_geometry.h"
#include "core/ops/kernels.h"
#include "core/support/mutants.h"

namespace tc::kernels {
namespace {

// The bytes of one vector register the kernels fold in (kVectorBytes): one AVX register in the avx2
// clone, two SSE2 registers in the default one. And the rows of x one tile folds together
// (kTileRows): a product with fewer rows folds row by row (foldFewRows).

template <class T>
using Vec [[gnu::vector_size(kVectorBytes)]] = T;
template <class T>
constexpr std::size_t kLanes = kVectorBytes / sizeof(T);

// Unaligned moves; by reference, so no vector crosses a call boundary (the clones' ABIs differ).
template <class T>
[[gnu::always_inline]] inline void load(Vec<T>& v, const T* p) {
  std::memcpy(&v, p, sizeof v);
}

template <class T>
[[gnu::always_inline]] inline void store(T* p, const Vec<T>& v) {
  std::memcpy(p, &v, sizeof v);
}

// What one product reads and writes: x(i, p) = x[i·xRow + p·xStep], y [depth, n] and c [m, n],
// both row-major.
template <class T>
struct Operands {
  const T* x;
  std::size_t xRow, xStep;
  const T* y;
  std::size_t m, depth, n;
  T* c;
  T xAt(std::size_t i, std::size_t p) const { return x[i * xRow + p * xStep]; }
};

// Steps of the fold per block and rows of x per block (kTileRows rows per tile).
constexpr std::size_t kDepth = kDepthBlock, kRows = kRowBlock;

// A tile: R rows of c and V vectors of columns, folding `steps` steps from packed operands:
// xs[p·R + r] is row r's coefficient at step p, ys[p·V·lanes + q] column q's value of y. The
// tile continues the sums c holds unless `first`. `coefficient * row[v]` splats the scalar into
// every lane exactly (no arithmetic), then multiplies lane by lane. The loops over r and v are
// unrolled so that the accumulators live in registers.
template <std::size_t R, std::size_t V, class T>
[[gnu::always_inline]] inline void tile(const T* xs, const T* ys, std::size_t steps, T* c, std::size_t n,
                                        bool first) {
  constexpr std::size_t L = kLanes<T>;
  Vec<T> acc[R][V] = {};  // +0 in every lane
  if (!first)
#pragma GCC unroll 4
    for (std::size_t r = 0; r < R; ++r)
#pragma GCC unroll 4
      for (std::size_t v = 0; v < V; ++v) load<T>(acc[r][v], c + r * n + v * L);
  for (std::size_t p = 0; p < steps; ++p) {
    Vec<T> row[V];
#pragma GCC unroll 4
    for (std::size_t v = 0; v < V; ++v) load<T>(row[v], ys + (p * V + v) * L);
#pragma GCC unroll 4
    for (std::size_t r = 0; r < R; ++r) {
      const T coefficient = xs[p * R + r];
#pragma GCC unroll 4
      for (std::size_t v = 0; v < V; ++v) acc[r][v] = acc[r][v] + coefficient * row[v];
    }
  }
#pragma GCC unroll 4
  for (std::size_t r = 0; r < R; ++r)
#pragma GCC unroll 4
    for (std::size_t v = 0; v < V; ++v) store<T>(c + r * n + v * L, acc[r][v]);
}

// Buffers for the packed operands, kept between calls.
template <class T>
std::vector<T>& packedY() {
  thread_local std::vector<T> buffer;
  return buffer;
}
template <class T>
std::vector<T>& packedX() {
  thread_local std::vector<T> buffer;
  return buffer;
}

// The panel of V vectors of columns from j0, steps [p0, p0 + steps) of y, row after row.
template <std::size_t V, class T>
[[gnu::always_inline]] inline void packPanel(const Operands<T>& o, std::size_t p0, std::size_t steps,
                                             std::size_t j0, T* out) {
  constexpr std::size_t width = V * kLanes<T>;
  for (std::size_t p = 0; p < steps; ++p) std::memcpy(out + p * width, o.y + (p0 + p) * o.n + j0, width * sizeof(T));
}

// The coefficients of rows [i0, i0 + rows), steps [p0, p0 + steps): tiles of kTileRows rows
// step after step, then the rows left over one by one.
template <class T>
[[gnu::always_inline]] inline void packRows(const Operands<T>& o, std::size_t i0, std::size_t rows, std::size_t p0,
                                            std::size_t steps, T* out) {
  std::size_t i = 0;
  for (; i + kTileRows <= rows; i += kTileRows)
    for (std::size_t p = 0; p < steps; ++p)
      for (std::size_t r = 0; r < kTileRows; ++r) *out++ = o.xAt(i0 + i + r, p0 + p);
  for (; i < rows; ++i)
    for (std::size_t p = 0; p < steps; ++p) *out++ = o.xAt(i0 + i, (TC_MUTANT(kernel_leftover_rows_first_block) ? 0 : p0) + p);
}

// Every tile of one packed panel (V vectors wide, from column j0) over the packed rows.
template <std::size_t V, class T>
[[gnu::always_inline]] inline void panelTiles(const T* xs, const T* ys, std::size_t rows, std::size_t steps,
                                              T* c, std::size_t n, bool first) {
  std::size_t i = 0;
  for (; i + kTileRows <= rows; i += kTileRows, xs += kTileRows * steps)
    tile<kTileRows, V>(xs, ys, steps, c + i * n, n, first);
  for (; i < rows; ++i, xs += steps) tile<1, V>(xs, ys, steps, c + i * n, n, first);
}

// Output (i, j) alone: the plain loop, for the columns left over beside the vectors.
template <class T>
[[gnu::always_inline]] inline void foldOne(const Operands<T>& o, std::size_t i, std::size_t j) {
  T acc = zero<T>();
  for (std::size_t p = 0; p < o.depth; ++p) acc = acc + o.xAt(i, p) * o.y[p * o.n + j];
  o.c[i * o.n + j] = acc;
}

// Fewer rows of x than a tile (a vector times a matrix, as in a linear layer's backward): packing
// would copy all of y to use it once, so each row of c folds straight from the rows of y, V
// vectors of outputs at a time in registers, each advancing by one step per row of y.
template <std::size_t V, class T>
[[gnu::always_inline]] inline void foldColumns(const Operands<T>& o, std::size_t i, std::size_t j) {
  constexpr std::size_t L = kLanes<T>;
  Vec<T> acc[V] = {};  // +0 in every lane: every fold starts from the carrier's zero
  for (std::size_t p = 0; p < o.depth; ++p) {
    const T coefficient = o.xAt(i, p);
    const T* row = o.y + p * o.n + j;
#pragma GCC unroll 4
    for (std::size_t v = 0; v < V; ++v) {
      Vec<T> values;
      load<T>(values, row + v * L);
      acc[v] = acc[v] + coefficient * values;
    }
  }
#pragma GCC unroll 4
  for (std::size_t v = 0; v < V; ++v) store<T>(o.c + i * o.n + j + v * L, acc[v]);
}

template <class T>
[[gnu::always_inline]] inline void foldFewRows(const Operands<T>& o) {
  constexpr std::size_t L = kLanes<T>;
  for (std::size_t i = 0; i < o.m; ++i) {
    std::size_t j = 0;
    for (; j + 4 * L <= o.n; j += 4 * L) foldColumns<4>(o, i, j);
    for (; j + L <= o.n; j += L) foldColumns<1>(o, i, j);
    for (; j < o.n; ++j) foldOne(o, i, j);  // the last columns, fewer than a vector
  }
}

// slot = slot + left ⊗ right in the slot's mode, lane by lane: the scalar loop's operations.
template <auto mode, class T>
[[gnu::always_inline]] inline void outerProductRows(T* slot, const T* left, std::size_t m, const T* right,
                                                    std::size_t k) {
  constexpr bool readsSlot = mode != decltype(mode)::fromZero;
  constexpr std::size_t L = kLanes<T>;
  const T z = zero<T>();
  for (std::size_t i = 0; i < m; ++i) {
    const T a = left[i];
    T* row = slot + i * k;
    std::size_t l = 0;
    for (; l + L <= k; l += L) {
      Vec<T> s{}, r;
      if constexpr (readsSlot) load<T>(s, row + l);
      load<T>(r, right + l);
      slotStep<mode>(s, Vec<T>(a * r), z);
      store<T>(row + l, s);
    }
    addIntoSlotAs<mode>(row + l, k - l, [&](std::size_t r) { return a * right[l + r]; });  // the last columns
  }
}

template <class T>
[[gnu::always_inline]] inline void addOuterProductVectorized(const SlotTarget<T>& slot, const T* left, std::size_t m,
                                                             const T* right, std::size_t k) {
  using Mode = typename SlotTarget<T>::Mode;
  switch (slot.mode) {
    case Mode::add: return outerProductRows<Mode::add>(slot.values, left, m, right, k);
    case Mode::settleThenAdd: return outerProductRows<Mode::settleThenAdd>(slot.values, left, m, right, k);
    case Mode::fromZero: return outerProductRows<Mode::fromZero>(slot.values, left, m, right, k);
  }
}

template <class T>
[[gnu::always_inline]] inline void foldProductsVectorized(const Operands<T>& o) {
  if (o.m < kTileRows) return foldFewRows(o);
  constexpr std::size_t L = kLanes<T>;
  const std::size_t wide = o.n / (2 * L) * (2 * L), vectorColumns = o.n / L * L;
  std::vector<T>& ys = packedY<T>();
  std::vector<T>& xs = packedX<T>();
  ys.resize(kDepth * vectorColumns);
  xs.resize(kDepth * kRows);
  for (std::size_t p0 = 0; vectorColumns > 0 && p0 < o.depth; p0 += kDepth) {
    const std::size_t steps = std::min(kDepth, o.depth - p0);
    const bool first = p0 == 0;
    for (std::size_t j = 0; j < wide; j += 2 * L) packPanel<2>(o, p0, steps, j, ys.data() + j * steps);
    if (wide < vectorColumns) packPanel<1>(o, p0, steps, wide, ys.data() + wide * steps);
    for (std::size_t i0 = 0; i0 < o.m; i0 += kRows) {
      const std::size_t rows = std::min(kRows, o.m - i0);
      packRows(o, i0, rows, p0, steps, xs.data());
      T* c = o.c + i0 * o.n;
      for (std::size_t j = 0; j < wide; j += 2 * L) panelTiles<2>(xs.data(), ys.data() + j * steps, rows, steps, c + j, o.n, first);
      if (wide < vectorColumns)
        panelTiles<1>(xs.data(), ys.data() + wide * steps, rows, steps, c + wide, o.n, first);
    }
  }
  for (std::size_t j = vectorColumns; j < o.n; ++j)  // the last columns, fewer than a vector, one output at a time
    for (std::size_t i = 0; i < o.m; ++i) foldOne(o, i, j);
}

// Which of `count` lines hold zeros only; line l's elements are at(l, 0), at(l, 1), ... up to
// `length`. Lines are scanned together, element after element, until none is still all zeros.
template <class At>
std::vector<char> zeroLines(std::size_t count, std::size_t length, At at) {
  std::vector<char> zero(count, 1);
  std::size_t open = count;
  for (std::size_t e = 0; e < length && open > 0; ++e)
    for (std::size_t l = 0; l < count; ++l)
      if (zero[l] && at(l, e) != 0) zero[l] = 0, --open;
  return zero;
}

bool allFinite(std::size_t rows, std::size_t cols, auto at) {
  for (std::size_t i = 0; i < rows; ++i)
    for (std::size_t p = 0; p < cols; ++p)
      if (!std::isfinite(at(i, p))) return false;
  return true;
}

}  // namespace

// The vectorized fold alone, cloned per instruction set (the code it inlines must be compiled in
// each clone). Defined below; external, because a clone of a function internal to this file lost
// the library code it inlines under clang.
void foldVectorizedIeee(const double* x, std::size_t xRow, std::size_t xStep, const double* y, std::size_t m,
                        std::size_t depth, std::size_t n, double* c);
void foldVectorizedIeee(const float* x, std::size_t xRow, std::size_t xStep, const float* y, std::size_t m,
                        std::size_t depth, std::size_t n, float* c);

namespace {

// A fold from +0 whose every product is a zero is +0: a zero times a finite value is ±0, and
// +0 + ±0 = +0 when rounding to nearest. So where x has a row of zeros and y is finite, that row
// of c is +0, and where y has a column of zeros and x is finite, that column is: those outputs
// need no fold. Cotangents with such lines are common (a zero probe, a seed on one element of a
// matrix), and the other outputs fold as one smaller product of the remaining rows and columns.
template <class T>
void foldProductsSkippingZeros(const Operands<T>& o) {
  std::vector<char> zeroRow = zeroLines(o.m, o.depth, [&](std::size_t i, std::size_t p) { return o.xAt(i, p); });
  std::vector<char> zeroColumn = zeroLines(o.n, o.depth, [&](std::size_t j, std::size_t p) { return o.y[p * o.n + j]; });
  const bool rowsSkip = std::ranges::find(zeroRow, 1) != zeroRow.end() &&
                        allFinite(o.depth, o.n, [&](std::size_t p, std::size_t j) { return o.y[p * o.n + j]; });
  const bool columnsSkip = std::ranges::find(zeroColumn, 1) != zeroColumn.end() &&
                           allFinite(o.m, o.depth, [&](std::size_t i, std::size_t p) { return o.xAt(i, p); });
  if (!rowsSkip && !columnsSkip) return foldVectorizedIeee(o.x, o.xRow, o.xStep, o.y, o.m, o.depth, o.n, o.c);
  std::vector<std::size_t> rows, columns;
  for (std::size_t i = 0; i < o.m; ++i)
    if (!(rowsSkip && zeroRow[i])) rows.push_back(i);
  for (std::size_t j = 0; j < o.n; ++j)
    if (!(columnsSkip && zeroColumn[j])) columns.push_back(j);
  std::fill(o.c, o.c + o.m * o.n, T(0));
  if (rows.empty() || columns.empty()) return;
  std::vector<T> x(rows.size() * o.depth), y(o.depth * columns.size()), c(rows.size() * columns.size());
  for (std::size_t r = 0; r < rows.size(); ++r)
    for (std::size_t p = 0; p < o.depth; ++p) x[r * o.depth + p] = o.xAt(rows[r], p);
  for (std::size_t p = 0; p < o.depth; ++p)
    for (std::size_t q = 0; q < columns.size(); ++q) y[p * columns.size() + q] = o.y[p * o.n + columns[q]];
  foldVectorizedIeee(x.data(), o.depth, 1, y.data(), rows.size(), o.depth, columns.size(), c.data());
  for (std::size_t r = 0; r < rows.size(); ++r)
    for (std::size_t q = 0; q < columns.size(); ++q) o.c[rows[r] * o.n + columns[q]] = c[r * columns.size() + q];
}

// Calls f(begin, end) on blocks of the rows [0, m) that together cover them, each of at least
// `fewestRows` rows, on as many threads as the processor has cores where the folds of an
// [m, depth] × [depth, n] product do at least kThreadedWork multiply-adds, else once on the
// calling thread. (The IEEE kernel asks for kTileRows, so that every block folds in tiles: two
// threads folding 2 rows each row by row took twice as long as one folding 4 in tiles.) Each
// output is computed by one call exactly as alone, so the blocks change no bit; a thread that
// cannot start runs its block here instead.
constexpr double kThreadedWork = 1 << 24;  // about 1 ms in double: a thread costs tens of microseconds

template <class F>
void forRowBlocks(std::size_t m, std::size_t depth, std::size_t n, std::size_t fewestRows, F f) {
  static const std::size_t cores = std::max(1u, std::thread::hardware_concurrency());
  const double work = static_cast<double>(m) * static_cast<double>(depth) * static_cast<double>(n);
  const std::size_t blocks = work < kThreadedWork ? 1 : std::min(cores, std::max<std::size_t>(1, m / fewestRows));
  if (blocks <= 1) return f(std::size_t{0}, m);
  auto begin = [&](std::size_t b) { return m * b / blocks; };
  std::vector<std::thread> helpers;
  for (std::size_t b = 1; b < blocks; ++b) {
    try {
      helpers.emplace_back(f, begin(b), begin(b + 1));
    } catch (const std::system_error&) {
      f(begin(b), begin(b + 1));
    }
  }
  f(begin(0), begin(1));
  for (std::thread& helper : helpers) helper.join();
}

DyadicRange rangeOf(const std::vector<double>& values) {
  DyadicRange range;
  for (double d : values) range.add(d);
  return range;
}

}  // namespace

void DyadicRange::add(double d) {
  assert(std::isfinite(d));
  if (d == 0) return;
  int exponent = 0;  // |d| in [2^(exponent-1), 2^exponent)
  const double fraction = std::frexp(d, &exponent);
  const auto mantissa = static_cast<std::uint64_t>(std::fabs(std::ldexp(fraction, 53)));  // exact: 53 bits at most
  low = std::min(low, static_cast<long>(exponent) - 53 + std::countr_zero(mantissa));
  high = std::max(high, static_cast<long>(exponent));
}

void foldProductsExactly(const double* x, std::size_t m, std::size_t depth, const double* y, std::size_t n,
                         const std::function<void(std::size_t, const ExactProductSum::Value&)>& take) {
  std::vector<DecodedDouble> rows(m * depth), columns(n * depth);  // y's columns, each contiguous
  for (std::size_t i = 0; i < m * depth; ++i) rows[i] = DecodedDouble::of(x[i]);
  for (std::size_t p = 0; p < depth; ++p)
    for (std::size_t j = 0; j < n; ++j) columns[j * depth + p] = DecodedDouble::of(y[p * n + j]);
  forRowBlocks(m, depth, n, 1,
               [&](std::size_t begin, std::size_t end) {
                 ExactProductSum sum;
                 ExactProductSum::Value value;
                 for (std::size_t i = begin; i < end; ++i)
                   for (std::size_t j = 0; j < n; ++j) {
                     const DecodedDouble* row = rows.data() + i * depth;
                     const DecodedDouble* column = columns.data() + j * depth;
                     for (std::size_t p = 0; p < depth; ++p) sum.add(row[p], column[p]);
                     sum.takeValue(value);
                     take(i * n + j, value);
                   }
               });
}

bool foldIsExactInDouble(const std::vector<double>& x, const std::vector<double>& y, std::size_t depth) {
  return foldIsExactInDouble(rangeOf(x), rangeOf(y), depth);
}

bool foldIsExactInDouble(const DyadicRange& xr, const DyadicRange& yr, std::size_t depth) {
  if (xr.empty() || yr.empty()) return true;  // every product is 0
  const long low = xr.low + yr.low;
  const long high = xr.high + yr.high + std::bit_width(depth);  // 2^bit_width(depth) > depth
  constexpr long bits = std::numeric_limits<double>::digits;
  constexpr long lowest = std::numeric_limits<double>::min_exponent - bits;  // 2^-1074
  return high - low <= bits && low >= lowest && high <= std::numeric_limits<double>::max_exponent;
}

[[gnu::target_clones("avx2", "default")]] void addOuterProductIeee(const SlotTarget<double>& slot, const double* left,
                                                                    std::size_t m, const double* right, std::size_t k) {
  addOuterProductVectorized(slot, left, m, right, k);
}

[[gnu::target_clones("avx2", "default")]] void addOuterProductIeee(const SlotTarget<float>& slot, const float* left,
                                                                    std::size_t m, const float* right, std::size_t k) {
  addOuterProductVectorized(slot, left, m, right, k);
}

[[gnu::target_clones("avx2", "default")]] void foldVectorizedIeee(const double* x, std::size_t xRow, std::size_t xStep,
                                                                   const double* y, std::size_t m, std::size_t depth,
                                                                   std::size_t n, double* c) {
  foldProductsVectorized(Operands<double>{x, xRow, xStep, y, m, depth, n, c});
}

[[gnu::target_clones("avx2", "default")]] void foldVectorizedIeee(const float* x, std::size_t xRow, std::size_t xStep,
                                                                   const float* y, std::size_t m, std::size_t depth,
                                                                   std::size_t n, float* c) {
  foldProductsVectorized(Operands<float>{x, xRow, xStep, y, m, depth, n, c});
}

namespace {

// The rows in blocks (forRowBlocks), each block a product of its own rows of x with y.
template <class T>
void foldRowBlocksIeee(const T* x, std::size_t xRow, std::size_t xStep, const T* y, std::size_t m,
                       std::size_t depth, std::size_t n, T* c) {
  forRowBlocks(m, depth, n, kTileRows,
               [&](std::size_t begin, std::size_t end) {
                 foldProductsSkippingZeros(Operands<T>{x + begin * xRow, xRow, xStep, y, end - begin, depth, n, c + begin * n});
               });
}

}  // namespace

void foldProductsIeee(const double* x, std::size_t xRow, std::size_t xStep, const double* y, std::size_t m,
                      std::size_t depth, std::size_t n, double* c) {
  foldRowBlocksIeee(x, xRow, xStep, y, m, depth, n, c);
}

void foldProductsIeee(const float* x, std::size_t xRow, std::size_t xStep, const float* y, std::size_t m,
                      std::size_t depth, std::size_t n, float* c) {
  foldRowBlocksIeee(x, xRow, xStep, y, m, depth, n, c);
}

namespace {

// The nanoseconds of ieeeProductNs's parts on one core, for doubles, measured on products of 1 to
// 4096 rows, folds of 1 to 4096 steps and 1 to 4096 columns (`tapecheck bench product`;
// bench/RESULTS.md, "The estimate of a matrix product"): a multiply-add in a tile of 4 rows and
// two vectors (0.045 to 0.055 from 128 rows on), in a one-vector panel or a row folded alone
// (latency-bound: too few sums in flight), and one output folded alone (a scalar chain); copying
// one value of x or y into packed order, from the caches or, where y passes 8 MiB, from memory;
// writing one output (its allocation, zeroing and store: measured 0.3 to 1.0 where the depth is
// 1 or 2, the more the larger the output; counted at the most seen in earlier runs, 1.6); a call.
// Floats halve the vector parts (twice the lanes) and the writing of an output (half the bytes).
constexpr double kTiledNs = 0.06, kOneVectorNs = 0.3, kOneOutputNs = 0.8;
constexpr double kPackedNs = 0.45, kPackedFromMemoryNs = 0.9, kPackedCacheBytes = 8 << 20;
constexpr double kOutputNs = 1.6, kCallNs = 50;

}  // namespace

double ieeeProductNs(std::size_t m, std::size_t depth, std::size_t n, std::size_t valueBytes) {
  // The kernel's parts, as foldProductsVectorized assigns the outputs to them.
  assert((valueBytes == sizeof(float) || valueBytes == sizeof(double)) && "the IEEE kernels fold floats or doubles");
  const std::size_t lanes = kVectorBytes / valueBytes;
  const std::size_t vectorColumns = n / lanes * lanes, wide = n / (2 * lanes) * (2 * lanes);
  const std::size_t tiledRows = m / kTileRows * kTileRows;  // none: fewer rows fold row by row
  // A value's bytes over a double's: its share of a double's time in the vector parts and the writes.
  const double valueShare = static_cast<double>(valueBytes) / sizeof(double);
  const double rows = static_cast<double>(m), steps = static_cast<double>(depth);
  double ns = kCallNs + rows * static_cast<double>(n) * kOutputNs * valueShare;
  ns += rows * steps * static_cast<double>(n - vectorColumns) * kOneOutputNs;
  ns += static_cast<double>(tiledRows) * steps *
        (static_cast<double>(wide) * kTiledNs + static_cast<double>(vectorColumns - wide) * kOneVectorNs) * valueShare;
  ns += static_cast<double>(m - tiledRows) * steps * static_cast<double>(vectorColumns) * kOneVectorNs * valueShare;
  if (tiledRows > 0 && vectorColumns > 0) {
    const double packedY = steps * static_cast<double>(vectorColumns);
    const bool yInCache = packedY * static_cast<double>(valueBytes) <= kPackedCacheBytes;
    ns += (rows * steps + packedY) * (yInCache ? kPackedNs : kPackedFromMemoryNs);
  }
  return ns;
}

}  // namespace tc::kernels
