"""An independent reverse-mode engine for tapecheck, written from docs/semantics.md §2 and
docs/engine-protocol.md only (not from tapecheck's C++ op code), on adapters/python/tapecheck_engine.py.

    /usr/bin/python3 tests/engines/independent/engine.py [--bug NAME]

Carriers
  rational, rational-noeq  fractions.Fraction, exact.
  modp                     Python ints reduced modulo 2^61-1 (ring and field ops only).
  double                   plain Python floats; IEEE specials handled by hand where Python raises
                           (division by zero, exp overflow, sin/cos of inf, sqrt of a negative).
  float                    Python floats holding float32 values: EVERY arithmetic step (each +, -, *,
                           /, each libm call) is computed in double and immediately rounded to the
                           nearest float32 with struct.pack('<f') / unpack (round to nearest even;
                           overflow to +-inf). For +, -, *, /, sqrt the double result rounded to float32
                           is the correctly rounded float32 result (double has more than 2*24+2 bits), so
                           this is what a float32 engine computes; libm calls are double-precision calls
                           rounded once to float32.

Own evaluation orders and formulas (allowed by §1.12/§2.6):
  - sum: pairwise summation; sum_axis, broadcast and gather0 scatters, dot products: reversed order;
    matmul: i-l-j loop order with l descending (per element: products added from the last one down);
    linear: starts from the bias, then adds products from the last one down.
  - gradients: per-edge accumulation (a repeated argument gets each term added on its own, no local sum),
    contributions summed in the order they arrive (reverse creation order), the seed added last; no
    "+0" from unrelated nodes (so zero_sign "unspecified").
  - tanh' = (1 - y)(1 + y); sigmoid' = e / ((1 + e)(1 + e)) with e = exp(-|x|); sigmoid and softplus in
    their |x| forms; softplus' = own sigmoid(x); softmax' multiplied out: y*ct - y*(sum ct*y);
    log_softmax' = ct - p*(sum ct) with p the softmax kept from the forward; inv' = -(ct*y)*y;
    div' for b = -(ct*y)/b; sqrt' = (ct*0.5)/y; mean' = ct*(1/n) on IEEE; mse' = (ct*(2/n))*(a-b).
  - single-output pass: only the output's ancestors (single_output "ancestors").

Conventions declared (profile): relu "zero", abs "sign", clamp "block", max "split", min "first",
nan "propagate" (relu(NaN) = NaN with gradient ct, abs' at NaN per the "sign" choice = ct*0, an unordered
max/min pair gives ct to both), zero_sign "unspecified".
"""

from __future__ import annotations

import argparse
import math
import os
import struct
import sys
from fractions import Fraction

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "adapters", "python"))
from tapecheck_engine import DomainError, Engine, Unsupported, serve  # noqa: E402

P = (1 << 61) - 1
INF = math.inf
NAN = math.nan

BUGS = {
    "tanh_from_x": "tanh' computed as 1 - x*x instead of 1 - y*y",
    "sigmoid_sign": "sigmoid' with the wrong sign",
    "softmax_no_sum": "softmax backward without its weighted-sum term (y*ct)",
    "log_deriv": "log' = ct*x instead of ct/x",
    "exp_deriv": "exp' = ct*x instead of ct*y",
    "sqrt_deriv": "sqrt' = ct/y (missing the 1/2)",
    "softplus_deriv": "softplus' = ct*sigmoid(-x)",
    "inv_deriv": "inv' = +ct*y*y (sign lost)",
    "matmul_transpose": "matmul's a-term reads b as if stored transposed (b[j,l] for b[l,j])",
    "repeated_overwrite": "terms of one node on the same position overwrite instead of add (add(x,x))",
    "broadcast_first": "broadcast backward takes the first copy instead of summing the copies",
    "mean_nodiv": "mean backward does not divide by n",
    "mean_wrong_n": "mean backward divides by the leading dimension instead of the element count",
    "relu_kink": "relu passes ct at x = 0 although the profile declares relu 'zero'",
    "gather_overwrite": "gather0 backward assigns rows instead of scatter-adding repeated indices",
    "sum_axis_mirror": "sum_axis backward copies ct along the mirrored axis (rank-1-axis)",
    "log_softmax_naive": "log_softmax without the max shift: x - log(sum exp x) (overflows)",
    "softplus_naive": "softplus as log(1 + exp x) (overflows)",
    "sigmoid_naive": "sigmoid as 1/(1 + exp(-x)) (exp overflows to inf for very negative x)",
    "slice_offset": "slice0 backward puts ct at rows 0..len instead of start..start+len",
    "transpose_noop": "transpose backward returns ct without transposing it",
    "max_tie_both": "max at a tie gives ct to both arguments although the profile declares 'split'",
    "div_bterm_sign": "div's term for b has the wrong sign",
    "linear_bias_sum": "linear's bias term is sum(ct) everywhere instead of ct",
}

