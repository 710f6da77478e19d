"""Speak tapecheck's engine protocol (docs/engine-protocol.md, version 1) for a Python engine.

tapecheck starts an engine as a child process, writes one JSON request per line to its standard
input and reads one JSON answer per line from its standard output. This module does all of that:
the hello, reading requests, decoding the case document and its values exactly per carrier, the
walk over the graph in position order, encoding the answer, and turning the engine's failures into
the protocol's answers. Standard library only.

An engine author subclasses `Engine` (or writes any object with the same attributes) and calls
`serve(engine)`. The whole author-facing API:

    Engine.profile                     dict: what the engine declares (docs/semantics.md §3.6); an absent
                                       key is the specification's choice: every carrier and op,
                                       single_output "support", zero_sign "spec", the spec's kinks
    Engine.policy                      "bits", "values" or None (tapecheck's default, "bits")
    Engine.carrier                     set by the library to the current request's carrier
    Engine.leaf(carrier, shape, values)            -> a tensor gradients can be asked for
    Engine.apply(op, args, attrs, shape, data)     -> the tensor of one node
    Engine.values(tensor)                          -> its values, flat, row-major
    Engine.backward(tensors, seeds)                -> one flat list (or None: zeros) per position
    Engine.warm_up()                   optional: run once before the workers are forked (serve), e.g.
                                       a library's lazy initialization, so that no worker pays for it
    raise DomainError(message)         the forward (or a pass) fails on these values
    raise Unsupported(op)              the engine cannot run this case after all
    serve(engine)                      run the protocol on stdin/stdout until end of input

Values reach the engine decoded per carrier: `rational`/`rational-noeq` as fractions.Fraction,
`modp` as an int residue modulo 2^61-1, `double` as float, `float` as a float holding the float32
nearest the exact decimal. `attrs` holds decoded values (`c`, `lo`, `hi`, `const`'s `values`) and
plain counts, shapes and names; `data` maps a key to a `DataTensor(shape, values)` (read by `mask`)
or to a list of row indices (read by `gather0`). `tensors` is the list of every position's tensor
(inputs, then nodes); `seeds` maps a position to its flat seed values: every position for a dense
pass, only the output for a single-output pass. `backward` may return `(gradients, programs_run)`
for a single-output pass if the engine counts the node programs it ran. Every position must be its
own tensor, also a node that changes nothing (reshape to the same shape) and the leaves that
`const` and `detach` make: each receives its own seed and cotangent. A case using an op that the
profile does not list for its carrier is answered `unsupported` without calling the engine.

Example (a hypothetical `mygrad` library):

    import sys; sys.path.insert(0, "adapters/python")
    import mygrad
    from tapecheck_engine import Engine, Unsupported, serve

    class MyGrad(Engine):
        profile = {"name": "mygrad", "carriers": ["double"], "ops": ["add", "mul", "relu", "sum"],
                   "single_output": "ancestors"}
        policy = "values"

        def leaf(self, carrier, shape, values):
            return mygrad.tensor(values, shape=shape, requires_grad=True)

        def apply(self, op, args, attrs, shape, data):
            if op == "add": return args[0] + args[1]
            if op == "mul": return args[0] * args[1]
            if op == "relu": return args[0].relu()
            if op == "sum": return args[0].sum()
            raise Unsupported(op)

        def values(self, tensor):
            return tensor.flat()

        def backward(self, tensors, seeds):
            grads = mygrad.grad([tensors[p] for p in seeds], tensors, list(seeds.values()))
            return [None if g is None else g.flat() for g in grads]

    if __name__ == "__main__":
        serve(MyGrad())

A DomainError's message is best the specification's reason (docs/semantics.md §1.10:
"divisor contains 0", "input contains 0", "input contains values <= 0 or NaN"); the position is
the node being built. Any other exception is an engine bug: it propagates, the worker that ran the
request exits with a traceback on standard error, and tapecheck reports the case as a crash
(quoting the traceback's last 20 lines). `serve` answers in a worker forked after the hello, so a
crash (an exception, a segfault in a native library) or a hang that tapecheck cancels ends only the
worker: the next one is forked from the warm process, without importing anything again.
"""

from __future__ import annotations

