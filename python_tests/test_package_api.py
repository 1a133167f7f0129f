"""The package's typed functions, its nn.Hardsigmoid and replace_hardsigmoid: aten's results bit
for bit, aten's conventions (inplace returns its input, out returns out), and every entry point
a user takes them through: eager, autograd, torch.compile, torch.export, TorchScript."""

import json
import os
import pathlib
import re
import subprocess
import sys

import pytest
import torch
import torch.nn.functional as F

import hardsigmoid_ops
from hardsigmoid_testing import FLOAT_DTYPES
from hardsigmoid_testing.checks import assert_identical
from hardsigmoid_testing.config import LIBRARY, copy_package_without_library
from hardsigmoid_testing.torchscript import script
from hardsigmoid_testing.values import random_values

dtypes = pytest.mark.parametrize("dtype", FLOAT_DTYPES, ids=lambda d: str(d).split(".")[1])


def _x(dtype, device, gen, n=1031):
    return random_values(n, dtype, gen).to(device)


@dtypes
def test_functions_equal_aten(device, dtype, gen):
    x = _x(dtype, device, gen)
    assert_identical(hardsigmoid_ops.hardsigmoid(x), F.hardsigmoid(x), inputs=x)
    y = x.clone()
    assert hardsigmoid_ops.hardsigmoid(y, inplace=True) is y
    assert_identical(y, F.hardsigmoid(x), inputs=x)
    out = torch.empty_like(x)
    assert hardsigmoid_ops.hardsigmoid_out(x, out) is out
    assert_identical(out, F.hardsigmoid(x), inputs=x)
    g = _x(dtype, device, gen)
    assert_identical(hardsigmoid_ops.hardsigmoid_backward(g, x),
                     torch.ops.aten.hardsigmoid_backward(g, x), inputs=x)


def test_functions_take_keywords_as_aten_names_them(device, gen):
    x = _x(torch.float32, device, gen)
    assert_identical(hardsigmoid_ops.hardsigmoid(input=x, inplace=False), F.hardsigmoid(x))


def test_function_gradient_equals_aten(device, gen):
    x = _x(torch.float64, device, gen).requires_grad_()
    g = _x(torch.float64, device, gen)
    ours, = torch.autograd.grad(hardsigmoid_ops.hardsigmoid(x), x, g)
    aten, = torch.autograd.grad(F.hardsigmoid(x), x, g)
    assert_identical(ours, aten, inputs=x)


def test_inplace_function_follows_autograds_rules(device, gen):
    leaf = _x(torch.float32, device, gen).requires_grad_()
    with pytest.raises(RuntimeError, match="leaf Variable that requires grad"):
        hardsigmoid_ops.hardsigmoid(leaf, inplace=True)
    t = leaf * 1
    g = _x(torch.float32, device, gen)
    ours, = torch.autograd.grad(hardsigmoid_ops.hardsigmoid(t, inplace=True), leaf, g)
    aten, = torch.autograd.grad(F.hardsigmoid(leaf * 1, inplace=True), leaf, g)
    assert_identical(ours, aten)


@pytest.mark.parametrize("inplace", [False, True], ids=["functional", "inplace"])
def test_functions_compile_without_graph_breaks(device, inplace, gen, fused_compile):
    # Against aten's graph compiled alike: inductor's arithmetic is not eager CUDA's.
    def compiled(fn):
        return torch.compile(fn, fullgraph=True)

    x = _x(torch.float32, device, gen)
    ours = compiled(lambda t: hardsigmoid_ops.hardsigmoid(t * 2, inplace) + 1)
    aten = compiled(lambda t: F.hardsigmoid(t * 2, inplace) + 1)
    assert_identical(ours(x), aten(x), inputs=x)
    out = torch.empty_like(x)
    ours_out = compiled(lambda t, o: hardsigmoid_ops.hardsigmoid_out(t, o) * 2)
    aten_out = compiled(lambda t, o: torch._C._nn.hardsigmoid(t, out=o) * 2)
    aten_written = torch.empty_like(x)
    assert_identical(ours_out(x, out), aten_out(x, aten_written), inputs=x)
    assert_identical(out, aten_written, inputs=x)


def test_functions_export_as_the_ops(device, gen):
    class Gate(torch.nn.Module):
        def forward(self, x):
            return hardsigmoid_ops.hardsigmoid(x) * x

    x = _x(torch.float32, device, gen)
    program = torch.export.export(Gate(), (x,))
    assert "hardsigmoid_ops.hardsigmoid.default" in {str(n.target) for n in program.graph.nodes}
    assert_identical(program.module()(x), F.hardsigmoid(x) * x, inputs=x)


