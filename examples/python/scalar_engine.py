"""A small reverse-mode engine over Python numbers, checked by tapecheck through its protocol.

micrograd-style: every scalar is a `Value` with `data`, `grad`, its children and a `_backward`
closure that adds its share of `grad` into its children's; a tensor is a shape plus a flat
row-major list of Values. On the `rational` carrier the numbers are fractions.Fraction, so the
engine is checked exactly; on `double` they are floats with IEEE semantics (Python raises where
IEEE gives inf or NaN, so the few places that can hit that go through `Ieee`).

Run it as tapecheck would:  /usr/bin/python3 examples/python/scalar_engine.py [--bug]
`--bug` plants the classic micrograd fault: add's backward assigns (`=`) its cotangent to its
arguments instead of accumulating it (`+=`), so add(x, x) gives x the gradient 1 instead of 2 and
a value used twice loses what it received before.
"""

from __future__ import annotations

import itertools
import math
import os
import sys
from fractions import Fraction

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "adapters", "python"))

from tapecheck_engine import DomainError, Engine, Unsupported, serve  # noqa: E402

EXACT_OPS = [
    "add", "sub", "mul", "div", "max", "min", "neg", "square", "scale", "inv", "relu", "abs", "clamp",
    "sum", "sum_axis", "mean", "dot", "matmul", "transpose", "linear", "reshape", "broadcast",
    "concat0", "slice0", "const", "detach", "mask", "gather0", "mse_loss",
]
TRANSCENDENTAL_OPS = [
    "exp", "log", "sqrt", "tanh", "sigmoid", "softplus", "sin", "cos", "softmax_last", "log_softmax_last",
]

# Policy "values" and zero_sign "unspecified": on double this engine differs from the specification
# in the sign of zero (it never adds the dense pass's "+ 0" from nodes that do not use a position,
# so a -0 seed stays -0). It may also round differently where a value reaches a position along
# several edges of one node that are not one scalar op's repeated argument (broadcast copies,
# gather0 repeats, matmul(a, a)): each Value adds its share into its child on its own, in reverse
# creation order, where the specification sums the node's terms first. Repeated arguments of one
# scalar op (add(x, x), mul(x, x), dot(a, a)) do form their local sum first, as the specification
# does. On rational every order gives the same value, so there it matches exactly. Its kink and
# NaN conventions are the specification's.
PROFILE = {
    "name": "scalar",
    "carriers": ["rational", "double"],
    "ops": {"rational": EXACT_OPS, "double": EXACT_OPS + TRANSCENDENTAL_OPS},
    "single_output": "ancestors",
    "zero_sign": "unspecified",
    "kinks": {"relu": "zero", "abs": "zero", "clamp": "pass", "max": "split", "min": "split"},
    "nan": "spec",
    "kink_conventions_declared": True,
}


class Value:
    """One scalar of the graph, with the gradient it accumulates in a backward pass."""

    __slots__ = ("data", "grad", "_prev", "_backward", "_serial")
    _serials = itertools.count()

    def __init__(self, data, prev=()):
        self.data = data
        self.grad = 0
        self._prev = prev
        self._backward = _nothing
        self._serial = next(Value._serials)  # creation order is a topological order


def _nothing():
    pass


class Tensor:
    """A shape and its Values, flat and row-major."""

    __slots__ = ("shape", "values")

    def __init__(self, shape, values):
        self.shape = list(shape)
        self.values = values


def topological_order(roots):
    """Every Value the roots depend on (themselves included), children before parents."""
    seen, stack = set(), list(roots)
    while stack:
        v = stack.pop()
        if v not in seen:
            seen.add(v)
            stack.extend(v._prev)
    return sorted(seen, key=lambda v: v._serial)


class Exact:
    """Arithmetic of the rational carrier: Python's is already exact."""
    zero = Fraction(0)

    @staticmethod
    def div(a, b):
        return a / b


