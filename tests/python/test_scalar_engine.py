"""examples/python/scalar_engine.py driven as a child process, exactly as tapecheck drives it."""

from __future__ import annotations

import json
import math
import os
import random
import subprocess
import unittest

from engine_driver import (REPO, SCALAR_ENGINE, EngineProcess, EngineTestCase, as_floats, context, dense, gradients,
                           node, request, single)
from random_cases import EXACT_BINARY, EXACT_UNARY, STRUCTURAL, random_case, seed_pack


class ScalarEngineTest(EngineTestCase):
    script = SCALAR_ENGINE

    def test_hello(self):
        hello = self.hello_line
        self.assertEqual(hello["tapecheck_engine"], 1)
        self.assertEqual(hello["policy"], "values")
        profile = hello["profile"]
        self.assertEqual(profile["carriers"], ["rational", "double"])
        self.assertEqual(profile["single_output"], "ancestors")
        self.assertIn("exp", profile["ops"]["double"])
        self.assertNotIn("exp", profile["ops"]["rational"])
        self.assertNotIn("opaque", profile["ops"]["double"])

    def test_mul_x_x_gives_2x(self):
        out = self.ask(request("rational", [[2]], [["3", "-1/2"]], [node("mul", [0, 0], [2])],
                               [single(1, ["1", "1"]), dense(["0", "0"], ["1", "1"])]))
        self.assertEqual(context(out)[1], ["9", "1/4"])
        self.assertEqual(gradients(out, 0)[0], ["6", "-1"])
        self.assertEqual(gradients(out, 1)[0], ["6", "-1"])

    def test_relu_at_zero_passes_nothing(self):
        out = self.ask(request("rational", [[3]], [["0", "-2", "5"]], [node("relu", [0], [3])],
                               [single(1, ["3", "3", "3"])]))
        self.assertEqual(context(out)[1], ["0", "0", "5"])
        self.assertEqual(gradients(out)[0], ["0", "0", "3"])

    def test_relu_of_negative_zero_is_positive_zero_on_double(self):
        out = self.ask(request("double", [[2]], [["-0", "nan"]], [node("relu", [0], [2])], [single(1, ["1", "1"])]))
        self.assertEqual(context(out)[1], ["0x0.0p+0", "0x0.0p+0"])
        self.assertEqual(gradients(out)[0], ["0x0.0p+0", "0x0.0p+0"])

    def test_matmul(self):
        a, b = ["1", "2", "3", "4", "5", "6"], ["1", "0", "-1", "2", "1/2", "1"]  # [2,3] x [3,2]
        out = self.ask(request("rational", [[2, 3], [3, 2]], [a, b], [node("matmul", [0, 1], [2, 2])],
                               [single(2, ["1", "2", "3", "4"])]))
        self.assertEqual(context(out)[2], ["1/2", "7", "2", "16"])
        self.assertEqual(gradients(out)[0], ["1", "3", "5/2", "3", "5", "11/2"])  # G·bᵀ
        self.assertEqual(gradients(out)[1], ["13", "18", "17", "24", "21", "30"])  # aᵀ·G

    def test_matrix_vector(self):
        out = self.ask(request("rational", [[2, 2], [2]], [["1", "2", "3", "4"], ["1", "-1"]],
                               [node("matmul", [0, 1], [2])], [single(2, ["1", "10"])]))
        self.assertEqual(context(out)[2], ["-1", "-1"])
        self.assertEqual(gradients(out)[0], ["1", "-1", "10", "-10"])
        self.assertEqual(gradients(out)[1], ["31", "42"])

    def test_broadcast_sums_the_copies(self):
        out = self.ask(request("rational", [[3]], [["1", "2", "3"]], [node("broadcast", [0], [2, 3], shape=[2, 3])],
                               [single(1, ["1", "2", "3", "4", "5", "6"])]))
        self.assertEqual(context(out)[1], ["1", "2", "3", "1", "2", "3"])
        self.assertEqual(gradients(out)[0], ["5", "7", "9"])

    def test_const_and_detach_receive_cotangent_and_pass_none(self):
        nodes = [node("const", [], [2], shape=[2], values=["2", "3"]), node("detach", [0], [2]),
                 node("mul", [1, 2], [2]), node("sum", [3], [])]
        out = self.ask(request("rational", [[2]], [["5", "7"]], nodes,
                               [dense(["0", "0"], ["0", "0"], ["0", "0"], ["0", "0"], ["1"])]))
        grads = gradients(out)
        self.assertEqual(grads[1], ["5", "7"])  # const: the detached values
        self.assertEqual(grads[2], ["2", "3"])  # detach: the const's values
        self.assertEqual(grads[0], ["0", "0"])  # nothing passes through detach

    def test_dense_pass_includes_each_positions_own_seed(self):
        nodes = [node("scale", [0], [], c="3"), node("add", [1, 0], [])]
        out = self.ask(request("rational", [[]], [["2"]], nodes, [dense(["5"], ["7"], ["1/2"])]))
        self.assertEqual(gradients(out), [["28"], ["15/2"], ["1/2"]])  # x: 5 + 3·(7 + 1/2) + 1/2

    def test_exact_reductions(self):
        nodes = [node("mean", [0], []), node("mse_loss", [0, 1], []), node("sum_axis", [0], [3], axis=0)]
        out = self.ask(request("rational", [[2, 3], [2, 3]], [["1", "2", "3", "4", "5", "6"], ["0"] * 6], nodes,
                               [single(2, ["1"]), single(3, ["1"]), single(4, ["1", "2", "3"])]))
        self.assertEqual(context(out)[2:], [["7/2"], ["91/6"], ["5", "7", "9"]])
        self.assertEqual(gradients(out, 0)[0], ["1/6"] * 6)
        self.assertEqual(gradients(out, 1)[0], ["1/3", "2/3", "1", "4/3", "5/3", "2"])
        self.assertEqual(gradients(out, 1)[1], ["-1/3", "-2/3", "-1", "-4/3", "-5/3", "-2"])
        self.assertEqual(gradients(out, 2)[0], ["1", "2", "3", "1", "2", "3"])

    def test_max_tie_splits(self):
        out = self.ask(request("rational", [[2], [2]], [["2", "1"], ["2", "3"]], [node("max", [0, 1], [2])],
                               [single(2, ["3", "3"])]))
        self.assertEqual(gradients(out)[0], ["3/2", "0"])
        self.assertEqual(gradients(out)[1], ["3/2", "3"])

    def test_gather_scatter_adds_repeated_rows(self):
        out = self.ask(request("rational", [[3, 2]], [["1", "2", "3", "4", "5", "6"]],
                               [node("gather0", [0], [3, 2], key="rows")], [single(1, ["1", "1", "2", "2", "3", "3"])],
                               data={"rows": {"indices": [2, 0, 2]}}))
        self.assertEqual(context(out)[1], ["5", "6", "1", "2", "5", "6"])
        self.assertEqual(gradients(out)[0], ["2", "2", "0", "0", "4", "4"])

    def test_division_by_zero_is_a_domain_error_at_its_node(self):
        nodes = [node("add", [0, 1], [2]), node("div", [0, 1], [2]), node("neg", [3], [2])]
        out = self.ask(request("rational", [[2], [2]], [["1", "2"], ["3", "0"]], nodes, [dense()]))
        self.assertEqual(out["error"], {"position": 3, "message": "divisor contains 0"})
        out = self.ask(request("rational", [[1]], [["0"]], [node("inv", [0], [1])], []))
        self.assertEqual(out["error"], {"position": 1, "message": "input contains 0"})

    def test_division_by_zero_is_ieee_on_double(self):
        out = self.ask(request("double", [[3], [3]], [["1", "-1", "0"], ["0", "0", "-0"]],
                               [node("div", [0, 1], [3])], []))
        self.assertEqual(context(out)[2][:2], ["inf", "-inf"])
        self.assertEqual(context(out)[2][2], "nan")

    def test_log_of_a_non_positive_value_is_a_domain_error_on_double(self):
        out = self.ask(request("double", [[2]], [["1", "-0"]], [node("exp", [0], [2]), node("log", [0], [2])], []))
        self.assertEqual(out["error"], {"position": 2, "message": "input contains values <= 0 or NaN"})

    def test_unsupported_ops(self):
        out = self.ask(request("rational", [[1]], [["1"]], [node("exp", [0], [1])], []))
        self.assertEqual(out["unsupported"], "exp")
        out = self.ask(request("double", [[1]], [["1"]], [node("opaque", [0], [1], name="twice")], []))
        self.assertEqual(out["unsupported"], "opaque")

    def test_dense_pass_runs_every_node_single_output_only_ancestors(self):
        # docs/semantics.md §1.11 "disconnected singular node": d = inv(x) off the output's path.
        nodes = [node("inv", [0], []), node("relu", [0], [])]
        out = self.ask(request("double", [[]], [["0"]], nodes, [dense(["0"], ["0"], ["1"]), single(2, ["1"])]))
        self.assertTrue(math.isnan(as_floats(gradients(out, 0)[0])[0]))  # inv's program ran on ct = 0
        self.assertEqual(as_floats(gradients(out, 1)[0]), [0.0])  # only relu, an ancestor, ran

    def test_transcendental_ops_on_double(self):
        ops = ["exp", "sqrt", "tanh", "sigmoid", "softplus", "sin", "cos", "softmax_last", "log_softmax_last"]
        nodes = [node(op, [0], [2]) for op in ops]
        passes = [single(p, ["1", "0"]) for p in range(1, len(ops) + 1)]
        out = self.ask(request("double", [[2]], [["0", "1"]], nodes, passes))
        s0 = 1 / (1 + math.e)  # softmax([0, 1])[0]
        self.assertEqual(as_floats(context(out)[1]), [1.0, math.e])
        self.assertAlmostEqual(as_floats(context(out)[8])[0], s0)
        self.assertAlmostEqual(as_floats(context(out)[9])[0], math.log(s0))
        # d/dx[0] at x = [0, 1] with the cotangent [1, 0] at each node
        want = [1.0, math.inf, 1.0, 0.25, 0.5, 1.0, 0.0, s0 * (1 - s0), 1 - s0]
        for k, (op, w) in enumerate(zip(ops, want)):
            self.assertAlmostEqual(as_floats(gradients(out, k)[0])[0], w, msg=op)

    def test_pipelined_requests_are_answered_in_order(self):
        bodies = [request("rational", [[]], [[str(k)]], [node("square", [0], [])], [single(1, ["1"])])
                  for k in range(6)]
        ids = self.engine.send(*bodies)
        answers = [self.engine.read_json() for _ in bodies]
        self.assertEqual([a["id"] for a in answers], ids)
        self.assertEqual([gradients(a)[0][0] for a in answers], [str(2 * k) for k in range(6)])


