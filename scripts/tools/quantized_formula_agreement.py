"""How often aten's two quantized hardsigmoid formulas (ops/cpu/quantized/quantized_loops.cpp: the
vector loop's and the scalar loop's) disagree on some code of an 8-bit input, for scales and zero
points drawn as cpp_tests/quantized_test.cpp draws them. Where they disagree the op cannot take
the byte table (hardsigmoid_quantized.cpp), and the tests that assume the table draw again.

    python scripts/tools/quantized_formula_agreement.py DRAWS [SEED]

Runs under aten's CPU capability of the process (ATEN_CPU_CAPABILITY chooses) and each quantized
engine; prints one line per engine, dtype and draw kind: draws, draws with a disagreement, and the
first such (scale, zero point). QUInt8 under QNNPACK takes QNNPACK's own table, not the formulas.
"""

import sys

import torch
import torch.nn.functional as F


def atens_codes(dtype, scale, zero_point, vector):
    """aten's codes for the 256 codes: its vector loop (contiguous, whole vectors) or its scalar
    loop (a step-2 view of a quantized tensor)."""
    codes = torch.arange(256).to(torch.uint8)
    if dtype == torch.qint8:
        codes = codes.view(torch.int8)
    if vector:
        q = torch._make_per_tensor_quantized_tensor(torch.cat([codes, codes]), scale, zero_point)
        q = q[:256]
    else:
        q = torch._make_per_tensor_quantized_tensor(
            torch.stack([codes, codes], 1).flatten(), scale, zero_point)[::2]
        assert not q.is_contiguous()
    return F.hardsigmoid(q).int_repr()


def draw(kind, dtype, gen):
    """A scale and zero point as the C++ tests draw them: 'lookup' as EveryByteLookupGivesAtensCodes
    (scale in [0.02, 0.06), zero point within 20 of the middle), 'wide' as TablesAreAtensFormulas
    (scale 10^[-6, 1), any zero point)."""
    low = 0 if dtype == torch.quint8 else -128
    if kind == "lookup":
        scale = 0.02 + 0.04 * torch.rand(1, dtype=torch.float64, generator=gen).item()
        zero_point = low + 128 + int(torch.randint(-20, 21, (1,), generator=gen))
    else:
        scale = 10 ** (torch.rand(1, dtype=torch.float64, generator=gen).item() * 7 - 6)
        zero_point = int(torch.randint(low, low + 256, (1,), generator=gen))
    return scale, zero_point


def main():
    draws = int(sys.argv[1])
    seed = int(sys.argv[2]) if len(sys.argv) > 2 else 0
    capability = torch.backends.cpu.get_cpu_capability()
    for engine in torch.backends.quantized.supported_engines:
        if engine == "none":
            continue
        torch.backends.quantized.engine = engine
        for dtype in (torch.quint8, torch.qint8):
            if engine == "qnnpack" and dtype == torch.quint8:
                print(f"{capability} {engine} {dtype}: QNNPACK's table, not the formulas")
                continue
            for kind in ("lookup", "wide"):
                gen = torch.Generator().manual_seed(seed)
                found, first = 0, None
                for _ in range(draws):
                    scale, zero_point = draw(kind, dtype, gen)
                    if not torch.equal(atens_codes(dtype, scale, zero_point, True),
                                       atens_codes(dtype, scale, zero_point, False)):
                        found += 1
                        first = first or (scale, zero_point)
                print(f"{capability} {engine} {dtype} {kind}: {found} of {draws} draws disagree"
                      + (f" (first: scale {first[0]!r}, zero point {first[1]})" if first else ""),
                      flush=True)


if __name__ == "__main__":
    main()