@pytest.mark.parametrize("inplace", [False, True], ids=["functional", "inplace"])
def test_module_is_a_drop_in(device, inplace, gen):
    module = hardsigmoid_ops.nn.Hardsigmoid(inplace=inplace)
    assert isinstance(module, torch.nn.Hardsigmoid)
    assert module.inplace is inplace
    assert repr(module) == repr(torch.nn.Hardsigmoid(inplace=inplace))
    x = _x(torch.float32, device, gen)
    y = x.clone()
    result = module(y)
    assert (result is y) is inplace
    assert_identical(result, F.hardsigmoid(x), inputs=x)


@pytest.mark.parametrize("inplace", [False, True], ids=["functional", "inplace"])
def test_module_scripts_exports_and_compiles(device, inplace, gen, fused_compile):
    module = hardsigmoid_ops.nn.Hardsigmoid(inplace=inplace)
    x = _x(torch.float32, device, gen)
    scripted = script(module)
    op = "hardsigmoid_" if inplace else "hardsigmoid"
    assert f"hardsigmoid_ops::{op}(" in str(scripted.graph)
    assert_identical(scripted(x.clone()), F.hardsigmoid(x), inputs=x)
    if not inplace:
        program = torch.export.export(module, (x,))
        assert_identical(program.module()(x), F.hardsigmoid(x), inputs=x)
    compiled = torch.compile(torch.nn.Sequential(torch.nn.Identity(), module), fullgraph=True)
    stock = torch.compile(torch.nn.Sequential(torch.nn.Identity(), torch.nn.Hardsigmoid(inplace)),
                          fullgraph=True)
    assert_identical(compiled(x * 1), stock(x * 1), inputs=x)


def test_replace_counts_and_keeps_each_modules_identity_and_hooks():
    class Own(torch.nn.Hardsigmoid):
        def forward(self, x):
            return super().forward(x) * 2

    inner = torch.nn.Hardsigmoid(inplace=True)
    calls = []
    inner.register_forward_hook(lambda *args: calls.append(1))
    model = torch.nn.Sequential(torch.nn.Linear(4, 4), inner,
                                torch.nn.Sequential(torch.nn.Hardsigmoid(), Own()))
    assert hardsigmoid_ops.replace_hardsigmoid(model) == 2
    assert model[1] is inner and type(inner) is hardsigmoid_ops.nn.Hardsigmoid and inner.inplace
    assert type(model[2][0]) is hardsigmoid_ops.nn.Hardsigmoid
    assert type(model[2][1]) is Own, "a user's own subclass keeps its forward"
    x = torch.randn(3, 4)
    expected = F.hardsigmoid(F.hardsigmoid(model[0](x)))
    assert_identical(model(x), F.hardsigmoid(expected) * 2)
    assert calls == [1], "the forward hook survived the swap"
    assert hardsigmoid_ops.replace_hardsigmoid(model) == 0


def test_replace_swaps_the_root_too():
    root = torch.nn.Hardsigmoid()
    assert hardsigmoid_ops.replace_hardsigmoid(root) == 1
    assert type(root) is hardsigmoid_ops.nn.Hardsigmoid


def test_functions_before_the_library_is_loaded_say_so(tmp_path):
    """A copy of the package where no library is found: the import works, a call names the way
    to load the library."""
    copy_package_without_library(tmp_path / "pkg" / "hardsigmoid_ops")
    script_text = (
        "import torch, hardsigmoid_ops\n"
        "try:\n"
        "    hardsigmoid_ops.hardsigmoid(torch.ones(2))\n"
        "except RuntimeError as e:\n"
        "    print('raised:', e)\n"
    )
    # This process's environment (an emulated Python needs its loader's settings) without the
    # library's path; torch from where this process has it, the package from the copy alone.
    env = {k: v for k, v in os.environ.items() if not k.startswith("HARDSIGMOID_OPS_")}
    torch_home = pathlib.Path(torch.__file__).resolve().parents[1]
    env["PYTHONPATH"] = os.pathsep.join([str(tmp_path / "pkg"), str(torch_home)])
    result = subprocess.run([sys.executable, "-c", script_text], env=env, capture_output=True,
                            text=True, timeout=300, cwd=tmp_path)
    assert result.returncode == 0, result.stderr[-3000:]
    assert "raised: hardsigmoid_ops: the library is not loaded" in result.stdout, result.stdout


