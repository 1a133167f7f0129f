"""pip: the package built from this checkout (pip wheel --no-build-isolation) and installed into a
fresh virtual environment, then used from another directory as a user would: import
hardsigmoid_ops, the functions, the module, replace_hardsigmoid, torch.compile; a C++ project
finding the CMake package through hardsigmoid_ops.cmake_prefix_path; the refusal of another torch;
and the wheel's files. The build takes a minute or two (the library, CUDA kernels included where
nvcc is found) and is done once: `pip install .` builds the same wheel this way and installs it.

The environment reuses this one's packages (torch, scikit-build-core) through a .pth file instead
of downloading them again, and pip runs with --no-index, so nothing is fetched.
"""

import importlib.util
import json
import os
import pathlib
import shutil
import subprocess
import sys
import sysconfig
import zipfile

import pytest
import torch

from hardsigmoid_testing.config import REPO_ROOT
from hardsigmoid_testing.doc_blocks import python_script
from hardsigmoid_testing.run_wide import run_wide_directory, run_wide_lock

pytestmark = pytest.mark.skipif(shutil.which("cmake") is None, reason="no cmake on PATH")
pytest.importorskip("scikit_build_core", reason="the build backend (requirements.txt) is not "
                                                "installed")

USE = """
import pathlib, sys, torch, torch.nn.functional as F
import hardsigmoid_ops
package = pathlib.Path(hardsigmoid_ops.__file__).parent
assert str(package).startswith(sys.prefix), package
x = torch.randn(1031)
assert torch.equal(hardsigmoid_ops.hardsigmoid(x), F.hardsigmoid(x))
y = x.clone()
assert hardsigmoid_ops.hardsigmoid(y, inplace=True) is y and torch.equal(y, F.hardsigmoid(x))
out = torch.empty_like(x)
assert hardsigmoid_ops.hardsigmoid_out(x, out) is out and torch.equal(out, F.hardsigmoid(x))
g = torch.randn(1031)
assert torch.equal(hardsigmoid_ops.hardsigmoid_backward(g, x),
                   torch.ops.aten.hardsigmoid_backward(g, x))
model = torch.nn.Sequential(torch.nn.Linear(8, 8), torch.nn.Hardsigmoid())
assert hardsigmoid_ops.replace_hardsigmoid(model) == 1
assert type(model[1]) is hardsigmoid_ops.nn.Hardsigmoid
a = torch.randn(4, 8)
assert torch.equal(model(a), F.hardsigmoid(model[0](a)))
compiled = torch.compile(lambda t: hardsigmoid_ops.hardsigmoid(t) * t, fullgraph=True)
assert torch.equal(compiled(x), torch.compile(lambda t: F.hardsigmoid(t) * t)(x))
print("cmake_prefix_path=" + hardsigmoid_ops.cmake_prefix_path)
print("torch_prefix=" + torch.utils.cmake_prefix_path)
print("library=" + torch.ops.loaded_libraries.pop())
print("package=" + str(package))
"""


def _run(command, cwd, env, timeout=1800):
    result = subprocess.run(command, cwd=cwd, env=env, capture_output=True, text=True,
                            timeout=timeout)
    assert result.returncode == 0, (
        f"{' '.join(map(str, command))} failed:\n{result.stdout[-4000:]}\n{result.stderr[-4000:]}")
    return result.stdout


def _pip(python):
    return [python, "-m", "pip", "--disable-pip-version-check", "--no-input"]


@pytest.fixture(scope="module")
def environment(tmp_path_factory):
    """(a fresh environment's python, its environment variables, a directory outside the
    checkout)."""
    root = tmp_path_factory.mktemp("pip")
    venv = root / "venv"
    # Without a pip and setuptools of its own: those of the test environment (the .pth below)
    # install into it, and a setuptools older than torch asks for (torch 2.15: >= 77.0.3) would
    # hide the test environment's from pip's resolver.
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True,
                   timeout=300)
    python = venv / "bin" / "python"
    purelib = "import sysconfig; print(sysconfig.get_path('purelib'))"
    site = pathlib.Path(_run([python, "-c", purelib], root, None).strip())
    (site / "reuse_test_environment.pth").write_text(sysconfig.get_path("purelib") + "\n")
    env = {k: v for k, v in os.environ.items()
           if k not in ("PYTHONPATH", "HARDSIGMOID_OPS_LIBRARY", "VIRTUAL_ENV")}
    env["PATH"] = f"{venv / 'bin'}{os.pathsep}{env.get('PATH', '')}"
    elsewhere = root / "elsewhere"
    elsewhere.mkdir()
    return python, env, elsewhere


@pytest.fixture(scope="module")
def wheel(environment, tmp_path_factory):
    """The wheel pip builds from the checkout, built from outside it: once a run, whichever
    pytest-xdist worker comes first (the others wait for it and take the same wheel)."""
    python, env, elsewhere = environment
    directory = run_wide_directory(tmp_path_factory) / "wheel"
    with run_wide_lock(tmp_path_factory, "wheel"):
        if not list(directory.glob("hardsigmoid_ops-*.whl")):
            _run([*_pip(python), "wheel", "--no-build-isolation", "--no-index", "--no-deps", "-w",
                  directory, REPO_ROOT], elsewhere, env)
    built, = directory.glob("hardsigmoid_ops-*.whl")
    return built


