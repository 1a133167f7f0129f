"""Where the library under test is, and the seed of this run's random inputs.

HARDSIGMOID_OPS_LIBRARY names the .so (default: build/libhardsigmoid_ops.so under the repository
root). HARDSIGMOID_OPS_SEED fixes the random inputs; without it a fresh seed is drawn each run.
"""

import os
import pathlib
import random

REPO_ROOT = pathlib.Path(__file__).resolve().parents[2]
LIBRARY = pathlib.Path(
    os.environ.get("HARDSIGMOID_OPS_LIBRARY") or REPO_ROOT / "build" / "libhardsigmoid_ops.so"
).resolve()
SEED = int(os.environ.get("HARDSIGMOID_OPS_SEED") or random.SystemRandom().randrange(2**32))
