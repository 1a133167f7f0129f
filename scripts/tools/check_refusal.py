"""Run in a torch other than the library's (HARDSIGMOID_OPS_LIBRARY): importing the package must
refuse the library by name, naming both releases, not fail in the dynamic loader
(scripts/torch_versions.sh).

    python scripts/tools/check_refusal.py BUILT_AGAINST_VERSION
"""
import sys

import torch

built_against = sys.argv[1]
try:
    import hardsigmoid_ops  # noqa: F401 (the import is the check)
except ImportError as error:
    message = str(error)
    assert f"built against torch {built_against}" in message, message
    assert torch.__version__ in message, message
    print("refused:", message)
else:
    sys.exit(f"torch {torch.__version__} loaded a library built against torch {built_against}")
