#pragma once
#include <fmt/format.h>

#include "core/ops/op_kind.h"
#include "core/tensor/shape.h"
#include "generators/expected_shapes.h"

namespace tc::gen {

template <class T>
std::optional<Shape> expectedShape(const Graph<T>& graph, const Node<T>& node) {
  std::vector<Shape> args;
  for (std::size_t a : node.args) args.push_back(graph.shapeAt(a));
  auto sameAsFirst = [&]() -> std::optional<Shape> { return args.at(0); };
  switch (node.op) {
    case OpKind::add: case OpKind::sub: case OpKind::mul: case OpKind::div: case OpKind::max: case OpKind::min:
    case OpKind::neg: case OpKind::square: case OpKind::scale: case OpKind::inv: case OpKind::relu:
    case OpKind::abs: case OpKind::clamp: case OpKind::exp: case OpKind::log: case OpKind::sqrt:
    case OpKind::tanh: case OpKind::sigmoid: case OpKind::softplus: case OpKind::sin: case OpKind::cos:
    case OpKind::detach: case OpKind::mask: case OpKind::softmax_last: case OpKind::log_softmax_last:
      return sameAsFirst();  // s → s
    case OpKind::sum: case OpKind::mean: case OpKind::dot: case OpKind::mse_loss:
      return Shape{};  // → []
    case OpKind::sum_axis: {  // x without the axis
      Shape out;
      for (std::size_t d = 0; d < args[0].size(); ++d)
        if (d != node.attrs.axis) out.push_back(args[0][d]);
      return out;
    }
    case OpKind::matmul:  // [m,k]×[k,n] → [m,n]; [m,k]×[k] → [m]
      if (args[0].size() != 2) return std::nullopt;
      return args[1].size() == 2 ? Shape{args[0][0], args[1][1]} : Shape{args[0][0]};
    case OpKind::transpose:  // [m,n] → [n,m]
      if (args[0].size() != 2) return std::nullopt;
      return Shape{args[0][1], args[0][0]};
    case OpKind::linear:  // W [m,k], x [k], b [m] → [m]
      if (args[0].empty()) return std::nullopt;
      return Shape{args[0][0]};
    case OpKind::reshape: case OpKind::broadcast: case OpKind::constant:
      return node.attrs.shape;
    case OpKind::concat0: {  // [m,…], [n,…] → [m+n,…]
      if (args[0].empty() || args[1].empty()) return std::nullopt;
      Shape out = args[0];
      out[0] = args[0][0] + args[1][0];
      return out;
    }
    case OpKind::slice0: {  // [n,…] → [len,…]
      if (args[0].empty()) return std::nullopt;
      Shape out = args[0];
      out[0] = node.attrs.len;
      return out;
    }
    case OpKind::gather0: {  // [n,…] → [r,…], r the index list's length
      auto list = graph.schema.indices.find(node.attrs.key);
      if (args[0].empty() || list == graph.schema.indices.end()) return std::nullopt;
      Shape out = args[0];
      out[0] = list->second.size();
      return out;
    }
    case OpKind::opaque:
      return std::nullopt;
  }
  return std::nullopt;
}

template <class T>
std::optional<std::string> shapeDisagreement(const Graph<T>& graph) {
  for (std::size_t k = 0; k < graph.nodes.size(); ++k) {
    const Node<T>& node = graph.nodes[k];
    std::optional<Shape> expected = expectedShape(graph, node);
    if (expected && *expected != node.shape)
      return fmt::format("node {} ({}): the op's shape rule gives {}, the op table says {}", graph.inputs.size() + k,
                         opName(node.op), formatShape(node.shape), formatShape(*expected));
  }
  return std::nullopt;
}

}  // namespace tc::gen
