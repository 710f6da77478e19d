"""PyTorch checked by tapecheck through its engine protocol, on `double` (float64) and `float` (float32).

Run it as tapecheck would:  /usr/bin/python3 adapters/python/torch_engine.py [--ops FILE ...]

Your own ops: `--ops FILE` loads a Python file whose `TAPECHECK_OPS` maps tapecheck op names to
functions `fn(args, attrs, shape, data)` returning a torch tensor — your `torch.autograd.Function`'s
`apply`, say — which replace this adapter's for those ops, so that tapecheck checks your forward and
backward (examples/python/my_torch_ops.py). From Python: `serve(TorchEngine(ops={...}))`.

Each position (input or node) is one distinct torch tensor; inputs and the outputs of `const` and
`detach` are leaves with requires_grad, because they are positions that receive cotangent. A
pass is one `torch.autograd.grad` call from the seeded positions to every position.
"""

from __future__ import annotations

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import torch  # noqa: E402
import torch.nn.functional as F  # noqa: E402

from tapecheck_engine import DomainError, Engine, Unsupported, serve  # noqa: E402

torch.set_num_threads(1)  # one thread: runs repeat bit for bit, and many engines run side by side

DTYPES = {"double": torch.float64, "float": torch.float32}

# Every op of docs/semantics.md §2.1 except `opaque`: its entries (const3, twice) are tapecheck's
# own test programs from a C++ registry, with no PyTorch counterpart to check.
OPS = [
    "add", "sub", "mul", "div", "max", "min", "neg", "square", "scale", "inv", "relu", "abs", "clamp",
    "exp", "log", "sqrt", "tanh", "sigmoid", "softplus", "sin", "cos",
    "sum", "sum_axis", "mean", "dot", "matmul", "transpose", "linear",
    "reshape", "broadcast", "concat0", "slice0", "const", "detach", "mask", "gather0",
    "mse_loss", "softmax_last", "log_softmax_last",
]

# The conventions below are what `tapecheck run --survey` measured on PyTorch 1.13 (docs/engines.md, "PyTorch,
# checked in CI"; tests/engines/torch_survey.sh reproduces the table): under
# the specification's conventions the survey fails at relu (relu(NaN) = NaN, relu(-0) = -0), abs
# (abs'(0) = ct*0, abs'(NaN) = ct*0 even where NaN otherwise propagates: ct*sgn(x), sgn(NaN) = 0)
# and max/min (an unordered pair gives ct to both); under these it fails only by rounding.
PROFILE = {
    "name": "torch",
    "carriers": ["double", "float"],
    "ops": OPS,
    "single_output": "ancestors",  # autograd.grad from the output visits only its ancestors
    "zero_sign": "unspecified",
    "kinks": {"relu": "zero", "abs": "sign", "clamp": "pass", "max": "split", "min": "split"},
    "nan": "propagate",
    "kink_conventions_declared": True,
    # Measured on PyTorch 1.13 (docs/findings.md): sigmoid is 1/(1+exp(-x)), and exp(-x) overflows
    # to inf, so the result is +0 where the exact value is a subnormal or a tiny normal. The boundary
    # is the first argument the vectorised kernel (tensors of 8 and more elements) gives a nonzero
    # result at; the scalar kernel's lies a few ulps lower, and between them its values are within
    # budget, which a deviation also allows.
    "deviations": [
        {"op": "sigmoid", "carriers": ["double"], "below": "-709.7827111495575", "gives": "0",
         "why": "exp(-x) overflows to inf, so 1/(1+exp(-x)) is 0"},
        {"op": "sigmoid", "carriers": ["float"], "below": "-88.72283172607422", "gives": "0",
         "why": "exp(-x) overflows to inf, so 1/(1+exp(-x)) is 0"},
        {"op": "softplus", "carriers": ["double"], "above": "20", "gives": "x",
         "why": "softplus's threshold (20): x itself, and the gradient ct, where e^-x is still above half an ulp of x"},
    ],
}


def _elementwise(fn):
    return lambda args, attrs, shape, data: fn(args[0])


