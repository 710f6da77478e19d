"""Random case documents (docs/file-format.md) for cross-checking engines with tapecheck's reference.

Small graphs over small shapes, every node's arguments of the shapes its op needs, values small
exact rationals (or dyadic decimals, which every carrier reads exactly), a seed pack over a few
positions. Deterministic for a given random.Random.
"""

from __future__ import annotations

import random
from fractions import Fraction

EXACT_UNARY = ["neg", "square", "relu", "abs", "detach"]
EXACT_BINARY = ["add", "sub", "mul", "max", "min"]
STRUCTURAL = ["sum", "mean", "sum_axis", "dot", "matmul", "transpose", "linear", "reshape", "broadcast",
              "concat0", "slice0", "const", "mask", "gather0", "mse_loss", "scale", "clamp", "div", "inv"]
CLAMP_BOUNDS = [-2, -1.5, -1, -0.5, 0, 0.5, 1, 2]
TRANSCENDENTAL = ["exp", "sqrt", "tanh", "sigmoid", "softplus", "sin", "cos", "softmax_last",
                  "log_softmax_last", "log"]


def _value(rng: random.Random, dyadic: bool) -> str:
    if dyadic:
        return str(rng.choice([-2, -1.5, -1, -0.5, -0.25, 0, 0.25, 0.5, 1, 1.5, 2, 3]))
    return str(Fraction(rng.randint(-4, 4), rng.choice([1, 1, 2, 3])))


def _size(shape):
    n = 1
    for d in shape:
        n *= d
    return n


def _shape(rng: random.Random):
    return rng.choice([[], [1], [2], [3], [2, 2], [2, 3], [3, 2], [2, 1, 2]])


class _Builder:
    def __init__(self, rng: random.Random, dyadic: bool, ops: list):
        self.rng, self.dyadic, self.ops = rng, dyadic, ops
        self.shapes, self.nodes, self.data = [], [], {}

    def values(self, shape):
        return [_value(self.rng, self.dyadic) for _ in range(_size(shape))]

    def pick(self, want=None):
        """A position of the wanted shape (any when None), else None."""
        fits = [p for p, s in enumerate(self.shapes) if want is None or s == want]
        return self.rng.choice(fits) if fits else None

    def const(self, shape):
        self.nodes.append({"op": "const", "attrs": {"shape": shape, "values": self.values(shape)}, "shape": shape})
        self.shapes.append(shape)
        return len(self.shapes) - 1

    def pick_or_const(self, want):
        p = self.pick(want)
        return p if p is not None and self.rng.random() < 0.8 else self.const(want)

    def add(self, op, args, shape, attrs=None):
        node = {"op": op, "args": args, "shape": shape}
        if attrs:
            node["attrs"] = attrs
        self.nodes.append(node)
        self.shapes.append(shape)

    def node(self):
        rng = self.rng
        op = rng.choice(self.ops)
        x = self.pick()
        sx = self.shapes[x]
        if op in EXACT_UNARY or op in ("exp", "sqrt", "tanh", "sigmoid", "softplus", "sin", "cos", "inv", "log"):
            self.add(op, [x], sx)
        elif op in EXACT_BINARY or op == "div":
            self.add(op, [x, self.pick_or_const(sx)], sx)
        elif op == "mse_loss":
            self.add(op, [x, self.pick_or_const(sx)], [])
        elif op in ("sum", "mean"):
            self.add(op, [x], [])
        elif op == "scale":
            self.add(op, [x], sx, {"c": _value(rng, self.dyadic)})
        elif op == "clamp":
            lo, hi = sorted([rng.choice(CLAMP_BOUNDS), rng.choice(CLAMP_BOUNDS)])  # lo = hi too
            self.add(op, [x], sx, {"lo": str(lo), "hi": str(hi)})
        elif op == "sum_axis" and sx:
            axis = rng.randrange(len(sx))
            self.add(op, [x], sx[:axis] + sx[axis + 1:], {"axis": axis})
        elif op == "dot":
            n = rng.choice([1, 2, 3])
            self.add(op, [self.pick_or_const([n]), self.pick_or_const([n])], [])
        elif op == "matmul":
            m, k, n = rng.choice([1, 2, 3]), rng.choice([1, 2, 3]), rng.choice([1, 2])
            right = [k, n] if rng.random() < 0.6 else [k]
            self.add(op, [self.pick_or_const([m, k]), self.pick_or_const(right)], [m] + right[1:])
        elif op == "transpose" and len(sx) == 2:
            self.add(op, [x], [sx[1], sx[0]])
        elif op == "linear":
            m, k = rng.choice([1, 2, 3]), rng.choice([1, 2])
            self.add(op, [self.pick_or_const([m, k]), self.pick_or_const([k]), self.pick_or_const([m])], [m])
        elif op == "reshape":
            self.add(op, [x], [_size(sx)], {"shape": [_size(sx)]})
        elif op == "broadcast":
            target = [rng.choice([1, 2])] + sx
            self.add(op, [x], target, {"shape": target})
        elif op == "concat0" and sx:
            other = [rng.choice([1, 2])] + sx[1:]
            self.add(op, [x, self.pick_or_const(other)], [sx[0] + other[0]] + sx[1:])
        elif op == "slice0" and sx:
            start = rng.randrange(sx[0])
            length = rng.randint(1, sx[0] - start)
            self.add(op, [x], [length] + sx[1:], {"start": start, "len": length})
        elif op == "const":
            self.const(_shape(rng))
        elif op == "mask":
            key = f"m{len(self.data)}"
            self.data[key] = {"shape": sx, "values": [rng.choice(["0", "1", "-1/2", "2"]) for _ in range(_size(sx))]}
            self.add(op, [x], sx, {"key": key})
        elif op == "gather0" and sx:
            key = f"g{len(self.data)}"
            rows = [rng.randrange(sx[0]) for _ in range(rng.randint(1, 3))]
            self.data[key] = {"indices": rows}
            self.add(op, [x], [len(rows)] + sx[1:], {"key": key})
        elif op in ("softmax_last", "log_softmax_last") and sx:
            self.add(op, [x], sx)
        else:
            self.add("neg", [x], sx)


def random_case(rng: random.Random, ops: list, dyadic: bool = False, max_nodes: int = 6) -> dict:
    """A case document with inputs, nodes, data, values and a seed pack."""
    b = _Builder(rng, dyadic, ops)
    inputs = [_shape(rng) for _ in range(rng.randint(1, 3))]
    b.shapes.extend(inputs)
    for _ in range(rng.randint(1, max_nodes)):
        b.node()
    positions = len(b.shapes)
    seeded = rng.sample(range(positions), rng.randint(1, min(3, positions)))
    if positions - 1 not in seeded:
        seeded.append(positions - 1)
    document = {
        "tapecheck": 1,
        "inputs": [{"shape": s} for s in inputs],
        "nodes": b.nodes,
        "values": [b.values(s) for s in inputs],
        "output": positions - 1,
        "seeds": {str(p): b.values(b.shapes[p]) for p in seeded},
    }
    if b.data:
        document["data"] = b.data
    return document


def seed_pack(document: dict, shapes: list, zero: str = "0") -> list:
    """The full seed pack of a document with a "seeds" object, one value list per position."""
    seeds = document["seeds"]
    return [seeds.get(str(p), [zero] * _size(s)) for p, s in enumerate(shapes)]