class Ieee:
    """Arithmetic of the double carrier where Python raises instead of giving IEEE's inf or NaN."""
    zero = 0.0

    @staticmethod
    def div(a, b):
        if b != 0:
            return a / b
        if a != a or a == 0:
            return math.nan
        return math.copysign(math.inf, a) * math.copysign(1.0, b)

    @staticmethod
    def exp(x):
        try:
            return math.exp(x)
        except OverflowError:
            return math.inf

    @staticmethod
    def log(x):
        return math.log(x)  # the domain check keeps x > 0

    @staticmethod
    def log1p(x):
        return math.log1p(x)  # only called on exp(...) >= 0

    @staticmethod
    def sqrt(x):
        return math.sqrt(x) if x >= 0 or x != x else math.nan

    @staticmethod
    def sin(x):
        return math.sin(x) if not math.isinf(x) else math.nan

    @staticmethod
    def cos(x):
        return math.cos(x) if not math.isinf(x) else math.nan

    @staticmethod
    def tanh(x):
        return math.tanh(x)


def _strides(shape):
    """How far apart, in the flat row-major list, neighbours along each axis are."""
    strides, step = [], 1
    for dim in reversed(shape):
        strides.append(step)
        step *= dim
    return list(reversed(strides))


class ScalarEngine(Engine):
    profile = PROFILE
    policy = "values"

    def __init__(self, bug=False):
        self.bug = bug

    @property
    def num(self):
        """The arithmetic of the current request's carrier (set by the library)."""
        return Ieee if self.carrier == "double" else Exact

    # -- the protocol's four calls ------------------------------------------------------------

    def leaf(self, carrier, shape, values):
        return Tensor(shape, [Value(v) for v in values])

    def apply(self, op, args, attrs, shape, data):
        method = getattr(self, "op_" + op, None)
        if method is None:
            raise Unsupported(op)
        return method(args, attrs, shape, data)

    def values(self, tensor):
        return [v.data for v in tensor.values]

    def backward(self, tensors, seeds):
        """The dense pass when every position is seeded; with one seed, only its ancestors run."""
        zero = self.num.zero
        everything = topological_order(v for t in tensors for v in t.values)
        for v in everything:
            v.grad = zero
        roots = []
        for position, seed in seeds.items():
            for v, s in zip(tensors[position].values, seed):
                v.grad = s
            roots.extend(tensors[position].values)
        for v in reversed(topological_order(roots)):
            v._backward()
        return [[v.grad for v in t.values] for t in tensors]

    # -- building blocks ----------------------------------------------------------------------

    def _unary(self, x, forward, term):
        """Elementwise: out = forward(x); x.grad += term(x, out, out.grad)."""
        values = []
        for xi in x.values:
            out = Value(forward(xi.data), (xi,))
            out._backward = _accumulate_unary(xi, out, term)
            values.append(out)
        return Tensor(x.shape, values)

    def _binary(self, a, b, forward, term_a, term_b):
        """Elementwise: out = forward(a, b); each argument's grad += its term."""
        values = []
        for ai, bi in zip(a.values, b.values):
            out = Value(forward(ai.data, bi.data), (ai, bi))
            out._backward = _accumulate_binary(ai, bi, out, term_a, term_b)
            values.append(out)
        return Tensor(a.shape, values)

    def _copies(self, shape, sources):
        """A new Value per element, copying `sources` (structural ops): every position keeps its
        own Values, so seeds and gradients never mix between positions."""
        values = []
        for src in sources:
            out = Value(src.data, (src,))
            out._backward = _pass_through(src, out)
            values.append(out)
        return Tensor(shape, values)

    def _reduction(self, children, data, backward_of):
        """One Value computed from many (a fold); backward_of(out) makes its backward closure."""
        out = Value(data, tuple(children))
        out._backward = backward_of(out)
        return out

    # -- elementwise ops (docs/semantics.md §2.1, §2.2) --------------------------------------------

    def op_add(self, args, attrs, shape, data):
        a, b = args
        values = []
        for ai, bi in zip(a.values, b.values):
            out = Value(ai.data + bi.data, (ai, bi))
            out._backward = self._add_backward(ai, bi, out)
            values.append(out)
        return Tensor(a.shape, values)

    def _add_backward(self, a, b, out):
        if self.bug:
            def backward():
                a.grad = out.grad  # the planted fault: overwrites what a already received
                b.grad = out.grad
        elif a is b:
            def backward():
                a.grad += out.grad + out.grad  # a repeated argument: its local sum first
        else:
            def backward():
                a.grad += out.grad
                b.grad += out.grad
        return backward

    def op_sub(self, args, attrs, shape, data):
        return self._binary(*args, lambda a, b: a - b, lambda a, b, y, g: g, lambda a, b, y, g: -g)

    def op_mul(self, args, attrs, shape, data):
        return self._binary(*args, lambda a, b: a * b, lambda a, b, y, g: g * b, lambda a, b, y, g: g * a)

    def op_div(self, args, attrs, shape, data):
        div = self.num.div
        if self.num is Exact and any(v.data == 0 for v in args[1].values):
            raise DomainError("divisor contains 0")
        return self._binary(*args, div, lambda a, b, y, g: div(g, b), lambda a, b, y, g: -div(g * a, b * b))

    def _select(self, args, wins):
        """max (wins = >) and min (wins = <): the winner gets ct; a tie or an unordered (NaN)
        pair gives ct/2 to each."""
        zero = self.num.zero

        def forward(a, b):
            if wins(a, b):
                return a
            if wins(b, a):
                return b
            return a if a == b else math.nan

        def share(mine, other, g):
            if wins(mine, other):
                return g
            if wins(other, mine):
                return zero
            return g / 2

        return self._binary(*args, forward, lambda a, b, y, g: share(a, b, g), lambda a, b, y, g: share(b, a, g))

    def op_max(self, args, attrs, shape, data):
        return self._select(args, lambda a, b: a > b)

    def op_min(self, args, attrs, shape, data):
        return self._select(args, lambda a, b: a < b)

    def op_neg(self, args, attrs, shape, data):
        return self._unary(args[0], lambda x: -x, lambda x, y, g: -g)

    def op_square(self, args, attrs, shape, data):
        return self._unary(args[0], lambda x: x * x, lambda x, y, g: (2 * x) * g)

    def op_scale(self, args, attrs, shape, data):
        c = attrs["c"]
        return self._unary(args[0], lambda x: c * x, lambda x, y, g: c * g)

    def op_inv(self, args, attrs, shape, data):
        div = self.num.div
        if self.num is Exact and any(v.data == 0 for v in args[0].values):
            raise DomainError("input contains 0")
        return self._unary(args[0], lambda x: div(1, x), lambda x, y, g: -div(g, x * x))

    def op_relu(self, args, attrs, shape, data):
        zero = self.num.zero  # relu(-0) = relu(NaN) = +0, and the term is +0 where x <= 0
        return self._unary(args[0], lambda x: x if x > 0 else zero, lambda x, y, g: g if x > 0 else zero)

    def op_abs(self, args, attrs, shape, data):
        zero = self.num.zero
        forward = math.fabs if self.num is Ieee else abs  # fabs clears the sign bit, NaN's too

        def term(x, y, g):
            if x > 0:
                return g
            if x < 0:
                return -g
            return zero

        return self._unary(args[0], forward, term)

    def op_clamp(self, args, attrs, shape, data):
        lo, hi, zero = attrs["lo"], attrs["hi"], self.num.zero
        return self._unary(args[0], lambda x: lo if x < lo else (hi if x > hi else x),
                           lambda x, y, g: g if lo <= x <= hi else zero)

    def op_exp(self, args, attrs, shape, data):
        return self._unary(args[0], Ieee.exp, lambda x, y, g: g * y)

    def op_log(self, args, attrs, shape, data):
        if any(not v.data > 0 for v in args[0].values):
            raise DomainError("input contains values <= 0 or NaN")
        return self._unary(args[0], Ieee.log, lambda x, y, g: Ieee.div(g, x))

    def op_sqrt(self, args, attrs, shape, data):
        return self._unary(args[0], Ieee.sqrt, lambda x, y, g: Ieee.div(g, 2 * y))

    def op_tanh(self, args, attrs, shape, data):
        return self._unary(args[0], Ieee.tanh, lambda x, y, g: g * (1 - y * y))

    def op_sigmoid(self, args, attrs, shape, data):
        return self._unary(args[0], _sigmoid, lambda x, y, g: g * (y * (1 - y)))

    def op_softplus(self, args, attrs, shape, data):
        def forward(x):
            if x > 0:
                return x + Ieee.log1p(Ieee.exp(-x))
            return Ieee.log1p(Ieee.exp(x))

        return self._unary(args[0], forward, lambda x, y, g: g * _sigmoid(x))

    def op_sin(self, args, attrs, shape, data):
        return self._unary(args[0], Ieee.sin, lambda x, y, g: g * Ieee.cos(x))

    def op_cos(self, args, attrs, shape, data):
        return self._unary(args[0], Ieee.cos, lambda x, y, g: -(g * Ieee.sin(x)))

    def op_mask(self, args, attrs, shape, data):
        m = data[attrs["key"]].values
        x = args[0]
        values = []
        for xi, mi in zip(x.values, m):
            out = Value(xi.data * mi, (xi,))
            out._backward = _accumulate_unary(xi, out, lambda x_, y, g, mi=mi: g * mi)
            values.append(out)
        return Tensor(x.shape, values)

    def op_const(self, args, attrs, shape, data):
        return Tensor(attrs["shape"], [Value(v) for v in attrs["values"]])

    def op_detach(self, args, attrs, shape, data):
        # A new leaf: it receives cotangent from its users and passes none on.
        return Tensor(args[0].shape, [Value(v.data) for v in args[0].values])

    # -- reductions and linear algebra ------------------------------------------------------------

    def _fold(self, terms):
        acc = self.num.zero  # every inner sum is a left fold from +0
        for t in terms:
            acc = acc + t
        return acc

    def op_sum(self, args, attrs, shape, data):
        xs = args[0].values

        def backward_of(out):
            def backward():
                for x in xs:
                    x.grad += out.grad
            return backward

        return Tensor([], [self._reduction(xs, self._fold(x.data for x in xs), backward_of)])

    def op_mean(self, args, attrs, shape, data):
        xs, n = args[0].values, len(args[0].values)

        def backward_of(out):
            def backward():
                share = out.grad / n
                for x in xs:
                    x.grad += share
            return backward

        return Tensor([], [self._reduction(xs, self._fold(x.data for x in xs) / n, backward_of)])

    def op_sum_axis(self, args, attrs, shape, data):
        x, axis = args[0], attrs["axis"]
        stride = _strides(x.shape)[axis]
        n = x.shape[axis]
        outer = len(x.values) // (n * stride)
        values = []
        for o in range(outer):
            for i in range(stride):
                column = [x.values[(o * n + j) * stride + i] for j in range(n)]
                values.append(self._reduction(column, self._fold(v.data for v in column), _spread))
        return Tensor(shape, values)

    def op_dot(self, args, attrs, shape, data):
        a, b = args[0].values, args[1].values
        return Tensor([], [self._inner(a, b)])

    def _inner(self, a, b, bias=None):
        """sum_l a[l] * b[l] (+ bias, after the fold), with its terms ct*b[l], a[l]*ct (and ct)."""
        total = self._fold(x.data * y.data for x, y in zip(a, b))
        children = tuple(a) + tuple(b) + ((bias,) if bias is not None else ())
        if bias is not None:
            total = total + bias.data

        def backward_of(out):
            def backward():
                g = out.grad
                for x, y in zip(a, b):
                    if x is y:  # dot(a, a): the local sum first
                        x.grad += g * y.data + x.data * g
                    else:
                        x.grad += g * y.data
                        y.grad += x.data * g
                if bias is not None:
                    bias.grad += g
            return backward

        return self._reduction(children, total, backward_of)

    def op_matmul(self, args, attrs, shape, data):
        a, b = args
        m, k = a.shape
        n = b.shape[1] if len(b.shape) == 2 else 1
        rows = [a.values[i * k:(i + 1) * k] for i in range(m)]
        columns = [b.values[j::n] for j in range(n)]
        return Tensor(shape, [self._inner(rows[i], columns[j]) for i in range(m) for j in range(n)])

    def op_linear(self, args, attrs, shape, data):
        w, x, b = args
        m, k = w.shape
        return Tensor(shape, [self._inner(w.values[i * k:(i + 1) * k], x.values, b.values[i]) for i in range(m)])

    def op_mse_loss(self, args, attrs, shape, data):
        a, b = args[0].values, args[1].values
        n = len(a)
        total = self._fold((x.data - y.data) * (x.data - y.data) for x, y in zip(a, b)) / n

        def backward_of(out):
            def backward():
                for x, y in zip(a, b):
                    g = ((out.grad * 2) * (x.data - y.data)) / n
                    x.grad += g
                    y.grad += -g
            return backward

        return Tensor([], [self._reduction(tuple(a) + tuple(b), total, backward_of)])

    def _rows(self, x):
        n = x.shape[-1]
        return [x.values[s:s + n] for s in range(0, len(x.values), n)]

    def _row_op(self, x, forward_row, backward_row):
        """An op on each row of the last axis whose outputs depend on the whole row: one hidden
        Value per row gathers the outputs' cotangents and runs the row's backward once. It is
        created before the outputs, so it runs after all of them."""
        values = []
        for row in self._rows(x):
            hub = Value(None, tuple(row))
            outs = [Value(y, (hub,)) for y in forward_row([v.data for v in row])]
            hub._backward = _row_backward(row, outs, backward_row)
            values.extend(outs)
        return Tensor(x.shape, values)

    def _row_max_and_total(self, row):
        """The row's maximum (its first element, replaced where larger) and sum of exp(x - max)."""
        top = row[0]
        for v in row[1:]:
            if v > top:
                top = v
        return top, self._fold(Ieee.exp(v - top) for v in row)

    def op_softmax_last(self, args, attrs, shape, data):
        def forward(row):
            top, total = self._row_max_and_total(row)
            return [Ieee.div(Ieee.exp(v - top), total) for v in row]

        def backward(ys, cts):  # y * (ct - sum ct * y)
            inner = self._fold(g * y for g, y in zip(cts, ys))
            return [y * (g - inner) for g, y in zip(cts, ys)]

        return self._row_op(args[0], forward, backward)

    def op_log_softmax_last(self, args, attrs, shape, data):
        def forward(row):
            top, total = self._row_max_and_total(row)
            log_total = Ieee.log(total)
            return [(v - top) - log_total for v in row]

        def backward(ys, cts):  # ct - exp(y) * sum ct
            total = self._fold(cts)
            return [g - Ieee.exp(y) * total for g, y in zip(cts, ys)]

        return self._row_op(args[0], forward, backward)

    # -- structural ops: new Values that pass their cotangent through ----------------------------

    def op_reshape(self, args, attrs, shape, data):
        return self._copies(attrs["shape"], args[0].values)

    def op_broadcast(self, args, attrs, shape, data):
        xs = args[0].values
        size = 1
        for dim in attrs["shape"]:
            size *= dim
        return self._copies(attrs["shape"], [xs[i % len(xs)] for i in range(size)])

    def op_transpose(self, args, attrs, shape, data):
        x = args[0]
        rows, cols = x.shape
        return self._copies([cols, rows], [x.values[i * cols + j] for j in range(cols) for i in range(rows)])

    def op_concat0(self, args, attrs, shape, data):
        a, b = args
        return self._copies([a.shape[0] + b.shape[0]] + a.shape[1:], a.values + b.values)

    def op_slice0(self, args, attrs, shape, data):
        x = args[0]
        row = len(x.values) // x.shape[0]
        start, length = attrs["start"], attrs["len"]
        return self._copies([length] + x.shape[1:], x.values[start * row:(start + length) * row])

    def op_gather0(self, args, attrs, shape, data):
        x = args[0]
        indices = data[attrs["key"]]
        row = len(x.values) // x.shape[0]
        picked = [v for r in indices for v in x.values[r * row:(r + 1) * row]]
        return self._copies([len(indices)] + x.shape[1:], picked)


