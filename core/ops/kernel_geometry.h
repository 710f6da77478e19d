#pragma once
// The geometry of the dense kernels (core/ops/kernels.cpp) and which of their paths a product of
// given dimensions runs: what generated cases must reach (docs/semantics.md §3, "Sizes that reach
// every kernel path") and the coverage categories that say they did.
#include <cstddef>

namespace tc::kernels {

//! The IEEE product kernel (foldProductsIeee): the bytes of one vector register it folds in (4
//! doubles, 8 floats), the rows of x one tile folds together (a product with fewer rows folds row
//! by row), the steps of the fold per block and the rows of x per block. And the side of the square
//! tiles transposedValues (kernels.h) copies in.
inline constexpr std::size_t kVectorBytes = 32, kTileRows = 4, kDepthBlock = 128, kRowBlock = 64, kTransposeTile = 32;

//! The values one vector register of the product kernel holds, for values of `valueBytes` bytes.
inline constexpr std::size_t lanesOf(std::size_t valueBytes) { return kVectorBytes / valueBytes; }

//! Which parts of the IEEE product kernel an [m, depth] × [depth, n] product of values of
//! `valueBytes` bytes runs (on one thread, where no line of either operand is all zeros): with
//! fewer than kTileRows rows, rows folded straight from y four vectors (`fewRowsWide`) or one vector
//! (`fewRowsVector`) of outputs at a time; otherwise tiles of kTileRows rows by two vectors
//! (`tiles`), a one-vector panel beside them (`panel`), rows left over beside the tiles
//! (`leftoverRows`), more than one block of depth (`depthBlocks`) or of rows (`rowBlocks`); either
//! way, columns left beside the vectors, folded one output at a time (`tailColumns`). With fewer
//! columns than a vector, none: every output folds alone.
struct ProductPaths {
  bool fewRowsWide = false, fewRowsVector = false, tiles = false, panel = false, leftoverRows = false,
       tailColumns = false, depthBlocks = false, rowBlocks = false;
};

inline ProductPaths productPaths(std::size_t m, std::size_t depth, std::size_t n, std::size_t valueBytes) {
  const std::size_t lanes = lanesOf(valueBytes), vectorColumns = n / lanes * lanes;
  ProductPaths paths;
  if (m == 0 || depth == 0 || vectorColumns == 0) return paths;
  paths.tailColumns = vectorColumns < n;
  if (m < kTileRows) {
    paths.fewRowsWide = n >= 4 * lanes;
    paths.fewRowsVector = n % (4 * lanes) >= lanes;
    return paths;
  }
  const std::size_t wide = n / (2 * lanes) * (2 * lanes);
  paths.tiles = wide > 0;
  paths.panel = wide < vectorColumns;
  paths.leftoverRows = m % kTileRows != 0;
  paths.depthBlocks = depth > kDepthBlock;
  paths.rowBlocks = m > kRowBlock;
  return paths;
}

}  // namespace tc::kernels
