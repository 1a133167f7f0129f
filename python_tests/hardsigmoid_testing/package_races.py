"""Run as a program by test_package_races.py, in a fresh Python: one race of the package's shared
state, made to happen by pauses held open at its window while other threads act, the GIL (where
there is one) switching every microsecond. Prints one JSON object: the trials, the failures (each
a short description), and counts showing that each window was reached.

    python -m hardsigmoid_testing.package_races SCENARIO SEED TRIALS [LIBRARY]

Scenarios:
  on_import     8 threads ask _on_import.when_imported for one callback (and one of their own) on a
                fresh module, 2 before a ninth thread's import starts, 2 while its loader creates
                the module (found, not yet in sys.modules), 2 while its code runs (in sys.modules,
                half done), 2 after; each callback must run exactly once, on the whole module, and
                have run when when_imported returns if the module is whole by then.
  on_import_unwatched  the same with the import begun first, before anyone asked: 4 threads ask
                while the module's code runs (its spec in sys.modules is then the way in), 4 after.
  fork          the process forked while another thread holds the package's lock; the child
                imports a watched module, whose import must complete (and call back) in it.
  meta_path     a thread's import paused in the middle of sys.meta_path (at a finder just before
                PathFinder) while another thread's when_imported callback fires: the paused import
                must still reach PathFinder (an entry removed before its place makes it skip one).
  fusion_tag    load_library in one thread, paused as it writes inductor's cache-key tag, while
  fusion_table  another turns compile fusion off (or paused as it changes inductor's
                decomposition table): afterwards the tag and the table must both name the switch's
                state.
  inductor_mid_import  load_library while another thread's import of inductor's decomposition
                module is paused half way (before its table exists): the load must succeed and
                the table hold the ops' entries once the import completes.
  tag_across_threads  the library loaded and the switch turned each in a thread of its own: the
                cache-key tag read in the main thread and in new threads names the state (torch
                2.15 keeps config values per thread).
  imports_under_the_lock  not a race: the rule that prevents a deadlock between the package's
                lock and an import lock. The library loaded, every module the package watches
                imported (two before the load, the others after; their callbacks run holding the
                lock), the switch turned: no thread holding the package's lock may import a
                module that is not imported, or that another thread is importing.
"""

import _imp
import importlib
import importlib.abc
import importlib.machinery
import importlib.util
import json
import os
import pathlib
import random
import sys
import tempfile
import threading
import time

# Every wait is bounded: a fixed package serializes what the old one raced, so a pause that waits
# for the other thread to act may wait for it in vain (the other thread waits for the lock).
PAUSE_S = 0.3
JOIN_S = 60


def switch_often():
    sys.setswitchinterval(1e-6)


def settle(rng):
    """A short random delay: the seeds vary the interleavings inside each window."""
    time.sleep(rng.random() * 2e-4)


# --- on_import -------------------------------------------------------------------------------

PREFIX = "hardsigmoid_races_fresh_"


class PhasedLoader(importlib.abc.Loader):
    """Creates and runs a fresh module, pausing at each of the import's two windows until the
    threads of that phase have asked (or PAUSE_S has passed)."""

    def __init__(self, trial):
        self.trial = trial

    def create_module(self, spec):
        self.trial.reached["creating"].set()
        self.trial.asked["creating"].wait(PAUSE_S)
        return None

    def exec_module(self, module):
        self.trial.reached["executing"].set()
        self.trial.asked["executing"].wait(PAUSE_S)
        module.WHOLE = True


class FreshModules(importlib.abc.MetaPathFinder):
    """Finds the trials' fresh modules (last in sys.meta_path, as a real module's finder is)."""

    trials = {}

    def find_spec(self, name, path, target=None):
        trial = self.trials.get(name)
        if trial is None:
            return None
        return importlib.machinery.ModuleSpec(name, PhasedLoader(trial))


PHASES = ("before", "creating", "executing", "after")


