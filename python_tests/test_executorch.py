"""ExecuTorch: a model using the ops exports (torch.export), lowers (to_edge, to_executorch) and
runs in ExecuTorch's runtime, with `import hardsigmoid_ops` the only step asked of the user. The
program calls the library's ExecuTorch kernel (hardsigmoid_ops::hardsigmoid.out, from
libhardsigmoid_ops_executorch.so, which the package loads into ExecuTorch's runtime) and no
add / clamp / div of aten's lowering, and computes eager aten's CPU bits, NaN bits included, for
every dtype. Every form of calling the ops; torchvision's MobileNetV3 within the stock model's
own ExecuTorch-vs-eager difference; the route through aten_decompositions(), which gives the
stock model's program.

ExecuTorch is installed (1.5.1, with --no-deps: scripts/torch_versions.sh) in the newest torch
release's environment only: with the pinned torch 2.11 its runtime fails on every model, aten's
included ("tensor does not have a device")."""

import copy
import shutil
import subprocess
import sys

import pytest
import torch
import torch.nn.functional as F

import hardsigmoid_ops
from hardsigmoid_testing import FLOAT_DTYPES, forms
from hardsigmoid_testing.checks import assert_identical
from hardsigmoid_testing.config import LIBRARY, REPO_ROOT
from hardsigmoid_testing.doc_blocks import blocks
from hardsigmoid_testing.forms import FORMS, Alone
from hardsigmoid_testing.values import random_values

exir = pytest.importorskip(
    "executorch.exir",
    reason="executorch is installed in the newest torch release's environment only "
           "(scripts/torch_versions.sh); ExecuTorch 1.5.1's runtime fails on every model with "
           "the pinned torch 2.11")
from executorch.runtime import Runtime  # noqa: E402

OUR_KERNEL = "hardsigmoid_ops::hardsigmoid.out"
# What to_edge lowers aten's hardsigmoid to (it is not a core aten op).
ATENS_LOWERING = {"aten::add.out", "aten::clamp.out", "aten::div.out"}
# Fewer elements than aten's grain (32768): eager aten runs them on one thread, as ExecuTorch
# does, so the vector loop's scalar tail (whose NaN bits differ) falls on the same elements.
NUMEL = 4099


class Block(forms.Block):
    """forms.Block, returning the convolution's output y too, so that the gate's result can be
    checked against eager aten on ExecuTorch's own y."""

    def forward(self, x):
        y = self.conv(x)
        return y, y * self.gate(y + 1)


def _lower(model, x, table=None):
    ep = torch.export.export(model.eval(), (x,))
    if table is not None:
        ep = ep.run_decompositions(table)
    return exir.to_edge(ep).to_executorch()


def _run(program, x):
    method = Runtime.get().load_program(program.buffer).load_method("forward")
    return method.execute([x.clone()])


def _operators(program):
    return {f"{op.name}.{op.overload}" if op.overload else op.name
            for plan in program.executorch_program.execution_plan for op in plan.operators}


def test_kernel_library_is_loaded_into_executorchs_runtime():
    from executorch.extension.pybindings import portable_lib

    path = hardsigmoid_ops.executorch_lowering.kernel_library_path()
    assert path is not None, "libhardsigmoid_ops_executorch.so was not built beside the library"
    assert hardsigmoid_ops.executorch_lowering.load_kernel_library() == path
    assert OUR_KERNEL in portable_lib._get_operator_names()


@pytest.mark.parametrize("dtype", FLOAT_DTYPES, ids=lambda d: str(d)[6:])
def test_op_alone_runs_our_kernel_with_eager_atens_bits(dtype, gen):
    x = random_values(NUMEL, dtype, gen).reshape(1, NUMEL)
    program = _lower(Alone(hardsigmoid_ops.nn.Hardsigmoid()), x)
    assert _operators(program) == {OUR_KERNEL}
    (got,) = _run(program, x)
    assert_identical(got, F.hardsigmoid(x), inputs=x)


def test_atens_own_op_is_lowered_to_four_ops_and_loses_eager_bits(gen):
    # Why the kernel matters: aten's op alone, lowered by to_edge, computes ExecuTorch's add,
    # clamp and div, which differ from eager aten's float32 result on some inputs.
    x = random_values(NUMEL, torch.float32, gen).reshape(1, NUMEL)
    program = _lower(Alone(torch.nn.Hardsigmoid()), x)
    assert ATENS_LOWERING <= _operators(program) and OUR_KERNEL not in _operators(program)
    (got,) = _run(program, x)
    torch.testing.assert_close(got, F.hardsigmoid(x), rtol=1e-6, atol=1e-7, equal_nan=True)


def test_channels_last_input(gen):
    x = random_values(2 * 5 * 7 * 11, torch.float32, gen).reshape(2, 5, 7, 11)
    x = x.contiguous(memory_format=torch.channels_last)
    program = _lower(Alone(hardsigmoid_ops.nn.Hardsigmoid()), x)
    (got,) = _run(program, x)
    assert_identical(got.contiguous(), F.hardsigmoid(x).contiguous(), inputs=x.contiguous())


