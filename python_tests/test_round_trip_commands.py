"""The commands docs/compile_and_export.md and docs/torchscript.md give for running their C++
excerpts' programs, as written: each page's `bash ...round_trip.sh ...` line, from the source
tree, with the run's build directory in place of the page's `build/` and a temporary folder in
place of its `/tmp/...` (CTest runs the same scripts with its own paths)."""

import os
import re
import subprocess
import sys

import pytest

from hardsigmoid_testing.config import LIBRARY, REPO_ROOT
from hardsigmoid_testing.doc_blocks import blocks

BUILD = LIBRARY.parent
PAGES = {"compile_and_export.md": "run_aoti_package",
         "torchscript.md": "run_torchscript_models"}


def _round_trip_command(page):
    """The page's round-trip command, its continuation lines joined."""
    for language, body in blocks(REPO_ROOT / "docs" / page):
        if language == "bash" and "round_trip.sh" in body:
            text = body.replace("\\\n", " ")
            command, = [line for line in text.splitlines() if "round_trip.sh" in line]
            return " ".join(command.split())
    pytest.fail(f"{page} gives no round_trip.sh command")


@pytest.mark.parametrize("page", PAGES)
def test_round_trip_command_runs_as_written(page, tmp_path):
    program = PAGES[page]
    command = _round_trip_command(page)
    built = re.search(r"build/(\S+/" + program + r")\b", command)
    assert built, f"{page}'s command does not run build/.../{program}"
    if not any(path.is_file() for path in BUILD.glob(f"*/{program}")):
        pytest.skip(f"{program} is not built in {BUILD} (a build with the examples)")
    assert (BUILD / built.group(1)).is_file(), f"{page} names build/{built.group(1)}, not built"
    # The page's output folder first: the build directory may itself lie under /tmp.
    command = re.sub(r" /tmp/\S+", f" {tmp_path}/out", command)
    command = command.replace(" build/", f" {BUILD}/")
    env = dict(os.environ)
    env["PATH"] = os.pathsep.join([os.path.dirname(sys.executable), env.get("PATH", "")])
    result = subprocess.run(["bash", "-c", command], cwd=REPO_ROOT, env=env, capture_output=True,
                            text=True, timeout=900)
    assert result.returncode == 0, (command, result.stdout[-3000:], result.stderr[-3000:])
    assert "equal to aten's model" in result.stdout