@pytest.mark.parametrize("recorded, refused", [("same", False), ("2.10.0", True), (None, False)],
                         ids=["same-torch", "other-torch", "no-record"])
def test_build_record_refuses_another_torch(tmp_path, recorded, refused):
    from hardsigmoid_ops import _library

    library = tmp_path / _library.LIBRARY_NAME
    library.write_bytes(b"")  # never loaded: the check comes first
    if recorded is not None:
        version = torch.__version__.split("+")[0] if recorded == "same" else recorded
        (tmp_path / _library.BUILD_RECORD).write_text(
            json.dumps({"torch_version": version, "cuda": False}))
    if refused:
        with pytest.raises(ImportError, match=rf"built against torch {recorded}, but this is "
                                              rf"torch {re.escape(torch.__version__)}"):
            _library.check_built_for_this_torch(library)
    else:
        _library.check_built_for_this_torch(library)


def test_the_build_writes_its_record_beside_the_library():
    from hardsigmoid_ops import _library

    record = json.loads((LIBRARY.parent / _library.BUILD_RECORD).read_text())
    assert record["torch_version"] == torch.__version__.split("+")[0]
    assert record["torch_full_version"] == torch.__version__
    assert isinstance(record["cuda"], bool)
    # nvcc's version, whose major must be torch's (13.0 against torch 2.15's CUDA 13.2).
    if record["cuda"]:
        assert record["cuda_version"].split(".")[0] == torch.version.cuda.split(".")[0], record
    else:
        assert record["cuda_version"] is None


@pytest.mark.parametrize("built, running, served", [
    ("2.12.0+cu130", "2.12.1", True), ("2.12.1", "2.12.0+cu130", True),
    ("2.12.0", "2.13.0", False), ("2.12.0", "2.12.0a0+git1234", False),
    ("2.12.0.dev20260101+cpu", "2.12.0.dev20260101+cpu", True),
    ("2.12.0.dev20260101+cpu", "2.12.0.dev20260102+cpu", False),
    ("2.12.0.dev20260101+cpu", "2.12.0", False)])
def test_build_record_serves_its_release_and_a_pre_release_only_itself(
        tmp_path, monkeypatch, built, running, served):
    """A final release's build serves every patch of its minor release (the wheels' torch==X.Y.*);
    a nightly or source build of torch may change a class's layout from one build to the next with
    no symbol to tell, so a library built against one serves that one alone, and a final
    release's build serves none (CMake records X.Y.Z; the record's torch_full_version is torch's
    own version.py)."""
    from hardsigmoid_ops import _library

    library = tmp_path / _library.LIBRARY_NAME
    (tmp_path / _library.BUILD_RECORD).write_text(json.dumps(
        {"torch_version": built[:6], "torch_full_version": built, "cuda": False}))
    monkeypatch.setattr(torch, "__version__", running)
    if served:
        _library.check_built_for_this_torch(library)
    else:
        with pytest.raises(ImportError, match=rf"built against torch {re.escape(built)}, but this "
                                              rf"is torch {re.escape(running)}"):
            _library.check_built_for_this_torch(library)


def test_build_record_refuses_another_cuda_major(tmp_path, monkeypatch):
    """The x86-64 wheel's library needs CUDA 13's runtime: a torch of the same release built for
    CUDA 12 is refused by name, not by the loader."""
    from hardsigmoid_ops import _library

    library = tmp_path / _library.LIBRARY_NAME
    (tmp_path / _library.BUILD_RECORD).write_text(json.dumps(
        {"torch_version": "2.11.0", "torch_full_version": "2.11.0", "cuda": True,
         "cuda_version": "13.0"}))
    monkeypatch.setattr(torch, "__version__", "2.11.0+cu126")
    monkeypatch.setattr(torch.backends.cuda, "is_built", lambda: True)
    monkeypatch.setattr(torch.version, "cuda", "12.6")
    with pytest.raises(ImportError, match=r"built with CUDA 13\.0, but this torch 2\.11\.0\+cu126 "
                                          r"is a CUDA 12\.6 build"):
        _library.check_built_for_this_torch(library)
    monkeypatch.setattr(torch.version, "cuda", "13.2")
    _library.check_built_for_this_torch(library)