class ProcessLifeTest(unittest.TestCase):
    def test_exits_cleanly_at_end_of_input(self):
        engine = EngineProcess(SCALAR_ENGINE)
        engine.hello()
        engine.ask(request("rational", [[]], [["1"]], [], [dense(["1"])]))
        self.assertEqual(engine.close(), 0)
        self.assertEqual(engine.error_text(), "")

    def test_the_bug_switch_overwrites_in_add(self):
        body = request("rational", [[]], [["3"]], [node("add", [0, 0], [])], [single(1, ["1"]), dense(["1"], ["1"])])
        for args, want in (((), [["2"], ["3"]]), (("--bug",), [["1"], ["1"]])):
            engine = EngineProcess(SCALAR_ENGINE, *args)
            engine.hello()
            out = engine.ask(body)
            self.assertEqual([gradients(out, 0)[0], gradients(out, 1)[0]], want, args)
            self.assertEqual(engine.close(), 0)


def tapecheck_binary():
    """The built tapecheck, if it is there and runs (another build may be in progress)."""
    path = REPO / "build" / "tapecheck"
    if not path.exists() or not os.access(path, os.X_OK):
        return None
    try:
        done = subprocess.run([str(path), "grad", "--help"], capture_output=True, timeout=30)
    except (OSError, subprocess.TimeoutExpired):
        return None
    return path if done.returncode == 0 else None


