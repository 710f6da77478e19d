#pragma once
// The op library: maps an OpKind to its one definition.
#include "core/ops/structural.hpp"

namespace tc::ops {

//! Calls `f(Op{})` with the definition struct of `kind`.
template <class F>
decltype(auto) visitOp(OpKind kind, F&& f) {
  switch (kind) {
    case OpKind::add: return f(Add{});
    case OpKind::sub: return f(Sub{});
    case OpKind::mul: return f(Mul{});
    case OpKind::div: return f(Div{});
    case OpKind::max: return f(Max{});
    case OpKind::min: return f(Min{});
    case OpKind::neg: return f(Neg{});
    case OpKind::square: return f(Square{});
    case OpKind::scale: return f(Scale{});
    case OpKind::inv: return f(Inv{});
    case OpKind::relu: return f(Relu{});
    case OpKind::abs: return f(Abs{});
    case OpKind::clamp: return f(Clamp{});
    case OpKind::exp: return f(Exp{});
    case OpKind::log: return f(Log{});
    case OpKind::sqrt: return f(Sqrt{});
    case OpKind::tanh: return f(Tanh{});
    case OpKind::sigmoid: return f(Sigmoid{});
    case OpKind::softplus: return f(Softplus{});
    case OpKind::sin: return f(Sin{});
    case OpKind::cos: return f(Cos{});
    case OpKind::sum: return f(Sum{});
    case OpKind::sum_axis: return f(SumAxis{});
    case OpKind::mean: return f(Mean{});
    case OpKind::dot: return f(Dot{});
    case OpKind::matmul: return f(Matmul{});
    case OpKind::transpose: return f(Transpose{});
    case OpKind::linear: return f(Linear{});
    case OpKind::reshape: return f(Reshape{});
    case OpKind::broadcast: return f(Broadcast{});
    case OpKind::concat0: return f(Concat0{});
    case OpKind::slice0: return f(Slice0{});
    case OpKind::constant: return f(Constant{});
    case OpKind::detach: return f(Detach{});
    case OpKind::mask: return f(Mask{});
    case OpKind::gather0: return f(Gather0{});
    case OpKind::mse_loss: return f(MseLoss{});
    case OpKind::softmax_last: return f(SoftmaxLast{});
    case OpKind::log_softmax_last: return f(LogSoftmaxLast{});
    case OpKind::opaque: return f(Opaque{});
  }
  assert(false && "unknown OpKind");
  return f(Opaque{});
}

}  // namespace tc::ops
