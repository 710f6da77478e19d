"""The protocol library: value decoding and encoding, answers, and the serve loop."""

from __future__ import annotations

import io
import json
import math
import random
import struct
import subprocess
import sys
import textwrap
import unittest
from fractions import Fraction

from engine_driver import REPO, engine_environment

sys.path.insert(0, str(REPO / "adapters" / "python"))

import tapecheck_engine as te  # noqa: E402
from tapecheck_engine import DataTensor, DomainError, Unsupported  # noqa: E402

FLT_MAX = struct.unpack("<f", bytes.fromhex("ffff7f7f"))[0]
FLT_TRUE_MIN = 2.0 ** -149


def exact_decimal(q: Fraction) -> str:
    """The exact decimal text of a dyadic fraction n / 2^k, which is n * 5^k / 10^k."""
    k = q.denominator.bit_length() - 1
    assert q.denominator == 1 << k, q
    digits = str(abs(q.numerator) * 5 ** k).rjust(k + 1, "0")
    whole, fraction = (digits[:-k], digits[-k:]) if k else (digits, "")
    return ("-" if q < 0 else "") + whole + ("." + fraction if fraction else "")


class DecodeRationalTest(unittest.TestCase):
    def test_the_grammar_gives_exact_fractions(self):
        cases = {"3": Fraction(3), "-3/4": Fraction(-3, 4), "-1.25": Fraction(-5, 4), "2.5e-3": Fraction(1, 400),
                 "2.5E+3": Fraction(2500), ".5": Fraction(1, 2), "1.": Fraction(1), "-0": Fraction(0),
                 "0x1.8p+1": Fraction(3), "-0X1P-2": Fraction(-1, 4)}
        for text, want in cases.items():
            for carrier in ("rational", "rational-noeq"):
                got = te.decode_value(carrier, text)
                self.assertIsInstance(got, Fraction, text)
                self.assertEqual(got, want, text)

    def test_hex_floats_are_exact_beyond_double_precision(self):
        # float.fromhex would round 1 + 2^-56 to 1.
        self.assertEqual(te.decode_value("rational", "0x1.00000000000001p+0"), 1 + Fraction(1, 2 ** 56))

    def test_specials_have_no_exact_value(self):
        for text in ("nan", "inf", "-inf"):
            with self.assertRaises(ValueError):
                te.decode_value("rational", text)


class DecodeModpTest(unittest.TestCase):
    def test_residues(self):
        p = te.MODP
        self.assertEqual(te.decode_value("modp", "-1"), p - 1)
        self.assertEqual(te.decode_value("modp", str(p)), 0)
        self.assertEqual(te.decode_value("modp", "1/2") * 2 % p, 1)
        self.assertEqual(te.decode_value("modp", "0.5"), te.decode_value("modp", "1/2"))
        self.assertEqual(te.decode_value("modp", "-3/4") * 4 % p, p - 3)

    def test_a_denominator_divisible_by_p_is_an_error(self):
        with self.assertRaises(ValueError):
            te.decode_value("modp", f"1/{te.MODP}")


class DecodeDoubleTest(unittest.TestCase):
    def test_decimals_and_specials(self):
        self.assertEqual(te.decode_value("double", "0.1"), 0.1)
        self.assertEqual(te.decode_value("double", "1e400"), math.inf)
        self.assertEqual(te.decode_value("double", "4.9406564584124654e-324"), 5e-324)
        for text in ("nan", "NaN", "NAN"):
            self.assertTrue(math.isnan(te.decode_value("double", text)), text)
        for text, want in (("inf", math.inf), ("-INF", -math.inf), ("Inf", math.inf)):
            self.assertEqual(te.decode_value("double", text), want, text)

    def test_negative_zero_in_every_spelling(self):
        for text in ("-0", "-0.0", "-0e5", "-0/3", "-0x0p+0", "-1e-400"):
            got = te.decode_value("double", text)
            self.assertEqual(got, 0.0, text)
            self.assertEqual(math.copysign(1.0, got), -1.0, text)
        self.assertEqual(math.copysign(1.0, te.decode_value("double", "0")), 1.0)

    def test_fractions_and_hex_are_correctly_rounded(self):
        self.assertEqual(te.decode_value("double", "1/3"), 1 / 3)
        self.assertEqual(te.decode_value("double", "-0x1.8p+1"), -3.0)
        midpoint = 1 + Fraction(1, 2 ** 53)  # between 1 and the next double: ties to even
        self.assertEqual(te.decode_value("double", exact_decimal(midpoint)), 1.0)
        self.assertEqual(te.decode_value("double", exact_decimal(midpoint + Fraction(1, 2 ** 80))),
                         math.nextafter(1.0, 2.0))


