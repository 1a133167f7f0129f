"""Finding and loading libhardsigmoid_ops.so.

Where the library is looked for, first match wins:

1. the path given to ``load_library(path)``;
2. the environment variable ``HARDSIGMOID_OPS_LIBRARY``;
3. the release wheel's library for the running torch: ``releases/torchX.Y-cuda/lib`` inside this
   package for a torch with CUDA (of the library's CUDA major), ``releases/torchX.Y-cpu/lib`` for
   one without, on x86-64 and aarch64 alike. A package that holds ``releases/`` but none for this
   torch raises ImportError naming the releases it holds and why this torch is not served
   (another release or CUDA major, ROCm, XPU, a pre-release or source build);
4. ``lib/`` inside this package, where ``pip install`` of the source puts it (the package directory
   is then the install prefix of the CMake package too: ``cmake_prefix_path``);
5. next to this package, then in ``lib/`` and ``build/`` beside the directory holding it: an
   install prefix laid out as ``<prefix>/python/hardsigmoid_ops`` and ``<prefix>/lib``, or this
   source tree with its default ``build/`` directory.

Beside the library, ``hardsigmoid_ops_build.json`` (written by the CMake build) records the torch it
was built against and the CUDA code it holds; loading it into another torch release raises
ImportError naming both, where the loader would only report a missing symbol (the rule, the same
as the wheel's torch requirement: _torch_release.py).
"""

import json
import os
import pathlib
import warnings

import torch

from . import _torch_release

LIBRARY_NAME = "libhardsigmoid_ops.so"
LIBRARY_ENV = "HARDSIGMOID_OPS_LIBRARY"
BUILD_RECORD = "hardsigmoid_ops_build.json"

_PACKAGE_DIR = pathlib.Path(__file__).resolve().parent
_RELEASES_DIR = _PACKAGE_DIR / "releases"
_PREFIX = _PACKAGE_DIR.parent.parent
_SEARCH_DIRS = (_PACKAGE_DIR / "lib", _PACKAGE_DIR / "lib64", _PACKAGE_DIR, _PREFIX / "lib",
                _PREFIX / "build")
# The prefix find_package(HardsigmoidOps) searches in a pip install: the package directory.
CMAKE_PREFIX_PATH = str(_PACKAGE_DIR)


def ops_registered():
    """Whether the hardsigmoid_ops namespace already has its ops, however they got there (an
    earlier load, a library linked into the program)."""
    return hasattr(torch.ops.hardsigmoid_ops, "hardsigmoid")


def held_releases(releases_dir=_RELEASES_DIR):
    """{(release, cuda): library path} of the libraries a release wheel's package holds."""
    held = {}
    if releases_dir.is_dir():
        for directory in releases_dir.iterdir():
            parsed = _torch_release.parse_release_directory(directory.name)
            if parsed and (directory / "lib" / LIBRARY_NAME).is_file():
                held[parsed] = directory / "lib" / LIBRARY_NAME
    return held


def _major(cuda_version):
    """ "13" for "13.0"; None for None (no CUDA, or a record that names none)."""
    return cuda_version.split(".")[0] if cuda_version else None


def _cuda_major(library):
    """The CUDA major of a release library's build, from its record."""
    return _major(build_record(library).get("cuda_version"))


def _held_description(held):
    """ "2.11 (CPU and CUDA 13), 2.15 (CPU and CUDA 13)": what a release wheel's package holds."""
    kinds = {}
    for (release_name, cuda), library in held.items():
        major = _cuda_major(library) if cuda else None
        kinds.setdefault(release_name, []).append(
            ("CUDA" + (f" {major}" if major else "")) if cuda else "CPU")
    return ", ".join(f"{r} ({' and '.join(sorted(kinds[r]))})"
                     for r in sorted(kinds, key=_torch_release.release_key))


def _running_torch():
    """(version, CUDA version, HIP version, XPU version) of the imported torch."""
    return (torch.__version__, torch.version.cuda, getattr(torch.version, "hip", None),
            getattr(torch.version, "xpu", None))


def release_library(releases_dir=_RELEASES_DIR, torch_version=None, torch_cuda=None,
                    torch_hip=None, torch_xpu=None):
    """The release wheel's library for a torch (default: the running one): the CUDA build of its
    release where the torch has CUDA (of the same CUDA major), the build without CUDA where it has
    none. None where the package holds no release libraries (a source build's package);
    ImportError, naming what the package holds and why this torch is not served, where it holds
    some but none for this torch: another release, another CUDA major, a ROCm or XPU build, a
    pre-release, a nightly or a source build."""
    held = held_releases(releases_dir)
    if not held:
        return None
    if torch_version is None:
        torch_version, torch_cuda, torch_hip, torch_xpu = _running_torch()
    build_from_source = ("Build the library from source against this torch: pip install "
                         "--no-build-isolation <source checkout> (docs/install.md).")
    wanted = (_torch_release.release(torch_version), bool(torch_cuda))
    if torch_hip:
        why = f", a ROCm build (HIP {torch_hip}): the package's GPU kernels are CUDA's"
    elif torch_xpu:
        why = f", an XPU build (XPU {torch_xpu}): the package's GPU kernels are CUDA's"
    elif not _torch_release.is_final(torch_version):
        why = (", a pre-release, nightly or source build: only a library built against that "
               "very build serves it")
    elif wanted not in held and (wanted[0], not wanted[1]) in held:
        why = (f" (CUDA {torch_cuda}): the package holds no CUDA library for torch {wanted[0]}"
               if torch_cuda else f" without CUDA: the package holds no CPU library for torch "
               f"{wanted[0]}")
    elif wanted not in held:
        why = " without CUDA" if not torch_cuda else f" (CUDA {torch_cuda})"
        build_from_source = (f"Install a torch of those releases, or b{build_from_source[1:]}")
    elif torch_cuda and _cuda_major(held[wanted]) not in (None, _major(torch_cuda)):
        why = (f", a CUDA {torch_cuda} build: the package's CUDA library for it is a CUDA "
               f"{_cuda_major(held[wanted])} build, whose runtime this torch does not bring")
    else:
        return held[wanted]
    raise ImportError(
        f"hardsigmoid_ops: this package holds libraries for torch {_held_description(held)}; "
        f"this is torch {torch_version}{why}, which none of them serves. {build_from_source}")