class Trial:
    def __init__(self, name):
        self.name = name
        self.reached = {phase: threading.Event() for phase in PHASES}
        self.asked = {phase: threading.Event() for phase in PHASES}
        self.runs = {}  # callback label -> [whether the module was whole, ...]
        self.lock = threading.Lock()
        self.failures = []

    def callback(self, label):
        def called(module):
            with self.lock:
                self.runs.setdefault(label, []).append(getattr(module, "WHOLE", False))
        return called

    def whole(self):
        module = sys.modules.get(self.name)
        spec = getattr(module, "__spec__", None)
        return module is not None and not getattr(spec, "_initializing", False)


# Askers per phase: with the module watched before its import begins (a callback asked before
# it), and with the import begun first, unwatched: the asked-for callbacks then reach the module
# through its spec in sys.modules (the window between its finding and sys.modules is the one the
# package names as left open: no asker there).
PLANS = {
    "watched": {"before": 2, "creating": 2, "executing": 2, "after": 2},
    "unwatched": {"before": 0, "creating": 0, "executing": 4, "after": 4},
}


def on_import_trial(when_imported, index, rng, plan):
    trial = Trial(f"{PREFIX}{index}")
    FreshModules.trials[trial.name] = trial
    shared = trial.callback("shared")
    phases = [phase for phase in PHASES for _ in range(plan[phase])]
    rng.shuffle(phases)
    barriers = {phase: threading.Barrier(plan[phase], timeout=JOIN_S)
                for phase in PHASES if plan[phase]}
    asked_count = {phase: 0 for phase in PHASES}
    for phase in PHASES:
        if not plan[phase]:
            trial.asked[phase].set()

    def asker(i, phase):
        if phase != "before":
            trial.reached[phase].wait(JOIN_S)
        barriers[phase].wait()
        settle(rng)
        own = trial.callback(f"thread {i}")
        when_imported(trial.name, shared)
        when_imported(trial.name, own)
        if trial.whole():
            with trial.lock:
                for label in ("shared", f"thread {i}"):
                    if not trial.runs.get(label):
                        trial.failures.append(f"{label}: not run when when_imported returned on "
                                              f"the whole module ({phase})")
        with trial.lock:
            asked_count[phase] += 1
            if asked_count[phase] == plan[phase]:
                trial.asked[phase].set()

    def importer():
        trial.asked["before"].wait(JOIN_S)
        importlib.import_module(trial.name)
        trial.reached["after"].set()

    threads = [threading.Thread(target=asker, args=(i, phase)) for i, phase in enumerate(phases)]
    threads.append(threading.Thread(target=importer))
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(JOIN_S)
    labels = ["shared", *(f"thread {i}" for i in range(len(phases)))]
    for label in labels:
        runs = trial.runs.get(label, [])
        if not runs:
            trial.failures.append(f"{label}: lost")
        elif len(runs) > 1:
            trial.failures.append(f"{label}: ran {len(runs)} times")
        if not all(runs):
            trial.failures.append(f"{label}: ran on the module before its code had run")
    reached = all(trial.reached[phase].is_set() for phase in PHASES[1:])
    return trial.failures, reached


def on_import(plan):
    def scenario(seed, trials, _library):
        from hardsigmoid_ops import _on_import

        sys.meta_path.append(FreshModules())
        rng = random.Random(seed)
        switch_often()
        failures, kinds, reached = [], {}, 0
        for index in range(trials):
            found, whole_windows = on_import_trial(_on_import.when_imported, f"{seed}_{index}",
                                                   rng, PLANS[plan])
            reached += whole_windows
            if found:
                failures.append(f"trial {index}: {'; '.join(found)}")
            for failure in found:
                kind = failure.split(": ", 1)[1].split(" (")[0]
                kind = "ran more than once" if kind.startswith("ran ") and "times" in kind else kind
                kinds[kind] = kinds.get(kind, 0) + 1
        return {"failures": failures, "failure_kinds": kinds, "failed_trials": len(failures),
                "windows_reached": reached}

    return scenario


# --- meta_path -------------------------------------------------------------------------------