class DecodeFloatTest(unittest.TestCase):
    def decode(self, text):
        return te.decode_value("float", text)

    def test_double_rounding_trap(self):
        # 1 + 2^-24 is halfway between the floats 1 and 1 + 2^-23; a hair above it the exact value
        # rounds up, but through a double it lands on the midpoint and then ties down to 1.
        midpoint = 1 + Fraction(1, 2 ** 24)
        above = exact_decimal(midpoint + Fraction(1, 2 ** 70))
        self.assertEqual(float(Fraction(above)), float(midpoint))  # the trap is real
        self.assertEqual(self.decode(above), 1 + 2 ** -23)
        self.assertEqual(self.decode(exact_decimal(midpoint - Fraction(1, 2 ** 70))), 1.0)
        self.assertEqual(self.decode(exact_decimal(midpoint)), 1.0)  # a true tie goes to even
        self.assertEqual(self.decode("0x1.0000010000000000001p+0"), 1 + 2 ** -23)  # hex, same trap

    def test_subnormals(self):
        self.assertEqual(self.decode("1.4e-45"), FLT_TRUE_MIN)
        half = Fraction(1, 2 ** 150)  # halfway between 0 and the smallest subnormal
        self.assertEqual(self.decode(exact_decimal(half)), 0.0)
        self.assertEqual(self.decode(exact_decimal(half + Fraction(1, 2 ** 220))), FLT_TRUE_MIN)
        self.assertEqual(self.decode("1.1754942e-38"), 2.0 ** -126 - 2.0 ** -149)  # largest subnormal

    def test_overflow_to_infinity(self):
        self.assertEqual(self.decode("3.4028235e38"), FLT_MAX)
        threshold = Fraction(2 ** 128 - 2 ** 103)  # halfway between FLT_MAX and 2^128
        self.assertEqual(self.decode(exact_decimal(threshold - 1)), FLT_MAX)
        self.assertEqual(self.decode(exact_decimal(threshold)), math.inf)
        self.assertEqual(self.decode("-1e39"), -math.inf)

    def test_values_are_float32(self):
        self.assertEqual(self.decode("0.1"), struct.unpack("<f", struct.pack("<f", 0.1))[0])
        self.assertNotEqual(self.decode("0.1"), 0.1)
        self.assertEqual(self.decode("1/3"), struct.unpack("<f", struct.pack("<f", 1 / 3))[0])

    def test_specials_and_negative_zero(self):
        self.assertTrue(math.isnan(self.decode("nan")))
        self.assertEqual(self.decode("-Inf"), -math.inf)
        for text in ("-0", "-1e-50", "-0/7"):
            self.assertEqual(math.copysign(1.0, self.decode(text)), -1.0, text)

    def test_exact_rounding_agrees_with_the_hardware_on_doubles(self):
        # A double converts to float32 by a single, correct rounding; the exact path must agree.
        rng = random.Random(5)
        for _ in range(3000):
            d = struct.unpack("<d", struct.pack("<Q", rng.getrandbits(64)))[0]
            if math.isfinite(d) and d != 0:
                want = struct.unpack("<f", struct.pack("<f", d))[0] if abs(d) < 2 ** 128 else math.copysign(math.inf, d)
                self.assertEqual(te._float32_of_fraction(Fraction(d)), want, d.hex())


