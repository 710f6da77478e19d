"""adapters/python/torch_engine.py driven as a child process, and the PyTorch facts its profile rests on.

Skipped when torch cannot be imported.
"""

from __future__ import annotations

import math
import struct
import unittest

from engine_driver import (TORCH_ENGINE, EngineProcess, EngineTestCase, as_floats, context, dense, gradients, node,
                           request, single)

try:
    import torch
except ImportError:  # the whole module is skipped
    torch = None

needs_torch = unittest.skipIf(torch is None, "torch cannot be imported")


def float32(x: float) -> float:
    return struct.unpack("<f", struct.pack("<f", x))[0]


@needs_torch
class AutogradFactsTest(unittest.TestCase):
    """What the engine's backward relies on, measured on the installed PyTorch."""

    def test_autograd_grad_includes_each_positions_own_seed_once(self):
        x = torch.tensor([3.0], dtype=torch.float64, requires_grad=True)
        y = x * 2
        z = y * 5
        seeds = [torch.tensor([s], dtype=torch.float64) for s in (7.0, 11.0, 1.0)]
        gx, gy, gz = torch.autograd.grad([x, y, z], [x, y, z], seeds, retain_graph=True, allow_unused=True)
        self.assertEqual(gz.item(), 1.0)
        self.assertEqual(gy.item(), 11.0 + 5.0)
        self.assertEqual(gx.item(), 7.0 + 2.0 * 16.0)

    def test_an_unused_leafs_gradient_is_its_own_seed(self):
        x = torch.tensor([1.0], dtype=torch.float64, requires_grad=True)
        (gx,) = torch.autograd.grad([x], [x], [torch.tensor([4.0], dtype=torch.float64)], allow_unused=True)
        self.assertEqual(gx.item(), 4.0)


