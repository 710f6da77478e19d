"""PyTorch's findings (docs/findings.md) still reproduce on the installed version: a version that fixes
or changes one fails here, so that the findings page and the adapter's declared deviations are revised."""
import math
import unittest

import torch


class SigmoidFlushesToZeroWhereExpOverflows(unittest.TestCase):
    def test_double_and_float(self):
        self.assertEqual(torch.sigmoid(torch.tensor([-710.0], dtype=torch.float64)).item(), 0.0)
        self.assertGreater(math.exp(-710.0), 0.0)  # the exact value is a subnormal, not 0
        self.assertEqual(torch.sigmoid(torch.tensor([-89.0], dtype=torch.float32)).item(), 0.0)

    def test_the_declared_boundary_is_the_vectorised_kernels(self):
        # The adapter declares "below -709.7827111495575" (double) and "below -88.72283172607422"
        # (float): there the 8-element kernel gives 0, at the boundary a nonzero value.
        for dtype, below in ((torch.float64, -709.7827111495575), (torch.float32, -88.72283172607422)):
            at = torch.full((8,), below, dtype=dtype)
            self.assertGreater(torch.sigmoid(at)[0].item(), 0.0)
            under = torch.nextafter(at, torch.full((8,), -math.inf, dtype=dtype))
            self.assertEqual(torch.sigmoid(under)[0].item(), 0.0)


class SoftplusReturnsXAboveItsThresholdInDouble(unittest.TestCase):
    def test_double(self):
        x = 22.3
        got = torch.nn.functional.softplus(torch.tensor([x], dtype=torch.float64)).item()
        self.assertEqual(got, x)
        exact = x + math.log1p(math.exp(-x))
        self.assertGreater(abs(exact - got) / math.ulp(x), 50000)

    def test_the_gradient_is_the_cotangent_above_the_threshold(self):
        # The adapter declares "above 20", "gives": "x": its term is then ct itself.
        x = torch.tensor([20.5, 19.5], dtype=torch.float64, requires_grad=True)
        torch.nn.functional.softplus(x).backward(torch.tensor([3.0, 3.0], dtype=torch.float64))
        self.assertEqual(x.grad[0].item(), 3.0)
        self.assertLess(x.grad[1].item(), 3.0)
        self.assertNotEqual(torch.nn.functional.softplus(torch.tensor([20.0], dtype=torch.float64)).item(), 20.0)


if __name__ == "__main__":
    unittest.main()