class EncodeTest(unittest.TestCase):
    def test_exact_carriers(self):
        self.assertEqual(te.encode_value("rational", Fraction(-3, 4)), "-3/4")
        self.assertEqual(te.encode_value("rational", Fraction(6, 3)), "2")
        self.assertEqual(te.encode_value("rational-noeq", Fraction(0)), "0")
        self.assertEqual(te.encode_value("modp", -1), "2305843009213693950")

    def test_ieee_carriers(self):
        self.assertEqual(te.encode_value("double", -0.0), "-0x0.0p+0")
        self.assertEqual(te.encode_value("double", 0.0), "0x0.0p+0")
        self.assertEqual(te.encode_value("double", math.nan), "nan")
        self.assertEqual(te.encode_value("double", -math.inf), "-inf")
        self.assertEqual(te.encode_value("float", math.inf), "inf")
        self.assertEqual(te.encode_value("double", 1.5), "0x1.8000000000000p+0")

    def test_round_trip(self):
        for carrier, values in (("double", [0.1, -0.0, 5e-324, 1e308, -2.5]),
                                ("float", [te.decode_value("float", "0.1"), FLT_TRUE_MIN, FLT_MAX]),
                                ("rational", [Fraction(-7, 3), Fraction(10 ** 30, 7)])):
            for v in values:
                back = te.decode_value(carrier, te.encode_value(carrier, v))
                self.assertEqual(back, v)
                if carrier != "rational":
                    self.assertEqual(math.copysign(1, back), math.copysign(1, v))


class ListEngine(te.Engine):
    """A stub engine over (shape, values) pairs that records what the library gives it."""

    profile = {"name": "stub", "ops": {"rational": ["add", "fail", "nope", "scale", "const", "mask", "gather0",
                                                    "matmul", "sum_axis", "crash"],
                                       "double": ["add"]}}

    def __init__(self, gradients=None, pass_error=None):
        self.applied, self.seeds = [], []
        self.gradients, self.pass_error = gradients, pass_error

    def leaf(self, carrier, shape, values):
        return (shape, list(values))

    def apply(self, op, args, attrs, shape, data):
        self.applied.append((op, attrs, shape, data))
        if op == "fail":
            raise DomainError("divisor contains 0")
        if op == "nope":
            raise Unsupported("nope{flavour}")
        if op == "crash":
            raise RuntimeError("engine bug")
        if op == "add":
            return (shape, [a + b for a, b in zip(args[0][1], args[1][1])])
        return (shape, [Fraction(0)] * te.shape_size(shape))

    def values(self, tensor):
        return tensor[1]

    def backward(self, tensors, seeds):
        self.seeds.append(seeds)
        if self.pass_error and len(self.seeds) == 1:
            raise DomainError(self.pass_error)
        if self.gradients is not None:
            return self.gradients
        return [seeds.get(p) for p in range(len(tensors))]


def stub_request(nodes, passes=(), carrier="rational", inputs=([2], [2]), values=(["1", "-1/2"], ["3", "1/4"]), data=None):
    case = {"tapecheck": 1, "inputs": [{"shape": s} for s in inputs], "nodes": list(nodes), "values": list(values)}
    if data:
        case["data"] = data
    return {"id": 9, "carrier": carrier, "case": case, "passes": list(passes)}


ADD = {"op": "add", "args": [0, 1], "shape": [2]}


