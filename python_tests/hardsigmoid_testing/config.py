"""Where the library under test is, and the seed of this run's random inputs.

HARDSIGMOID_OPS_LIBRARY names the .so (default: build/libhardsigmoid_ops.so under the repository
root). HARDSIGMOID_OPS_SEED fixes the random inputs; without it a fresh seed is drawn each run.
HARDSIGMOID_OPS_SEED_SWEEP=FIRST:COUNT runs every test once under each of the seeds FIRST to
FIRST + COUNT - 1 instead, in one session (scripts/seed_sweep.sh): a failure names its seed, which
HARDSIGMOID_OPS_SEED then replays alone.
HARDSIGMOID_OPS_TEST_LARGE_NUMEL sets the size the comparisons split across threads (default
2**20); under an emulator (scripts/aarch64_check.sh) one past aten's grain, 32769, which aten
still splits into a range for each of two threads.
HARDSIGMOID_OPS_TEST_EMULATED=1 (set by that script's runs under qemu) sizes the tests sized by
what an emulated run proves, bits (test_thread_split.py's sizes).
"""

import os
import pathlib
import random
import shutil

REPO_ROOT = pathlib.Path(__file__).resolve().parents[2]
LIBRARY = pathlib.Path(
    os.environ.get("HARDSIGMOID_OPS_LIBRARY") or REPO_ROOT / "build" / "libhardsigmoid_ops.so"
).resolve()
SEED = int(os.environ.get("HARDSIGMOID_OPS_SEED") or random.SystemRandom().randrange(2**32))


def _sweep(text):
    if not text:
        return []
    first, count = (int(part) for part in text.split(":"))
    return list(range(first, first + count))


SWEEP_SEEDS = _sweep(os.environ.get("HARDSIGMOID_OPS_SEED_SWEEP"))
LARGE_NUMEL = int(os.environ.get("HARDSIGMOID_OPS_TEST_LARGE_NUMEL") or 1 << 20)
EMULATED = os.environ.get("HARDSIGMOID_OPS_TEST_EMULATED") == "1"


def package_parent():
    """The folder holding the hardsigmoid_ops package under test: the one this process imported
    (the source tree's python/, or site-packages where an installed package is tested), for the
    Pythons a test starts."""
    import hardsigmoid_ops

    return pathlib.Path(hardsigmoid_ops.__file__).resolve().parent.parent


def copy_package_without_library(destination):
    """The package under test's Python files alone, copied to `destination` (a folder named
    hardsigmoid_ops): no release libraries, no library or build record beside them, so that its
    import finds no library."""
    shutil.copytree(package_parent() / "hardsigmoid_ops", destination,
                    ignore=shutil.ignore_patterns("releases", "lib", "lib64", "include", "share",
                                                  "*.so", "*.json", "__pycache__"))
