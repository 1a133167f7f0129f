"""The release wheel's layout, as the package reads it: one library per torch release and variant
(hardsigmoid_ops/releases/torchX.Y-cuda and -cpu), the one for the running torch chosen at import,
and the torch requirement that names exactly the releases held. The wheel itself is built and
installed from an index by scripts/release/build_wheels.sh and
scripts/release/check_index_install.sh."""

import pathlib

import pytest

from hardsigmoid_ops import _library, _torch_release

ROOT = pathlib.Path(__file__).resolve().parents[1]


def releases(tmp_path, *directories):
    """A releases/ folder holding a (stand-in) library in each of `directories`."""
    folder = tmp_path / "releases"
    for directory in directories:
        (folder / directory / "lib").mkdir(parents=True)
        (folder / directory / "lib" / _library.LIBRARY_NAME).write_bytes(b"")
    return folder


@pytest.mark.parametrize("torch_version, cuda, chosen", [
    ("2.12.1+cu130", "13.0", "torch2.12-cuda"),
    ("2.12.0", "13.0", "torch2.12-cuda"),
    ("2.12.1+cpu", None, "torch2.12-cpu"),
    ("2.15.0+cu132", "13.2", "torch2.15-cuda")])
def test_the_running_torchs_release_and_variant(tmp_path, torch_version, cuda, chosen):
    folder = releases(tmp_path, "torch2.12-cuda", "torch2.12-cpu", "torch2.15-cuda",
                      "torch2.15-cpu")
    path = _library.release_library(folder, torch_version, cuda)
    assert path == folder / chosen / "lib" / _library.LIBRARY_NAME


def record(folder, directory, cuda_version):
    """The build record beside a stand-in library, naming its CUDA version."""
    (folder / directory / "lib" / _library.BUILD_RECORD).write_text(
        f'{{"torch_version": "2.11.0", "cuda": true, "cuda_version": "{cuda_version}"}}')


def test_a_torch_with_cuda_is_refused_where_its_release_has_no_cuda_build(tmp_path):
    """Both platforms' wheels hold a CUDA build of each release: a CUDA torch that finds only the
    CPU build meets a wheel that lacks what it should hold, and is told so rather than given a
    library that refuses every CUDA tensor."""
    folder = releases(tmp_path, "torch2.11-cpu")
    with pytest.raises(ImportError, match=r"holds libraries for torch 2.11 \(CPU\); this is "
                       r"torch 2.11.0\+cu130 \(CUDA 13.0\): the package holds no CUDA library "
                       r"for torch 2.11, which none of them serves. Build the library"):
        _library.release_library(folder, "2.11.0+cu130", "13.0")


@pytest.mark.parametrize("torch_version, cuda, hip, xpu, why", [
    ("2.11.0+cu128", "12.8", None, None,
     "a CUDA 12.8 build: the package's CUDA library for it is a CUDA 13 build"),
    ("2.11.0+rocm6.4", None, "6.4.43484", None, "a ROCm build (HIP 6.4.43484)"),
    ("2.11.0+xpu", None, None, "20250101", "an XPU build (XPU 20250101)"),
    ("2.11.0.dev20260101+cu130", "13.0", None, None, "a pre-release, nightly or source build"),
    ("2.11.0a0+git1234567", "13.0", None, None, "a pre-release, nightly or source build"),
    ("2.11.0rc1", "13.0", None, None, "a pre-release, nightly or source build")])
def test_a_torch_build_the_wheel_holds_nothing_for_is_refused_saying_why(
        tmp_path, torch_version, cuda, hip, xpu, why):
    """What a release's library cannot serve though the release matches: another CUDA major
    (whose runtime the library cannot use), ROCm and XPU (no kernels for their GPUs), and a build
    that is not the final release (its classes may differ with no symbol to tell)."""
    folder = releases(tmp_path, "torch2.11-cuda", "torch2.11-cpu")
    record(folder, "torch2.11-cuda", "13.0")
    with pytest.raises(ImportError) as error:
        _library.release_library(folder, torch_version, cuda, hip, xpu)
    message = str(error.value)
    assert "holds libraries for torch 2.11 (CPU and CUDA 13)" in message, message
    assert f"this is torch {torch_version}, {why}" in message, message
    assert "pip install --no-build-isolation" in message, message