class AnswerTest(unittest.TestCase):
    def test_context_in_position_order(self):
        out = te.answer(ListEngine(), stub_request([ADD]))
        self.assertEqual(out, {"id": 9, "context": [{"shape": [2], "values": ["1", "-1/2"]},
                                                    {"shape": [2], "values": ["3", "1/4"]},
                                                    {"shape": [2], "values": ["4", "-1/4"]}],
                               "passes": []})

    def test_seeds_per_pass_kind(self):
        engine = ListEngine()
        out = te.answer(engine, stub_request([ADD], [{"dense": [["1", "2"], ["0", "0"], ["1/2", "-1"]]},
                                                     {"single": {"output": 2, "seed": ["5", "6"]}}]))
        self.assertEqual(engine.seeds[0], {0: [1, 2], 1: [0, 0], 2: [Fraction(1, 2), -1]})
        self.assertEqual(engine.seeds[1], {2: [5, 6]})
        self.assertEqual(out["passes"][1]["gradients"],
                         [{"shape": [2], "values": ["0", "0"]}] * 2 + [{"shape": [2], "values": ["5", "6"]}])
        self.assertNotIn("programs_run", out["passes"][1])

    def test_programs_run_only_when_the_engine_counts(self):
        engine = ListEngine(gradients=([None, None, [1, 1]], 1))
        out = te.answer(engine, stub_request([ADD], [{"single": {"output": 2, "seed": ["1", "1"]}}]))
        self.assertEqual(out["passes"][0]["programs_run"], 1)

    def test_none_gradients_are_the_carriers_zeros(self):
        out = te.answer(ListEngine(gradients=[None, None, None]),
                        stub_request([ADD], [{"single": {"output": 2, "seed": ["1", "1"]}}], carrier="double"))
        self.assertEqual(out["passes"][0]["gradients"][0], {"shape": [2], "values": ["0x0.0p+0", "0x0.0p+0"]})

    def test_domain_error_names_the_position_counting_inputs(self):
        nodes = [ADD, {"op": "fail", "args": [2, 0], "shape": [2]}, ADD]
        engine = ListEngine()
        out = te.answer(engine, stub_request(nodes, [{"dense": []}]))
        self.assertEqual(out, {"id": 9, "error": {"position": 3, "message": "divisor contains 0"}})
        self.assertEqual([a[0] for a in engine.applied], ["add", "fail"])  # stops at the failure
        self.assertEqual(engine.seeds, [])  # and runs no pass

    def test_unsupported_raised_by_the_engine(self):
        out = te.answer(ListEngine(), stub_request([ADD, {"op": "nope", "args": [0], "shape": [2]}]))
        self.assertEqual(out, {"id": 9, "unsupported": "nope{flavour}"})

    def test_an_op_outside_the_profile_is_unsupported_without_running(self):
        engine = ListEngine()
        out = te.answer(engine, stub_request([ADD, {"op": "exp", "args": [0], "shape": [2]}]))
        self.assertEqual(out, {"id": 9, "unsupported": "exp"})
        self.assertEqual(engine.applied, [])
        out = te.answer(engine, stub_request([{"op": "scale", "args": [0], "shape": [2], "attrs": {"c": "2"}}],
                                             carrier="double"))
        self.assertEqual(out, {"id": 9, "unsupported": "scale"})  # per-carrier op lists

    def test_a_failing_pass_fails_alone(self):
        engine = ListEngine(pass_error="no gradient today")
        out = te.answer(engine, stub_request([ADD], [{"single": {"output": 2, "seed": ["1", "1"]}},
                                                     {"single": {"output": 0, "seed": ["1", "1"]}}]))
        self.assertEqual(out["passes"][0], {"error": {"message": "no gradient today"}})
        self.assertIn("gradients", out["passes"][1])
        self.assertIn("context", out)

    def test_other_exceptions_propagate(self):
        with self.assertRaises(RuntimeError):
            te.answer(ListEngine(), stub_request([{"op": "crash", "args": [0], "shape": [2]}]))

    def test_attributes_and_data_are_decoded(self):
        engine = ListEngine()
        nodes = [{"op": "scale", "args": [0], "shape": [2], "attrs": {"c": "-1/2"}},
                 {"op": "const", "shape": [2], "attrs": {"shape": [2], "values": ["0.25", "3"]}},
                 {"op": "mask", "args": [0], "shape": [2], "attrs": {"key": "m"}},
                 {"op": "gather0", "args": [0], "shape": [3], "attrs": {"key": "rows"}}]
        data = {"m": {"shape": [2], "values": ["1", "1/3"]}, "rows": {"indices": [1, 0, 1]}}
        te.answer(engine, stub_request(nodes, data=data))
        scale, const, mask, gather = engine.applied
        self.assertEqual(scale[1], {"c": Fraction(-1, 2)})
        self.assertEqual(const[1], {"shape": [2], "values": [Fraction(1, 4), Fraction(3)]})
        self.assertEqual(mask[3]["m"], DataTensor([2], [Fraction(1), Fraction(1, 3)]))
        self.assertEqual(gather[3]["rows"], [1, 0, 1])

    def test_missing_node_shapes_are_inferred(self):
        engine = ListEngine()
        nodes = [{"op": "matmul", "args": [0, 1]}, {"op": "sum_axis", "args": [2], "attrs": {"axis": 0}},
                 {"op": "gather0", "args": [1], "attrs": {"key": "rows"}}]
        out = te.answer(engine, stub_request(nodes, inputs=([2, 3], [3, 4]), values=(["0"] * 6, ["0"] * 12),
                                             data={"rows": {"indices": [2, 2]}}))
        self.assertEqual([a[2] for a in engine.applied], [[2, 4], [4], [2, 4]])
        self.assertEqual([t["shape"] for t in out["context"]], [[2, 3], [3, 4], [2, 4], [4], [2, 4]])

    def test_hello_names_the_policy_only_when_set(self):
        engine = ListEngine()
        self.assertEqual(te.hello(engine), {"tapecheck_engine": 1, "profile": ListEngine.profile})
        engine.policy = "values"
        self.assertEqual(te.hello(engine)["policy"], "values")


