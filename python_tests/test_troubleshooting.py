"""docs/troubleshooting.md quotes each error as the software prints it: each entry's message is
provoked here, the way a user meets it, and its quote must match what was printed (whitespace
aside; `…` stands for any text). Every entry of the page has a provocation below, so an entry
cannot be added unchecked. The two that need a GPU and a library without its code run where
scripts/gpu_check.sh's `limits` part builds such libraries and runs this file against them."""

import importlib
import json
import os
import pathlib
import re
import shutil
import subprocess
import sys

import pytest
import torch

from hardsigmoid_testing.config import LIBRARY, REPO_ROOT
from hardsigmoid_testing.doc_blocks import FENCE
from hardsigmoid_testing.no_cuda_toolkit import without_cuda_toolkit

PAGE = REPO_ROOT / "docs" / "troubleshooting.md"
ENTRY = re.compile(r"^## (.+?)\n(.*?)(?=^## |\Z)", re.S | re.M)


def _entries():
    """{heading: its quotes}: each entry's `text` blocks, in order."""
    entries = {}
    for heading, section in ENTRY.findall(PAGE.read_text()):
        quotes = [body for language, body in blocks_of(section) if language == "text"]
        assert quotes, f"troubleshooting.md's entry {heading!r} quotes no message"
        entries[heading] = quotes
    return entries


def blocks_of(text):
    """The fenced blocks of a piece of the page, in order."""
    return [(m.group(1), m.group(2)) for m in FENCE.finditer(text)]


def _words(text):
    return " ".join(text.split())


def _matches(quote, printed):
    pattern = ".*?".join(re.escape(part) for part in _words(quote).split("…"))
    return re.search(pattern, _words(printed)) is not None


def _run(command, cwd, env=None, timeout=600):
    result = subprocess.run(command, cwd=cwd, env=env, capture_output=True, text=True,
                            timeout=timeout)
    return result.stdout + result.stderr


def _python(code, cwd, **variables):
    """Python code (`-c` code, or a script's name) in a fresh interpreter, with the source tree's
    package importable and the variables given, HARDSIGMOID_OPS_LIBRARY unset unless given."""
    env = {k: v for k, v in os.environ.items() if k != "HARDSIGMOID_OPS_LIBRARY"}
    env["PYTHONPATH"] = os.pathsep.join([str(REPO_ROOT / "python"), env.get("PYTHONPATH", "")])
    env.update(variables)
    command = [code] if code.endswith(".py") else ["-c", code]
    return _run([sys.executable, *command], cwd, env)


def _copy_of_library(tmp_path, **record):
    """The library under test copied, with its build record edited."""
    shutil.copy(LIBRARY, tmp_path / LIBRARY.name)
    built = json.loads((LIBRARY.parent / "hardsigmoid_ops_build.json").read_text())
    (tmp_path / "hardsigmoid_ops_build.json").write_text(json.dumps({**built, **record}))
    return tmp_path / LIBRARY.name


def _wheel_import(tmp_path, directories, torch_as=""):
    """`import hardsigmoid_ops` from the package as a release wheel installs it, holding stand-in
    libraries in `directories` (never loaded: the choice comes first), each CUDA one with a record
    naming this torch's CUDA major; `torch_as`: code run after `import torch` that makes it pose
    as another build."""
    package = tmp_path / "site" / "hardsigmoid_ops"
    shutil.copytree(REPO_ROOT / "python" / "hardsigmoid_ops", package)
    for directory in directories:
        (package / "releases" / directory / "lib").mkdir(parents=True)
        (package / "releases" / directory / "lib" / LIBRARY.name).write_bytes(b"")
        if directory.endswith("-cuda"):
            (package / "releases" / directory / "lib" / "hardsigmoid_ops_build.json").write_text(
                json.dumps({"torch_version": directory[5:-5] + ".0", "cuda": True,
                            "cuda_version": "13.0"}))
    env = {k: v for k, v in os.environ.items() if k != "HARDSIGMOID_OPS_LIBRARY"}
    env["PYTHONPATH"] = str(tmp_path / "site")
    return _run([sys.executable, "-c", f"import torch\n{torch_as}\nimport hardsigmoid_ops"],
                tmp_path, env)