def test_the_cuda_build_of_the_same_major_serves_any_minor(tmp_path):
    folder = releases(tmp_path, "torch2.15-cuda", "torch2.15-cpu")
    record(folder, "torch2.15-cuda", "13.0")
    assert _library.release_library(folder, "2.15.0+cu132", "13.2") == \
        folder / "torch2.15-cuda" / "lib" / _library.LIBRARY_NAME


def test_no_releases_folder_is_a_source_build(tmp_path):
    assert _library.release_library(tmp_path / "releases", "2.11.0", "13.0") is None
    assert _library.release_library(releases(tmp_path), "2.11.0", "13.0") is None


def test_other_folders_and_folders_without_a_library_are_not_releases(tmp_path):
    folder = releases(tmp_path, "torch2.11-cuda", "notes", "torch2.12")
    (folder / "torch2.13-cuda").mkdir()
    assert _library.held_releases(folder) == {
        ("2.11", True): folder / "torch2.11-cuda" / "lib" / _library.LIBRARY_NAME}


@pytest.mark.parametrize("held, requirement", [
    (["2.11", "2.12", "2.13", "2.14", "2.15"], "torch>=2.11,<2.16"),
    (["2.15", "2.11"], "torch>=2.11,<2.16,!=2.12.*,!=2.13.*,!=2.14.*"),
    (["2.13"], "torch>=2.13,<2.14"),
    (["2.9", "2.10"], "torch>=2.9,<2.11")])
def test_the_requirement_names_exactly_the_releases_held(held, requirement):
    assert _torch_release.releases_requirement(held) == requirement


def test_the_requirement_admits_the_releases_held_and_nothing_else():
    """Read by pip's own version rules (packaging, which pip vendors): every patch of a held
    release, no release between them that is not held, and nothing outside."""
    from pip._vendor.packaging.requirements import Requirement

    specifier = Requirement(_torch_release.releases_requirement(["2.11", "2.13"])).specifier
    admitted = [v for v in ("2.10.0", "2.11.0", "2.11.7", "2.12.1", "2.13.0", "2.13.2", "2.14.0",
                            "2.16.0") if specifier.contains(v)]
    assert admitted == ["2.11.0", "2.11.7", "2.13.0", "2.13.2"]


def test_the_version_has_no_local_label():
    """An index refuses a local version (+torch2.11, PEP 440): the wheel's and the sdist's version
    is the project's alone."""
    metadata = _torch_release.dynamic_metadata(None, None)
    assert "+" not in metadata["version"]
    assert metadata["version"] == _torch_release._project_version(ROOT)


def test_release_directories_round_trip():
    for release in ("2.11", "2.15", "3.0"):
        for cuda in (True, False):
            name = _torch_release.release_directory(release, cuda)
            assert _torch_release.parse_release_directory(name) == (release, cuda)


def raw_wheel(folder, directory, requirement, package_bytes=b"# the package\n"):
    """A per-release wheel as pip builds it for scripts/release/build_wheels.sh (its files
    stand-ins)."""
    import zipfile

    path = folder / f"raw-{directory}" / "hardsigmoid_ops-0.1.0-py3-none-linux_x86_64.whl"
    path.parent.mkdir(parents=True)
    tree = f"hardsigmoid_ops/releases/{directory}"
    with zipfile.ZipFile(path, "w") as wheel:
        wheel.writestr("hardsigmoid_ops/__init__.py", package_bytes)
        wheel.writestr(f"{tree}/lib/{_library.LIBRARY_NAME}", directory.encode())
        wheel.writestr(f"{tree}/lib/cmake/HardsigmoidOps/HardsigmoidOpsConfigVersion.cmake",
                       b"# version 0.1.0\n")
        wheel.writestr("hardsigmoid_ops-0.1.0.dist-info/METADATA",
                       f"Metadata-Version: 2.4\nName: hardsigmoid_ops\nVersion: 0.1.0\n"
                       f"Requires-Python: >=3.10\nRequires-Dist: {requirement}\n"
                       f"Description-Content-Type: text/markdown\n\n# hardsigmoid_ops\n")
        wheel.writestr("hardsigmoid_ops-0.1.0.dist-info/WHEEL",
                       "Wheel-Version: 1.0\nRoot-Is-Purelib: false\nTag: py3-none-linux_x86_64\n")
        wheel.writestr("hardsigmoid_ops-0.1.0.dist-info/RECORD", "stale\n")
    return path