@needs_torch
class TorchEngineTest(EngineTestCase):
    script = TORCH_ENGINE

    def floats(self, values):
        return as_floats(values)

    def test_hello(self):
        hello = self.hello_line
        self.assertEqual(hello["tapecheck_engine"], 1)
        self.assertEqual(hello["policy"], "values")
        profile = hello["profile"]
        self.assertEqual(profile["carriers"], ["double", "float"])
        self.assertEqual(profile["single_output"], "ancestors")
        self.assertNotIn("opaque", profile["ops"])
        self.assertEqual(len(profile["ops"]), 39)  # every op of the library but opaque

    def test_mul_x_x_gives_2x(self):
        out = self.ask(request("double", [[2]], [["3", "-0.5"]], [node("mul", [0, 0], [2])], [single(1, ["1", "1"])]))
        self.assertEqual(self.floats(gradients(out)[0]), [6.0, -1.0])

    def test_dense_pass_includes_each_positions_own_seed(self):
        nodes = [node("scale", [0], [], c="3"), node("add", [1, 0], [])]
        out = self.ask(request("double", [[]], [["2"]], nodes, [dense(["5"], ["7"], ["0.5"])]))
        self.assertEqual([self.floats(g) for g in gradients(out)], [[28.0], [7.5], [0.5]])

    def test_const_and_detach_receive_cotangent_and_pass_none(self):
        nodes = [node("const", [], [2], shape=[2], values=["2", "3"]), node("detach", [0], [2]),
                 node("mul", [1, 2], [2]), node("sum", [3], [])]
        out = self.ask(request("double", [[2]], [["5", "7"]], nodes,
                               [dense(["0", "0"], ["0", "0"], ["0", "0"], ["0", "0"], ["1"])]))
        grads = [self.floats(g) for g in gradients(out)]
        self.assertEqual(grads[1], [5.0, 7.0])
        self.assertEqual(grads[2], [2.0, 3.0])
        self.assertEqual(grads[0], [0.0, 0.0])

    def test_a_reshape_to_the_same_shape_is_its_own_position(self):
        nodes = [node("reshape", [0], [2], shape=[2]), node("broadcast", [1], [2], shape=[2]),
                 node("slice0", [2], [2], start=0, len=2)]
        out = self.ask(request("double", [[2]], [["1", "2"]], nodes,
                               [dense(["1", "1"], ["10", "10"], ["100", "100"], ["1000", "1000"])]))
        self.assertEqual([self.floats(g) for g in gradients(out)],
                         [[1111.0] * 2, [1110.0] * 2, [1100.0] * 2, [1000.0] * 2])

    def test_linear_algebra(self):
        a, b = ["1", "2", "3", "4", "5", "6"], ["1", "0", "-1", "2", "0.5", "1"]  # [2,3] and [3,2]
        nodes = [node("matmul", [0, 1], [2, 2]), node("transpose", [4], [2, 2]),
                 node("linear", [0, 2, 3], [2]), node("dot", [2, 2], [])]
        out = self.ask(request("double", [[2, 3], [3, 2], [3], [2]], [a, b, ["1", "1", "-1"], ["10", "20"]], nodes,
                               [single(5, ["1", "2", "3", "4"]), single(6, ["1", "2"]), single(7, ["1"])]))
        self.assertEqual(self.floats(context(out)[4]), [0.5, 7.0, 2.0, 16.0])
        self.assertEqual(self.floats(context(out)[5]), [0.5, 2.0, 7.0, 16.0])
        self.assertEqual(self.floats(context(out)[6]), [10.0, 23.0])
        self.assertEqual(self.floats(context(out)[7]), [3.0])
        # the seed [[1,2],[3,4]] at the transpose is G = [[1,3],[2,4]] at the product: a gets G·bᵀ
        self.assertEqual(self.floats(gradients(out, 0)[0]), [1.0, 5.0, 3.5, 2.0, 6.0, 5.0])
        self.assertEqual(self.floats(gradients(out, 1)[0]), [1.0, 1.0, -1.0, 2.0, 2.0, -2.0])  # ct ⊗ x
        self.assertEqual(self.floats(gradients(out, 1)[2]), [9.0, 12.0, 15.0])  # Wᵀ ct
        self.assertEqual(self.floats(gradients(out, 1)[3]), [1.0, 2.0])  # ct
        self.assertEqual(self.floats(gradients(out, 2)[2]), [2.0, 2.0, -2.0])  # dot(x, x): 2x

    def test_structural_ops(self):
        nodes = [node("broadcast", [0], [2, 3], shape=[2, 3]), node("concat0", [1, 1], [4, 3]),
                 node("gather0", [2], [3, 3], key="rows"), node("sum_axis", [3], [3], axis=0),
                 node("mask", [0], [3], key="m")]
        data = {"rows": {"indices": [3, 0, 3]}, "m": {"shape": [3], "values": ["1", "0", "-2"]}}
        out = self.ask(request("double", [[3]], [["1", "2", "3"]], nodes,
                               [single(4, ["1", "10", "100"]), single(5, ["1", "1", "1"])], data=data))
        self.assertEqual(self.floats(context(out)[4]), [3.0, 6.0, 9.0])
        self.assertEqual(self.floats(context(out)[5]), [1.0, 0.0, -6.0])
        # row 3 of the concatenation is gathered twice, row 0 once: the broadcast's rows get 1x and 2x
        self.assertEqual(self.floats(gradients(out, 0)[1]), [1.0, 10.0, 100.0, 2.0, 20.0, 200.0])
        self.assertEqual(self.floats(gradients(out, 0)[0]), [3.0, 30.0, 300.0])
        self.assertEqual(self.floats(gradients(out, 1)[0]), [1.0, 0.0, -2.0])

    def test_losses_and_reductions(self):
        nodes = [node("mse_loss", [0, 1], []), node("mean", [0], []), node("clamp", [0], [4], lo="0", hi="1")]
        out = self.ask(request("double", [[4], [4]], [["1", "2", "0", "0.5"], ["0"] * 4], nodes,
                               [single(2, ["1"]), single(3, ["1"]), single(4, ["1", "1", "1", "1"])]))
        self.assertEqual(self.floats(context(out)[2]), [(1 + 4 + 0 + 0.25) / 4])
        self.assertEqual(self.floats(gradients(out, 0)[0]), [0.5, 1.0, 0.0, 0.25])
        self.assertEqual(self.floats(gradients(out, 0)[1]), [-0.5, -1.0, -0.0, -0.25])
        self.assertEqual(self.floats(gradients(out, 1)[0]), [0.25] * 4)
        self.assertEqual(self.floats(gradients(out, 2)[0]), [1.0, 0.0, 1.0, 1.0])  # clamp passes at its bounds

    def test_float_carrier_reads_and_computes_in_float32(self):
        trap = "1.00000005960464477539062500000000000001"  # a hair above a float32 midpoint
        out = self.ask(request("float", [[3]], [["0.1", trap, "1e-45"]], [node("square", [0], [3])],
                               [single(1, ["1", "1", "1"])]))
        self.assertEqual(self.floats(context(out)[0]), [float32(0.1), 1 + 2 ** -23, 2.0 ** -149])
        self.assertEqual(self.floats(context(out)[1])[0], float32(float32(0.1) * float32(0.1)))
        self.assertEqual(self.floats(gradients(out)[0])[0], float32(2 * float32(0.1)))

    def test_transcendental_ops(self):
        ops = ["exp", "log", "sqrt", "tanh", "sigmoid", "softplus", "sin", "cos", "softmax_last", "log_softmax_last"]
        out = self.ask(request("double", [[2]], [["1", "2"]], [node(op, [0], [2]) for op in ops],
                               [single(p, ["1", "0"]) for p in range(1, len(ops) + 1)]))
        s = 1 / (1 + math.e)  # softmax([1, 2])[0]
        sig = 1 / (1 + math.exp(-1))
        want = [math.e, 1.0, 0.5, 1 - math.tanh(1) ** 2, sig * (1 - sig), sig, math.cos(1), -math.sin(1),
                s * (1 - s), 1 - s]
        for k, (op, w) in enumerate(zip(ops, want)):
            self.assertAlmostEqual(self.floats(gradients(out, k)[0])[0], w, msg=op)

    def test_log_of_a_non_positive_value_is_a_domain_error(self):
        out = self.ask(request("double", [[2]], [["1", "0"]], [node("neg", [0], [2]), node("log", [0], [2])], []))
        self.assertEqual(out["error"], {"position": 2, "message": "input contains values <= 0 or NaN"})

    def test_division_by_zero_is_ieee(self):
        out = self.ask(request("float", [[2]], [["0", "-0"]], [node("inv", [0], [2])], []))
        self.assertEqual(context(out)[1], ["inf", "-inf"])

    def test_opaque_is_unsupported(self):
        out = self.ask(request("double", [[1]], [["1"]], [node("opaque", [0], [1], name="twice")], []))
        self.assertEqual(out["unsupported"], "opaque")

    def test_single_output_visits_only_ancestors(self):
        nodes = [node("inv", [0], []), node("relu", [0], [])]  # inv(0) is off the output's path
        out = self.ask(request("double", [[]], [["0"]], nodes, [dense(["0"], ["0"], ["1"]), single(2, ["1"])]))
        self.assertTrue(math.isnan(self.floats(gradients(out, 0)[0])[0]))
        self.assertEqual(self.floats(gradients(out, 1)[0]), [0.0])

    def test_conventions_the_profile_declares(self):
        """The profile's conventions, probed directly (the survey measured them over many cases)."""
        profile = self.hello_line["profile"]
        nodes = [node("relu", [0], [4]), node("max", [0, 1], [4]), node("abs", [0], [4])]
        out = self.ask(request("double", [[4], [4]], [["0", "-0", "nan", "2"], ["0", "1", "1", "2"]], nodes,
                               [single(2, ["3", "3", "3", "3"]), single(3, ["3", "3", "3", "3"]),
                                single(4, ["-3", "-3", "3", "3"])]))
        relu = context(out)[2]
        self.assertEqual(relu[1], "-0x0.0p+0")  # relu(-0) = -0: the spec's +0 needs zero_sign unspecified
        self.assertEqual(relu[2], "nan")  # relu(NaN) = NaN: nan "propagate"
        self.assertEqual(profile["zero_sign"], "unspecified")
        self.assertEqual(profile["nan"], "propagate")
        self.assertEqual(self.floats(gradients(out, 0)[0])[0], 0.0)  # relu'(0) = 0
        self.assertEqual(profile["kinks"]["relu"], "zero")
        max_a, max_b = (self.floats(g) for g in gradients(out, 1)[:2])
        self.assertEqual((max_a[0], max_b[0]), (1.5, 1.5))  # a tie splits
        self.assertEqual(profile["kinks"]["max"], "split")
        self.assertEqual((max_a[2], max_b[2]), (3.0, 3.0))  # an unordered pair: ct to both
        abs_grad = gradients(out, 2)[0]
        self.assertEqual(abs_grad[0], "-0x0.0p+0")  # abs'(0) = ct·0, a product
        self.assertEqual(abs_grad[2], "0x0.0p+0")  # abs'(NaN) = ct·sgn(NaN) = ct·0, though NaN propagates elsewhere
        self.assertEqual(profile["kinks"]["abs"], "sign")

    def test_pipelined_requests_are_answered_in_order(self):
        bodies = [request("double", [[]], [[str(k)]], [node("square", [0], [])], [single(1, ["1"])]) for k in range(5)]
        ids = self.engine.send(*bodies)
        answers = [self.engine.read_json() for _ in bodies]
        self.assertEqual([a["id"] for a in answers], ids)
        self.assertEqual([self.floats(gradients(a)[0]) for a in answers], [[2.0 * k] for k in range(5)])


@needs_torch
class TorchProcessLifeTest(unittest.TestCase):
    def test_exits_cleanly_at_end_of_input(self):
        engine = EngineProcess(TORCH_ENGINE)
        engine.hello()
        self.assertEqual(engine.close(), 0, engine.error_text())


if __name__ == "__main__":
    unittest.main()
