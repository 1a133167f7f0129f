"""Which torch a build serves: the one rule shared by the wheel's metadata and the import check.

A library built against torch X.Y.Z loads into every X.Y.* and into no other X.Y: C++ symbols and
class layouts change between minor releases, and patch releases keep them (docs/install.md gives
the evidence). So a wheel pins ``torch==X.Y.*`` and names ``+torchX.Y`` in its version, and
``import hardsigmoid_ops`` refuses a library whose X.Y is not the running torch's. Pre-releases
and nightlies are served only by a build against the same one.

This module imports nothing but the standard library: the build backend loads it on its own (as a
dynamic-metadata provider, pyproject.toml), where torch may be installed without its CUDA
libraries and cannot be imported.
"""

import importlib.metadata
import pathlib
import re


def release(torch_version):
    """ "2.11" for "2.11.0", "2.11.0+cu130", "2.12.0.dev20260101"."""
    match = re.match(r"(\d+)\.(\d+)", torch_version)
    if match is None:
        raise ValueError(f"not a torch version: {torch_version!r}")
    return f"{match.group(1)}.{match.group(2)}"


def is_final(torch_version):
    """Whether a version is a final release (2.11.0, 2.11.0+cu130), not a pre-release, nightly or
    source build of one (2.12.0.dev20260101, 2.12.0a0+git1234567)."""
    return re.fullmatch(r"\d+\.\d+\.\d+(\+[\w.]+)?", torch_version) is not None


def serves(built_version, running_version):
    """Whether a library built against torch `built_version` loads into `running_version`: the same
    minor release, both final; a pre-release (whose classes may change from one build to the
    next with no symbol to tell) serves and is served by the same pre-release alone."""
    if is_final(built_version) and is_final(running_version):
        return release(built_version) == release(running_version)
    return built_version.split("+")[0] == running_version.split("+")[0]


def requirement(torch_version):
    """The wheel's requirement on torch: its release, any patch."""
    return f"torch=={release(torch_version)}.*"


def _project_version(source):
    text = (source / "CMakeLists.txt").read_text()
    match = re.search(r"project\(hardsigmoid_ops VERSION ([0-9.]+)", text)
    if match is None:
        raise RuntimeError("CMakeLists.txt: project(hardsigmoid_ops VERSION ...) not found")
    return match.group(1)


def dynamic_metadata(settings, project):
    """The build backend's hook (scikit-build-core, [[tool.dynamic-metadata]]): the version, the
    project's own with the torch release as its local part (0.1.0+torch2.11), and the torch
    requirement, both from the torch installed where the wheel is built."""
    del settings, project
    torch_version = importlib.metadata.version("torch")
    source = pathlib.Path(__file__).resolve().parents[2]
    return {"version": f"{_project_version(source)}+torch{release(torch_version)}",
            "dependencies": [requirement(torch_version)]}