def _sigmoid(x):
    # The stable form: for x < 0, e/(1 + e) with e = exp(x), which is tiny rather than 1/(1 + inf) = 0
    # where exp(-x) overflows (x < -709.78 in double).
    if x != x or x >= 0:
        return Ieee.div(1.0, 1.0 + Ieee.exp(-x))
    e = Ieee.exp(x)
    return Ieee.div(e, 1.0 + e)


def _accumulate_unary(x, out, term):
    def backward():
        x.grad += term(x.data, out.data, out.grad)
    return backward


def _accumulate_binary(a, b, out, term_a, term_b):
    def backward():
        g = out.grad
        da = term_a(a.data, b.data, out.data, g)
        db = term_b(a.data, b.data, out.data, g)
        if a is b:
            a.grad += da + db  # a repeated argument: its local sum first, as the dense pass adds it
        else:
            a.grad += da
            b.grad += db
    return backward


def _pass_through(src, out):
    def backward():
        src.grad += out.grad
    return backward


def _spread(out):
    """The backward of a plain sum: every child receives the cotangent."""
    def backward():
        for child in out._prev:
            child.grad += out.grad
    return backward


def _row_backward(row, outs, backward_row):
    def backward():
        grads = backward_row([o.data for o in outs], [o.grad for o in outs])
        for x, g in zip(row, grads):
            x.grad += g
    return backward


def main(argv):
    serve(ScalarEngine(bug="--bug" in argv[1:]))


if __name__ == "__main__":
    main(sys.argv)