EXACT_OPS = [
    "add", "sub", "mul", "div", "max", "min", "neg", "square", "scale", "inv", "relu", "abs", "clamp",
    "sum", "sum_axis", "mean", "dot", "matmul", "transpose", "linear", "reshape", "broadcast",
    "concat0", "slice0", "const", "detach", "mask", "gather0", "mse_loss",
]
ORDERED_OPS = {"max", "min", "relu", "abs", "clamp"}
MODP_OPS = [op for op in EXACT_OPS if op not in ORDERED_OPS]
TRANSCENDENTAL = ["exp", "log", "sqrt", "tanh", "sigmoid", "softplus", "sin", "cos",
                  "softmax_last", "log_softmax_last"]
IEEE_OPS = EXACT_OPS + TRANSCENDENTAL


# ------------------------------------------------------------------------------------------------
# Carrier arithmetic

_F32 = struct.Struct("<f")


def to_f32(x: float) -> float:
    try:
        return _F32.unpack(_F32.pack(x))[0]
    except OverflowError:
        return math.copysign(INF, x)


def ieee_div(a: float, b: float) -> float:
    try:
        return a / b
    except ZeroDivisionError:
        if a != a or a == 0:
            return NAN
        return math.copysign(INF, a) * math.copysign(1.0, b)


def ieee_exp(x: float) -> float:
    try:
        return math.exp(x)
    except OverflowError:
        return INF


def ieee_sqrt(x: float) -> float:
    if x < 0:
        return NAN
    return math.sqrt(x)


def ieee_trig(f, x: float) -> float:
    if math.isinf(x):
        return NAN
    return f(x)


class Ieee:
    exact = False
    ordered = True

    def __init__(self, single: bool):
        self.r = to_f32 if single else (lambda v: v)
        self.zero = 0.0

    def c(self, n):
        return self.r(float(n))

    def add(self, a, b): return self.r(a + b)
    def sub(self, a, b): return self.r(a - b)
    def mul(self, a, b): return self.r(a * b)
    def div(self, a, b): return self.r(ieee_div(a, b))
    def neg(self, a): return -a
    def exp(self, a): return self.r(ieee_exp(a))
    def log(self, a): return self.r(math.log(a)) if a > 0 else (NAN if a != a or a < 0 else -INF)
    def log1p(self, a): return self.r(math.log1p(a)) if a > -1 else NAN
    def sqrt(self, a): return self.r(ieee_sqrt(a))
    def tanh(self, a): return self.r(math.tanh(a))
    def sin(self, a): return self.r(ieee_trig(math.sin, a))
    def cos(self, a): return self.r(ieee_trig(math.cos, a))
    def fabs(self, a): return math.fabs(a)
    def isnan(self, a): return a != a
    def iszero(self, a): return a == 0


class Exact:
    exact = True
    ordered = True
    zero = Fraction(0)

    def c(self, n): return Fraction(n)
    def add(self, a, b): return a + b
    def sub(self, a, b): return a - b
    def mul(self, a, b): return a * b
    def div(self, a, b): return a / b
    def neg(self, a): return -a
    def fabs(self, a): return -a if a < 0 else a
    def isnan(self, a): return False
    def iszero(self, a): return a == 0


class ModP:
    exact = True
    ordered = False
    zero = 0

    def c(self, n): return n % P
    def add(self, a, b): return (a + b) % P
    def sub(self, a, b): return (a - b) % P
    def mul(self, a, b): return (a * b) % P
    def div(self, a, b): return (a * pow(b, -1, P)) % P
    def neg(self, a): return (-a) % P
    def isnan(self, a): return False
    def iszero(self, a): return a % P == 0