def wheel_without_this_release(tmp_path):
    # Libraries of releases other than this torch's (torch 2.10 and 3.0).
    return _wheel_import(tmp_path, ["torch2.10-cpu", "torch3.0-cpu"])


def _this_release():
    return ".".join(torch.__version__.split(".")[:2])


def _wheel_import_as(tmp_path, torch_as):
    return _wheel_import(tmp_path, [f"torch{_this_release()}-cuda", f"torch{_this_release()}-cpu"],
                         torch_as)


def wheel_in_rocm_torch(tmp_path):
    # PyTorch's ROCm builds: torch.version.hip set, torch.version.cuda None.
    return _wheel_import_as(tmp_path, "torch.version.hip = '6.4.43484'\n"
                                      "torch.version.cuda = None")


def wheel_in_xpu_torch(tmp_path):
    return _wheel_import_as(tmp_path, "torch.version.xpu = '20250101'\ntorch.version.cuda = None")


def wheel_in_cuda_12_torch(tmp_path):
    # A +cu128 build of this release (PyTorch's own index); the held CUDA library is CUDA 13's.
    return _wheel_import_as(tmp_path, "torch.version.cuda = '12.8'")


def wheel_in_torch_nightly(tmp_path):
    # A nightly of this release; a source build's number (2.11.0a0+git…) is refused alike.
    return _wheel_import_as(
        tmp_path, f"torch.__version__ = '{_this_release()}.0.dev20260101+cu130'")


def other_torch(tmp_path):
    copy = _copy_of_library(tmp_path, torch_version="2.10.0", torch_full_version="2.10.0")
    return _python("import hardsigmoid_ops", tmp_path, HARDSIGMOID_OPS_LIBRARY=str(copy))


def wheel_in_torch_without_cuda(tmp_path):
    # A CPU-only torch, as torch.backends.cuda.is_built() answers in one, before the import.
    copy = _copy_of_library(tmp_path, cuda=True)
    return _python("import torch\n"
                   "torch.backends.cuda.is_built = lambda: False\n"
                   "import hardsigmoid_ops", tmp_path, HARDSIGMOID_OPS_LIBRARY=str(copy))


def wheel_of_another_cuda_major(tmp_path):
    if torch.version.cuda is None:
        pytest.skip("needs a CUDA build of torch")
    other = "12.6" if not torch.version.cuda.startswith("12.") else "13.0"
    copy = _copy_of_library(tmp_path, cuda=True, cuda_version=other)
    return _python("import hardsigmoid_ops", tmp_path, HARDSIGMOID_OPS_LIBRARY=str(copy))


def undefined_symbol(tmp_path):
    # A library that needs a symbol this process lacks, as one built against another torch does.
    (tmp_path / "needs.cpp").write_text("void of_another_torch();\n"
                                        "void f() { of_another_torch(); }\n")
    _run(["g++", "-shared", "-fPIC", "needs.cpp", "-o", "libneeds.so"], tmp_path)
    return _python("import torch; torch.ops.load_library('libneeds.so')", tmp_path)


def _first_gpu_unserved():
    if not torch.cuda.is_available():
        pytest.skip("needs a GPU: checked by scripts/gpu_check.sh's `limits` part")
    return _python("import torch, hardsigmoid_ops\n"
                   "torch.ops.hardsigmoid_ops.hardsigmoid(torch.ones(2, device='cuda'))",
                   REPO_ROOT, HARDSIGMOID_OPS_LIBRARY=str(LIBRARY))


def architecture_not_built(tmp_path):
    sass = json.loads((LIBRARY.parent / "hardsigmoid_ops_build.json").read_text()).get("cuda_sass")
    if not sass:
        pytest.skip("needs a library with CUDA kernels (gpu_check.sh's `limits` builds one for "
                    "sm_80 alone)")
    printed = _first_gpu_unserved()
    if "no CUDA code for this GPU" not in printed:
        pytest.skip("this library holds code for the GPU (gpu_check.sh's `limits` builds one "
                    "without it)")
    return printed