import collections
import json
import math
import os
import re
import signal
import struct
import sys
import traceback
from fractions import Fraction
from typing import Any, Callable, NamedTuple

__all__ = [
    "PROTOCOL_VERSION", "MODP", "Engine", "DomainError", "Unsupported", "DataTensor",
    "serve", "answer", "hello", "decode_value", "encode_value", "shape_size",
]

PROTOCOL_VERSION = 1
MODP = (1 << 61) - 1
"""The modulus of the `modp` carrier."""


class DomainError(Exception):
    """The forward pass fails on these values (a division by zero on an exact carrier, log of a
    non-positive value): raised by `apply` it answers an error at that node; raised by `backward`
    it fails that pass only."""

    def __init__(self, message: str):
        super().__init__(message)
        self.message = message


class Unsupported(Exception):
    """The engine cannot run this case after all: `op` names the op (or attribute) it cannot
    express. The case is counted unsupported, neither a pass nor a failure."""

    def __init__(self, op: str):
        super().__init__(op)
        self.op = op


class DataTensor(NamedTuple):
    """A non-differentiable data tensor (read by `mask`): its shape and flat decoded values."""
    shape: list
    values: list


class Engine:
    """The base of an engine: override `leaf`, `apply`, `values` and `backward`."""

    profile: dict = {}
    policy: str | None = None
    carrier: str | None = None

    def leaf(self, carrier: str, shape: list, values: list) -> Any:
        """An input: a tensor of `shape` (row-major `values`) whose gradient can be asked for."""
        raise NotImplementedError

    def apply(self, op: str, args: list, attrs: dict, shape: list, data: dict) -> Any:
        """Node `op` (docs/semantics.md §2.1) on the argument tensors; `shape` is the node's."""
        raise Unsupported(op)

    def values(self, tensor: Any) -> list:
        """A tensor's values, flat and row-major, as carrier values."""
        raise NotImplementedError

    def backward(self, tensors: list, seeds: dict) -> list:
        """Every position's gradient (the total cotangent reaching it, its own seed included)
        from `seeds` (position -> flat values): one flat list per position, or None for zeros."""
        raise NotImplementedError


# ---------------------------------------------------------------------------------------------
# Values: the file format's grammar (docs/file-format.md#values), decoded exactly per carrier.

def _hex_fraction(text: str) -> Fraction:
    """A hexadecimal float ("-0x1.8p+1") as its exact value (float.fromhex would round)."""
    negative = text[0] == "-"
    body = text.lstrip("+-")[2:].lower()
    mantissa, _, exponent = body.partition("p")
    whole, _, fraction = mantissa.partition(".")
    digits = int(whole + fraction, 16)
    shift = int(exponent) - 4 * len(fraction)
    value = Fraction(digits << shift) if shift >= 0 else Fraction(digits, 1 << -shift)
    return -value if negative else value


def _exact(text: str) -> Fraction:
    """The exact value of a finite literal: an integer, p/q, an exact decimal or a hex float."""
    if "x" in text or "X" in text:
        return _hex_fraction(text)
    return Fraction(text)  # integers, p/q, decimals with exponents; ValueError for specials


def _rational(text: str) -> Fraction:
    try:
        return Fraction(int(text))  # the common case, without Fraction's regex
    except ValueError:
        return _exact(text)


def _modp(text: str) -> int:
    try:
        return int(text) % MODP
    except ValueError:
        q = _exact(text)
        if q.denominator % MODP == 0:
            raise ValueError(f"{text!r}: denominator is divisible by 2^61-1") from None
        return q.numerator * pow(q.denominator, -1, MODP) % MODP


def _signed_zero(value: float, text: str) -> float:
    """Exact values have no sign of zero: "-0", "-0/3", "-0x0p+0" are negative zero."""
    return -0.0 if value == 0 and text.lstrip()[:1] == "-" else value


def _double_of_fraction(q: Fraction) -> float:
    try:
        return float(q)  # int / int division in CPython is correctly rounded
    except OverflowError:
        return math.copysign(math.inf, q)


def _double(text: str) -> float:
    try:
        return float(text)  # correctly rounded for decimals; nan, inf, -0 in any case
    except ValueError:
        pass
    if "x" in text or "X" in text:
        return float.fromhex(text)  # correctly rounded, sign of zero kept
    return _signed_zero(_double_of_fraction(_exact(text)), text)


