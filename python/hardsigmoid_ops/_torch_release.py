"""Which torch a build serves: the one rule shared by the wheel's metadata and the import check.

A library built against torch X.Y.Z loads into every X.Y.* and into no other X.Y: C++ symbols and
class layouts change between minor releases, and patch releases keep them (docs/install.md gives
the evidence). So a wheel built from source, which holds one library, requires ``torch==X.Y.*``;
the release wheel holds one library per supported release (``releases/torchX.Y-cuda`` and
``-cpu``, scripts/release/build_wheels.sh) and requires the releases it holds
(``torch>=2.11,<2.16``).
``import hardsigmoid_ops`` refuses a library whose X.Y is not the running torch's. Pre-releases
and nightlies are served only by a build against the same one. The version is the project's
alone (0.1.0): an index refuses a local label (``+torch2.11``).

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
    """A one-library wheel's requirement on torch: its release, any patch."""
    return f"torch=={release(torch_version)}.*"


def release_key(release_name):
    """(2, 11) for "2.11": the order of releases."""
    major, minor = release_name.split(".")
    return int(major), int(minor)


def releases_requirement(releases):
    """The release wheel's requirement on torch: every patch of each release it holds ("2.11",
    ...), and nothing else: the span from the oldest to one past the newest, less each release
    inside the span that it does not hold."""
    held = sorted({release_key(r) for r in releases})
    if not held:
        raise ValueError("no torch release")
    (major, oldest), (newest_major, newest) = held[0], held[-1]
    if major != newest_major:
        raise ValueError(f"releases of two major versions: {sorted(releases)}")
    missing = [f"!={major}.{minor}.*" for minor in range(oldest, newest)
               if (major, minor) not in held]
    return ",".join([f"torch>={major}.{oldest}", f"<{major}.{newest + 1}", *missing])


def release_directory(release_name, cuda):
    """The folder of the release wheel's package that holds the library built against torch
    `release_name`, with CUDA kernels (cuda) or without (for a torch without CUDA)."""
    return f"torch{release_name}-{'cuda' if cuda else 'cpu'}"


def parse_release_directory(name):
    """(release, cuda) of a folder named by release_directory, None for another name."""
    match = re.fullmatch(r"torch(\d+\.\d+)-(cuda|cpu)", name)
    return (match.group(1), match.group(2) == "cuda") if match else None


def _project_version(source):
    text = (source / "CMakeLists.txt").read_text()
    match = re.search(r"project\(hardsigmoid_ops VERSION ([0-9.]+)", text)
    if match is None:
        raise RuntimeError("CMakeLists.txt: project(hardsigmoid_ops VERSION ...) not found")
    return match.group(1)


def dynamic_metadata(settings, project):
    """The build backend's hook (scikit-build-core, [[tool.dynamic-metadata]]): the project's
    version, and the torch requirement of a wheel that holds one library, from the torch installed
    where the wheel is built (the release script rewrites it to releases_requirement)."""
    del settings, project
    torch_version = importlib.metadata.version("torch")
    source = pathlib.Path(__file__).resolve().parents[2]
    return {"version": _project_version(source), "dependencies": [requirement(torch_version)]}


def dynamic_wheel(settings):
    """The build backend's hook for the sdist: the torch requirement is the torch a wheel is built
    against, so the sdist marks it Dynamic (core metadata 2.2) rather than name one release."""
    del settings
    return {"dependencies": True}
