#pragma once
// The op registry: one line per op, `X(kind, Struct)`. Everything that enumerates ops — the
// OpKind enum, names in files, dispatch to an op's definition — is generated from this list, so
// adding an op means writing its struct (core/ops/README.md) and adding its line here. The order
// fixes OpKind's values; `opaque`, which stands for every registered opaque program, stays last.
#define TAPECHECK_FOR_EACH_OP(X)                                                                       \
  X(add, Add) X(sub, Sub) X(mul, Mul) X(div, Div) X(max, Max) X(min, Min)                               \
  X(neg, Neg) X(square, Square) X(scale, Scale) X(inv, Inv) X(relu, Relu) X(abs, Abs) X(clamp, Clamp)   \
  X(exp, Exp) X(log, Log) X(sqrt, Sqrt) X(tanh, Tanh) X(sigmoid, Sigmoid) X(softplus, Softplus)         \
  X(sin, Sin) X(cos, Cos)                                                                               \
  X(sum, Sum) X(sum_axis, SumAxis) X(mean, Mean) X(dot, Dot) X(matmul, Matmul) X(transpose, Transpose) \
  X(linear, Linear)                                                                                     \
  X(reshape, Reshape) X(broadcast, Broadcast) X(concat0, Concat0) X(slice0, Slice0)                     \
  X(constant, Constant) X(detach, Detach) X(mask, Mask) X(gather0, Gather0)                             \
  X(mse_loss, MseLoss) X(softmax_last, SoftmaxLast) X(log_softmax_last, LogSoftmaxLast)                 \
  X(opaque, Opaque)