_F32 = struct.Struct("<f")
_F32_MAX_EXPONENT = 128  # 2^128 overflows float32
_F32_MIN_NORMAL_EXPONENT = -126
_F32_MANTISSA_BITS = 24


def _float32_of_double(d: float) -> float:
    """Round a double to the nearest float32 (ties to even), overflowing to inf."""
    try:
        return _F32.unpack(_F32.pack(d))[0]
    except OverflowError:
        return math.copysign(math.inf, d)


def _float32_of_fraction(q: Fraction) -> float:
    """Round an exact value to the nearest float32, ties to even, subnormals and overflow included.
    (Zero comes back as +0.0; the caller restores a negative zero's sign.)"""
    if q == 0:
        return 0.0
    magnitude = abs(q)
    n, d = magnitude.numerator, magnitude.denominator
    e = n.bit_length() - d.bit_length()  # 2^(e-1) < magnitude < 2^(e+1)
    if (n << max(-e, 0)) < (d << max(e, 0)):
        e -= 1  # now 2^e <= magnitude < 2^(e+1)
    quantum = max(e, _F32_MIN_NORMAL_EXPONENT) - (_F32_MANTISSA_BITS - 1)
    num, den = (n << -quantum, d) if quantum < 0 else (n, d << quantum)
    units, rest = divmod(num, den)
    if 2 * rest > den or (2 * rest == den and units & 1):
        units += 1
    if units.bit_length() + quantum > _F32_MAX_EXPONENT:
        result = math.inf
    else:
        result = math.ldexp(units, quantum)
    return result if q > 0 else -result


def _is_float32_midpoint(d: float) -> bool:
    """Whether a finite double lies exactly halfway between two neighbouring float32 values
    (or at the overflow threshold 2^128 - 2^103)."""
    _, exponent = math.frexp(d)
    half_quantum = max(exponent - 1, _F32_MIN_NORMAL_EXPONENT) - _F32_MANTISSA_BITS
    scaled = math.ldexp(abs(d), -half_quantum)
    return scaled == int(scaled) and int(scaled) & 1 == 1


def _float(text: str) -> float:
    """The float32 nearest the exact value of `text`, as a Python float.

    Rounding to double first and then to float32 is wrong only when the double lands exactly on a
    float32 midpoint (a tie the exact value does not have): rounding is monotone and midpoints are
    doubles, so otherwise the double and the exact value lie strictly between the same two
    midpoints. Only then is the exact value rounded from its Fraction."""
    d = _double(text)
    f = _float32_of_double(d)
    if f == d or d != d or math.isinf(d) or not _is_float32_midpoint(d):
        return f
    return _signed_zero(_float32_of_fraction(_exact(text)), text)


_DECODERS: dict[str, Callable[[str], Any]] = {
    "rational": _rational, "rational-noeq": _rational, "modp": _modp, "double": _double, "float": _float,
}


def decode_value(carrier: str, text: str) -> Any:
    """One value string of the file format as the carrier's Python value."""
    return _DECODERS[carrier](text)


def _encode_exact(value: Any) -> str:
    return str(value)  # Fraction: lowest terms, sign on the numerator, "p" when q = 1


def _encode_modp(value: int) -> str:
    return str(value % MODP)


def _encode_ieee(value: Any) -> str:
    return float.hex(float(value))  # exact: nan, inf, -inf, -0x0.0p+0 included


_ENCODERS: dict[str, Callable[[Any], str]] = {
    "rational": _encode_exact, "rational-noeq": _encode_exact, "modp": _encode_modp,
    "double": _encode_ieee, "float": _encode_ieee,
}
_ZERO_TEXT = {"rational": "0", "rational-noeq": "0", "modp": "0", "double": "0x0.0p+0", "float": "0x0.0p+0"}


def encode_value(carrier: str, value: Any) -> str:
    """A carrier value as a string of the value grammar, without loss."""
    return _ENCODERS[carrier](value)


# ---------------------------------------------------------------------------------------------
# Shapes: a node's declared shape, or (when a document omits it) the op's shape rule.