def no_cuda_kernels(tmp_path):
    if json.loads((LIBRARY.parent / "hardsigmoid_ops_build.json").read_text()).get("cuda"):
        pytest.skip("needs a library without CUDA kernels (gpu_check.sh's `limits` builds one)")
    return _first_gpu_unserved()


def torchscript_without_library(tmp_path):
    # Scripted from a file (TorchScript reads the function's source), saved with the library.
    (tmp_path / "save.py").write_text("import torch, hardsigmoid_ops\n"
                                      "def f(x: torch.Tensor):\n"
                                      "    return torch.ops.hardsigmoid_ops.hardsigmoid(x)\n"
                                      "torch.jit.script(f).save('model.pt')\n")
    printed = _python("save.py", tmp_path, HARDSIGMOID_OPS_LIBRARY=str(LIBRARY))
    assert (tmp_path / "model.pt").is_file(), printed
    return _run([sys.executable, "-c", "import torch; torch.jit.load('model.pt')"], tmp_path)


def no_library_found(tmp_path):
    # The package alone, away from a source tree's build/.
    shutil.copytree(REPO_ROOT / "python" / "hardsigmoid_ops", tmp_path / "hardsigmoid_ops")
    env = {k: v for k, v in os.environ.items() if k != "HARDSIGMOID_OPS_LIBRARY"}
    env["PYTHONPATH"] = str(tmp_path)
    return _run([sys.executable, "-c", "import torch, hardsigmoid_ops\n"
                 "hardsigmoid_ops.hardsigmoid(torch.ones(2))"], tmp_path, env)


def ops_namespace_without_library(tmp_path):
    return _python("import torch; torch.ops.hardsigmoid_ops.hardsigmoid(torch.ones(2))", tmp_path)


def variable_names_no_file(tmp_path):
    return _python("import hardsigmoid_ops", tmp_path,
                   HARDSIGMOID_OPS_LIBRARY=str(tmp_path / "missing" / LIBRARY.name))


def two_copies(tmp_path):
    copy = _copy_of_library(tmp_path)
    return _python(f"import hardsigmoid_ops; hardsigmoid_ops.load_library({str(copy)!r})",
                   tmp_path, HARDSIGMOID_OPS_LIBRARY=str(LIBRARY))


def _configure(tmp_path, *arguments):
    """The source tree configured (not built) as the quick start's library-only build is."""
    prefix = torch.utils.cmake_prefix_path
    return _run(["cmake", "-S", REPO_ROOT, "-B", tmp_path / "build", "-G", "Ninja",
                 f"-DCMAKE_PREFIX_PATH={prefix}", f"-DHARDSIGMOID_OPS_PYTHON={sys.executable}",
                 *arguments], tmp_path)


def no_nlohmann_json(tmp_path):
    # Its directory hidden from CMake's search, as on a machine without the package.
    return _configure(tmp_path, "-DHARDSIGMOID_OPS_BUILD_TESTS=OFF",
                      "-DHARDSIGMOID_OPS_BUILD_EXAMPLES=OFF", "-DCMAKE_IGNORE_PATH=/usr/include")


def torch_cmake_without_cuda_toolkit(tmp_path):
    # What a program's find_package(HardsigmoidOps) runs first: find_package(Torch).
    if torch.version.cuda is None:
        pytest.skip("torch is not a CUDA build")
    (tmp_path / "program").mkdir()
    (tmp_path / "program" / "CMakeLists.txt").write_text(
        "cmake_minimum_required(VERSION 3.25)\nproject(program LANGUAGES CXX)\n"
        "find_package(Torch REQUIRED)\n")
    command = (f"cmake -S {tmp_path / 'program'} -B {tmp_path / 'build'} "
               f"-DCMAKE_PREFIX_PATH={torch.utils.cmake_prefix_path}")
    result = without_cuda_toolkit(command, tmp_path, tmp_path, dict(os.environ))
    return result.stdout + result.stderr


def no_googletest(tmp_path):
    return _configure(tmp_path, "-DHARDSIGMOID_OPS_BUILD_EXAMPLES=OFF",
                      "-DCMAKE_DISABLE_FIND_PACKAGE_GTest=ON")


