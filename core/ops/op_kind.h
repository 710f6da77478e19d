#pragma once
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>

#include "core/ops/op_list.h"

namespace tc {

//! Every op of the library (docs/semantics.md §2), in the order of core/ops/op_list.h; `opaque`
//! stands for any registered opaque program.
enum class OpKind : std::uint8_t {
#define TAPECHECK_OP_KIND(kind, Struct) kind,
  TAPECHECK_FOR_EACH_OP(TAPECHECK_OP_KIND)
#undef TAPECHECK_OP_KIND
};

inline constexpr std::size_t kOpCount = static_cast<std::size_t>(OpKind::opaque) + 1;

//! The op's name as written in files ("add", "const", "opaque"): its definition's `label`.
std::string_view opName(OpKind kind);
std::optional<OpKind> opByName(std::string_view name);

}  // namespace tc
