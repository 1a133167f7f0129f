"""Inputs at the edge of validity that must work: empty and 0-dim tensors, more than 2**31
elements; and the version counter that autograd relies on to catch stale saved tensors."""

import pathlib

import pytest
import torch
import torch.nn.functional as F

from hardsigmoid_testing import FLOAT_DTYPES, OPS
from hardsigmoid_testing.checks import assert_every_op_matches_aten, assert_identical
from hardsigmoid_testing.layouts import significant_strides
from hardsigmoid_testing.run_wide import run_wide_lock
from hardsigmoid_testing.values import BITS_DTYPE, random_values

dtypes = pytest.mark.parametrize("dtype", FLOAT_DTYPES, ids=lambda d: str(d).split(".")[1])


@dtypes
@pytest.mark.parametrize("shape", [(), (0,), (0, 3), (2, 0, 5)], ids=str)
def test_empty_and_zero_dim(device, dtype, shape, gen):
    numel = torch.Size(shape).numel()
    x = random_values(numel, dtype, gen).reshape(shape).to(device)
    grad = random_values(numel, dtype, gen).reshape(shape).to(device)
    ours, _ = assert_every_op_matches_aten(x, grad)
    assert significant_strides(ours) == significant_strides(F.hardsigmoid(x))


def test_version_counter(device):
    x = torch.randn(4, 3, device=device)
    out = torch.empty_like(x)
    grad = torch.randn_like(x)

    versions = (x._version, out._version, grad._version)
    OPS.hardsigmoid(x)
    OPS.hardsigmoid_backward(grad, x)
    assert (x._version, out._version, grad._version) == versions

    OPS.hardsigmoid_out(x, out)
    assert out._version > versions[1]
    assert x._version == versions[0]

    view = x[1:]
    OPS.hardsigmoid_(view)
    # A view shares its base's version counter: the base is seen as modified too.
    assert x._version > versions[0]
    assert view._version == x._version


# More elements than an int32 can index: every element past 2**31 must be computed too. The input
# repeats a random pattern whose length (a prime) does not divide 2**31, so that each element's
# expected value is known without a second huge tensor.
PATTERN = 1031
ROWS = 2**31 // PATTERN + 2  # PATTERN * ROWS > 2**31 + PATTERN
LARGE_DTYPE = torch.float16  # the smallest supported element: 4 GiB per tensor
LARGE_BYTES = PATTERN * ROWS * 2


def _available_bytes(device):
    if device == "cuda":
        return torch.cuda.mem_get_info()[0]
    for line in pathlib.Path("/proc/meminfo").read_text().splitlines():
        if line.startswith("MemAvailable:"):
            return int(line.split()[1]) * 1024
    return 0


def _require_memory(device, tensors):
    needed = tensors * LARGE_BYTES + (1 << 30)
    if _available_bytes(device) < needed:
        pytest.skip(f"needs {needed / 2**30:.1f} GiB of free {device} memory")


def _assert_every_row_is(result, pattern):
    """Each row of `result` holds hardsigmoid(pattern): the bits the op gives for the pattern
    alone (which must be aten's result). A NaN compares as NaN: in one span of 2^31 elements the
    threads' ranges end mid-row, and the scalar tail there returns the input's NaN where the
    pattern alone has the vector loop's."""
    expected = OPS.hardsigmoid(pattern)
    assert_identical(expected, F.hardsigmoid(pattern), inputs=pattern)
    bits = BITS_DTYPE[LARGE_DTYPE]
    values = result.view(ROWS, PATTERN)
    expected_bits, expected_nan = expected.view(bits), torch.isnan(expected)
    step = 1 << 16  # a slab at a time: a full-size comparison would need another huge tensor
    for start in range(0, ROWS, step):
        slab = values[start:start + step]
        same = (slab.view(bits) == expected_bits) | (torch.isnan(slab) & expected_nan)
        if not same.all():
            first = start + int((~same).any(dim=1).nonzero()[0])
            raise AssertionError(f"row {first} (elements from {first * PATTERN}) is wrong")


@pytest.fixture
def alone(tmp_path_factory):
    """Several GiB each: under pytest-xdist the workers take these tests one at a time, so that two
    never hold their memory at once (nor skip for the other's)."""
    with run_wide_lock(tmp_path_factory, "large_memory"):
        yield


@pytest.mark.large
def test_more_than_2_31_elements_in_place(device, gen, alone):
    _require_memory(device, tensors=1)
    pattern = random_values(PATTERN, LARGE_DTYPE, gen).to(device)
    x = torch.empty(ROWS, PATTERN, dtype=LARGE_DTYPE, device=device)
    x.copy_(pattern.expand(ROWS, PATTERN))
    OPS.hardsigmoid_(x.view(-1))  # one dimension of more than 2**31 elements
    _assert_every_row_is(x, pattern)


@pytest.mark.large
def test_more_than_2_31_elements_from_expanded_input(device, gen, alone):
    _require_memory(device, tensors=1)
    pattern = random_values(PATTERN, LARGE_DTYPE, gen).to(device)
    result = OPS.hardsigmoid(pattern.expand(ROWS, PATTERN))
    assert result.shape == (ROWS, PATTERN)
    _assert_every_row_is(result, pattern)
