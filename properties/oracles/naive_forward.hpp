#pragma once
// naive::forward: which naive definition a node runs. Only the op's kind, its attributes and the
// graph's data decide; nothing of core/ops beyond the names of the kinds (op_kind.h).
#include "properties/oracles/naive_forward.h"

namespace tc::props::naive {

template <class T>
Result<Tensor<T>> forward(const Node<T>& node, Args<T> args, const DataSchema& schema, const Data<T>& data,
                          const Conventions& conventions) {
  constexpr Capabilities caps = Carrier<T>::caps;
  const Attrs<T>& attrs = node.attrs;
  auto arg = [&](std::size_t i) -> const Tensor<T>& { return *args[i]; };
  auto lacks = [&]() -> Result<Tensor<T>> {
    return fail(fmt::format("{} is not an op of the {} carrier", opName(node.op), Carrier<T>::name));
  };
  switch (node.op) {
    case OpKind::add: return add(arg(0), arg(1));
    case OpKind::sub: return sub(arg(0), arg(1));
    case OpKind::mul: return mul(arg(0), arg(1));
    case OpKind::div:
      if constexpr (caps.field) return div(arg(0), arg(1));
      else return lacks();
    case OpKind::max:
      if constexpr (caps.ordered && caps.field) return max(arg(0), arg(1));
      else return lacks();
    case OpKind::min:
      if constexpr (caps.ordered && caps.field) return min(arg(0), arg(1));
      else return lacks();
    case OpKind::neg: return neg(arg(0));
    case OpKind::square: return square(arg(0));
    case OpKind::scale: return scale(arg(0), *attrs.c);
    case OpKind::inv:
      if constexpr (caps.field) return inv(arg(0));
      else return lacks();
    case OpKind::relu:
      if constexpr (caps.ordered) return relu(arg(0), conventions.nanPropagates);
      else return lacks();
    case OpKind::abs:
      if constexpr (caps.ordered) return abs(arg(0));
      else return lacks();
    case OpKind::clamp:
      if constexpr (caps.ordered) return clamp(arg(0), *attrs.lo, *attrs.hi);
      else return lacks();
    case OpKind::exp:
    case OpKind::log:
    case OpKind::sqrt:
    case OpKind::tanh:
    case OpKind::sigmoid:
    case OpKind::softplus:
    case OpKind::sin:
    case OpKind::cos:
    case OpKind::softmax_last:
    case OpKind::log_softmax_last:
      if constexpr (caps.transcendental) {
        switch (node.op) {
          case OpKind::exp: return exp(arg(0));
          case OpKind::log: return log(arg(0));
          case OpKind::sqrt: return sqrt(arg(0));
          case OpKind::tanh: return tanh(arg(0));
          case OpKind::sigmoid: return sigmoid(arg(0));
          case OpKind::softplus: return softplus(arg(0));
          case OpKind::sin: return sin(arg(0));
          case OpKind::cos: return cos(arg(0));
          case OpKind::softmax_last: return softmaxLast(arg(0));
          default: return logSoftmaxLast(arg(0));
        }
      } else {
        return lacks();
      }
    case OpKind::sum: return sum(arg(0));
    case OpKind::sum_axis: return sumAxis(arg(0), attrs.axis);
    case OpKind::mean:
      if constexpr (caps.field) return mean(arg(0));
      else return lacks();
    case OpKind::dot: return dot(arg(0), arg(1));
    case OpKind::matmul: return matmul(arg(0), arg(1));
    case OpKind::transpose: return transpose(arg(0));
    case OpKind::linear: return linear(arg(0), arg(1), arg(2));
    case OpKind::reshape: return reshape(arg(0), attrs.shape);
    case OpKind::broadcast: return broadcast(arg(0), attrs.shape);
    case OpKind::concat0: return concat0(arg(0), arg(1));
    case OpKind::slice0: return slice0(arg(0), attrs.start, attrs.len);
    case OpKind::constant: return constant(attrs.shape, attrs.values);
    case OpKind::detach: return detach(arg(0));
    case OpKind::mask: {
      auto m = data.find(attrs.key);
      if (m == data.end()) return fail(fmt::format("no data tensor named '{}'", attrs.key));
      return mask(arg(0), m->second);
    }
    case OpKind::gather0: {
      auto rows = schema.indices.find(attrs.key);
      if (rows == schema.indices.end()) return fail(fmt::format("no index list named '{}'", attrs.key));
      return gather0(arg(0), rows->second);
    }
    case OpKind::mse_loss:
      if constexpr (caps.field) return mseLoss(arg(0), arg(1));
      else return lacks();
    case OpKind::opaque: return fail("an opaque program has no naive definition");
  }
  return fail("an op the naive forward does not know");
}

}  // namespace tc::props::naive
