#include "core/ops/op_kind.h"

#include <array>

#include "core/ops/library.hpp"

namespace tc {
namespace {

constexpr std::array<std::string_view, kOpCount> kNames = [] {
  std::array<std::string_view, kOpCount> names{};
  for (std::size_t i = 0; i < kOpCount; ++i)
    names[i] = ops::visitOp(static_cast<OpKind>(i), [](auto op) { return decltype(op)::label; });
  return names;
}();

}  // namespace

std::string_view opName(OpKind kind) { return kNames[static_cast<std::size_t>(kind)]; }

std::optional<OpKind> opByName(std::string_view name) {
  for (std::size_t i = 0; i < kOpCount; ++i)
    if (kNames[i] == name) return static_cast<OpKind>(i);
  return std::nullopt;
}

}  // namespace tc