def shape_size(shape: list) -> int:
    size = 1
    for dim in shape:
        size *= dim
    return size


_REDUCE_TO_SCALAR = {"sum", "mean", "dot", "mse_loss"}


def _inferred_shape(op: str, args: list, attrs: dict, data: dict) -> list:
    """The output shape of a node from its arguments' shapes (docs/semantics.md §2.1)."""
    if op in _REDUCE_TO_SCALAR:
        return []
    if op in ("reshape", "broadcast", "const"):
        return list(attrs["shape"])
    if op == "sum_axis":
        return args[0][:attrs["axis"]] + args[0][attrs["axis"] + 1:]
    if op == "matmul":
        return [args[0][0]] + args[1][1:]
    if op == "transpose":
        return [args[0][1], args[0][0]]
    if op == "linear":
        return [args[0][0]]
    if op == "concat0":
        return [args[0][0] + args[1][0]] + args[0][1:]
    if op == "slice0":
        return [attrs["len"]] + args[0][1:]
    if op == "gather0":
        return [len(data[attrs["key"]])] + args[0][1:]
    if op == "opaque":
        raise Unsupported("opaque")  # its shape rule lives in tapecheck's registry
    return list(args[0])  # elementwise ops keep their first argument's shape


# ---------------------------------------------------------------------------------------------
# Requests and answers.

_VALUE_ATTRS = ("c", "lo", "hi")


def _decode_attrs(attrs: dict, decode: Callable[[str], Any]) -> dict:
    if not attrs:
        return {}
    out = dict(attrs)
    for key in _VALUE_ATTRS:
        if key in out:
            out[key] = decode(out[key])
    if "values" in out:
        out["values"] = [decode(v) for v in out["values"]]
    return out


def _decode_data(data: dict, decode: Callable[[str], Any]) -> dict:
    out = {}
    for key, entry in data.items():
        if "indices" in entry:
            out[key] = list(entry["indices"])
        else:
            out[key] = DataTensor(list(entry["shape"]), [decode(v) for v in entry["values"]])
    return out


def _supported_ops(profile: dict, carrier: str) -> set | None:
    ops = profile.get("ops")
    if ops is None:
        return None
    if isinstance(ops, dict):
        return set(ops.get(carrier, ()))
    return set(ops)


class _Case:
    """The decoded parts of one request's case document."""

    def __init__(self, document: dict, decode: Callable[[str], Any]):
        self.input_shapes = [list(i["shape"]) for i in document["inputs"]]
        self.input_values = [[decode(v) for v in values] for values in document.get("values", ())]
        self.nodes = document.get("nodes", ())
        self.data = _decode_data(document.get("data", {}), decode)
        self.decode = decode


class _Failed(Exception):
    """Ends a request early with a ready answer body (an error or unsupported)."""

    def __init__(self, body: dict):
        super().__init__(body)
        self.body = body


def _forward(engine: Any, carrier: str, case: _Case) -> tuple[list, list]:
    """Every position's tensor and shape, inputs first, nodes in creation order."""
    tensors, shapes = [], []
    try:
        for shape, values in zip(case.input_shapes, case.input_values):
            tensors.append(engine.leaf(carrier, shape, values))
            shapes.append(shape)
        for node in case.nodes:
            op, args = node["op"], node.get("args", ())
            attrs = _decode_attrs(node.get("attrs"), case.decode)
            shape = node.get("shape")
            if shape is None:
                shape = _inferred_shape(op, [shapes[a] for a in args], attrs, case.data)
            tensors.append(engine.apply(op, [tensors[a] for a in args], attrs, shape, case.data))
            shapes.append(shape)
    except DomainError as failure:  # at the position being built: len(tensors)
        raise _Failed({"error": {"position": len(tensors), "message": failure.message}}) from None
    return tensors, shapes


def _tensor_json(shape: list, texts: list) -> dict:
    # A wrong count would break the protocol for the whole run; a rank-1 shape of the count the
    # engine gave turns it into a difference at that position, which tapecheck shrinks.
    if len(texts) != shape_size(shape):
        shape = [len(texts)]
    return {"shape": shape, "values": texts}