def carrier_arith(carrier: str):
    if carrier == "double":
        return Ieee(False)
    if carrier == "float":
        return Ieee(True)
    if carrier == "modp":
        return ModP()
    return Exact()


def size_of(shape) -> int:
    n = 1
    for d in shape:
        n *= d
    return n


def psum(K, xs, lo=0, hi=None):
    """Pairwise sum of xs[lo:hi] (at least one element)."""
    if hi is None:
        hi = len(xs)
    n = hi - lo
    if n == 1:
        return xs[lo]
    if n == 2:
        return K.add(xs[lo], xs[lo + 1])
    mid = lo + n // 2
    return K.add(psum(K, xs, lo, mid), psum(K, xs, mid, hi))


def rsum(K, xs):
    """Sum from the last element down to the first (no +0 start)."""
    acc = xs[-1]
    for i in range(len(xs) - 2, -1, -1):
        acc = K.add(acc, xs[i])
    return acc


# ------------------------------------------------------------------------------------------------
# Tensors and the tape

class T:
    __slots__ = ("shape", "v", "op", "args", "attrs", "aux", "back")

    def __init__(self, shape, v, op="input", args=(), attrs=None, aux=None, back=None):
        self.shape = list(shape)
        self.v = v
        self.op = op
        self.args = list(args)
        self.attrs = attrs or {}
        self.aux = aux
        self.back = back  # back(ct) -> list of (arg index, flat contribution)


