"""What the processes of one pytest run share under pytest-xdist (-n N): a directory, and locks in
it.

Each xdist worker has a base temporary directory of its own, inside one directory of the run; a
plain run has only its own. A lock there makes a costly fixture (the pip build) run once for every
worker, and keeps tests of several GiB from holding their memory at once.
"""

import os

import filelock


def run_wide_directory(tmp_path_factory):
    base = tmp_path_factory.getbasetemp()
    return base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base


def run_wide_lock(tmp_path_factory, name):
    return filelock.FileLock(str(run_wide_directory(tmp_path_factory) / f"{name}.lock"))