def _log(args, attrs, shape, data):
    # The specification's domain check (docs/semantics.md §1.10): tapecheck's reference fails here,
    # where torch.log would give NaN or -inf, so both sides agree that the case has no values.
    if not bool((args[0] > 0).all()):
        raise DomainError("input contains values <= 0 or NaN")
    return torch.log(args[0])


def _linear(args, attrs, shape, data):
    w, x, b = args
    return torch.mv(w, x) + b  # the fold, then the bias (docs/semantics.md §2.2)


def _mask(args, attrs, shape, data):
    m = data[attrs["key"]]
    x = args[0]
    return x * torch.tensor(m.values, dtype=x.dtype).reshape(m.shape)  # m is data: no gradient


def _gather0(args, attrs, shape, data):
    return args[0].index_select(0, torch.tensor(data[attrs["key"]], dtype=torch.long))


# op -> fn(args, attrs, shape, data); const and detach are leaves, built in TorchEngine.apply.
OP_TABLE = {
    "add": lambda a, at, s, d: a[0] + a[1],
    "sub": lambda a, at, s, d: a[0] - a[1],
    "mul": lambda a, at, s, d: a[0] * a[1],
    "div": lambda a, at, s, d: a[0] / a[1],  # IEEE on both carriers: 1/0 = inf, no domain check
    "max": lambda a, at, s, d: torch.maximum(a[0], a[1]),
    "min": lambda a, at, s, d: torch.minimum(a[0], a[1]),
    "neg": _elementwise(torch.neg),
    "square": _elementwise(torch.square),
    "scale": lambda a, at, s, d: at["c"] * a[0],
    "inv": _elementwise(torch.reciprocal),
    "relu": _elementwise(torch.relu),
    "abs": _elementwise(torch.abs),
    "clamp": lambda a, at, s, d: torch.clamp(a[0], at["lo"], at["hi"]),
    "exp": _elementwise(torch.exp),
    "log": _log,
    "sqrt": _elementwise(torch.sqrt),
    "tanh": _elementwise(torch.tanh),
    "sigmoid": _elementwise(torch.sigmoid),
    # F.softplus returns x itself where x > 20 (its threshold), with gradient ct, where the
    # specification computes x + log1p(exp(-x)) with gradient ct * sigmoid(x) (at x = 25 on
    # double: 25 vs 25.000000000013888, and 1 vs 0.999999999986112); a real difference the survey
    # shows, kept as PyTorch has it.
    "softplus": _elementwise(F.softplus),
    "sin": _elementwise(torch.sin),
    "cos": _elementwise(torch.cos),
    "sum": lambda a, at, s, d: a[0].sum(),
    "sum_axis": lambda a, at, s, d: a[0].sum(dim=at["axis"]),
    "mean": lambda a, at, s, d: a[0].mean(),
    "dot": lambda a, at, s, d: torch.dot(a[0], a[1]),
    "matmul": lambda a, at, s, d: torch.matmul(a[0], a[1]),  # [m,k]x[k,n] or [m,k]x[k]
    "transpose": lambda a, at, s, d: a[0].t(),
    "linear": _linear,
    "reshape": lambda a, at, s, d: a[0].reshape(at["shape"]),
    "broadcast": lambda a, at, s, d: a[0].expand(at["shape"]),  # x's shape is a suffix: numpy-style
    "concat0": lambda a, at, s, d: torch.cat([a[0], a[1]], 0),
    "slice0": lambda a, at, s, d: a[0].narrow(0, at["start"], at["len"]),
    "mask": _mask,
    "gather0": _gather0,
    "mse_loss": lambda a, at, s, d: F.mse_loss(a[0], a[1]),  # mean reduction
    "softmax_last": lambda a, at, s, d: torch.softmax(a[0], dim=-1),
    "log_softmax_last": lambda a, at, s, d: torch.log_softmax(a[0], dim=-1),
}


