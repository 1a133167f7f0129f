"""The graphs that torch.compile is measured (compile_benchmark.py) and tested
(python_tests/test_compile_fusion.py) on, written once with one implementation's ops: h the
functional op, h_ the in-place one, h_out the out one, hb the backward op (None where the caller
has no graph of it)."""

import torch
import torch.nn.functional as F


def graphs(h, h_, h_out, hb=None):
    def inplace(x, s):
        t = x * 2
        h_(t)
        return t * s

    def out(x, s):
        o = torch.empty_like(x)
        h_out(x - s, o)
        return o + 1

    def se_block(x, weight):
        # Squeeze-excitation as MobileNetV3 has it: pool, 1x1 conv, hardsigmoid, scale.
        return x * h(F.conv2d(x.mean((2, 3), keepdim=True), weight) + 1)

    def both(x, s):
        return h(s * 2 + 1) * x

    return {
        "alone": lambda x, s: h(x),
        "before": lambda x, s: h(s * 2 + 1),
        "after": lambda x, s: x * h(x),
        "both": both,
        "inplace": inplace,
        "out": out,
        "backward_op": lambda x, s: hb(s, x),
        "forward_backward": both,  # timed with the backward of x and s (compile_benchmark.py)
        "se_block": se_block,
    }