def _run_pass(engine: Any, spec: dict, tensors: list, shapes: list, carrier: str) -> dict:
    decode, encode = _DECODERS[carrier], _ENCODERS[carrier]
    if "dense" in spec:
        seeds = {p: [decode(v) for v in values] for p, values in enumerate(spec["dense"])}
    else:
        single = spec["single"]
        seeds = {single["output"]: [decode(v) for v in single["seed"]]}
    try:
        result = engine.backward(tensors, seeds)
    except DomainError as failure:
        return {"error": {"message": failure.message}}
    programs_run = None
    if isinstance(result, tuple):
        result, programs_run = result
    gradients = []
    for shape, values in zip(shapes, result):
        if values is None:
            texts = [_ZERO_TEXT[carrier]] * shape_size(shape)
        else:
            texts = [encode(v) for v in values]
        gradients.append(_tensor_json(shape, texts))
    out = {"gradients": gradients}
    if programs_run is not None:
        out["programs_run"] = programs_run
    return out


def answer(engine: Any, request: dict) -> dict:
    """The answer to one request (a parsed JSON object), as a dict ready for json.dumps."""
    carrier = request["carrier"]
    decode, encode = _DECODERS[carrier], _ENCODERS[carrier]
    document = request["case"]
    supported = _supported_ops(getattr(engine, "profile", {}) or {}, carrier)
    if supported is not None:
        for node in document.get("nodes", ()):
            if node["op"] not in supported:
                return {"id": request["id"], "unsupported": node["op"]}
    engine.carrier = carrier
    try:
        case = _Case(document, decode)
        tensors, shapes = _forward(engine, carrier, case)
        context = [_tensor_json(shape, [encode(v) for v in engine.values(t)])
                   for shape, t in zip(shapes, tensors)]
        passes = [_run_pass(engine, spec, tensors, shapes, carrier) for spec in request.get("passes", ())]
    except _Failed as failed:
        return {"id": request["id"], **failed.body}
    except Unsupported as unsupported:
        return {"id": request["id"], "unsupported": unsupported.op}
    return {"id": request["id"], "context": context, "passes": passes}


def hello(engine: Any) -> dict:
    """The engine's first line: protocol version, profile and (if it names one) its policy."""
    out = {"tapecheck_engine": PROTOCOL_VERSION, "profile": getattr(engine, "profile", {}) or {}}
    policy = getattr(engine, "policy", None)
    if policy is not None:
        out["policy"] = policy
    return out


def _dumps(document: dict) -> str:
    return json.dumps(document, separators=(",", ":"))


def serve(engine: Any, stdin=None, stdout=None, fork: bool | None = None) -> None:
    """Say hello, then answer each request line with one line, in order, until end of input.

    With the default streams, `print` inside the engine goes to standard error: standard output
    belongs to the protocol, and a stray line there would break it. tapecheck quotes the last lines
    of standard error when the engine crashes; to debug an engine, log to a file.

    With the default streams (and `fork` not False) the requests are answered in a worker process
    forked after the hello, from this warm process, which has imported everything and answered
    nothing: when the worker dies on a request (a segfault in a native library, an abort, an
    uncaught exception) this process answers that request `{"id": N, "crashed": {"signal": 11}}`
    (or `{"status": 1}`), and a spare worker forked while it ran takes the next request, so that
    tapecheck need not start the engine (and import the world) again (docs/engine-protocol.md §1).
    The hello then says `"cancel": true`: a request tapecheck gave up waiting for or no longer
    needs (`{"cancel": ID}`) is answered `{"id": ID, "cancelled": true}`, its worker killed if it
    runs it. `engine.warm_up()`, if it has one, runs once before the workers are forked.
    `fork=False`, or TAPECHECK_ENGINE_FORK=0 in the environment, answers in this process."""
    defaults = stdin is None and stdout is None
    if stdin is None:
        stdin = sys.stdin.buffer
    if stdout is None:
        stdout = sys.stdout
        sys.stdout = sys.stderr
    if fork is None:
        fork = defaults and hasattr(os, "fork") and os.environ.get("TAPECHECK_ENGINE_FORK", "1") != "0"
    stdout.write(_dumps({**hello(engine), "cancel": True} if fork else hello(engine)) + "\n")
    stdout.flush()
    if fork:
        warm_up = getattr(engine, "warm_up", None)
        if warm_up is not None:
            warm_up()
        _serve_in_workers(engine, stdin.fileno(), stdout)
    else:
        _answer_lines(engine, stdin, stdout)


