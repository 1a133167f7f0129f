"""Zero-tolerance comparisons: identical bits, element for element (so that +0 and -0 differ, and
so do two NaNs of different sign or payload: aten's vector loop returns an all-ones NaN, its
scalar loop the input's, and ours must return the same one)."""

import torch
import torch.nn.functional as F

from . import OPS
from .layouts import SENTINEL, addressed_mask
from .values import BITS_DTYPE


def assert_identical(ours, ref, inputs=None, nan_bits=True):
    """`ours` equals the reference `ref` element for element, bit for bit, NaN included. `inputs`,
    of ref's shape, are shown next to the first mismatches. `nan_bits=False` compares a NaN as
    NaN, for a reference that aten computed on other operands (its NaN bits depend on where its
    rows end)."""
    torch.testing.assert_close(ours, ref, rtol=0, atol=0, equal_nan=True)
    bits = BITS_DTYPE[ref.dtype]
    differ = ours.view(bits) != ref.view(bits)
    if not nan_bits:
        differ &= ~torch.isnan(ref)
    if differ.any():
        where = differ.nonzero()[:8].tolist()
        details = []
        for index in where:
            index = tuple(index)
            shown = f"input {inputs[index].item()!r}, " if inputs is not None else ""
            details.append(
                f"{index}: {shown}ours {ours[index].item()!r} ({_hex(ours, bits, index)}) "
                f"aten {ref[index].item()!r} ({_hex(ref, bits, index)})")
        raise AssertionError(
            f"{int(differ.sum())} of {ref.numel()} elements differ in their bits (sign of zero, "
            "NaN payload?):\n"
            + "\n".join(details)
        )


def _hex(t, bits, index):
    width = t.element_size() * 2
    return f"0x{t.view(bits)[index].item() & ((1 << (4 * width)) - 1):0{width}x}"


def assert_only_view_written(buffer, view):
    """Every element of `buffer` outside `view` still holds the sentinel, bit for bit."""
    outside = ~addressed_mask(buffer, view)
    sentinel = torch.tensor(SENTINEL, dtype=buffer.dtype).view(BITS_DTYPE[buffer.dtype]).item()
    changed = (buffer.view(BITS_DTYPE[buffer.dtype]) != sentinel) & outside
    assert not changed.any(), (
        f"{int(changed.sum())} elements outside the view were written, at buffer positions "
        f"{changed.nonzero().flatten()[:8].tolist()}"
    )


def assert_unchanged(before, after):
    """`after` holds exactly the bits `before` (a clone taken earlier) held."""
    if before.is_floating_point():
        before, after = before.view(BITS_DTYPE[before.dtype]), after.view(BITS_DTYPE[after.dtype])
    assert torch.equal(before, after), "a tensor that must be read only was written"


def assert_every_op_matches_aten(x, grad):
    """All four ops on `x` (and `grad` for the backward) equal aten's same op on the same device
    and the same operands: the functional, out (into a buffer of sentinels), in-place (on a clone)
    and backward. The operands' layouts matter: aten's vector loop and its scalar loop return
    different NaNs. Returns the functional and backward results, for checks of their strides or
    device."""
    ref = F.hardsigmoid(x)
    ours = OPS.hardsigmoid(x)
    assert_identical(ours, ref, inputs=x)
    out, ref_out = torch.full_like(x, SENTINEL), torch.full_like(x, SENTINEL)
    OPS.hardsigmoid_out(x, out)
    torch._C._nn.hardsigmoid(x, out=ref_out)
    assert_identical(out, ref_out, inputs=x)
    y, ref_y = x.clone(), x.clone()
    OPS.hardsigmoid_(y)
    F.hardsigmoid(ref_y, inplace=True)
    assert_identical(y, ref_y, inputs=x)
    backward = OPS.hardsigmoid_backward(grad, x)
    assert_identical(backward, torch.ops.aten.hardsigmoid_backward(grad, x), inputs=x)
    return ours, backward