def configured_path():
    """The library named by the environment, else the release wheel's for this torch, else the
    first found in the search directories, else None. A variable that names a missing file is an
    error, not a reason to look elsewhere."""
    from_env = os.environ.get(LIBRARY_ENV)
    if from_env:
        path = pathlib.Path(from_env)
        if not path.is_file():
            raise FileNotFoundError(f"{LIBRARY_ENV}={from_env}: no such file")
        return path
    from_release = release_library()
    if from_release is not None:
        return from_release
    for directory in _SEARCH_DIRS:
        if (directory / LIBRARY_NAME).is_file():
            return directory / LIBRARY_NAME
    return None


def build_record(path):
    """What the build record beside the library at `path` says ({} when there is none: a library
    copied on its own)."""
    record = pathlib.Path(path).parent / BUILD_RECORD
    return json.loads(record.read_text()) if record.is_file() else {}


def check_built_for_this_torch(path):
    """Raises ImportError when the build record beside the library at `path` names another torch
    release than the one imported. A library without a record is not checked."""
    built = build_record(path)
    if not built:
        return
    built_version = built.get("torch_full_version") or built["torch_version"]
    if not _torch_release.serves(built_version, torch.__version__):
        raise ImportError(
            f"hardsigmoid_ops: {path} was built against torch {built_version}, but this is torch "
            f"{torch.__version__}; a library built against torch "
            f"{_torch_release.release(built_version)}.* loads only in that release. Install the "
            f"release wheel, which holds a library for each supported torch release, or rebuild "
            f"it here (pip install --no-build-isolation <source>, or the CMake build).")
    if built.get("cuda") and not torch.backends.cuda.is_built():
        raise ImportError(
            f"hardsigmoid_ops: {path} was built with CUDA kernels, but this torch "
            f"{torch.__version__} has no CUDA; rebuild it against this torch.")
    built_cuda = built.get("cuda_version")
    built_major, torch_major = _major(built_cuda), _major(torch.version.cuda)
    if built_major and torch_major and built_major != torch_major:
        raise ImportError(
            f"hardsigmoid_ops: {path} was built with CUDA {built_cuda}, but this torch "
            f"{torch.__version__} is a CUDA {torch.version.cuda} build, whose CUDA runtime the "
            f"library cannot use; install torch's CUDA {built_major} build, or rebuild "
            f"the library against this torch with nvcc of CUDA {torch_major}.")


def warn_if_gpu_unserved(path):
    """Warns when torch sees a GPU and the library at `path` has no CUDA kernels: every CUDA tensor
    would be refused. Asked only of a library built without CUDA, through device_count(), which
    asks NVML first and leaves CUDA uninitialized (a process may still fork)."""
    built = build_record(path)
    if built.get("cuda", True) or not torch.backends.cuda.is_built():
        return
    gpus = torch.cuda.device_count()
    if gpus == 0:
        return
    warnings.warn(
        f"hardsigmoid_ops: {path} was built without CUDA kernels, and torch sees "
        f"{gpus} GPU(s): the ops refuse CUDA tensors. Install the release wheel (pip install "
        f"hardsigmoid_ops, x86-64 and aarch64), or build from source where nvcc is found (pip "
        f"install --no-build-isolation <source>).", RuntimeWarning, stacklevel=3)


def load(path):
    """Loads the library at `path` once. torch.ops.load_library dlopens by real path, and dlopen of
    a path already open does not run the library's registrations again; a second copy of the
    library under another path would, and fail on duplicate registrations, so it is refused here
    with a message that names both."""
    real = os.path.realpath(path)
    if not os.path.isfile(real):
        raise FileNotFoundError(f"hardsigmoid_ops: no library at {path}")
    if real in {os.path.realpath(p) for p in torch.ops.loaded_libraries}:
        return
    if ops_registered():
        loaded = sorted(p for p in torch.ops.loaded_libraries if LIBRARY_NAME in p)
        origin = ", ".join(loaded) or "not through torch.ops.load_library"
        raise RuntimeError(
            f"hardsigmoid_ops: the ops are already registered (from {origin}); not loading a "
            f"second copy from {path}"
        )
    check_built_for_this_torch(real)
    torch.ops.load_library(real)
    warn_if_gpu_unserved(real)