def pause_in_a_finder(reached, resume, timeout):
    """Sets `reached` and waits for `resume` (at most `timeout` s) inside a finder, with Python's
    global import lock, which it holds there, let go meanwhile and taken again after."""
    held = _imp.lock_held()
    if held:
        _imp.release_lock()
    reached.set()
    resume.wait(timeout)
    if held:
        _imp.acquire_lock()


class PauseBeforePathFinder(importlib.abc.MetaPathFinder):
    """Stands just before PathFinder: pauses the paused thread's search for its module there, as
    if the thread were stopped right after this finder returned. Python asks each finder under its
    global import lock and lets it go between two finders, where another thread may run; so the
    pause lets the lock go as it begins and takes it again as it ends."""

    def __init__(self):
        self.name = None
        self.paused, self.release = threading.Event(), threading.Event()

    def find_spec(self, name, path, target=None):
        if name == self.name:
            self.name = None
            pause_in_a_finder(self.paused, self.release, PAUSE_S * 3)
        return None


def meta_path(seed, trials, _library):
    from hardsigmoid_ops import _on_import

    sys.meta_path.append(FreshModules())
    directory = pathlib.Path(tempfile.mkdtemp())
    sys.path.insert(0, str(directory))
    pause = PauseBeforePathFinder()
    sys.meta_path.insert(sys.meta_path.index(importlib.machinery.PathFinder), pause)
    rng = random.Random(seed)
    switch_often()
    failures, reached = [], 0
    for index in range(trials):
        real = f"hardsigmoid_races_real_{seed}_{index}"
        (directory / f"{real}.py").write_text("VALUE = 1\n")
        importlib.invalidate_caches()
        trial = Trial(f"{PREFIX}meta_{seed}_{index}")
        trial.asked["creating"].set()
        trial.asked["executing"].set()
        FreshModules.trials[trial.name] = trial
        _on_import.when_imported(trial.name, trial.callback("hook"))
        pause.name, outcome = real, []
        pause.paused.clear()
        pause.release.clear()

        def paused_import(real=real, outcome=outcome):
            try:
                outcome.append(importlib.import_module(real).VALUE)
            except ImportError as error:
                outcome.append(error)

        thread = threading.Thread(target=paused_import)
        thread.start()
        reached += pause.paused.wait(JOIN_S)
        settle(rng)
        importlib.import_module(trial.name)  # its callback fires while the other import waits
        pause.release.set()
        thread.join(JOIN_S)
        if outcome != [1]:
            failures.append(f"trial {index}: importing {real}: {outcome[0]!r}")
        if len(trial.runs.get("hook", [])) != 1:
            failures.append(f"trial {index}: the callback ran {len(trial.runs.get('hook', []))} "
                            "times")
    return {"failures": failures, "failed_trials": len(failures), "windows_reached": reached}


# --- fork -------------------------------------------------------------------------------------

def fork_while_locked(seed, trials, _library):
    """A process forked while another thread holds the package's lock, its child then importing a
    watched module: the child must not wait for a lock whose holder does not exist there."""
    from hardsigmoid_ops import _on_import, _state

    sys.meta_path.append(FreshModules())
    failures, reached = [], 0
    for index in range(trials):
        trial = Trial(f"{PREFIX}fork_{seed}_{index}")
        for event in trial.asked.values():
            event.set()
        FreshModules.trials[trial.name] = trial
        _on_import.when_imported(trial.name, trial.callback("hook"))
        held, release = threading.Event(), threading.Event()

        def hold(held=held, release=release):
            with _state.LOCK:
                held.set()
                release.wait(JOIN_S)

        holder = threading.Thread(target=hold)
        holder.start()
        reached += held.wait(JOIN_S)
        pid = os.fork()
        if pid == 0:
            importlib.import_module(trial.name)
            os._exit(0 if trial.runs.get("hook") == [True] else 3)
        deadline = time.monotonic() + 10
        status = None
        while time.monotonic() < deadline:
            done, code = os.waitpid(pid, os.WNOHANG)
            if done:
                status = os.waitstatus_to_exitcode(code)
                break
            time.sleep(0.01)
        else:
            os.kill(pid, 9)
            os.waitpid(pid, 0)
        release.set()
        holder.join(JOIN_S)
        if status != 0:
            failures.append(f"trial {index}: the child " + (
                "hung importing a watched module" if status is None else f"exited {status}"))
    return {"failures": failures, "failed_trials": len(failures), "windows_reached": reached}


