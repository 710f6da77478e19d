#pragma once
#include <cstdint>
#include <optional>
#include <string_view>

namespace tc {

//! Every op of the library (DESIGN section 2); `opaque` stands for any registered opaque program.
enum class OpKind : std::uint8_t {
  add, sub, mul, div, max, min,
  neg, square, scale, inv, relu, abs, clamp,
  exp, log, sqrt, tanh, sigmoid, softplus, sin, cos,
  sum, sum_axis, mean, dot, matmul, transpose, linear,
  reshape, broadcast, concat0, slice0, constant, detach, mask, gather0,
  mse_loss, softmax_last, log_softmax_last,
  opaque,
};

inline constexpr std::size_t kOpCount = static_cast<std::size_t>(OpKind::opaque) + 1;

//! The op's name as written in files ("add", "const", "opaque").
std::string_view opName(OpKind kind);
std::optional<OpKind> opByName(std::string_view name);

}  // namespace tc
