"""Your own PyTorch op, checked by tapecheck: a `torch.autograd.Function` with its own backward, put in
place of PyTorch's tanh through the adapter's `--ops` hook:

    tapecheck run --engine-cmd "/usr/bin/python3 adapters/python/torch_engine.py --ops examples/python/my_torch_ops.py"

With MY_TANH_BUG=1 in the environment its backward makes a classic mistake — the derivative taken
from the input, 1 - x², instead of the output, 1 - y² — which the engine verdict catches.
"""
import os

import torch

BUG = os.environ.get("MY_TANH_BUG") == "1"


class MyTanh(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        y = torch.tanh(x)
        ctx.save_for_backward(x, y)
        return y

    @staticmethod
    def backward(ctx, grad):
        x, y = ctx.saved_tensors
        return grad * (1 - x * x) if BUG else grad * (1 - y) * (1 + y)


# tapecheck op name -> fn(args, attrs, shape, data): the adapter calls it for every tanh node.
TAPECHECK_OPS = {"tanh": lambda args, attrs, shape, data: MyTanh.apply(args[0])}