@unittest.skipIf(tapecheck_binary() is None, "build/tapecheck is not built")
class AgainstReferenceTest(unittest.TestCase):
    """Random exact cases: the engine's answers (its context and both passes, or the node and reason
    of its domain error) equal those of tapecheck's reference engine (`tapecheck serve --engine
    reference`, one process for every case, where a `tapecheck grad` per case took 45 ms)."""

    CASES = 120

    def test_random_cases_on_rational(self):
        rng = random.Random(20240601)
        engine = EngineProcess(SCALAR_ENGINE)
        reference = EngineProcess(None, command=[str(tapecheck_binary()), "serve", "--engine", "reference"])
        engine.hello()
        reference.hello()
        errors = 0
        try:
            for k in range(self.CASES):
                document = random_case(rng, EXACT_UNARY + EXACT_BINARY + STRUCTURAL)
                shapes = [s["shape"] for s in document["inputs"]] + [n["shape"] for n in document["nodes"]]
                pack = seed_pack(document, shapes)
                out = document["output"]
                body = {"carrier": "rational", "case": document, "passes": [dense(*pack), single(out, pack[out])]}
                answer, want = engine.ask(body), reference.ask(body)
                with self.subTest(case=k, document=json.dumps(document)):
                    if "error" in want:  # tapecheck names the node in its message: "node 3 (div): divisor contains 0"
                        errors += 1
                        self.assertIn("error", answer, want)
                        node_named = f"node {answer['error']['position']} ("
                        self.assertTrue(want["error"]["message"].startswith(node_named), (answer, want))
                        self.assertTrue(want["error"]["message"].endswith("): " + answer["error"]["message"]),
                                        (answer, want))
                        continue
                    self.assertIn("passes", want)
                    self.assertEqual(answer, want)
        finally:
            self.assertEqual(engine.close(), 0)
            self.assertEqual(reference.close(), 0)
        # Both kinds of answer were compared: values, and domain errors (division by zero).
        self.assertGreater(errors, 0)
        self.assertLess(errors, self.CASES // 2)


if __name__ == "__main__":
    unittest.main()
