"""The examples of README.md and of every guide in docs/ are code that runs, and every file they
name exists, so the docs cannot drift from the code.

- A document's Python blocks run, in order, as one script in a fresh interpreter (the library
  path replaced by the one under test), in a temporary directory; each document starts from
  nothing.
- A block whose first line is `# example: PATH` or `// example: PATH` is taken from PATH, a file
  the other tests build and run: each of its code lines (comments and spacing aside) must appear
  in that file, in the same order.
- Shell blocks name scripts of the repository: they must exist.
- Every relative link leads to a file or folder that exists, and every repository path a
  document quotes (`ops/...`, `cpp_tests/`, the file of `python_tests/test_x.py::test_y`, ...)
  exists; a bare test or source file name is found somewhere under the repository's folders.
"""

import functools
import os
import re
import signal
import subprocess
import sys

import pytest

from hardsigmoid_testing.config import LIBRARY, REPO_ROOT
from hardsigmoid_testing.doc_blocks import DOCUMENTS, FENCE, blocks, marked, python_script

DOCUMENT_IDS = [str(d.relative_to(REPO_ROOT)) for d in DOCUMENTS]
# A comment to the end of the line: `//` anywhere, `#` at the start or after a space (not the
# `#include` of C++).
COMMENT = re.compile(r"//.*$|(?:^|\s)#(?!include).*$")
# How a document's Python blocks find the library: `import hardsigmoid_ops`, which finds pip's
# install or, for a CMake build, the one docs/quickstart.md documents (PYTHONPATH naming the
# source tree's python/, whose package finds build/ beside it, or HARDSIGMOID_OPS_LIBRARY naming
# another build's library: the tests' own, here). A raw torch.ops.load_library of a build path
# would skip the package's torch-release check and fail for a pip user.
FIRST_IMPORT = re.compile(r"^import hardsigmoid_ops\b", re.M)
RAW_LOAD = re.compile(r"torch\.ops\.load_library\(")


def _all_blocks():
    return [(document, language, body) for document in DOCUMENTS
            for language, body in blocks(document)]


def _code_lines(text):
    lines = (" ".join(COMMENT.sub("", line).split()) for line in text.splitlines())
    return [line for line in lines if line]


def test_docs_have_examples_of_each_kind():
    languages = {language for _, language, _ in _all_blocks()}
    assert {"python", "cpp", "cmake", "bash"} <= languages


def _documents_with_python():
    return [pytest.param(d, id=i) for d, i in zip(DOCUMENTS, DOCUMENT_IDS)
            if any(language == "python" and not marked(body) for language, body in blocks(d))]


@pytest.mark.parametrize("document", _documents_with_python())
def test_python_examples_run(document, tmp_path):
    first = next(body for language, body in blocks(document)
                 if language == "python" and not marked(body))
    script = python_script(document)
    assert FIRST_IMPORT.search(first), "the document's first example imports hardsigmoid_ops"
    assert not RAW_LOAD.search(script), "the examples load the library through the package"
    (tmp_path / "readme_examples.py").write_text(script)
    # A CMake build's user, as docs/quickstart.md says: the source tree's package on the path, and
    # the library under test named.
    env = dict(os.environ, HARDSIGMOID_OPS_LIBRARY=str(LIBRARY), PYTHONPATH=os.pathsep.join(
        [str(REPO_ROOT / "python"), os.environ.get("PYTHONPATH", "")]))
    result = subprocess.run([sys.executable, "readme_examples.py"], cwd=tmp_path, env=env,
                            capture_output=True, text=True, timeout=900)
    if result.returncode == -signal.SIGSEGV and _aoti_load_package_crashes(tmp_path):
        pytest.xfail("torch's aoti_load_package crashes on this machine even for a plain aten "
                     "model (docs/errors_and_limitations.md); the other examples ran up to it")
    assert result.returncode == 0, (
        f"{document.name}'s Python examples failed:\n{result.stderr[-4000:]}")


# torch 2.11's aoti_load_package has been seen to crash (SIGSEGV) on a GPU machine for a model
# without any of our ops; docs/compile_and_export.md's AOTInductor example calls it.
PLAIN_ATEN_AOTI = """
import torch
model = torch.nn.Linear(4, 4).eval()
program = torch.export.export(model, (torch.randn(2, 4),))
torch._inductor.aoti_compile_and_package(program, package_path="plain.pt2")
torch._inductor.aoti_load_package("plain.pt2")(torch.randn(2, 4))
"""


