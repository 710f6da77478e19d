#pragma once
// Where correct engines legitimately differ (docs/semantics.md §2.5): the value an op's terms
// choose at its kinks, and NaN through relu, abs, max and min. A graph carries the conventions
// every layer runs it with; the specification's own are the defaults, and an engine's profile
// may declare others, which the reference then implements so that the engine is still checked
// exactly.
#include <array>
#include <cstdint>

#include "core/ops/op_kind.h"

namespace tc {

//! The conventions a graph is run with. `kink[op]` indexes the op's own `kinkChoices` (0: the
//! specification's); ops without kinks ignore their entry. `nanPropagates` (PyTorch's): relu(NaN)
//! is NaN rather than +0 and its term there ct rather than 0 (x ≤ 0 is false), the abs term at a
//! NaN argument is ct·NaN rather than 0, and an unordered max/min pair gives ct to both arguments
//! rather than counting as a tie.
struct Conventions {
  std::array<std::uint8_t, kOpCount> kink{};
  bool nanPropagates = false;

  std::uint8_t kinkOf(OpKind op) const { return kink[static_cast<std::size_t>(op)]; }
  bool operator==(const Conventions&) const = default;
};

}  // namespace tc
