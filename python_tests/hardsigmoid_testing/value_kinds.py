"""Named families of input values, one per kind of trouble, for the fuzzer to pick from.

Each maps (numel, dtype, gen) to a 1-D CPU tensor of `dtype`, drawn from the CPU generator `gen`.
"""

import torch

from .values import BITS_DTYPE, edge_values, random_values


def _wide(dtype):
    # float64 inputs get float64 randomness; float32 is enough for the narrower types.
    return torch.float64 if dtype == torch.float64 else torch.float32


def _signs(numel, gen):
    return torch.randint(0, 2, (numel,), generator=gen) * 2 - 1


def _mantissa_bits(dtype):
    return {torch.float64: 52, torch.float32: 23, torch.float16: 10, torch.bfloat16: 7}[dtype]


def normal(numel, dtype, gen):
    """Normal with standard deviation 4: mostly inside the kinks, some clamped on either side."""
    return (torch.randn(numel, generator=gen, dtype=_wide(dtype)) * 4).to(dtype)


def uniform(numel, dtype, gen):
    """Uniform over [-8, 8): every regime of the function about equally often."""
    return (torch.rand(numel, generator=gen, dtype=_wide(dtype)) * 16 - 8).to(dtype)


def specials(numel, dtype, gen):
    """Only NaN, ±inf, ±0, ±3, ±6 and the other named edge values."""
    edges = edge_values(dtype)
    return edges[torch.randint(0, edges.numel(), (numel,), generator=gen)]


def near_kinks(numel, dtype, gen):
    """±3 exactly or up to four ulps away (nextafter), where the clamp and the mask switch.
    Floats are sign and magnitude, and ±3 is mid-binade: adding k to the bits moves k ulps."""
    three = torch.tensor(3.0, dtype=dtype).view(BITS_DTYPE[dtype]).item()
    ulps = torch.randint(-4, 5, (numel,), generator=gen)
    magnitude = (three + ulps).to(BITS_DTYPE[dtype]).view(dtype)
    return magnitude * _signs(numel, gen).to(dtype)


def subnormals(numel, dtype, gen):
    """Subnormals of either sign (and ±0): flush-to-zero must not turn up anywhere."""
    mantissa = torch.randint(0, 2 ** _mantissa_bits(dtype), (numel,), generator=gen)
    return mantissa.to(BITS_DTYPE[dtype]).view(dtype) * _signs(numel, gen).to(dtype)


def huge(numel, dtype, gen):
    """Magnitudes between half the largest finite value and the largest: x + 3 must not
    overflow to anything but what aten gives."""
    fraction = torch.rand(numel, generator=gen, dtype=torch.float64) * 0.5 + 0.5
    magnitude = (fraction * torch.finfo(dtype).max).to(dtype)
    return magnitude * _signs(numel, gen).to(dtype)


def bit_patterns(numel, dtype, gen):
    """Uniformly random bits: every exponent, NaN payloads of both signs, infinities."""
    itemsize = torch.empty((), dtype=dtype).element_size()
    return torch.randint(0, 256, (numel * itemsize,), generator=gen, dtype=torch.uint8).view(dtype)


VALUE_KINDS = {
    "mixed": random_values,
    "normal": normal,
    "uniform": uniform,
    "specials": specials,
    "near_kinks": near_kinks,
    "subnormals": subnormals,
    "huge": huge,
    "bit_patterns": bit_patterns,
}
