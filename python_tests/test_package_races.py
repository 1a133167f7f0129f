"""The races of the package's shared state (the package's docstring gives its rule), each made to
happen: pauses held open at the race's window while other threads act, threads released together,
the GIL switching every microsecond (hardsigmoid_testing/package_races.py, run in a fresh Python
with the package's Python files alone, so that its first load happens in the race). Each scenario
also reports that its window was reached: a race never set up proves nothing."""

import json
import os
import pathlib
import subprocess
import sys

import pytest

from hardsigmoid_testing.config import LIBRARY, copy_package_without_library

TESTING = pathlib.Path(__file__).resolve().parent


def run_race(scenario, seed, trials, tmp_path):
    copy = tmp_path / "site" / "hardsigmoid_ops"
    copy_package_without_library(copy)
    env = {k: v for k, v in os.environ.items() if k != "HARDSIGMOID_OPS_LIBRARY"}
    env["PYTHONPATH"] = os.pathsep.join([str(TESTING), str(copy.parent)])
    result = subprocess.run(
        [sys.executable, "-m", "hardsigmoid_testing.package_races", scenario, str(seed),
         str(trials), str(LIBRARY)], env=env, capture_output=True, text=True, timeout=600)
    assert result.returncode == 0, result.stderr[-4000:]
    report = json.loads(result.stdout.splitlines()[-1])
    print(json.dumps({k: v for k, v in report.items() if k != "failures"}))
    assert report["windows_reached"] == trials, f"the race was not set up: {report}"
    assert not report["failures"], "\n".join(report["failures"][:20])
    return report


ON_IMPORT_TRIALS = 40


def test_on_import_callbacks_run_once_on_the_whole_module(tmp_path, seed):
    """8 threads ask for one callback (and one each of their own) on a fresh module, 2 before a
    ninth thread imports it, 2 while it is found but not yet in sys.modules, 2 while its code runs,
    2 after: each callback runs exactly once, never on the half-run module, and has run by the time
    when_imported returns on the whole module."""
    run_race("on_import", seed, ON_IMPORT_TRIALS, tmp_path)


def test_on_import_callbacks_reach_a_module_imported_before_it_was_watched(tmp_path, seed):
    """The import of a fresh module begun before any callback was asked for it (its spec found
    unwatched): 4 threads ask while its code runs, 4 after; the same guarantees."""
    run_race("on_import_unwatched", seed, ON_IMPORT_TRIALS, tmp_path)


@pytest.mark.skipif(not hasattr(os, "fork"), reason="no fork on this platform")
def test_a_child_forked_while_the_lock_is_held_imports(tmp_path, seed):
    """A process forked while another thread holds the package's lock: the child's import of a
    watched module completes and calls back (the child gets a free lock)."""
    run_race("fork", seed, 3, tmp_path)


def test_a_firing_callback_leaves_other_imports_their_finders(tmp_path, seed):
    """An import paused in the middle of sys.meta_path, while a callback fires for another module,
    must still reach PathFinder: the package never takes an entry out of sys.meta_path, which
    would make the paused search skip one."""
    run_race("meta_path", seed, ON_IMPORT_TRIALS, tmp_path)


@pytest.mark.parametrize("window", ["tag", "table"])
@pytest.mark.parametrize("attempt", range(2))
def test_compile_fusion_switched_during_the_load(window, attempt, tmp_path, seed):
    """set_compile_fusion(False) while load_library is paused writing inductor's cache-key tag, or
    changing inductor's decomposition table: both must name the switch's final state (a wrong tag
    serves a graph compiled in one state from the disk cache in the other)."""
    run_race(f"fusion_{window}", seed + attempt, 1, tmp_path)


def test_every_thread_reads_the_cache_key_tag_of_the_state(tmp_path, seed):
    """The library loaded in one thread and the switch turned in others: the tag that keys the
    compiled-graph caches on disk names the state in every thread, the main one and threads
    started later. A torch that keeps config values per thread (2.15; not 2.11, where a value is
    the process's) showed a tag written only in the loading thread: '' everywhere else."""
    report = run_race("tag_across_threads", seed, 1, tmp_path)
    print("config values per thread:", report["per_thread_config"])


@pytest.mark.parametrize("attempt", range(2))
def test_load_while_inductor_is_half_imported(attempt, tmp_path, seed):
    """load_library while another thread's import of inductor's decomposition module is paused
    before its table exists: the load succeeds, and the table holds the ops' entries once the
    import completes (not an AttributeError, not a table left without them)."""
    report = run_race("inductor_mid_import", seed + attempt, 1, tmp_path)
    assert report["half_imported_at_the_pause"], "the pause came before the module was importing"
    assert report["half_imported_at_the_load"], "the load did not happen while it was importing"


def test_nothing_is_imported_holding_the_lock(tmp_path, seed):
    """The rule that keeps the lock from deadlocking with an import: a thread that holds it never
    imports (an importing thread may be waiting for it in a callback). The load, the callbacks of
    every watched module (the ones importable here: 5 or more) and the switch, with every import
    looked for while the lock is held recorded."""
    report = run_race("imports_under_the_lock", seed, 1, tmp_path)
    print(report["imported"], report["unavailable"])