class ServeTest(unittest.TestCase):
    def test_hello_then_one_line_per_request_in_order(self):
        requests = [stub_request([ADD], [{"single": {"output": 2, "seed": ["1", "1"]}}]) for _ in range(3)]
        for i, r in enumerate(requests):
            r["id"] = i + 1
        stdin = io.BytesIO(b"".join(json.dumps(r).encode() + b"\n" for r in requests) + b"\n")
        stdout = io.StringIO()
        te.serve(ListEngine(), stdin, stdout)  # returns at end of input
        lines = stdout.getvalue().split("\n")
        self.assertEqual(lines[-1], "")
        self.assertEqual(json.loads(lines[0])["tapecheck_engine"], 1)
        self.assertEqual([json.loads(line)["id"] for line in lines[1:-1]], [1, 2, 3])
        self.assertTrue(all(" " not in line for line in lines), "compact separators")


ENGINE_SCRIPT = textwrap.dedent("""
    import sys
    sys.path.insert(0, {path!r})
    import tapecheck_engine as te

    class Chatty(te.Engine):
        profile = {{"name": "chatty"}}
        def leaf(self, carrier, shape, values):
            print("making a leaf")  # must not reach the protocol's stream
            return values
        def apply(self, op, args, attrs, shape, data):
            raise RuntimeError("engine bug in " + op)
        def values(self, tensor):
            return tensor
        def backward(self, tensors, seeds):
            return [None] * len(tensors)

    te.serve(Chatty())
""")


class ProcessTest(unittest.TestCase):
    """serve() in a child process, as tapecheck runs it."""

    def run_engine(self, lines: bytes):
        script = ENGINE_SCRIPT.format(path=str(REPO / "adapters" / "python"))
        return subprocess.run([sys.executable, "-c", script], input=lines, capture_output=True, timeout=60,
                              env=engine_environment())

    def test_prints_go_to_stderr_and_eof_exits_cleanly(self):
        request = stub_request([], [{"single": {"output": 0, "seed": ["1", "1"]}}], inputs=([2],), values=(["1", "2"],))
        done = self.run_engine(json.dumps(request).encode() + b"\n")
        self.assertEqual(done.returncode, 0, done.stderr)
        hello_line, answer_line = done.stdout.decode().splitlines()
        self.assertEqual(json.loads(hello_line)["profile"], {"name": "chatty"})
        self.assertEqual(json.loads(answer_line)["id"], 9)
        self.assertIn(b"making a leaf", done.stderr)

    def test_an_engine_bug_ends_its_worker_with_a_traceback(self):
        request = stub_request([ADD])
        done = self.run_engine(json.dumps(request).encode() + b"\n")
        self.assertEqual(done.returncode, 0, done.stderr)
        hello_line, answer_line = done.stdout.decode().splitlines()
        self.assertEqual(json.loads(answer_line), {"id": 9, "crashed": {"status": 1}})
        self.assertIn(b"Traceback", done.stderr)
        self.assertIn(b"RuntimeError: engine bug in add", done.stderr)