@pytest.fixture(scope="module")
def installed(environment, wheel):
    """The environment, with the wheel installed (its torch is the test environment's)."""
    python, env, elsewhere = environment
    _run([*_pip(python), "install", "--no-index", wheel], elsewhere, env)
    return environment


@pytest.fixture(scope="module")
def used(installed):
    """USE run once from outside the checkout (it asserts as it goes); what it printed."""
    python, env, elsewhere = installed
    printed = _run([python, "-c", USE], elsewhere, env, timeout=600)
    return dict(line.split("=", 1) for line in printed.splitlines() if "=" in line)


def test_import_and_use_from_another_directory(used):
    assert "/hardsigmoid_ops/lib/" in used["library"], used["library"]


def test_check_names_the_installed_version(installed, wheel):
    """`python -m hardsigmoid_ops` (the quick start's check) from outside the checkout: pip's
    version, the installed library, calls equal to aten's."""
    python, env, elsewhere = installed
    printed = _run([python, "-m", "hardsigmoid_ops"], elsewhere, env, timeout=600)
    rows = dict(line.split(None, 1) for line in printed.splitlines() if line.startswith(
        ("hardsigmoid_ops ", "library ")))
    assert rows["hardsigmoid_ops"].strip() == wheel.name.split("-")[1], printed
    assert "/hardsigmoid_ops/lib/" in rows["library"], printed
    assert "equal to aten's" in printed, printed


def test_readme_examples_run_as_a_pip_user(installed, tmp_path):
    """README's Python examples, as written, where the library came from pip: `import
    hardsigmoid_ops` and nothing else."""
    python, env, elsewhere = installed
    (tmp_path / "readme_examples.py").write_text(python_script(REPO_ROOT / "README.md"))
    _run([python, tmp_path / "readme_examples.py"], tmp_path, env, timeout=900)


def test_cpp_project_finds_the_installed_package(installed, used, tmp_path):
    python, env, elsewhere = installed
    project = REPO_ROOT / "cpp_tests" / "downstream_package"
    prefix = f"{used['cmake_prefix_path']};{used['torch_prefix']}"
    _run(["cmake", "-S", project, "-B", tmp_path / "build", "-G", "Ninja",
          f"-DCMAKE_PREFIX_PATH={prefix}"], elsewhere, env, timeout=600)
    _run(["cmake", "--build", tmp_path / "build"], elsewhere, env, timeout=900)
    _run([tmp_path / "build" / "consumer"], elsewhere, env, timeout=300)


def test_another_torch_is_refused_by_name(installed, used):
    """The build record edited to name another torch: importing raises ImportError naming both
    versions (rather than a loader error about a missing symbol)."""
    python, env, elsewhere = installed
    where = used["package"]
    record = pathlib.Path(where) / "lib" / "hardsigmoid_ops_build.json"
    original = record.read_text()
    try:
        record.write_text(json.dumps(dict(json.loads(original), torch_version="2.10.0",
                                          torch_full_version="2.10.0")))
        result = subprocess.run([python, "-c", "import hardsigmoid_ops"], cwd=elsewhere, env=env,
                                capture_output=True, text=True, timeout=300)
    finally:
        record.write_text(original)
    assert result.returncode != 0
    assert "ImportError" in result.stderr, result.stderr[-2000:]
    assert ("built against torch 2.10.0" in result.stderr
            and f"this is torch {torch.__version__}" in result.stderr), result.stderr[-2000:]


def test_wheel_holds_the_package_library_header_and_cmake_package(wheel):
    with zipfile.ZipFile(wheel) as archive:
        names = set(archive.namelist())
        record = json.loads(archive.read("hardsigmoid_ops/lib/hardsigmoid_ops_build.json"))
    expected = {"hardsigmoid_ops/__init__.py", "hardsigmoid_ops/nn.py",
                "hardsigmoid_ops/functional.py", "hardsigmoid_ops/lib/libhardsigmoid_ops.so",
                "hardsigmoid_ops/include/hardsigmoid_ops/hardsigmoid.h",
                "hardsigmoid_ops/lib/cmake/HardsigmoidOps/HardsigmoidOpsConfig.cmake"}
    assert expected <= names, sorted(names)
    # Where ExecuTorch is installed, pip's build finds it and ships its kernel library too.
    if importlib.util.find_spec("executorch") is not None:
        assert "hardsigmoid_ops/lib/libhardsigmoid_ops_executorch.so" in names, sorted(names)
    import torch

    assert record["torch_version"] == torch.__version__.split("+")[0]
    assert record["cuda"] == (shutil.which("nvcc") is not None
                              or pathlib.Path("/usr/local/cuda/bin/nvcc").exists())