def no_scikit_build_core(tmp_path):
    # A fresh environment without the build backend; this environment's pip installs into it.
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True,
                   timeout=300)
    return _run([sys.executable, "-m", "pip", "--python", str(venv / "bin" / "python"),
                 "install", "--no-build-isolation", "--no-index", "--no-deps", str(REPO_ROOT)],
                tmp_path)


def source_install_without_torch(tmp_path):
    # A fresh environment with the build backend (this environment's scikit-build-core and what
    # it imports, through a .pth file) and no torch: the quick start's source build where torch
    # was not installed first.
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True,
                   timeout=300)
    backend = tmp_path / "backend"
    backend.mkdir()
    for name in ("scikit_build_core", "packaging", "pathspec"):
        (backend / name).symlink_to(pathlib.Path(importlib.import_module(name).__file__).parent)
    site = subprocess.run([venv / "bin" / "python", "-c",
                           "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                          capture_output=True, text=True, check=True).stdout.strip()
    (pathlib.Path(site) / "backend.pth").write_text(f"{backend}\n")
    return _run([sys.executable, "-m", "pip", "--python", str(venv / "bin" / "python"),
                 "install", "--no-build-isolation", "--no-index", "--no-deps", str(REPO_ROOT)],
                tmp_path)


def executorch_with_torch_2_11(tmp_path):
    pytest.importorskip("executorch", reason="ExecuTorch is not installed beside this torch")
    if torch.__version__.split("+")[0] >= "2.15":
        pytest.skip("ExecuTorch runs with this torch; the message is torch 2.11's")
    return _python(
        "import torch\n"
        "from executorch.exir import to_edge\n"
        "from executorch.runtime import Runtime\n"
        "program = to_edge(torch.export.export(torch.nn.Hardsigmoid(), (torch.ones(4),)))\n"
        "buffer = program.to_executorch().buffer\n"
        "Runtime.get().load_program(buffer).load_method('forward').execute([torch.ones(4)])",
        tmp_path)


# Each entry's provocations, one per quote, in the page's order.
PROVOKE = {
    "The wheel holds no library for this torch": [wheel_without_this_release],
    "The wheel holds nothing for this torch build": [
        wheel_in_rocm_torch, wheel_in_xpu_torch, wheel_in_cuda_12_torch, wheel_in_torch_nightly],
    "The library was built against another torch": [other_torch],
    "A library with CUDA kernels in a torch without CUDA, or of another CUDA major": [
        wheel_in_torch_without_cuda, wheel_of_another_cuda_major],
    "Undefined symbol when loading the library directly": [undefined_symbol],
    "The GPU's architecture is not in the build": [architecture_not_built],
    "The library has no CUDA kernels": [no_cuda_kernels],
    "`Unknown builtin op` when loading a TorchScript model": [torchscript_without_library],
    "The package found no library": [no_library_found],
    "`torch.ops.hardsigmoid_ops` has no `hardsigmoid`": [ops_namespace_without_library],
    "`HARDSIGMOID_OPS_LIBRARY` names no file": [variable_names_no_file],
    "Two copies of the library in one process": [two_copies],
    "`nlohmann/json.hpp` not found when building": [no_nlohmann_json],
    "A C++ program's configure stops: CUDA not found": [torch_cmake_without_cuda_toolkit],
    "GoogleTest not found when building": [no_googletest],
    "scikit-build-core missing for a source install": [no_scikit_build_core],
    "No torch installed for a source install": [source_install_without_torch],
    "ExecuTorch fails on every model with torch 2.11": [executorch_with_torch_2_11],
}
QUOTES = [pytest.param(heading, index, id=f"{heading}-{index}")
          for heading, provocations in PROVOKE.items() for index in range(len(provocations))]


def test_every_entry_is_provoked_here():
    entries = _entries()
    assert list(entries) == list(PROVOKE)
    assert {h: len(q) for h, q in entries.items()} == {h: len(p) for h, p in PROVOKE.items()}


@pytest.mark.parametrize("heading,index", QUOTES)
def test_quote_is_the_printed_message(heading, index, tmp_path):
    quote = _entries()[heading][index]
    printed = PROVOKE[heading][index](tmp_path)
    assert _matches(quote, printed), f"quoted:\n{quote}\nprinted:\n{printed[-3000:]}"