@pytest.mark.parametrize("form", FORMS)
def test_every_form_lowers_as_atens_does(form, gen):
    ours_gate, atens_gate = FORMS[form]
    stock = Block(atens_gate).requires_grad_(False)
    swapped = copy.deepcopy(stock)
    swapped.gate = ours_gate
    x = torch.randn(2, 3, 9, 11, generator=gen)
    try:
        stock_program = _lower(stock, x)
    except Exception as atens_error:  # where aten's model does not lower, ours does not either
        with pytest.raises(type(atens_error)):
            _lower(swapped, x)
        return
    program = _lower(swapped, x)
    y, got = _run(program, x)
    if form == "backward_op":
        # Lowered as aten's backward is (to core aten): the stock model's program, bit for bit.
        assert OUR_KERNEL not in _operators(program)
        for ours, atens in zip((y, got), _run(stock_program, x)):
            assert_identical(ours, atens)
        return
    assert OUR_KERNEL in _operators(program)
    assert not {"aten::clamp.out", "aten::div.out"} & _operators(program)
    # The gate's bits are eager aten's on ExecuTorch's convolution output (add and mul are
    # correctly rounded in both).
    y_stock, _ = _run(stock_program, x)
    assert_identical(y, y_stock)
    assert_identical(got, y * atens_gate(y.clone() + 1))
    torch.testing.assert_close(got, stock(x)[1], rtol=1e-5, atol=1e-6)


def test_decomposition_route_gives_the_stock_program(gen):
    stock = Block(torch.nn.Hardsigmoid()).requires_grad_(False)
    swapped = copy.deepcopy(stock)
    swapped.gate = hardsigmoid_ops.nn.Hardsigmoid()
    x = torch.randn(2, 3, 9, 11, generator=gen)
    stock_program = _lower(stock, x)
    program = _lower(swapped, x, hardsigmoid_ops.aten_decompositions())
    assert _operators(program) == _operators(stock_program)
    assert OUR_KERNEL not in _operators(program)
    for ours, atens in zip(_run(program, x), _run(stock_program, x)):
        assert_identical(ours, atens)


@pytest.mark.parametrize("name", ["mobilenet_v3_small", "mobilenet_v3_large"])
def test_mobilenet_v3_within_the_stock_models_difference(name, gen):
    torchvision = pytest.importorskip("torchvision", reason="torchvision is in requirements.txt")
    torch.manual_seed(int(torch.randint(0, 2**31, (1,), generator=gen)))
    stock = getattr(torchvision.models, name)(weights=None).eval().requires_grad_(False)
    swapped = copy.deepcopy(stock)
    assert hardsigmoid_ops.replace_hardsigmoid(swapped) > 0
    x = torch.randn(1, 3, 224, 224, generator=gen)
    eager = stock(x)
    stock_program, program = _lower(stock, x), _lower(swapped, x)
    assert OUR_KERNEL in _operators(program) and OUR_KERNEL not in _operators(stock_program)
    (stock_got,), (got,) = _run(stock_program, x), _run(program, x)
    stock_difference = (stock_got - eager).abs().max().item()
    difference = (got - eager).abs().max().item()
    print(f"{name}: ExecuTorch vs eager, max |difference|: stock {stock_difference:.3g}, "
          f"with ours {difference:.3g} (outputs up to {eager.abs().max().item():.3g})")
    assert difference <= 2 * stock_difference + 1e-7


def test_runtimes_page_steps_run_as_written(tmp_path):
    """docs/runtimes.md's export-and-run commands, as written, with this run's environment in
    place of the page's (its Python, its build directory): the .pte's output from run_pte is
    eager aten's, byte for byte. In a copy of executorch_examples/, so the source tree stays
    clean."""
    runner = LIBRARY.parent / "executorch_examples" / "run_pte"
    if not runner.is_file():
        pytest.skip(f"run_pte is not built beside {LIBRARY} (a build without the examples)")
    steps, = [body for language, body in blocks(REPO_ROOT / "docs" / "runtimes.md")
              if language == "bash" and body.startswith("cd executorch_examples\n")]
    script = (steps.split("\n", 1)[1]
              .replace("../.venv-executorch/bin/python", sys.executable)
              .replace("../build-executorch/", f"{LIBRARY.parent}/")
              .replace("PYTHONPATH=../python", f"PYTHONPATH={REPO_ROOT / 'python'}"))
    assert "export_model.py" in script and "run_pte" in script, script
    examples = tmp_path / "executorch_examples"
    shutil.copytree(REPO_ROOT / "executorch_examples", examples)
    result = subprocess.run(["bash", "-euo", "pipefail", "-c", script], cwd=examples,
                            capture_output=True, text=True, timeout=600)
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    assert "run_pte's output is eager aten's" in result.stdout