def _answer_lines(engine: Any, stdin, stdout) -> None:
    for line in stdin:
        if not line.strip():
            continue
        stdout.write(_dumps(answer(engine, json.loads(line))) + "\n")
        stdout.flush()


def _start_worker(engine: Any, spare_fds=()) -> tuple[int, int, int]:
    """Forks a worker that answers the lines of a new pipe on another: its pid, the pipe's end to
    write requests to and the one to read answers from (both non-blocking). `spare_fds`: the parent's
    ends of another worker's pipes, which this one must not hold."""
    requests_read, requests_write = os.pipe()
    answers_read, answers_write = os.pipe()
    sys.stderr.flush()
    pid = os.fork()
    if pid == 0:  # the worker: answers until the end of its requests, then leaves without cleanup
        status = 0
        try:
            os.close(requests_write)
            os.close(answers_read)
            for fd in spare_fds:  # a spare's ends of the spare's pipes (when this is the spare, none)
                os.close(fd)
            with os.fdopen(requests_read, "rb") as requests, os.fdopen(answers_write, "w") as answers:
                _answer_lines(engine, requests, answers)
        except SystemExit as leaving:
            status = leaving.code if isinstance(leaving.code, int) else 1
        except BaseException:  # an engine bug: its traceback on stderr, and the parent answers for it
            traceback.print_exc()
            status = 1
        finally:
            sys.stderr.flush()
            os._exit(status)
    os.close(requests_read)
    os.close(answers_write)
    os.set_blocking(requests_write, False)
    os.set_blocking(answers_read, False)
    return pid, requests_write, answers_read


def _ended(status: int) -> dict:
    """How a worker ended (os.waitpid's status), as a "crashed" answer says it."""
    if os.WIFSIGNALED(status):
        return {"signal": os.WTERMSIG(status)}
    return {"status": os.WEXITSTATUS(status) if os.WIFEXITED(status) else -1}


_REQUEST_ID = re.compile(rb'\s*\{\s*"id"\s*:\s*(\d+)')


def _request_id(line: bytes) -> int | None:
    """The id of a request line (tapecheck writes it first), or None for a line that has none."""
    found = _REQUEST_ID.match(line)
    if found:
        return int(found.group(1))
    try:
        return json.loads(line).get("id")
    except (ValueError, AttributeError):
        return None


