"""Where the library under test is, and the seed of this run's random inputs.

HARDSIGMOID_OPS_LIBRARY names the .so (default: build/libhardsigmoid_ops.so under the repository
root). HARDSIGMOID_OPS_SEED fixes the random inputs; without it a fresh seed is drawn each run.
HARDSIGMOID_OPS_TEST_LARGE_NUMEL sets the size the comparisons split across threads (default
2**20); under an emulator (scripts/aarch64_check.sh) 2**17, still four of aten's grains.
"""

import os
import pathlib
import random

REPO_ROOT = pathlib.Path(__file__).resolve().parents[2]
LIBRARY = pathlib.Path(
    os.environ.get("HARDSIGMOID_OPS_LIBRARY") or REPO_ROOT / "build" / "libhardsigmoid_ops.so"
).resolve()
SEED = int(os.environ.get("HARDSIGMOID_OPS_SEED") or random.SystemRandom().randrange(2**32))
LARGE_NUMEL = int(os.environ.get("HARDSIGMOID_OPS_TEST_LARGE_NUMEL") or 1 << 20)
