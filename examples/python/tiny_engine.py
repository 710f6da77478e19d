"""The smallest engine tapecheck can check: four ops, a tape, and the mapping to tapecheck's ops.

    tapecheck run --engine-cmd "/usr/bin/python3 examples/python/tiny_engine.py" --carrier rational

It is the example of the README's quick start and of docs/engines.md ("Step by step, in any language"): values are flat lists of Python numbers (Fraction
on the rational carrier, float on double), every op appends its backward step to a tape, and the
backward pass runs the tape in reverse.
"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "adapters", "python"))
from tapecheck_engine import Engine, Unsupported, serve  # noqa: E402


def zero(like):
    """The zero of a value's type: Fraction(0) on rationals, +0.0 on doubles."""
    return type(like)(0)


class Var:
    """A tensor: flat values, their gradients, and the step that sends its gradient to its arguments."""

    def __init__(self, values, args=(), step=None):
        self.values, self.args, self.step = values, args, step


class TinyEngine(Engine):
    profile = {"name": "tiny", "carriers": ["rational", "double"], "ops": ["add", "mul", "relu", "sum"],
               "single_output": "support", "zero_sign": "unspecified"}
    policy = "values"

    def leaf(self, carrier, shape, values):
        return Var(list(values))

    def apply(self, op, args, attrs, shape, data):
        if op == "add":
            a, b = args
            return Var([x + y for x, y in zip(a.values, b.values)], args, lambda g: [g, g])
        if op == "mul":
            a, b = args
            return Var([x * y for x, y in zip(a.values, b.values)], args,
                       lambda g: [[gi * y for gi, y in zip(g, b.values)], [gi * x for gi, x in zip(g, a.values)]])
        if op == "relu":
            (a,) = args
            return Var([x if x > 0 else zero(x) for x in a.values], args,
                       lambda g: [[gi if x > 0 else zero(gi) for gi, x in zip(g, a.values)]])
        if op == "sum":
            (a,) = args
            return Var([sum(a.values, zero(a.values[0]))], args, lambda g: [g * len(a.values)])
        raise Unsupported(op)

    def values(self, tensor):
        return tensor.values

    def backward(self, tensors, seeds):
        grads = {id(t): [zero(v) for v in t.values] for t in tensors}
        for p, seed in seeds.items():
            grads[id(tensors[p])] = [g + s for g, s in zip(grads[id(tensors[p])], seed)]
        for t in reversed(tensors):  # positions come in creation order: reverse is a valid order
            if t.step is None:
                continue
            for arg, contribution in zip(t.args, t.step(grads[id(t)])):
                grads[id(arg)] = [g + c for g, c in zip(grads[id(arg)], contribution)]
        return [grads[id(t)] for t in tensors]


if __name__ == "__main__":
    serve(TinyEngine())