def merge(tmp_path, *wheels):
    import subprocess
    import sys

    result = subprocess.run([sys.executable, str(ROOT / "scripts" / "release" /
                                                 "merge_release_wheels.py"), str(tmp_path / "out"),
                             *map(str, wheels)], capture_output=True, text=True)
    return result


def test_merged_wheel_holds_every_release_and_requires_them(tmp_path):
    import base64
    import hashlib
    import zipfile

    wheels = [raw_wheel(tmp_path, "torch2.11-cuda", "torch==2.11.*"),
              raw_wheel(tmp_path, "torch2.11-cpu", "torch==2.11.*"),
              raw_wheel(tmp_path, "torch2.13-cuda", "torch==2.13.*")]
    result = merge(tmp_path, *wheels)
    assert result.returncode == 0, result.stderr
    merged = pathlib.Path(result.stdout.strip())
    assert merged.name == "hardsigmoid_ops-0.1.0-py3-none-linux_x86_64.whl"
    with zipfile.ZipFile(merged) as wheel:
        names = wheel.namelist()
        for directory in ("torch2.11-cuda", "torch2.11-cpu", "torch2.13-cuda"):
            assert wheel.read(f"hardsigmoid_ops/releases/{directory}/lib/"
                              f"{_library.LIBRARY_NAME}") == directory.encode()
        dispatcher = wheel.read("hardsigmoid_ops/lib/cmake/HardsigmoidOps/"
                                "HardsigmoidOpsConfig.cmake")
        assert dispatcher == (ROOT / "cmake" / "HardsigmoidOpsReleasesConfig.cmake").read_bytes()
        metadata = wheel.read("hardsigmoid_ops-0.1.0.dist-info/METADATA").decode()
        assert [line for line in metadata.splitlines() if line.startswith("Requires-Dist")] == \
            ["Requires-Dist: torch>=2.11,<2.14,!=2.12.*"]
        assert metadata.endswith("\n\n# hardsigmoid_ops\n")
        # RECORD: every other file once, with its digest and size; the dist-info last.
        record = wheel.read("hardsigmoid_ops-0.1.0.dist-info/RECORD").decode().splitlines()
        rows = {row.split(",")[0]: row.split(",")[1:] for row in record}
        assert set(rows) == set(names)
        for name in names:
            if name.endswith("RECORD"):
                continue
            data = wheel.read(name)
            digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=")
            assert rows[name] == [f"sha256={digest.decode()}", str(len(data))], name
        assert all(n.startswith("hardsigmoid_ops-0.1.0.dist-info/")
                   for n in names[-len([n for n in names if ".dist-info/" in n]):])


def test_merge_refuses_package_files_that_differ(tmp_path):
    wheels = [raw_wheel(tmp_path, "torch2.11-cuda", "torch==2.11.*"),
              raw_wheel(tmp_path, "torch2.12-cuda", "torch==2.12.*", b"# another package\n")]
    result = merge(tmp_path, *wheels)
    assert result.returncode != 0
    assert "hardsigmoid_ops/__init__.py differs" in result.stderr, result.stderr


def test_merge_refuses_a_release_twice(tmp_path):
    first = raw_wheel(tmp_path / "a", "torch2.11-cuda", "torch==2.11.*")
    second = raw_wheel(tmp_path / "b", "torch2.11-cuda", "torch==2.11.*")
    result = merge(tmp_path, first, second)
    assert result.returncode != 0
    assert "a second wheel for torch2.11-cuda" in result.stderr, result.stderr