# Imported once per process start (counted on stderr); add crashes (SIGSEGV) or hangs, by argv[1].
MISBEHAVING_SCRIPT = textwrap.dedent("""
    import os, signal, sys, time
    sys.path.insert(0, {path!r})
    import tapecheck_engine as te
    print("imported", file=sys.stderr, flush=True)

    class Misbehaving(te.Engine):
        profile = {{"name": "misbehaving"}}
        def leaf(self, carrier, shape, values):
            return values
        def apply(self, op, args, attrs, shape, data):
            if sys.argv[1] == "crash":
                os.kill(os.getpid(), signal.SIGSEGV)
            time.sleep(600)
        def values(self, tensor):
            return tensor
        def backward(self, tensors, seeds):
            return [None] * len(tensors)

    te.serve(Misbehaving())
""")


class WorkerTest(unittest.TestCase):
    """serve() answers in a worker forked from the warm process: a crash or a cancel ends the worker
    alone, answered for, and the engine answers on without being started (imported) again."""

    def start(self, how: str, fork: str = "1"):
        script = MISBEHAVING_SCRIPT.format(path=str(REPO / "adapters" / "python"))
        env = {**engine_environment(), "TAPECHECK_ENGINE_FORK": fork}
        return subprocess.Popen([sys.executable, "-c", script, how], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, env=env)

    @staticmethod
    def request(ident: int, nodes) -> bytes:
        request = stub_request(nodes, [{"single": {"output": 0, "seed": ["1", "1"]}}])
        request["id"] = ident
        return json.dumps(request).encode() + b"\n"

    def test_a_crash_is_answered_and_the_engine_answers_on(self):
        engine = self.start("crash")
        lines = b"".join(self.request(i, [ADD] if i % 2 else []) for i in range(1, 6))
        out, err = engine.communicate(lines, timeout=60)
        self.assertEqual(engine.returncode, 0, err)
        hello, *answers = [json.loads(line) for line in out.decode().splitlines()]
        self.assertTrue(hello["cancel"])
        self.assertEqual([a["id"] for a in answers], [1, 2, 3, 4, 5])
        for a in answers[0::2]:
            self.assertEqual(a, {"id": a["id"], "crashed": {"signal": 11}})
        for a in answers[1::2]:
            self.assertIn("context", a)
        self.assertEqual(err.decode().count("imported"), 1, err)

    def test_a_cancelled_request_is_answered_and_the_engine_answers_on(self):
        engine = self.start("hang")
        engine.stdin.write(self.request(1, [ADD]) + self.request(2, []) + self.request(3, [ADD]))
        engine.stdin.flush()
        hello = json.loads(engine.stdout.readline())
        self.assertTrue(hello["cancel"])
        # No such request; one that waits (never run); the one it hangs on (its worker killed).
        engine.stdin.write(b'{"cancel":7}\n{"cancel":3}\n{"cancel":1}\n')
        engine.stdin.flush()
        self.assertEqual(json.loads(engine.stdout.readline()), {"id": 1, "cancelled": True})
        self.assertIn("context", json.loads(engine.stdout.readline()))
        self.assertEqual(json.loads(engine.stdout.readline()), {"id": 3, "cancelled": True})
        out, err = engine.communicate(timeout=60)
        self.assertEqual((engine.returncode, out), (0, b""), err)
        self.assertEqual(err.decode().count("imported"), 1, err)

    def test_without_workers_a_crash_ends_the_engine(self):
        engine = self.start("crash", fork="0")
        out, _ = engine.communicate(self.request(1, [ADD]) + self.request(2, []), timeout=60)
        self.assertEqual(engine.returncode, -11)
        self.assertNotIn(b"cancel", out)
        self.assertEqual(len(out.splitlines()), 1)  # the hello only


if __name__ == "__main__":
    unittest.main()
