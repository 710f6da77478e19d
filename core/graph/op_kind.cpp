#include "core/graph/op_kind.h"

#include <array>

namespace tc {
namespace {

constexpr std::array<std::string_view, kOpCount> kNames = {
    "add", "sub", "mul", "div", "max", "min",
    "neg", "square", "scale", "inv", "relu", "abs", "clamp",
    "exp", "log", "sqrt", "tanh", "sigmoid", "softplus", "sin", "cos",
    "sum", "sum_axis", "mean", "dot", "matmul", "transpose", "linear",
    "reshape", "broadcast", "concat0", "slice0", "const", "detach", "mask", "gather0",
    "mse_loss", "softmax_last", "log_softmax_last",
    "opaque",
};

}  // namespace

std::string_view opName(OpKind kind) { return kNames[static_cast<std::size_t>(kind)]; }

std::optional<OpKind> opByName(std::string_view name) {
  for (std::size_t i = 0; i < kOpCount; ++i)
    if (kNames[i] == name) return static_cast<OpKind>(i);
  return std::nullopt;
}

}  // namespace tc
