// The IEEE product of matrices, register-blocked and vectorized, in the specification's order:
// each output is a left fold from +0 over increasing p of the products x[i, p]·y[p, j]. A block
// of outputs stays in vector registers for the whole fold and every lane is one output, so only
// the assignment of outputs to lanes differs from the plain loop; each lane performs the same
// IEEE multiplications and additions, in the same order, as the plain loop does for its output.
#include <algorithm>
#include <cstring>

#include "core/ops/kernels.h"

namespace tc::kernels {
namespace {

// 32 bytes: one AVX register in the avx2 clone, two SSE2 registers in the default one.
template <class T>
using Vec [[gnu::vector_size(32)]] = T;
template <class T>
constexpr std::size_t kLanes = 32 / sizeof(T);

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

// Folds p in [p0, p1) into rows [i0, i0 + R) and columns [j0, j0 + V·lanes) of c, continuing
// the sums c holds (from +0 when p0 is 0): storing a partial sum and loading it again changes no
// bit. `coefficient * row[v]` splats the scalar into every lane exactly, then multiplies lane by
// lane. The loops over r and v are unrolled so that the accumulators live in registers.
template <std::size_t R, std::size_t V, class T>
[[gnu::always_inline]] inline void block(const Operands<T>& o, std::size_t i0, std::size_t j0, std::size_t p0,
                                         std::size_t p1) {
  constexpr std::size_t L = kLanes<T>;
  Vec<T> acc[R][V] = {};  // +0 in every lane
  if (p0 > 0)
#pragma GCC unroll 4
    for (std::size_t r = 0; r < R; ++r)
#pragma GCC unroll 4
      for (std::size_t v = 0; v < V; ++v) load<T>(acc[r][v], o.c + (i0 + r) * o.n + j0 + v * L);
  for (std::size_t p = p0; p < p1; ++p) {
    Vec<T> row[V];
#pragma GCC unroll 4
    for (std::size_t v = 0; v < V; ++v) load<T>(row[v], o.y + p * o.n + j0 + v * L);
#pragma GCC unroll 4
    for (std::size_t r = 0; r < R; ++r) {
      const T coefficient = o.xAt(i0 + r, p);
#pragma GCC unroll 4
      for (std::size_t v = 0; v < V; ++v) acc[r][v] = acc[r][v] + coefficient * row[v];
    }
  }
#pragma GCC unroll 4
  for (std::size_t r = 0; r < R; ++r)
#pragma GCC unroll 4
    for (std::size_t v = 0; v < V; ++v) store<T>(o.c + (i0 + r) * o.n + j0 + v * L, acc[r][v]);
}

// Rows [i0, i1) of columns [j0, j0 + V·lanes): the panel of y they read stays in the first-level
// cache across the rows.
template <std::size_t V, class T>
[[gnu::always_inline]] inline void panel(const Operands<T>& o, std::size_t i0, std::size_t i1, std::size_t j0,
                                         std::size_t p0, std::size_t p1) {
  std::size_t i = i0;
  for (; i + 4 <= i1; i += 4) block<4, V>(o, i, j0, p0, p1);
  for (; i < i1; ++i) block<1, V>(o, i, j0, p0, p1);
}

// Blocks of kDepth steps of the folds and kRows rows: the part of x they read stays in the
// second-level cache across the columns.
constexpr std::size_t kDepth = 256, kRows = 128;

template <class T>
[[gnu::always_inline]] inline void foldProductsVectorized(const Operands<T>& o) {
  constexpr std::size_t L = kLanes<T>;
  const std::size_t vectorColumns = o.n / L * L;
  for (std::size_t p0 = 0; p0 < o.depth; p0 += kDepth) {
    const std::size_t p1 = std::min(o.depth, p0 + kDepth);
    for (std::size_t i0 = 0; i0 < o.m; i0 += kRows) {
      const std::size_t i1 = std::min(o.m, i0 + kRows);
      std::size_t j = 0;
      for (; j + 2 * L <= vectorColumns; j += 2 * L) panel<2>(o, i0, i1, j, p0, p1);
      for (; j < vectorColumns; j += L) panel<1>(o, i0, i1, j, p0, p1);
    }
  }
  for (std::size_t j = vectorColumns; j < o.n; ++j)  // the last columns, fewer than a vector, one output at a time
    for (std::size_t i = 0; i < o.m; ++i) {
      T acc = zero<T>();
      for (std::size_t p = 0; p < o.depth; ++p) acc = acc + o.xAt(i, p) * o.y[p * o.n + j];
      o.c[i * o.n + j] = acc;
    }
}

}  // namespace

[[gnu::target_clones("avx2", "default")]] void foldProductsIeee(const double* x, std::size_t xRow, std::size_t xStep,
                                                                 const double* y, std::size_t m, std::size_t depth,
                                                                 std::size_t n, double* c) {
  foldProductsVectorized(Operands<double>{x, xRow, xStep, y, m, depth, n, c});
}

[[gnu::target_clones("avx2", "default")]] void foldProductsIeee(const float* x, std::size_t xRow, std::size_t xStep,
                                                                 const float* y, std::size_t m, std::size_t depth,
                                                                 std::size_t n, float* c) {
  foldProductsVectorized(Operands<float>{x, xRow, xStep, y, m, depth, n, c});
}

}  // namespace tc::kernels