def _aoti_load_package_crashes(tmp_path):
    result = subprocess.run([sys.executable, "-c", PLAIN_ATEN_AOTI], cwd=tmp_path,
                            capture_output=True, text=True, timeout=900)
    return result.returncode == -signal.SIGSEGV


def _marked_examples():
    return [pytest.param(document, body, id=f"{document.name}-{index}")
            for index, (document, _, body) in enumerate(_all_blocks()) if marked(body)]


@pytest.mark.parametrize("document,body", _marked_examples())
def test_marked_example_is_in_its_source(document, body):
    source_path = REPO_ROOT / marked(body)
    assert source_path.is_file(), f"{source_path} named by {document.name}'s example does not exist"
    source = _code_lines(source_path.read_text())
    position = 0
    for line in _code_lines(body.split("\n", 1)[1]):
        try:
            position = source.index(line, position) + 1
        except ValueError:
            pytest.fail(f"{document.name}'s line {line!r} is not in {source_path.name} "
                        "(in this order)")


def test_shell_examples_name_existing_scripts():
    for document, language, body in _all_blocks():
        if language != "bash":
            continue
        for script in re.findall(r"\b(?:scripts|\.ci)/[\w./-]+", body):
            assert (REPO_ROOT / script).exists(), (
                f"{document.name} names {script}, which does not exist")


# ---- links and quoted paths ----------------------------------------------------------------------

LINK = re.compile(r"\[[^\]]*\]\(([^)\s]+)\)")
QUOTED = re.compile(r"`([^`\s]+)`")
# The repository's top-level folders: a quoted path starting with one is a path of the tree.
TREE = ("ops/", "registration/", "python/", "python_tests/", "cpp_tests/", "benchmarks/",
        "scripts/", "cmake/", "docs/", "executorch_kernels/", "executorch_examples/",
        "torchscript_examples/", "export_examples/", "distributed_examples/", ".ci/")
# A bare file name of the kinds the tree holds, quoted alone (`test_quantized.py`).
SOURCE_NAME = re.compile(r"^[\w.-]+\.(py|cpp|h|cu|cuh|sh|cmake|md)$")


def _prose(document):
    """The document without its code blocks (what they name is checked above)."""
    return FENCE.sub("", document.read_text())


@functools.cache
def _tree_file_names():
    """The names of the files under the repository's folders (read from the files themselves, so
    that a copy of the tree without its git history is checked as well)."""
    names = {path.name for path in REPO_ROOT.iterdir() if path.is_file()}
    for folder in TREE:
        names.update(path.name for path in (REPO_ROOT / folder).rglob("*") if path.is_file())
    return names


def _exists(path):
    """A tree path, a `::test` suffix and a family of files by `*` (`byte_table.*`) allowed."""
    path = path.split("::", 1)[0].rstrip(",.;:")
    if "*" in path:
        return any(REPO_ROOT.glob(path))
    return (REPO_ROOT / path).exists()


@pytest.mark.parametrize("document", DOCUMENTS, ids=DOCUMENT_IDS)
def test_links_lead_to_existing_files(document):
    missing = []
    for target in LINK.findall(_prose(document)):
        if re.match(r"^[a-z]+:", target) or target.startswith("#"):
            continue  # a web address or an anchor of the same page
        if not (document.parent / target.split("#", 1)[0]).exists():
            missing.append(target)
    assert not missing, f"{document.name} links to missing files: {missing}"


@pytest.mark.parametrize("document", DOCUMENTS, ids=DOCUMENT_IDS)
def test_quoted_paths_exist(document):
    names = _tree_file_names()
    missing = []
    for quoted in QUOTED.findall(_prose(document)):
        if quoted.startswith(TREE):
            if not _exists(quoted):
                missing.append(quoted)
        elif SOURCE_NAME.match(quoted.split("::", 1)[0]) and quoted.split("::", 1)[0] not in names:
            missing.append(quoted)
    assert not missing, f"{document.name} quotes paths that do not exist: {missing}"