# --- the package's own registrations ---------------------------------------------------------

def ops_entries_in(decompositions):
    import torch

    ops = torch.ops.hardsigmoid_ops
    return sum(op in decompositions for op in (ops.hardsigmoid.default, ops.hardsigmoid_.default,
                                               ops.hardsigmoid_out.default,
                                               ops.hardsigmoid_backward.default))


class PauseOnce:
    """Pauses the loading thread the first time it reaches the window, until the other thread has
    done what it races with (or PAUSE_S has passed)."""

    def __init__(self):
        self.loader = None
        self.reached, self.other_done = threading.Event(), threading.Event()

    def __call__(self):
        if threading.current_thread() is self.loader and not self.reached.is_set():
            self.reached.set()
            self.other_done.wait(PAUSE_S)


class PausingConfig:
    """torch.compiler.config as the package sees it, pausing before the cache-key tag is written:
    through the module, or into its entry's process-wide levels (where torch keeps the module's
    values per thread, the package writes those too: _cache_key_tag.py)."""

    def __init__(self, real, pause, fields=("cache_key_tag",)):
        object.__setattr__(self, "_real", real)
        object.__setattr__(self, "_pause", pause)
        object.__setattr__(self, "_fields", fields)

    def __getattr__(self, name):
        value = getattr(self._real, name)
        if name == "_config" and "cache_key_tag" in value:
            entry = PausingConfig(value["cache_key_tag"], self._pause,
                                  fields=("default", "env_value_default"))
            return {**value, "cache_key_tag": entry}
        return value

    def __setattr__(self, name, value):
        if name in self._fields:
            self._pause()
        setattr(self._real, name, value)


class PausingTable(dict):
    """Inductor's decomposition table, pausing before any change made to it."""

    pause = None

    def _paused(method):  # noqa: N805 -- a decorator of the class body
        def changed(self, *args, **kwargs):
            type(self).pause()
            return getattr(dict, method.__name__)(self, *args, **kwargs)
        return changed

    @_paused
    def __setitem__(self, *args): ...

    @_paused
    def __delitem__(self, *args): ...

    @_paused
    def update(self, *args, **kwargs): ...

    @_paused
    def pop(self, *args): ...


