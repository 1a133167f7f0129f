"""Input values: random, with the values where hardsigmoid is easiest to get wrong mixed in."""

import math

import torch

# The integer type of each float's width: comparing through it tells +0 from -0.
BITS_DTYPE = {
    torch.float64: torch.int64,
    torch.float32: torch.int32,
    torch.float16: torch.int16,
    torch.bfloat16: torch.int16,
}


def edge_values(dtype):
    """NaN, ±inf, ±0, the kinks ±3 and their neighbours, ±6, subnormals, the extremes: a 1-D CPU
    tensor of `dtype`, each value exactly representable (neighbours computed in `dtype`)."""
    fi = torch.finfo(dtype)

    def t(values):
        return torch.tensor(values, dtype=dtype)

    named = t([math.nan, -math.nan, math.inf, -math.inf, 0.0, -0.0, 3.0, -3.0, 6.0, -6.0,
               0.5, -0.5, fi.max, fi.min, fi.tiny, -fi.tiny])
    kinks = t([3.0, -3.0])
    above = torch.nextafter(kinks, t([math.inf, math.inf]))
    below = torch.nextafter(kinks, t([-math.inf, -math.inf]))
    smallest_subnormal = torch.tensor([1], dtype=BITS_DTYPE[dtype]).view(dtype)
    largest_subnormal = torch.nextafter(t([fi.tiny]), t([0.0]))
    subnormals = torch.cat([smallest_subnormal, largest_subnormal])
    return torch.cat([named, above, below, subnormals, -subnormals])


def random_values(numel, dtype, gen):
    """`numel` values of `dtype` (1-D, CPU): half normal around the interesting range, a quarter a
    few ulps from ±3, a quarter random bit patterns (huge, tiny, NaN, inf), and every edge value
    placed at a random position when there is room."""
    # float64 inputs get float64 randomness; float32 is enough (and faster) for the others.
    wide = torch.float64 if dtype == torch.float64 else torch.float32
    # Through aten's serial normal kernel (a strided view takes it): its contiguous kernel is
    # vectorized, and qemu runs SVE256's vectors some ten times slower than NEON's (1e5 doubles:
    # 0.54 s, against 0.04 s serially), which made drawing most of the emulated SVE256 run.
    normal = torch.empty(numel, 2, dtype=wide)[:, 0].normal_(0, 4, generator=gen)
    side = torch.randint(0, 2, (numel,), generator=gen, dtype=wide) * 6 - 3
    ulp_at_three = 2 * torch.finfo(dtype).eps
    # Where an element is near a kink it does not use its normal value: reuse that draw.
    near_kink = side + normal * ulp_at_three
    itemsize = torch.empty((), dtype=dtype).element_size()
    bits = torch.randint(0, 256, (numel * itemsize,), generator=gen, dtype=torch.uint8).view(dtype)
    choice = torch.randint(0, 4, (numel,), generator=gen)
    values = torch.where(choice < 2, normal.to(dtype),
                         torch.where(choice == 2, near_kink.to(dtype), bits))
    edges = edge_values(dtype)
    count = min(numel, edges.numel())
    if numel <= 4 * edges.numel():
        positions = torch.randperm(numel, generator=gen)[:count]
    else:  # distinct with high probability; a full permutation of a large tensor is slow
        positions = torch.randint(0, numel, (count,), generator=gen)
    values[positions] = edges[torch.randperm(edges.numel(), generator=gen)[:count]]
    return values