def _serve_in_workers(engine: Any, stdin_fd: int, stdout) -> None:
    """Relays requests from `stdin_fd` to a forked worker, and its answers to `stdout`, in order. Every
    request is passed on as it comes (the worker answers them in order, as tapecheck pipelines them). A
    worker that dies leaves a "crashed" answer for the request it was running (the oldest unanswered),
    and a spare, forked (and warmed) while it ran, takes over the requests after it. `{"cancel": ID}`
    answers request ID "cancelled": before it is passed on, instead of its answer, or by killing the
    worker that runs it."""
    import selectors
    waiting: collections.deque = collections.deque()   # (id, line) not yet passed on, oldest first
    # (id, line) passed on and not yet answered, oldest first; line None: a request cancelled before it was
    # passed on, answered "cancelled" when its turn comes
    in_flight: collections.deque = collections.deque()
    cancelled_ids: set = set()  # ids to answer "cancelled" instead of what the worker says, or before sending
    killed = None      # the id of the request in flight the worker was killed to cancel
    received = b""     # stdin's bytes after its last complete line
    to_send = b""      # requests for the worker's pipe that it has not taken yet
    answer_part = b""  # the worker's bytes after its last complete answer
    stdin_open = True
    worker = spare = None

    def write(document: dict) -> None:
        stdout.write(_dumps(document) + "\n")
        stdout.flush()

    def answer_cancelled_in_turn() -> None:
        while in_flight and in_flight[0][1] is None:
            cancelled_ids.discard(in_flight[0][0])
            write({"id": in_flight.popleft()[0], "cancelled": True})

    with selectors.DefaultSelector() as selector:
        selector.register(stdin_fd, selectors.EVENT_READ)
        while stdin_open or waiting or in_flight:
            if worker is None:
                # The spare, forked (and warmed) while the last worker ran, takes over at once.
                pid, requests_fd, answers_fd = worker = spare or _start_worker(engine)
                spare = None
                selector.register(answers_fd, selectors.EVENT_READ)
            while waiting and killed is None:  # never to a worker being killed
                ident, line = waiting.popleft()
                if ident in cancelled_ids:  # never run: answered in its turn
                    in_flight.append((ident, None))
                    continue
                in_flight.append((ident, line))
                to_send += line
            answer_cancelled_in_turn()
            if to_send:
                try:  # now, before a spare is forked; what the pipe does not take goes below
                    to_send = to_send[os.write(requests_fd, to_send):]
                except (BlockingIOError, BrokenPipeError):
                    pass
            if spare is None:  # after the worker has its requests: a fork takes a while
                spare = _start_worker(engine, worker[1:])
            if not (stdin_open or in_flight):
                break
            watching_write = bool(to_send) and killed is None
            if watching_write:
                selector.register(requests_fd, selectors.EVENT_WRITE)
            events = selector.select()
            if watching_write:
                selector.unregister(requests_fd)
            for key, _ in events:
                if key.fd == stdin_fd:
                    chunk = os.read(stdin_fd, 65536)
                    if not chunk:
                        stdin_open = False
                        selector.unregister(stdin_fd)
                        continue
                    received += chunk
                    *lines, received = received.split(b"\n")
                    for line in lines:
                        if not line.strip():
                            continue
                        if line.lstrip().startswith(b'{"cancel"'):
                            ident = json.loads(line)["cancel"]
                            if in_flight and in_flight[0][0] == ident and killed is None:
                                os.kill(pid, signal.SIGKILL)  # its end is read below: answered "cancelled"
                                killed = ident
                            elif any(ident == i for i, _ in in_flight) or any(ident == i for i, _ in waiting):
                                cancelled_ids.add(ident)
                            continue  # a cancel for a request answered already is ignored
                        waiting.append((_request_id(line), line + b"\n"))
                elif key.fd == requests_fd:
                    try:
                        to_send = to_send[os.write(requests_fd, to_send):]
                    except BlockingIOError:
                        pass
                    except BrokenPipeError:  # the worker is gone: its answers' end says how
                        to_send = b""
                elif key.fd == answers_fd:
                    try:
                        chunk = os.read(answers_fd, 65536)
                    except BlockingIOError:
                        continue
                    if chunk:
                        answer_part += chunk
                        answer_cancelled_in_turn()
                        while b"\n" in answer_part and in_flight:  # one answer per request passed on, in order
                            answer, _, answer_part = answer_part.partition(b"\n")
                            ident, _ = in_flight.popleft()
                            if ident in cancelled_ids:
                                cancelled_ids.discard(ident)
                                write({"id": ident, "cancelled": True})
                            else:
                                stdout.write(answer.decode() + "\n")
                                stdout.flush()
                            answer_cancelled_in_turn()
                        continue
                    # The worker's end: it died (or was killed) on its oldest request, or it is done.
                    selector.unregister(answers_fd)
                    os.close(answers_fd)
                    os.close(requests_fd)
                    _, status = os.waitpid(pid, 0)
                    answer_cancelled_in_turn()
                    # The request it died on: the oldest in flight, unless it was killed to cancel a request
                    # it had answered already (its answer was read above); the others run again.
                    if in_flight and killed in (None, in_flight[0][0]):
                        ident, _ = in_flight.popleft()
                        cancelled_ids.discard(ident)
                        write({"id": ident, **({"cancelled": True} if killed is not None else {"crashed": _ended(status)})})
                    waiting.extendleft(reversed(in_flight))  # the next worker runs the rest (or answers them cancelled)
                    in_flight.clear()
                    worker, killed, answer_part, to_send = None, None, b"", b""
                    break  # the other events were the old worker's, or come again
        for process in (worker, spare):
            if process is not None:
                os.close(process[1])  # the end of its requests: it exits
                os.waitpid(process[0], 0)
                os.close(process[2])
