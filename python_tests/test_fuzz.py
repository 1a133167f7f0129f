"""Differential fuzzing: random shapes, strides, dtypes and values, each variant against aten on
the same device, bit for bit, and nothing written outside the view an op may write.

Every case derives from the session seed; a failure prints the case and the command that replays
it alone. HARDSIGMOID_OPS_FUZZ_CASES sets the cases per variant and device (default 500, so 2000
per device); HARDSIGMOID_OPS_FUZZ_CASE runs that one case only.
"""

import os

import pytest
import torch
import torch.nn.functional as F

from hardsigmoid_testing import OPS
from hardsigmoid_testing.checks import assert_identical, assert_only_view_written, assert_unchanged
from hardsigmoid_testing.fuzz_cases import VARIANTS, draw_case
from hardsigmoid_testing.layouts import is_dense, same_view, significant_strides
from hardsigmoid_testing.reporting import CASES_PROPERTY, replay_command

CASES_PER_VARIANT = int(os.environ.get("HARDSIGMOID_OPS_FUZZ_CASES") or 500)
ONLY_CASE = os.environ.get("HARDSIGMOID_OPS_FUZZ_CASE")
SHOWN_FAILURES = 10


def _assert_strides_like_aten(ours, ref, *inputs):
    # DESIGN.md promises empty_like's layout for dense inputs only.
    if all(is_dense(t) for t in inputs):
        assert significant_strides(ours) == significant_strides(ref), (
            f"strides {ours.stride()}, aten's {ref.stride()}")


def check_functional(case, tensors):
    buffer, x = tensors["self"]
    before = buffer.clone()
    ours = OPS.hardsigmoid(x)
    ref = F.hardsigmoid(x)
    assert_identical(ours, ref, inputs=x)
    _assert_strides_like_aten(ours, ref, x)
    assert_unchanged(before, buffer)


def check_inplace(case, tensors):
    buffer, x = tensors["self"]
    ref_buffer = buffer.clone()
    ref_x = same_view(ref_buffer, x)
    inputs = x.clone()
    OPS.hardsigmoid_(x)
    F.hardsigmoid(ref_x, inplace=True)
    assert_identical(x, ref_x, inputs=inputs)
    assert_only_view_written(buffer, x)
    assert_identical(buffer, ref_buffer)


def check_out(case, tensors):
    x_buffer, x = tensors["self"]
    out_buffer, out = tensors["out"]
    x_before = x_buffer.clone()
    ref_out_buffer = out_buffer.clone()
    ref_out = same_view(ref_out_buffer, out)
    # When out is self, aten must get the same aliasing: its self is its out.
    ref_x = ref_out if case.out_is_self else x
    inputs = x.clone()
    geometry = (out.shape, out.stride(), out.storage_offset())
    OPS.hardsigmoid_out(x, out)
    torch._C._nn.hardsigmoid(ref_x, out=ref_out)
    assert_identical(out, ref_out, inputs=inputs)
    assert_only_view_written(out_buffer, out)
    assert_identical(out_buffer, ref_out_buffer)
    assert (out.shape, out.stride(), out.storage_offset()) == geometry, "out was restrided"
    if not case.out_is_self:
        assert_unchanged(x_before, x_buffer)


def check_backward(case, tensors):
    grad_buffer, grad = tensors["grad_output"]
    buffer, x = tensors["self"]
    before = (grad_buffer.clone(), buffer.clone())
    ours = OPS.hardsigmoid_backward(grad, x)
    ref = torch.ops.aten.hardsigmoid_backward(grad, x)
    assert_identical(ours, ref, inputs=x)
    _assert_strides_like_aten(ours, ref, grad, x)
    assert_unchanged(before[0], grad_buffer)
    assert_unchanged(before[1], buffer)


CHECKS = {
    "functional": check_functional,
    "inplace": check_inplace,
    "out": check_out,
    "backward": check_backward,
}


@pytest.mark.parametrize("variant", VARIANTS)
def test_fuzz(device, variant, request, seed):
    indices = [int(ONLY_CASE)] if ONLY_CASE else range(CASES_PER_VARIANT)
    failures = []
    for index in indices:
        case = draw_case(seed, device, variant, index)
        try:
            CHECKS[variant](case, case.build())
        except Exception as error:  # a wrong result and a refused valid input alike
            failures.append((case, error))
    request.node.user_properties.append((CASES_PROPERTY, (device, len(indices))))
    if failures:
        case, error = failures[0]
        only_this_case = f"HARDSIGMOID_OPS_FUZZ_CASE={case.index} "
        replay = replay_command(request.node.nodeid, seed, only_this_case)
        indices_shown = ", ".join(str(c.index) for c, _ in failures[:SHOWN_FAILURES])
        pytest.fail(
            f"{len(failures)} of {len(indices)} cases failed (cases {indices_shown}"
            f"{', ...' if len(failures) > SHOWN_FAILURES else ''}). The first:\n"
            f"{case.describe()}\n{type(error).__name__}: {error}\n"
            f"replay: {replay}",
            pytrace=False,
        )