class Independent(Engine):
    profile = {
        "name": "independent",
        "carriers": ["rational", "rational-noeq", "modp", "double", "float"],
        "ops": {"rational": EXACT_OPS, "rational-noeq": EXACT_OPS, "modp": MODP_OPS,
                "double": IEEE_OPS, "float": IEEE_OPS},
        "single_output": "ancestors",
        "zero_sign": "unspecified",
        "kinks": {"relu": "zero", "abs": "sign", "clamp": "block", "max": "split", "min": "first"},
        "nan": "propagate",
        "kink_conventions_declared": True,
    }
    policy = "bits"

    def __init__(self, bug=None):
        self.bug = bug
        self.K = None
        self._kc = None

    def on(self, name):
        return self.bug == name

    # -- protocol API ---------------------------------------------------------------------------
    def _arith(self):
        if self._kc != self.carrier:
            self.K, self._kc = carrier_arith(self.carrier), self.carrier

    def leaf(self, carrier, shape, values):
        self._arith()
        return T(shape, list(values))

    def values(self, tensor):
        return tensor.v

    def apply(self, op, args, attrs, shape, data):
        self._arith()
        fn = getattr(self, "op_" + op, None)
        if fn is None:
            raise Unsupported(op)
        v, aux, back = fn(args, attrs, shape, data)
        return T(shape, v, op, args, attrs, aux, back)

    def backward(self, tensors, seeds):
        self._arith()
        K = self.K
        pos = {id(t): i for i, t in enumerate(tensors)}
        n = len(tensors)
        dense = len(seeds) == n
        if dense:
            visit = set(range(n))
        else:
            (out,) = seeds.keys()
            visit = set()
            stack = [out]
            while stack:
                p = stack.pop()
                if p in visit:
                    continue
                visit.add(p)
                t = tensors[p]
                if t.back is not None:
                    for a in t.args:
                        stack.append(pos[id(a)])
        incoming = [[] for _ in range(n)]  # contributions in arrival order

        def total(p):
            seed = seeds.get(p)
            parts = incoming[p]
            if not parts:
                return list(seed) if seed is not None else None
            acc = list(parts[0])
            for part in parts[1:]:
                acc = [K.add(x, y) for x, y in zip(acc, part)]
            if seed is not None:
                acc = [K.add(x, s) for x, s in zip(acc, seed)]
            return acc

        grads = [None] * n
        for p in range(n - 1, -1, -1):
            if p not in visit:
                continue
            g = total(p)
            grads[p] = g
            t = tensors[p]
            if t.back is None:
                continue
            ct = g if g is not None else [K.zero] * size_of(t.shape)
            contribs = t.back(ct)
            if self.on("repeated_overwrite"):
                last = {}
                for a, c in contribs:
                    last[pos[id(t.args[a])]] = c
                for q, c in last.items():
                    incoming[q].append(c)
            else:
                for a, c in contribs:
                    incoming[pos[id(t.args[a])]].append(c)
        return grads

    # -- elementwise binary ---------------------------------------------------------------------
    def op_add(self, args, attrs, shape, data):
        K = self.K
        a, b = args
        return [K.add(x, y) for x, y in zip(a.v, b.v)], None, lambda ct: [(0, ct), (1, ct)]

    def op_sub(self, args, attrs, shape, data):
        K = self.K
        a, b = args
        return ([K.sub(x, y) for x, y in zip(a.v, b.v)], None,
                lambda ct: [(0, ct), (1, [K.neg(c) for c in ct])])

    def op_mul(self, args, attrs, shape, data):
        K = self.K
        a, b = args
        av, bv = a.v, b.v

        def back(ct):
            return [(0, [K.mul(c, y) for c, y in zip(ct, bv)]), (1, [K.mul(c, x) for c, x in zip(ct, av)])]
        return [K.mul(x, y) for x, y in zip(av, bv)], None, back

    def op_div(self, args, attrs, shape, data):
        K = self.K
        a, b = args
        if K.exact and any(K.iszero(y) for y in b.v):
            raise DomainError("divisor contains 0")
        out = [K.div(x, y) for x, y in zip(a.v, b.v)]
        bv = b.v

        def back(ct):
            ta = [K.div(c, y) for c, y in zip(ct, bv)]
            tb = [K.div(K.mul(c, q), y) for c, q, y in zip(ct, out, bv)]
            if not self.on("div_bterm_sign"):
                tb = [K.neg(v) for v in tb]
            return [(0, ta), (1, tb)]
        return out, None, back

    def _maxmin(self, args, is_max, tie_rule):
        K = self.K
        a, b = args
        out, who = [], []  # who: 0 a wins, 1 b wins, 2 tie, 3 unordered
        for x, y in zip(a.v, b.v):
            first_wins = x > y if is_max else x < y
            second_wins = y > x if is_max else y < x
            if first_wins:
                out.append(x); who.append(0)
            elif second_wins:
                out.append(y); who.append(1)
            elif x == y:
                out.append(x); who.append(2)
            else:
                out.append(NAN); who.append(3)

        def back(ct):
            ga, gb = [], []
            for c, w in zip(ct, who):
                if w == 0:
                    ga.append(c); gb.append(K.zero)
                elif w == 1:
                    ga.append(K.zero); gb.append(c)
                elif w == 3:  # nan "propagate": an unordered pair gives ct to both
                    ga.append(c); gb.append(c)
                elif tie_rule == "split":
                    h = K.div(c, K.c(2))
                    ga.append(h); gb.append(h)
                elif tie_rule == "first":
                    ga.append(c); gb.append(K.zero)
                else:  # both
                    ga.append(c); gb.append(c)
            return [(0, ga), (1, gb)]
        return out, None, back

    def op_max(self, args, attrs, shape, data):
        return self._maxmin(args, True, "both" if self.on("max_tie_both") else "split")

    def op_min(self, args, attrs, shape, data):
        return self._maxmin(args, False, "first")

    # -- elementwise unary ----------------------------------------------------------------------
    def op_neg(self, args, attrs, shape, data):
        K = self.K
        return [K.neg(x) for x in args[0].v], None, lambda ct: [(0, [K.neg(c) for c in ct])]

    def op_square(self, args, attrs, shape, data):
        K = self.K
        xv = args[0].v
        two = K.c(2)
        return ([K.mul(x, x) for x in xv], None,
                lambda ct: [(0, [K.mul(K.mul(c, x), two) for c, x in zip(ct, xv)])])

    def op_scale(self, args, attrs, shape, data):
        K = self.K
        cst = attrs["c"]
        return ([K.mul(cst, x) for x in args[0].v], None,
                lambda ct: [(0, [K.mul(c, cst) for c in ct])])

    def op_inv(self, args, attrs, shape, data):
        K = self.K
        xv = args[0].v
        if K.exact and any(K.iszero(x) for x in xv):
            raise DomainError("input contains 0")
        one = K.c(1)
        out = [K.div(one, x) for x in xv]

        def back(ct):
            if self.on("inv_deriv"):
                return [(0, [K.mul(K.mul(c, y), y) for c, y in zip(ct, out)])]
            return [(0, [K.neg(K.mul(K.mul(c, y), y)) for c, y in zip(ct, out)])]
        return out, None, back

    def op_relu(self, args, attrs, shape, data):
        K = self.K
        xv = args[0].v
        # nan "propagate": relu(NaN) = NaN, and its mask is x <= 0
        out = [x if (x > 0 or K.isnan(x)) else K.zero for x in xv]

        def back(ct):
            if self.on("relu_kink"):
                return [(0, [c if not (x < 0) else K.zero for c, x in zip(ct, xv)])]
            return [(0, [c if not (x <= 0) else K.zero for c, x in zip(ct, xv)])]
        return out, None, back

    def op_abs(self, args, attrs, shape, data):
        K = self.K
        xv = args[0].v
        out = [K.fabs(x) for x in xv]

        def back(ct):
            # "sign" convention: ct * sgn(x), sgn(0) = sgn(NaN) = 0 (the product, at 0 and NaN alike)
            g = []
            for c, x in zip(ct, xv):
                if x > 0:
                    g.append(c)
                elif x < 0:
                    g.append(K.neg(c))
                else:
                    g.append(K.mul(c, K.zero))
            return [(0, g)]
        return out, None, back

    def op_clamp(self, args, attrs, shape, data):
        K = self.K
        lo, hi = attrs["lo"], attrs["hi"]
        xv = args[0].v
        out = [lo if x < lo else (hi if x > hi else x) for x in xv]
        # "block": ct strictly inside (lo, hi), 0 at the bounds and outside (and at NaN)
        return out, None, lambda ct: [(0, [c if lo < x < hi else K.zero for c, x in zip(ct, xv)])]

    def op_exp(self, args, attrs, shape, data):
        K = self.K
        xv = args[0].v
        out = [K.exp(x) for x in xv]

        def back(ct):
            if self.on("exp_deriv"):
                return [(0, [K.mul(c, x) for c, x in zip(ct, xv)])]
            return [(0, [K.mul(c, y) for c, y in zip(ct, out)])]
        return out, None, back

    def op_log(self, args, attrs, shape, data):
        K = self.K
        xv = args[0].v
        if any(not (x > 0) for x in xv):
            raise DomainError("input contains values <= 0 or NaN")
        out = [K.log(x) for x in xv]

        def back(ct):
            if self.on("log_deriv"):
                return [(0, [K.mul(c, x) for c, x in zip(ct, xv)])]
            return [(0, [K.div(c, x) for c, x in zip(ct, xv)])]
        return out, None, back

    def op_sqrt(self, args, attrs, shape, data):
        K = self.K
        out = [K.sqrt(x) for x in args[0].v]
        half = K.c(Fraction(1, 2)) if K.exact else 0.5

        def back(ct):
            if self.on("sqrt_deriv"):
                return [(0, [K.div(c, y) for c, y in zip(ct, out)])]
            return [(0, [K.div(K.mul(c, half), y) for c, y in zip(ct, out)])]
        return out, None, back

    def op_tanh(self, args, attrs, shape, data):
        K = self.K
        xv = args[0].v
        out = [K.tanh(x) for x in xv]
        one = K.c(1)

        def back(ct):
            if self.on("tanh_from_x"):
                return [(0, [K.mul(c, K.sub(one, K.mul(x, x))) for c, x in zip(ct, xv)])]
            return [(0, [K.mul(c, K.mul(K.sub(one, y), K.add(one, y))) for c, y in zip(ct, out)])]
        return out, None, back

    def _sigmoid(self, x):
        K = self.K
        one = K.c(1)
        if self.on("sigmoid_naive"):
            return K.div(one, K.add(one, K.exp(K.neg(x))))
        e = K.exp(K.neg(K.fabs(x)))
        d = K.add(one, e)
        return K.div(one, d) if x >= 0 else K.div(e, d)

    def _sigmoid_deriv(self, x):
        K = self.K
        one = K.c(1)
        e = K.exp(K.neg(K.fabs(x)))
        d = K.add(one, e)
        return K.div(e, K.mul(d, d))

    def op_sigmoid(self, args, attrs, shape, data):
        K = self.K
        xv = args[0].v
        out = [self._sigmoid(x) for x in xv]

        def back(ct):
            g = [K.mul(c, self._sigmoid_deriv(x)) for c, x in zip(ct, xv)]
            if self.on("sigmoid_sign"):
                g = [K.neg(v) for v in g]
            return [(0, g)]
        return out, None, back

    def op_softplus(self, args, attrs, shape, data):
        K = self.K
        xv = args[0].v
        one = K.c(1)
        out = []
        for x in xv:
            if self.on("softplus_naive"):
                out.append(K.log(K.add(one, K.exp(x))))
            else:
                m = x if x > 0 else K.zero
                out.append(K.add(m, K.log1p(K.exp(K.neg(K.fabs(x))))))

        def back(ct):
            if self.on("softplus_deriv"):
                return [(0, [K.mul(c, self._sigmoid(K.neg(x))) for c, x in zip(ct, xv)])]
            return [(0, [K.mul(c, self._sigmoid(x)) for c, x in zip(ct, xv)])]
        return out, None, back

    def op_sin(self, args, attrs, shape, data):
        K = self.K
        xv = args[0].v
        return ([K.sin(x) for x in xv], None,
                lambda ct: [(0, [K.mul(c, K.cos(x)) for c, x in zip(ct, xv)])])

    def op_cos(self, args, attrs, shape, data):
        K = self.K
        xv = args[0].v
        return ([K.cos(x) for x in xv], None,
                lambda ct: [(0, [K.neg(K.mul(c, K.sin(x))) for c, x in zip(ct, xv)])])

    def op_mask(self, args, attrs, shape, data):
        K = self.K
        m = data[attrs["key"]].values
        return ([K.mul(x, w) for x, w in zip(args[0].v, m)], None,
                lambda ct: [(0, [K.mul(c, w) for c, w in zip(ct, m)])])

    def op_detach(self, args, attrs, shape, data):
        return list(args[0].v), None, None

    def op_const(self, args, attrs, shape, data):
        return list(attrs["values"]), None, None

    # -- reductions ------------------------------------------------------------------------------
    def op_sum(self, args, attrs, shape, data):
        x = args[0]
        return [psum(self.K, x.v)], None, lambda ct: [(0, [ct[0]] * len(x.v))]

    def op_mean(self, args, attrs, shape, data):
        K = self.K
        x = args[0]
        n = len(x.v)
        out = [K.div(psum(K, x.v), K.c(n))]

        def back(ct):
            if self.on("mean_nodiv"):
                return [(0, [ct[0]] * n)]
            nn = x.shape[0] if (self.on("mean_wrong_n") and x.shape) else n
            if K.exact:
                g = K.div(ct[0], K.c(nn))
            else:
                g = K.mul(ct[0], K.div(K.c(1), K.c(nn)))
            return [(0, [g] * n)]
        return out, None, back

    def op_sum_axis(self, args, attrs, shape, data):
        K = self.K
        x = args[0]
        ax = attrs["axis"]
        d = x.shape
        outer, length, inner = size_of(d[:ax]), d[ax], size_of(d[ax + 1:])
        out = []
        for o in range(outer):
            for i in range(inner):
                out.append(rsum(K, [x.v[(o * length + t) * inner + i] for t in range(length)]))

        def back(ct):
            g = [None] * len(x.v)
            if self.on("sum_axis_mirror"):
                ax2 = len(d) - 1 - ax
                o2, l2, i2 = size_of(d[:ax2]), d[ax2], size_of(d[ax2 + 1:])
                for o in range(o2):
                    for t in range(l2):
                        for i in range(i2):
                            g[(o * l2 + t) * i2 + i] = ct[(o * i2 + i) % len(ct)]
                return [(0, g)]
            for o in range(outer):
                for t in range(length):
                    for i in range(inner):
                        g[(o * length + t) * inner + i] = ct[o * inner + i]
            return [(0, g)]
        return out, None, back

    def op_dot(self, args, attrs, shape, data):
        K = self.K
        a, b = args
        out = [rsum(K, [K.mul(x, y) for x, y in zip(a.v, b.v)])]
        return out, None, lambda ct: [(0, [K.mul(ct[0], y) for y in b.v]), (1, [K.mul(ct[0], x) for x in a.v])]

    def op_matmul(self, args, attrs, shape, data):
        K = self.K
        a, b = args
        m, k = a.shape
        av, bv = a.v, b.v
        if len(b.shape) == 1:
            out = [rsum(K, [K.mul(av[i * k + l], bv[l]) for l in range(k)]) for i in range(m)]

            def back_mv(ct):
                ga = [K.mul(ct[i], bv[l]) for i in range(m) for l in range(k)]
                gb = [rsum(K, [K.mul(av[i * k + l], ct[i]) for i in range(m)]) for l in range(k)]
                return [(0, ga), (1, gb)]
            return out, None, back_mv
        n = b.shape[1]
        out = [None] * (m * n)
        for i in range(m):
            row = None
            for l in range(k - 1, -1, -1):
                ail = av[i * k + l]
                prods = [K.mul(ail, bv[l * n + j]) for j in range(n)]
                row = prods if row is None else [K.add(r, p) for r, p in zip(row, prods)]
            out[i * n:(i + 1) * n] = row

        def back(ct):
            ga = []
            for i in range(m):
                for l in range(k):
                    if self.on("matmul_transpose"):
                        terms = [K.mul(ct[i * n + j], bv[j * k + l]) for j in range(n)]
                    else:
                        terms = [K.mul(ct[i * n + j], bv[l * n + j]) for j in range(n)]
                    ga.append(rsum(K, terms))
            gb = []
            for l in range(k):
                for j in range(n):
                    gb.append(psum(K, [K.mul(av[i * k + l], ct[i * n + j]) for i in range(m)]))
            return [(0, ga), (1, gb)]
        return out, None, back

    def op_linear(self, args, attrs, shape, data):
        K = self.K
        W, x, b = args
        m, k = W.shape
        out = []
        for i in range(m):
            acc = b.v[i]
            for l in range(k - 1, -1, -1):
                acc = K.add(acc, K.mul(W.v[i * k + l], x.v[l]))
            out.append(acc)

        def back(ct):
            gW = [K.mul(ct[i], x.v[l]) for i in range(m) for l in range(k)]
            gx = [rsum(K, [K.mul(W.v[i * k + l], ct[i]) for i in range(m)]) for l in range(k)]
            gb = list(ct)
            if self.on("linear_bias_sum"):
                gb = [psum(K, ct)] * m
            return [(0, gW), (1, gx), (2, gb)]
        return out, None, back

    def op_mse_loss(self, args, attrs, shape, data):
        K = self.K
        a, b = args
        n = len(a.v)
        d = [K.sub(x, y) for x, y in zip(a.v, b.v)]
        out = [K.div(psum(K, [K.mul(v, v) for v in d]), K.c(n))]

        def back(ct):
            t = K.mul(ct[0], K.div(K.c(2), K.c(n)))
            ta = [K.mul(t, v) for v in d]
            return [(0, ta), (1, [K.neg(v) for v in ta])]
        return out, None, back

    def _rows(self, x):
        n = x.shape[-1]
        return n, len(x.v) // n

    def op_softmax_last(self, args, attrs, shape, data):
        K = self.K
        x = args[0]
        n, rows = self._rows(x)
        out = []
        for r in range(rows):
            row = x.v[r * n:(r + 1) * n]
            mx = row[-1]
            for v in reversed(row[:-1]):
                if v > mx:
                    mx = v
            e = [K.exp(K.sub(v, mx)) for v in row]
            s = rsum(K, e)
            out.extend(K.div(v, s) for v in e)

        def back(ct):
            g = []
            for r in range(rows):
                y = out[r * n:(r + 1) * n]
                c = ct[r * n:(r + 1) * n]
                if self.on("softmax_no_sum"):
                    g.extend(K.mul(yi, ci) for yi, ci in zip(y, c))
                    continue
                w = rsum(K, [K.mul(ci, yi) for ci, yi in zip(c, y)])
                g.extend(K.sub(K.mul(yi, ci), K.mul(yi, w)) for yi, ci in zip(y, c))
            return [(0, g)]
        return out, None, back

    def op_log_softmax_last(self, args, attrs, shape, data):
        K = self.K
        x = args[0]
        n, rows = self._rows(x)
        out, probs = [], []
        for r in range(rows):
            row = x.v[r * n:(r + 1) * n]
            if self.on("log_softmax_naive"):
                e = [K.exp(v) for v in row]
                s = rsum(K, e)
                ls = K.log(s)
                out.extend(K.sub(v, ls) for v in row)
                probs.extend(K.div(v, s) for v in e)
                continue
            mx = row[-1]
            for v in reversed(row[:-1]):
                if v > mx:
                    mx = v
            sh = [K.sub(v, mx) for v in row]
            e = [K.exp(v) for v in sh]
            s = rsum(K, e)
            ls = K.log(s)
            out.extend(K.sub(v, ls) for v in sh)
            probs.extend(K.div(v, s) for v in e)

        def back(ct):
            g = []
            for r in range(rows):
                c = ct[r * n:(r + 1) * n]
                p = probs[r * n:(r + 1) * n]
                tot = rsum(K, c)
                g.extend(K.sub(ci, K.mul(pi, tot)) for ci, pi in zip(c, p))
            return [(0, g)]
        return out, None, back

    # -- structural ------------------------------------------------------------------------------
    def op_transpose(self, args, attrs, shape, data):
        x = args[0]
        m, n = x.shape
        out = [x.v[i * n + j] for j in range(n) for i in range(m)]

        def back(ct):  # ct is [n, m]
            if self.on("transpose_noop"):
                return [(0, list(ct))]
            return [(0, [ct[j * m + i] for i in range(m) for j in range(n)])]
        return out, None, back

    def op_reshape(self, args, attrs, shape, data):
        return list(args[0].v), None, lambda ct: [(0, list(ct))]

    def op_broadcast(self, args, attrs, shape, data):
        K = self.K
        x = args[0]
        sx = len(x.v)
        total = size_of(shape)
        copies = total // sx
        out = [x.v[i % sx] for i in range(total)]

        def back(ct):
            if self.on("broadcast_first"):
                return [(0, ct[:sx])]
            g = []
            for j in range(sx):
                g.append(rsum(K, [ct[c * sx + j] for c in range(copies)]))
            return [(0, g)]
        return out, None, back

    def op_concat0(self, args, attrs, shape, data):
        a, b = args
        na = len(a.v)
        return list(a.v) + list(b.v), None, lambda ct: [(0, ct[:na]), (1, ct[na:])]

    def op_slice0(self, args, attrs, shape, data):
        K = self.K
        x = args[0]
        start, ln = attrs["start"], attrs["len"]
        rowsz = size_of(x.shape[1:])
        out = x.v[start * rowsz:(start + ln) * rowsz]

        def back(ct):
            g = [K.zero] * len(x.v)
            s = 0 if self.on("slice_offset") else start
            g[s * rowsz:(s + ln) * rowsz] = ct
            return [(0, g)]
        return list(out), None, back

    def op_gather0(self, args, attrs, shape, data):
        K = self.K
        x = args[0]
        idx = data[attrs["key"]]
        rowsz = size_of(x.shape[1:])
        out = []
        for r in idx:
            out.extend(x.v[r * rowsz:(r + 1) * rowsz])

        def back(ct):
            g = [None] * len(x.v)
            for q in range(len(idx) - 1, -1, -1):
                r = idx[q]
                for e in range(rowsz):
                    c = ct[q * rowsz + e]
                    cur = g[r * rowsz + e]
                    if cur is None or self.on("gather_overwrite"):
                        g[r * rowsz + e] = c
                    else:
                        g[r * rowsz + e] = K.add(cur, c)
            return [(0, [K.zero if v is None else v for v in g])]
        return out, None, back


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--bug", choices=sorted(BUGS), default=None)
    parser.add_argument("--list-bugs", action="store_true")
    opts = parser.parse_args()
    if opts.list_bugs:
        for name, what in BUGS.items():
            print(f"{name}: {what}")
        return
    serve(Independent(opts.bug))


if __name__ == "__main__":
    main()