class TorchEngine(Engine):
    profile = PROFILE
    policy = "values"

    def __init__(self, ops=None):
        """`ops`: op name -> fn(args, attrs, shape, data), over OP_TABLE's (a user's own ops)."""
        unknown = sorted(set(ops or {}) - set(OPS))
        if unknown:
            raise ValueError(f"no tapecheck op named {', '.join(unknown)}; the ops are: {', '.join(OPS)}")
        self.ops = {**OP_TABLE, **(ops or {})}

    def warm_up(self):
        """PyTorch's first backward pass initializes its autograd engine (~0.1 s): done once here, in
        the process the client forks its workers from, not again in each worker. PyTorch's own ops
        only: never a user's (--ops), which may be the ones that crash."""
        for dtype in DTYPES.values():
            x = torch.ones(2, dtype=dtype, requires_grad=True)
            torch.autograd.grad([(x * x).tanh().sum()], [x], [torch.ones((), dtype=dtype)])

    def leaf(self, carrier, shape, values):
        return torch.tensor(values, dtype=DTYPES[carrier]).reshape(shape).requires_grad_()

    def apply(self, op, args, attrs, shape, data):
        if op == "const":
            return self.leaf(self.carrier, attrs["shape"], attrs["values"])
        if op == "detach":
            return args[0].detach().requires_grad_()  # a new leaf: receives cotangent, passes none on
        fn = self.ops.get(op)
        if fn is None:
            raise Unsupported(op)
        out = fn(args, attrs, shape, data)
        # Every position must be its own autograd node, or a seed given to one would reach the
        # other. No op above returns its argument itself in PyTorch 1.13 (reshape and expand to
        # the same shape, or a full narrow, give views), but a later version may.
        if any(out is a for a in args):
            out = out.view_as(out)
        return out

    def values(self, tensor):
        return tensor.detach().double().reshape(-1).tolist()

    def backward(self, tensors, seeds):
        """Dense pass (every position seeded) or single-output pass (one seeded): autograd.grad
        includes each position's own seed in its gradient once, as the dense semantics does
        (tests/python/test_torch_engine.py checks it)."""
        result = [None] * len(tensors)  # None: nothing reached the position, zeros (+0)
        outputs, grad_outputs = [], []
        for position, seed in seeds.items():
            t = tensors[position]
            if t.requires_grad:
                outputs.append(t)
                grad_outputs.append(torch.tensor(seed, dtype=t.dtype).reshape(t.shape))
            else:
                result[position] = seed  # nothing can flow into it: its gradient is its seed
        wanted = [p for p, t in enumerate(tensors) if t.requires_grad]
        if not outputs or not wanted:
            return result
        grads = torch.autograd.grad(outputs, [tensors[p] for p in wanted], grad_outputs,
                                    retain_graph=True, allow_unused=True)
        for p, g in zip(wanted, grads):
            if g is not None:
                result[p] = g.detach().double().reshape(-1).tolist()
        return result


def load_ops(path):
    """The TAPECHECK_OPS of the Python file at `path`."""
    import importlib.util
    spec = importlib.util.spec_from_file_location(os.path.splitext(os.path.basename(path))[0], path)
    if spec is None or spec.loader is None:
        raise SystemExit(f"torch_engine: --ops {path}: not a Python file")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    ops = getattr(module, "TAPECHECK_OPS", None)
    if not isinstance(ops, dict):
        raise SystemExit(f"torch_engine: --ops {path}: defines no TAPECHECK_OPS dictionary")
    return ops


def main(argv=None):
    import argparse
    parser = argparse.ArgumentParser(description="PyTorch as a tapecheck engine (docs/engine-protocol.md)")
    parser.add_argument("--ops", action="append", default=[], metavar="FILE",
                        help="a Python file whose TAPECHECK_OPS replaces this adapter's functions for those ops")
    options = parser.parse_args(argv)
    ops = {}
    for path in options.ops:
        ops.update(load_ops(path))
    try:
        engine = TorchEngine(ops)
    except ValueError as error:
        raise SystemExit(f"torch_engine: {error}")
    serve(engine)


if __name__ == "__main__":
    main()