def fusion(window):
    def scenario(seed, trials, library):
        import torch
        import torch._inductor.decomposition as inductor

        import hardsigmoid_ops

        pause = PauseOnce()
        if window == "tag":
            torch.compiler.config = PausingConfig(torch.compiler.config, pause)
        else:
            PausingTable.pause = pause
            inductor.decompositions = PausingTable(inductor.decompositions)
        rng = random.Random(seed)
        switch_often()
        errors = []

        def load():
            try:
                hardsigmoid_ops.load_library(library)
            except Exception as error:  # noqa: BLE001 -- reported
                errors.append(f"load_library: {error!r}")

        def switch_off():
            pause.reached.wait(JOIN_S)
            settle(rng)
            hardsigmoid_ops.set_compile_fusion(False)
            pause.other_done.set()

        loader = threading.Thread(target=load)
        pause.loader = loader
        threads = [loader, threading.Thread(target=switch_off)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(JOIN_S)
        enabled = hardsigmoid_ops.compile_fusion_enabled()
        tag = torch.compiler.config.cache_key_tag
        entries = ops_entries_in(inductor.decompositions)
        failures = list(errors)
        if ("-off" in tag) == enabled or "hardsigmoid_ops-compile-fusion-" not in tag:
            failures.append(f"fusion {'on' if enabled else 'off'}, cache-key tag {tag!r}")
        if entries != (4 if enabled else 0):
            failures.append(f"fusion {'on' if enabled else 'off'}, {entries} of the 4 ops' "
                            "entries in inductor's table")
        return {"failures": failures, "failed_trials": int(bool(failures)),
                "windows_reached": int(pause.reached.is_set())}

    return scenario


def tag_across_threads(seed, trials, library):
    """The library loaded in one thread, the switch turned in another: every thread, one started
    before, others after, the main one, must read the tag of the switch's state."""
    import torch

    import hardsigmoid_ops

    def tag_in_a_new_thread():
        seen = []
        thread = threading.Thread(target=lambda: seen.append(torch.compiler.config.cache_key_tag))
        thread.start()
        thread.join(JOIN_S)
        return seen[0]

    failures = []

    def check(when, enabled):
        state = "-v" if enabled else "-off"
        for where, tag in (("a new thread", tag_in_a_new_thread()),
                           ("the main thread", torch.compiler.config.cache_key_tag)):
            if f"hardsigmoid_ops-compile-fusion{state}" not in tag:
                failures.append(f"{when}: {where} reads the cache-key tag {tag!r}")

    for step, action in (("after the load", lambda: hardsigmoid_ops.load_library(library)),
                         ("after fusion off", lambda: hardsigmoid_ops.set_compile_fusion(False)),
                         ("after fusion on", lambda: hardsigmoid_ops.set_compile_fusion(True))):
        thread = threading.Thread(target=action)
        thread.start()
        thread.join(JOIN_S)
        check(step, hardsigmoid_ops.compile_fusion_enabled())
    return {"failures": failures, "failed_trials": int(bool(failures)), "windows_reached": 1,
            "per_thread_config": per_thread_config()}


def per_thread_config():
    """Whether this torch keeps torch.compiler.config's values per thread."""
    import contextvars

    import torch

    entry = getattr(torch.compiler.config, "_config", {}).get("cache_key_tag")
    return isinstance(getattr(entry, "user_override", None), contextvars.ContextVar)


class PauseInductorsImport(importlib.abc.MetaPathFinder):
    """Pauses the importing thread when inductor's decomposition module imports inductor_prims,
    before the module's table exists, until the load is done (or PAUSE_S * 10 has passed)."""

    NAME = "torch._inductor.inductor_prims"

    def __init__(self):
        self.reached, self.loaded = threading.Event(), threading.Event()
        self.half_imported = False

    def find_spec(self, name, path, target=None):
        if name == self.NAME and not self.reached.is_set():
            self.half_imported = "torch._inductor.decomposition" in sys.modules
            # The load's own imports need the global import lock: let go while paused.
            pause_in_a_finder(self.reached, self.loaded, PAUSE_S * 10)
        return None


def importing(name):
    """Whether `name` is in sys.modules with its code still running."""
    module = sys.modules.get(name)
    return module is not None and bool(getattr(module.__spec__, "_initializing", False))


def inductor_mid_import(seed, trials, library):
    import torch

    import hardsigmoid_ops

    assert "torch._inductor.decomposition" not in sys.modules
    pause = PauseInductorsImport()
    sys.meta_path.insert(0, pause)
    rng = random.Random(seed)
    switch_often()
    errors, half_imported_at_the_load = [], []

    def import_inductor():
        import torch._inductor.decomposition  # noqa: F401

    def load():
        pause.reached.wait(JOIN_S)
        settle(rng)
        try:
            hardsigmoid_ops.load_library(library)
        except Exception as error:  # noqa: BLE001 -- reported
            errors.append(f"load_library: {error!r}")
        half_imported_at_the_load.append(importing("torch._inductor.decomposition"))
        pause.loaded.set()

    threads = [threading.Thread(target=import_inductor), threading.Thread(target=load)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(JOIN_S)
    failures = list(errors)
    from torch._inductor.decomposition import decompositions

    entries = ops_entries_in(decompositions)
    if entries != 4:
        failures.append(f"{entries} of the 4 ops' entries in inductor's table after its import")
    del torch
    return {"failures": failures, "failed_trials": int(bool(failures)),
            "windows_reached": int(pause.reached.is_set()),
            "half_imported_at_the_pause": pause.half_imported,
            "half_imported_at_the_load": half_imported_at_the_load == [True]}


class ImportsUnderTheLock(importlib.abc.MetaPathFinder):
    """First in sys.meta_path: records each module looked for by a thread holding the lock."""

    def __init__(self, lock):
        self.lock, self.seen = lock, []

    def find_spec(self, name, path, target=None):
        if self.lock._is_owned():
            self.seen.append(name)
        return None


def importing_here(name):
    """Whether this thread is importing `name` (holds its import lock), as far as this Python
    tells (None where it does not)."""
    locks = getattr(importlib._bootstrap, "_module_locks", None)
    if locks is None:
        return None
    ref = locks.get(name)
    lock = ref() if ref is not None else None
    return lock is not None and getattr(lock, "owner", None) == threading.get_ident()


def record_import_statements(recorder):
    """builtins.__import__ recording, while the lock is held, an import of a module that is not in
    sys.modules or whose code is running in another thread: one that could wait for an import
    lock. (The finder sees the first kind only when it is looked for.)"""
    import builtins

    real = builtins.__import__

    def recording(name, globals=None, locals=None, fromlist=(), level=0):
        if recorder.lock._is_owned():
            absolute = name
            if level:
                package = (globals or {}).get("__package__") or ""
                absolute = importlib.util.resolve_name("." * level + name, package)
            targets = [absolute]
            # `from package import name` imports package.name where the package has no such
            # attribute yet.
            parent = sys.modules.get(absolute)
            if parent is not None and hasattr(parent, "__path__"):
                targets += [f"{absolute}.{item}" for item in fromlist or ()
                            if item != "*" and not hasattr(parent, item)]
            for target in targets:
                if target not in sys.modules:
                    recorder.seen.append(target)
                elif importing(target) and importing_here(target) is not True:
                    recorder.seen.append(f"{target} (mid-import in another thread)")
        return real(name, globals, locals, fromlist, level)

    builtins.__import__ = recording


def imports_under_the_lock(seed, trials, library):
    import hardsigmoid_ops
    from hardsigmoid_ops import _on_import, _state

    recorder = ImportsUnderTheLock(_state.LOCK)
    sys.meta_path.insert(0, recorder)
    record_import_statements(recorder)
    # Both orders: two watched modules imported before the load (their callbacks run in it, at
    # once), the others after it (their callbacks run at the end of their imports).
    before = ["torch._dynamo", "torch.nested._internal.ops"]
    for name in before:
        importlib.import_module(name)
    hardsigmoid_ops.load_library(library)
    imported, unavailable = list(before), []
    for name in sorted(_on_import._watched - set(before)):
        try:
            importlib.import_module(name)
            imported.append(name)
        except ImportError as error:  # an optional package (executorch) not installed
            unavailable.append(f"{name}: {error}")
    for enabled in (False, True):
        hardsigmoid_ops.set_compile_fusion(enabled)
    failures = [f"{name} imported holding the package's lock" for name in recorder.seen]
    return {"failures": failures, "failed_trials": int(bool(failures)),
            "windows_reached": int(len(imported) >= 5), "imported": imported,
            "unavailable": unavailable}


SCENARIOS = {
    "on_import": on_import("watched"),
    "on_import_unwatched": on_import("unwatched"),
    "fork": fork_while_locked,
    "meta_path": meta_path,
    "fusion_tag": fusion("tag"),
    "fusion_table": fusion("table"),
    "inductor_mid_import": inductor_mid_import,
    "imports_under_the_lock": imports_under_the_lock,
    "tag_across_threads": tag_across_threads,
}


def main():
    scenario, seed, trials = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    library = sys.argv[4] if len(sys.argv) > 4 else None
    report = SCENARIOS[scenario](seed, trials, library)
    report.update(scenario=scenario, seed=seed, trials=trials)
    print(json.dumps(report))


if __name__ == "__main__":
    main()
